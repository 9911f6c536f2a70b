// Types of `import … from '@gale-http/express'` (Express 5): the CommonJS entry's (../cjs/index.d.cts: @types/express's
// types plus Gale's additions) as the default export, and each of them as a named export too, as
// `import { Request, Response } from 'express'` gets them; plus the named exports only this package has.
/**
 * `@gale-http/express`: Express 5 on Gale's engine (`require('@gale-http/express')` works too).
 *
 * @example
 * import express from '@gale-http/express';
 * const app = express();
 * app.get('/', (req, res) => res.send('hi'));
 * app.listen(3000);
 *
 * @module @gale-http/express
 */
import express = require('../cjs/index.cjs');

export default express;

export import json = express.json;
export import raw = express.raw;
export import text = express.text;
export import urlencoded = express.urlencoded;
export import Router = express.Router;
export import Route = express.Route;
/**
 * The prototype every request of every app inherits (`express.request`).
 *
 * @example
 * import { request } from '@gale-http/express';
 * Object.assign(request, { isJson() { return this.is('json') === 'json'; } });
 */
export import request = express.request;
/**
 * The prototype every response inherits (`express.response`).
 *
 * @example
 * import { response } from '@gale-http/express';
 * Object.assign(response, { ok(data: unknown) { return this.json({ ok: true, data }); } });
 */
export import response = express.response;
/**
 * `express.application`: the methods each app gets when `express()` creates it (add to it first).
 *
 * @example
 * import express, { application } from '@gale-http/express';
 * console.log(typeof application, typeof express().set);
 */
export import application = express.application;
/**
 * `express.static` under a name that is a valid identifier for named imports.
 *
 * @example
 * import express, { serveStatic } from '@gale-http/express';
 * const app = express();
 * app.use(serveStatic('public'));
 */
export import serveStatic = express.static;

export import RouterOptions = express.RouterOptions;
export import Application = express.Application;
export import CookieOptions = express.CookieOptions;
export import Errback = express.Errback;
export import ErrorRequestHandler = express.ErrorRequestHandler;
export import Express = express.Express;
export import Handler = express.Handler;
export import IRoute = express.IRoute;
export import IRouter = express.IRouter;
export import IRouterHandler = express.IRouterHandler;
export import IRouterMatcher = express.IRouterMatcher;
export import MediaType = express.MediaType;
export import NextFunction = express.NextFunction;
export import Locals = express.Locals;
export import Request = express.Request;
export import RequestHandler = express.RequestHandler;
export import RequestParamHandler = express.RequestParamHandler;
export import Response = express.Response;
export import Send = express.Send;
export import ExpressOptions = express.ExpressOptions;
export import ExpressServer = express.ExpressServer;
/** A router (`express.Router()`): the same type as `Router`. */
export type ExpressRouter = express.Router;

// The request and response classes of Gale's Express layer (`req instanceof ExpressRequest`).
export { ExpressRequest } from '../dist/request.js';
export { ExpressRequest4 } from '../dist/request4.js';
export { ExpressResponse } from '../dist/response.js';
export { ExpressResponse4 } from '../dist/response4.js';
