// Types of `import … from '@gale-http/express/4'` (Express 4): the CommonJS entry's (../cjs/4.d.cts: @types/express@4's
// types plus Gale's additions) as the default export, and each of them as a named export too, as
// `import { Request, Response } from 'express'` gets them with Express 4; plus the named exports only this package has.
/**
 * `@gale-http/express/4`: Express 4 on Gale's engine.
 *
 * @example
 * const express = require('@gale-http/express/4');
 * const app = express();
 * app.get('/users/:id?', (req, res) => res.send(req.param('id')));
 * app.listen(3000);
 *
 * @module @gale-http/express/4
 */
import express = require('../cjs/4.cjs');

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
 * import { request } from '@gale-http/express/4';
 * Object.assign(request, { isJson() { return this.is('json') === 'json'; } });
 */
export import request = express.request;
/**
 * The prototype every response inherits (`express.response`).
 *
 * @example
 * import { response } from '@gale-http/express/4';
 * Object.assign(response, { ok(data: unknown) { return this.json({ ok: true, data }); } });
 */
export import response = express.response;
/**
 * `express.application` (app methods live on each app here; settings go through `app.set`).
 *
 * @example
 * import express, { application } from '@gale-http/express/4';
 * console.log(typeof application, typeof express().set);
 */
export import application = express.application;
/**
 * `express.static` under a name that is a valid identifier for named imports.
 *
 * @example
 * import express, { serveStatic } from '@gale-http/express/4';
 * const app = express();
 * app.use(serveStatic('public'));
 */
export import serveStatic = express.static;
/**
 * Express 4's `express.query()` middleware: `req.query` is already parsed by the app, so this only keeps old code
 * working.
 *
 * @example
 * app.use(express.query({}));
 */
export import query = express.query;

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
