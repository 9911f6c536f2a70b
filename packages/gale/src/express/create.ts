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

/**
 * The default export of `gale/express` (and `gale/express4`).
 *
 * @example
 * import express from 'gale/express';
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
  Router(options?: RouterOptions): RouterFn;
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
   * Express's `express.application` (an object here: app methods live on each app).
   *
   * @example
   * const app = express();
   * app.set('json spaces', 2);
   */
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
