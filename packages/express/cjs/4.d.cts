// Types of `@gale-http/express/4` (Express 4): `require('@gale-http/express/4')` here, `import` through
// ../types/4.d.ts, which re-exports this file. They are @types/express@4's (a dependency of this package under the
// name @types/express-4, which TypeScript finds for `express-4`), the same declarations rather than copies:
// `express.Request` is its `Request`, `express.json` its `json`, and so on, so every typing that augments Express's
// `Request` (the global `Express` namespace: express-session, multer, passport, cookie-parser, …) applies as it does
// with Express 4. Gale's additions: `express(options)`, an app whose `listen()` returns Gale's server (Express and
// Application extend @types/express@4's, with that `listen`), the Route class, and the ExpressOptions and
// ExpressServer types. The runtime is Gale's (../dist/express4.js).
import e = require('express-4');
import http = require('node:http');

type GaleServer = import('../dist/server.js', { with: { 'resolution-mode': 'import' }}).ExpressServer;
type GaleOptions = import('../dist/application.js', { with: { 'resolution-mode': 'import' }}).ExpressOptions;
type GaleRoute = typeof import('../dist/router.js', { with: { 'resolution-mode': 'import' }}).Route;
type ListenCallback = () => void;
type ListenOptions = { port?: number | string; host?: string; backlog?: number };

/**
 * Creates an Express 4 application served by Gale's engine. `options` is Gale's addition: Express's `express()` takes
 * none.
 *
 * @example
 * import express from '@gale-http/express/4';
 * const app = express();
 * app.get('/files/*', (req, res) => res.send(req.params[0]));
 * app.listen(3000);
 */
declare function express(options?: express.ExpressOptions): express.Express;

declare namespace express {
  // What @types/express@4 declares, as it declares it (aliases of its symbols).
  export import json = e.json;
  export import raw = e.raw;
  export import text = e.text;
  export import urlencoded = e.urlencoded;
  export import static = e.static;
  export import query = e.query;
  export import application = e.application;
  export import request = e.request;
  export import response = e.response;
  export import Router = e.Router;
  export import RouterOptions = e.RouterOptions;
  export import CookieOptions = e.CookieOptions;
  export import Errback = e.Errback;
  export import ErrorRequestHandler = e.ErrorRequestHandler;
  export import Handler = e.Handler;
  export import IRoute = e.IRoute;
  export import IRouter = e.IRouter;
  export import IRouterHandler = e.IRouterHandler;
  export import IRouterMatcher = e.IRouterMatcher;
  export import MediaType = e.MediaType;
  export import NextFunction = e.NextFunction;
  export import Locals = e.Locals;
  export import Request = e.Request;
  export import RequestHandler = e.RequestHandler;
  export import RequestParamHandler = e.RequestParamHandler;
  export import Response = e.Response;
  export import Send = e.Send;

  /**
   * An Express application: @types/express@4's, with Gale's `listen()` (it serves the app on Gale's engine and returns
   * Gale's server). Its last overload takes no argument at all (`never`): it keeps this a subtype of @types/express@4's
   * Application, whose `listen` returns an http.Server, so the app goes wherever an Express app is typed.
   *
   * @example
   * const app: Application = express();
   * app.set('trust proxy', 'loopback');
   * app.get('/', (req, res) => res.send('hi'));
   */
  interface Application extends e.Application {
    /**
     * Serves the app on Gale's engine and returns the server (Gale's, not node:http's: see ExpressServer). TCP ports
     * only: a port number or a string of digits (`process.env.PORT`); 0 or none picks a free port.
     *
     * @example
     * const server = app.listen(3000, () => console.log(`listening on ${server.address()?.port}`));
     */
    listen(port?: number | string, hostname?: string, backlog?: number, callback?: ListenCallback): GaleServer;
    listen(port: number | string | undefined, hostname?: string, callback?: ListenCallback): GaleServer;
    listen(port: number | string | undefined, callback?: ListenCallback): GaleServer;
    listen(callback?: ListenCallback): GaleServer;
    listen(options: ListenOptions, callback?: ListenCallback): GaleServer;
    listen(...never: never[]): http.Server;
  }
  /**
   * What `express()` returns: @types/express@4's Express, with Gale's `listen()` (as Application's).
   *
   * @example
   * const app: Express = express();
   * const server = app.listen(0, () => console.log(server.address()?.port, server.galeApp !== undefined));
   */
  interface Express extends e.Express {
    /**
     * Serves the app on Gale's engine and returns the server (Gale's, not node:http's: see ExpressServer). TCP ports
     * only: a port number or a string of digits (`process.env.PORT`); 0 or none picks a free port.
     *
     * @example
     * const server = app.listen(3000, () => console.log(`listening on ${server.address()?.port}`));
     */
    listen(port?: number | string, hostname?: string, backlog?: number, callback?: ListenCallback): GaleServer;
    listen(port: number | string | undefined, hostname?: string, callback?: ListenCallback): GaleServer;
    listen(port: number | string | undefined, callback?: ListenCallback): GaleServer;
    listen(callback?: ListenCallback): GaleServer;
    listen(options: ListenOptions, callback?: ListenCallback): GaleServer;
    listen(...never: never[]): http.Server;
  }
  /** The Route class (`router.route(path)` makes one), as Express exports it. */
  const Route: GaleRoute;
  type Route = InstanceType<GaleRoute>;
  /**
   * Options of `express()` (Gale's addition: Express takes none).
   *
   * @example
   * const app = express({ server: { keepAliveTimeout: 10_000, maxHeaderSize: 32 * 1024 } });
   */
  type ExpressOptions = GaleOptions;
  /**
   * What `app.listen()` returns: Gale's listening server, shaped like node:http's Server (`address()`, `close()`,
   * `keepAliveTimeout`, events) plus `galeApp`, the Gale app Socket.IO and Engine.IO attach to.
   *
   * @example
   * const server: ExpressServer = app.listen(3000, () => console.log('listening on', server.address()?.port));
   */
  type ExpressServer = GaleServer;
}

export = express;
