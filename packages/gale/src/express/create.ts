// Builds the `express` export for one Express major: the factory plus Router, Route, the body
// parsers and static middleware of that major (the same npm packages Express itself ships).
import bodyParser2 from 'body-parser';
import bodyParser1 from 'body-parser-1';
import serveStatic2 from 'serve-static';
import serveStatic1 from 'serve-static-1';
import { type Application, createApplication, type ExpressOptions } from './application.js';
import type { Compat } from './path.js';
import { ExpressRequest } from './request.js';
import { ExpressRequest4 } from './request4.js';
import { ExpressResponse } from './response.js';
import { ExpressResponse4 } from './response4.js';
import { createRouter, Route, type RouterFn, type RouterOptions } from './router.js';

type Middleware = (req: never, res: never, next: (err?: unknown) => void) => void;

/** The default export of `gale/express` (and `gale/express4`). */
export interface Express {
  (options?: ExpressOptions): Application;
  /** A router: `express.Router({ caseSensitive, strict, mergeParams })`. */
  Router(options?: RouterOptions): RouterFn;
  Route: typeof Route;
  json(options?: object): Middleware;
  raw(options?: object): Middleware;
  text(options?: object): Middleware;
  urlencoded(options?: object): Middleware;
  static(root: string, options?: object): Middleware;
  /** Express 4 only: the query-string middleware. */
  query?: (options?: unknown) => Middleware;
  /** The prototypes every request and response inherits (add methods here). */
  request: object;
  response: object;
  application: object;
}

export function createExpress(compat: Compat): Express {
  const bp = (compat === 5 ? bodyParser2 : bodyParser1) as unknown as Record<string, (o?: object) => Middleware>;
  const express = ((options?: ExpressOptions) => createApplication({ compat, ...options })) as Express;
  express.Router = (options?: RouterOptions) => createRouter(compat, options);
  express.Route = Route;
  express.json = bp.json as Express['json'];
  express.raw = bp.raw as Express['raw'];
  express.text = bp.text as Express['text'];
  express.urlencoded = bp.urlencoded as Express['urlencoded'];
  express.static = (compat === 5 ? serveStatic2 : serveStatic1) as unknown as Express['static'];
  express.request = (compat === 5 ? ExpressRequest : ExpressRequest4).prototype;
  express.response = (compat === 5 ? ExpressResponse : ExpressResponse4).prototype;
  express.application = {};
  if (compat === 4) {
    // Express 4's express.query(): the app already parses req.query, so this only keeps old code working.
    express.query = () => (_req, _res, next) => next();
  }
  return express;
}
