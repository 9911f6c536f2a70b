// Builds the `express` export for one Express major: the factory plus Router, Route, the body
// parsers and static middleware of that major (the same npm packages Express itself ships).
import bodyParser2 from 'body-parser';
import bodyParser1 from 'body-parser-1';
import serveStatic2 from 'serve-static';
import serveStatic1 from 'serve-static-1';
import { type Application, applicationPrototype, createApplication, type ExpressOptions } from './application.js';
import type { Compat } from './path.js';
import { ExpressRequest } from './request.js';
import { ExpressRequest4 } from './request4.js';
import { ExpressResponse } from './response.js';
import { ExpressResponse4 } from './response4.js';
import { createRouter, Route, type RouterFn, type RouterOptions, routerProto } from './router.js';

type Middleware = (req: never, res: never, next: (err?: unknown) => void) => void;

/**
 * The default export of `@gale-http/express` (and `@gale-http/express/4`).
 *
 * @example
 * import express from '@gale-http/express';
 * const app = express();
 * app.use(express.json(), express.static('public'));
 * const api = express.Router();
 * app.use('/api', api);
 */
export interface Express {
  (options?: ExpressOptions): Application;
  /**
   * A router: `express.Router({ caseSensitive, strict, mergeParams })`.
   *
   * @example
   * const users = express.Router();
   * users.get('/:id', (req, res) => res.json({ id: req.params.id }));
   * app.use('/users', users);
   */
  Router: RouterConstructor;
  /** The Route class (`router.route(path)` makes one). */
  Route: typeof Route;
  /**
   * body-parser's JSON parser (version 2 for Express 5, 1 for Express 4), with its options.
   *
   * @example
   * app.use(express.json({ limit: '1mb' }));
   */
  json(options?: object): Middleware;
  /**
   * body-parser's raw parser: `req.body` is a Buffer.
   *
   * @example
   * app.post('/webhook', express.raw({ type: 'application/octet-stream' }), (req, res) => res.send(String(req.body.length)));
   */
  raw(options?: object): Middleware;
  /**
   * body-parser's text parser: `req.body` is a string.
   *
   * @example
   * app.use(express.text({ type: 'text/*' }));
   */
  text(options?: object): Middleware;
  /**
   * body-parser's urlencoded parser.
   *
   * @example
   * app.use(express.urlencoded({ extended: false }));
   */
  urlencoded(options?: object): Middleware;
  /**
   * serve-static (version 2 for Express 5, 1 for Express 4), with its options.
   *
   * @example
   * app.use('/assets', express.static('public', { maxAge: '1d' }));
   */
  static(root: string, options?: object): Middleware;
  /** Express 4 only: the query-string middleware. */
  query?: (options?: unknown) => Middleware;
  /**
   * The prototype every request inherits (add methods here, as with Express).
   *
   * @example
   * express.request.isMobile = function () { return /mobile/i.test(this.get('user-agent') ?? ''); };
   */
  request: object;
  /**
   * The prototype every response inherits.
   *
   * @example
   * express.response.ok = function (data) { return this.status(200).json({ ok: true, data }); };
   */
  response: object;
  /**
   * `express.application`: the methods every app gets when it is created (add to it before calling `express()`).
   *
   * @example
   * express.application.greet = () => 'hi';
   */
  application: Record<string, unknown>;
}

/**
 * `express.Router`: callable with or without `new`, as in Express.
 *
 * @example
 * const a = express.Router({ mergeParams: true });
 * const b = new express.Router();
 */
export interface RouterConstructor {
  (options?: RouterOptions): RouterFn;
  new (options?: RouterOptions): RouterFn;
}

/** Express 3's bundled middleware, which Express 4's export names only to throw (see createExpress). */
const REMOVED_MIDDLEWARE = [
  'bodyParser',
  'compress',
  'cookieSession',
  'session',
  'logger',
  'cookieParser',
  'favicon',
  'responseTime',
  'errorHandler',
  'timeout',
  'methodOverride',
  'vhost',
  'csrf',
  'directory',
  'limit',
  'multipart',
  'staticCache',
];

export function createExpress(compat: Compat): Express {
  const bp = (compat === 5 ? bodyParser2 : bodyParser1) as unknown as Record<string, (o?: object) => Middleware>;
  const application = applicationPrototype();
  const express = ((options?: ExpressOptions) => createApplication({ compat, ...options }, application)) as Express;
  // A plain function, not an arrow: Express allows `new Router()` as well as `Router()` (a constructor that returns
  // the router function gives that function to `new`), and `router instanceof Router` holds.
  const Router = function Router(options?: RouterOptions): RouterFn {
    return createRouter(compat, options);
  } as unknown as RouterConstructor;
  (Router as unknown as { prototype: unknown }).prototype = routerProto;
  express.Router = Router;
  express.Route = Route;
  express.json = bp.json as Express['json'];
  express.raw = bp.raw as Express['raw'];
  express.text = bp.text as Express['text'];
  express.urlencoded = bp.urlencoded as Express['urlencoded'];
  express.static = (compat === 5 ? serveStatic2 : serveStatic1) as unknown as Express['static'];
  express.request = (compat === 5 ? ExpressRequest : ExpressRequest4).prototype;
  express.response = (compat === 5 ? ExpressResponse : ExpressResponse4).prototype;
  express.application = application;
  if (compat === 4) {
    // Express 4's express.query(): the app already parses req.query, so this only keeps old code working.
    express.query = () => (_req, _res, next) => next();
    // Express 4 keeps the names of the middleware Express 3 bundled, as getters that say where they went.
    for (const name of REMOVED_MIDDLEWARE) {
      Object.defineProperty(express, name, {
        configurable: true,
        get() {
          throw new Error(
            `Most middleware (like ${name}) is no longer bundled with Express and must be installed separately. ` +
              'Please see https://github.com/senchalabs/connect#middleware.',
          );
        },
      });
    }
  }
  return express;
}
