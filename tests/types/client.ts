// Type tests: gale/client. The route methods return the app typed with each route added; a client built from
// `typeof app` takes only its paths, each route's params, query, headers and body (the schemas' input types), and
// resolves to the statuses its `response` schemas declare (or to what its handler returns).
import { Type } from '@sinclair/typebox';
import { derive, gale, router } from 'gale';
import { type ClientResponse, client } from 'gale/client';
import { z } from 'zod';
import { type Equal, ok, value } from './expect.js';

const Todo = Type.Object({ id: Type.Integer(), title: Type.String(), done: Type.Boolean() });
const Problem = Type.Object({ error: Type.String() });
type TodoT = { id: number; title: string; done: boolean };

const todos = router()
  .get('/', { query: z.object({ done: z.enum(['true', 'false']).optional() }) }, () => [] as TodoT[])
  .get('/:id', { params: z.object({ id: z.coerce.number() }), response: { 200: Todo, 404: Problem } }, (req, res) => {
    if (req.params.id === 0) return res.status(404).json({ error: 'no such todo' });
    return { id: req.params.id, title: 'write docs', done: false };
  })
  .post('/', { body: z.object({ title: z.string().min(1) }), response: { 201: Todo } }, (req, res) =>
    res.status(201).json({ id: 2, title: req.body.title, done: false }),
  )
  .delete('/:id', (_req, res) => res.sendStatus(204));

const app = gale()
  .use(derive(() => ({ user: 'ada' })))
  .get('/hello/:name', (req) => `hello ${req.params.name} from ${req.state.user}`)
  .get('/when', () => ({ at: new Date(), n: 1 }))
  .get('/files/*path', (req) => ({ path: req.params.path }))
  .get('/page{/:n}', (req) => ({ n: req.params.n }))
  .get('/secret', { headers: z.object({ 'x-key': z.string() }) }, () => 'ok')
  .all('/any', () => 'any method')
  .use('/todos', todos);

const api = client<typeof app>('http://127.0.0.1:3000');

// Paths and their params.
api.get('/hello/:name', { params: { name: 'ada' } });
api.get('/hello/:name', { params: { name: 7 } });
// @ts-expect-error a path the app has no GET route for
api.get('/nope');
// @ts-expect-error POST has no route at /hello/:name
api.post('/hello/:name', { params: { name: 'ada' } });
// @ts-expect-error the param is missing
api.get('/hello/:name', { params: {} });
// @ts-expect-error the options (with the param) are missing
api.get('/hello/:name');
// @ts-expect-error a param the path does not have
api.get('/hello/:name', { params: { name: 'ada', age: 3 } });
api.get('/files/*path', { params: { path: 'a/b.txt' } });
api.get('/page{/:n}');
api.get('/page{/:n}', { params: { n: 2 } });
api.post('/any');
api.delete('/any');

// A mounted router's routes, under its prefix; schemas type what is sent.
api.get('/todos');
api.get('/todos', { query: { done: 'true' } });
// @ts-expect-error not one of the query schema's values
api.get('/todos', { query: { done: 'yes' } });
api.get('/todos/:id', { params: { id: 1 } });
api.post('/todos', { body: { title: 'write docs' } });
// @ts-expect-error the body schema wants a title
api.post('/todos', { body: { name: 'write docs' } });
// @ts-expect-error the body is required
api.post('/todos');
api.get('/secret', { headers: { 'x-key': 'k' } });
// @ts-expect-error the headers schema wants x-key
api.get('/secret', { headers: {} });
api.delete('/todos/:id', { params: { id: 3 } });

// What comes back: each declared status with its body; the 400 of the input schemas.
async function answers(): Promise<void> {
  const one = await api.get('/todos/:id', { params: { id: 1 } });
  if (one.status === 200) ok<Equal<typeof one.data, TodoT>>(true);
  if (one.status === 404) ok<Equal<typeof one.data, { error: string }>>(true);
  if (one.status === 400) ok<Equal<typeof one.data.code, string>>(true);
  // @ts-expect-error 500 is not declared
  if (one.status === 500) console.log(one);
  if (one.ok) ok<Equal<typeof one.data, TodoT>>(true);

  const created = await api.post('/todos', { body: { title: 'x' } });
  if (created.status === 201) ok<Equal<typeof created.data.title, string>>(true);

  // Without response schemas: what the handler returns, as JSON carries it (a Date as a string).
  const hello = await api.get('/hello/:name', { params: { name: 'ada' } });
  if (hello.ok) ok<Equal<typeof hello.data, string>>(true);
  else ok<Equal<typeof hello.data, unknown>>(true);
  const when = await api.get('/when');
  if (when.ok) ok<Equal<typeof when.data, { at: string; n: number }>>(true);
  const head = await api.head('/hello/:name', { params: { name: 'ada' } });
  ok<Equal<typeof head.data, undefined>>(true);
  const list = await api.get('/todos');
  if (list.ok) ok<Equal<typeof list.data, TodoT[]>>(true);
}
void answers;

// In-process: client(app) types itself from the app, over app.request().
const local = client(app);
local.get('/hello/:name', { params: { name: 'ada' } });
// @ts-expect-error a path the app has no route for
local.get('/nope');

// Today's style still compiles: routes declared as statements (the client then sees none of them).
const plain = gale();
plain.get('/x', () => 'x');
plain.use('/todos', todos);
const none = client<typeof plain>('http://127.0.0.1:3000');
// @ts-expect-error the type of `plain` carries no routes
none.get('/x');

// A plugin that returns its router with the routes chained on it gives them to the app's type, under its prefix;
// one that returns nothing gives none (its routes still work at run time).
const withPlugins = gale()
  .register(
    (users, options: { names: string[] }) =>
      users
        .addHook('onRequest', () => {})
        .get('/', () => options.names)
        .get('/:id', (req) => ({ id: req.params.id })),
    { prefix: '/users', names: ['ada'] },
  )
  .register(async (health) => health.get('/health', () => ({ ok: true })))
  .register((quiet) => {
    quiet.get('/quiet', () => 'shh');
  });
const viaPlugins = client<typeof withPlugins>('http://127.0.0.1:3000');
async function plugins(): Promise<void> {
  const users = await viaPlugins.get('/users');
  if (users.ok) ok<Equal<typeof users.data, string[]>>(true);
  await viaPlugins.get('/users/:id', { params: { id: 'a' } });
  const health = await viaPlugins.get('/health');
  if (health.ok) ok<Equal<typeof health.data, { ok: boolean }>>(true);
  // @ts-expect-error the plugin returned nothing: its routes are not in the type
  await viaPlugins.get('/quiet');
}
void plugins;

ok<Equal<ClientResponse<never>, never>>(true);
void value;
