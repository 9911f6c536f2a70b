// `@gale-http/express/4`: the Express 4 flavour of the layer (path syntax, query parser, argument forms
// and middleware versions of Express 4), on Gale's engine.
// The package's types are not this module's: they are @types/express@4's, in ../cjs/4.d.cts (../types/4.d.ts for
// import), which the package.json's `types` conditions name.
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
import { createExpress, type Express, type RouterConstructor } from './create.js';

export type { Application, ExpressOptions } from './application.js';
export type { Express } from './create.js';
export { Route } from './router.js';

/**
 * Creates an Express 4 application served by Gale's engine.
 *
 * @example
 * import express from '@gale-http/express/4';
 * const app = express();
 * app.get('/files/*', (req, res) => res.send(req.params[0]));
 * app.listen(3000);
 */
const express: Express = createExpress(4);

export const { json, raw, text, urlencoded } = express;
/**
 * A router: `Router({ caseSensitive, strict, mergeParams })`, the same function as `express.Router`.
 *
 * @example
 * import express, { Router } from '@gale-http/express/4';
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
 * import { request } from '@gale-http/express/4';
 * Object.assign(request, { isJson() { return this.is('json') === 'json'; } });
 */
export const request: Express['request'] = express.request;
/**
 * The prototype every response inherits (`express.response`).
 *
 * @example
 * import { response } from '@gale-http/express/4';
 * Object.assign(response, { ok(data) { return this.json({ ok: true, data }); } });
 */
export const response: Express['response'] = express.response;
/**
 * `express.application` (app methods live on each app here; settings go through `app.set`).
 *
 * @example
 * import express, { application } from '@gale-http/express/4';
 * console.log(typeof application, typeof express().set);
 */
export const application: Express['application'] = express.application;
/**
 * `express.static` under a name that is a valid identifier for named imports.
 *
 * @example
 * import express, { serveStatic } from '@gale-http/express/4';
 * const app = express();
 * app.use(serveStatic('public'));
 */
export const serveStatic: Express['static'] = express.static;
/**
 * Express 4's `express.query()` middleware: `req.query` is already parsed by the app, so this only keeps old code
 * working.
 *
 * @example
 * app.use(express.query());
 */
export const query: NonNullable<Express['query']> = express.query as NonNullable<Express['query']>;
export default express;
