// `@gale-http/express`: a drop-in for Express 5 (`express({ compat: 4 })` or `@gale-http/express/4` for Express 4)
// running on Gale's engine. Uses only gale's public exports (../index.js) and npm packages.
// The package's types are not this module's: they are @types/express's, in ../cjs/index.d.cts (../types/index.d.ts
// for import), which the package.json's `types` conditions name.
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
import { createExpress, type Express, type RouterConstructor } from './create.js';

export type { Application, ExpressOptions } from './application.js';
export type { Express } from './create.js';
export { ExpressRequest } from './request.js';
export { ExpressRequest4 } from './request4.js';
export { ExpressResponse } from './response.js';
export { ExpressResponse4 } from './response4.js';
export type {
  ErrorRequestHandler,
  Next as NextFunction,
  Req as Request,
  RequestHandler,
  Res as Response,
  RouterFn as ExpressRouter,
  RouterOptions,
} from './router.js';
export { Route } from './router.js';
export type { ExpressServer } from './server.js';

/**
 * Creates an Express application served by Gale's engine (Express 5 rules; `express({ compat: 4 })`
 * for Express 4's, or import `@gale-http/express/4` to get Express 4's body parsers and static too).
 *
 * @example
 * import express from '@gale-http/express';
 * const app = express();
 * app.use(express.json());
 * app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
 * app.listen(3000, () => console.log('ready'));
 */
const express: Express = createExpress(5);

export const { json, raw, text, urlencoded } = express;
/**
 * A router: `Router({ caseSensitive, strict, mergeParams })`, the same function as `express.Router`.
 *
 * @example
 * import express, { Router } from '@gale-http/express';
 * const app = express();
 * const users = Router({ mergeParams: true });
 * users.get('/:id', (req, res) => res.json({ id: req.params.id }));
 * app.use('/users', users);
 */
export const Router: RouterConstructor = express.Router;
/**
 * The prototype every request of every app inherits (`express.request`).
 *
 * @example
 * import { request } from '@gale-http/express';
 * Object.assign(request, { isJson() { return this.is('json') === 'json'; } });
 */
export const request: Express['request'] = express.request;
/**
 * The prototype every response inherits (`express.response`).
 *
 * @example
 * import { response } from '@gale-http/express';
 * Object.assign(response, { ok(data) { return this.json({ ok: true, data }); } });
 */
export const response: Express['response'] = express.response;
/**
 * `express.application`: the methods each app gets when `express()` creates it (add to it first).
 *
 * @example
 * import express, { application } from '@gale-http/express';
 * console.log(typeof application, typeof express().set);
 */
export const application: Express['application'] = express.application;
/**
 * `express.static` under a name that is a valid identifier for named imports.
 *
 * @example
 * import express, { serveStatic } from '@gale-http/express';
 * const app = express();
 * app.use(serveStatic('public'));
 */
export const serveStatic: Express['static'] = express.static;
export default express;
