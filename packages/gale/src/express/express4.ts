// `gale/express4`: the Express 4 flavour of the layer (path syntax, query parser, argument forms
// and middleware versions of Express 4), on Gale's engine.
/**
 * `gale/express4`: Express 4 on Gale's engine.
 *
 * @example
 * const express = require('gale/express4');
 * const app = express();
 * app.get('/users/:id?', (req, res) => res.send(req.param('id')));
 * app.listen(3000);
 *
 * @module gale/express4
 */
import { createExpress, type Express } from './create.js';

export type { Application, ExpressOptions } from './application.js';
export type { Express } from './create.js';
export { Route } from './router.js';

/**
 * Creates an Express 4 application served by Gale's engine.
 *
 * @example
 * import express from 'gale/express4';
 * const app = express();
 * app.get('/files/*', (req, res) => res.send(req.params[0]));
 * app.listen(3000);
 */
const express: Express = createExpress(4);

export const { Router, json, raw, text, urlencoded, request, response, application } = express;
export const serveStatic: Express['static'] = express.static;
export const query: NonNullable<Express['query']> = express.query as NonNullable<Express['query']>;
export default express;
