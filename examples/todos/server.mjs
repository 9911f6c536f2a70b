// A todos API written the Fastify way — a plugin with its own hook, app-wide hooks, routes with schemas (zod for what
// comes in, TypeBox for what goes out, checked at compile time and serialized by them) — and a page that calls it
// through `gale/client`, typed from `typeof app` (public/app.js, checked by `npm run typecheck`). `PORT=0` picks a
// free port; `listening on <url>` says where.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import { gale } from 'gale';
import { z } from 'zod';

const Todo = Type.Object({ id: Type.Integer(), title: Type.String(), done: Type.Boolean() });
const Problem = Type.Object({ error: Type.String() });
const Id = z.object({ id: z.coerce.number().int().positive() });

/** @typedef {{ id: number, title: string, done: boolean }} TodoItem */

/**
 * The todos API as a plugin, the Fastify way: its own hook (API answers are not cached) stays inside it, and it
 * returns its router with the routes chained on it, so that they reach the app's type, for the client.
 * @param {import('gale').Router} api
 * @param {{ store: Map<number, TodoItem> }} options
 */
function todosPlugin(api, { store }) {
  let nextId = 1;
  return api
    .addHook('onSend', (_req, res) => {
      res.header('cache-control', 'no-store');
    })
    .get(
      '/',
      { query: z.object({ done: z.enum(['true', 'false']).optional() }), response: { 200: Type.Array(Todo) } },
      (req) => [...store.values()].filter((t) => req.query.done === undefined || String(t.done) === req.query.done),
    )
    .get('/:id', { params: Id, response: { 200: Todo, 404: Problem } }, (req, res) => {
      const todo = store.get(req.params.id);
      return todo ?? res.status(404).json({ error: `no todo ${req.params.id}` });
    })
    .post('/', { body: z.object({ title: z.string().trim().min(1) }), response: { 201: Todo } }, (req, res) => {
      const todo = { id: nextId++, title: req.body.title, done: false };
      store.set(todo.id, todo);
      res.status(201).json(todo);
    })
    .patch(
      '/:id',
      { params: Id, body: z.object({ done: z.boolean() }), response: { 200: Todo, 404: Problem } },
      (req, res) => {
        const todo = store.get(req.params.id);
        if (!todo) return res.status(404).json({ error: `no todo ${req.params.id}` });
        todo.done = req.body.done;
        return todo;
      },
    )
    .delete('/:id', { params: Id, response: { 204: Type.Null(), 404: Problem } }, (req, res) => {
      if (!store.delete(req.params.id)) return res.status(404).json({ error: `no todo ${req.params.id}` });
      res.sendStatus(204);
    });
}

const clientModule = readFileSync(fileURLToPath(import.meta.resolve('gale/client')));

export const app = gale()
  // App-wide hooks: every answer (the page and its files too) says how long it took.
  .decorateRequest('startedAt', 0)
  .addHook('onRequest', (req) => {
    /** @type {{ startedAt: number }} */ (/** @type {unknown} */ (req)).startedAt = performance.now();
  })
  .addHook('onSend', (req, res) => {
    const started = /** @type {{ startedAt: number }} */ (/** @type {unknown} */ (req)).startedAt;
    res.header('server-timing', `app;dur=${(performance.now() - started).toFixed(2)}`);
  })
  .register(todosPlugin, { prefix: '/api/todos', store: new Map() })
  // gale/client imports nothing at run time: the page loads the package's own file as it is.
  .get('/gale-client.js', (_req, res) => res.type('text/javascript').send(clientModule));
app.static('/', fileURLToPath(new URL('./public', import.meta.url)));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  console.log(`listening on http://127.0.0.1:${port}`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
}
