// Type tests: route params are inferred from the path literal, for each syntax the engine's router accepts (Express 5
// `:id`, `{/:opt}` groups, `*splat`; Express 4 `:id?`, `:id*`, `:id+`, bare `*`; constraints, params inside a
// segment, escapes), in app.get/post/…, Router and app.ws; typos do not compile; a non-literal path falls back to
// Record<string, string>; middleware before the handler see the same params.
import { type App, gale, type Handler, type Middleware, type RouteParams, router } from 'gale';
import { type Equal, ok } from './expect.js';

const app = gale();

// Each syntax, as a type.
ok<Equal<RouteParams<'/users/:id'>, { id: string }>>(true);
ok<Equal<RouteParams<'/users/:id(\\d+)'>, { id: string }>>(true);
ok<Equal<RouteParams<'/users/:id/:tab?'>, { id: string; tab?: string | undefined }>>(true);
ok<Equal<RouteParams<'/users/:id{/:tab}'>, { id: string; tab?: string | undefined }>>(true);
ok<Equal<RouteParams<'/files{.:ext}'>, { ext?: string | undefined }>>(true);
ok<Equal<RouteParams<'/a{/:b{/:c}}'>, { b?: string | undefined; c?: string | undefined }>>(true);
ok<Equal<RouteParams<'/docs/*path'>, { path: string }>>(true);
ok<Equal<RouteParams<'/docs{/*path}'>, { path?: string | undefined }>>(true);
ok<Equal<RouteParams<'/repo/*path/edit'>, { path: string }>>(true);
ok<Equal<RouteParams<'/old/*'>, { '*': string }>>(true);
ok<Equal<RouteParams<'/x/:rest+'>, { rest: string }>>(true);
ok<Equal<RouteParams<'/x/:rest*'>, { rest?: string | undefined }>>(true);
ok<Equal<RouteParams<'/flights/:from-:to'>, { from: string; to: string }>>(true);
ok<Equal<RouteParams<'/dl/:name.:ext'>, { name: string; ext: string }>>(true);
ok<Equal<RouteParams<'/t/:a(\\d+(?:x)?)/:b'>, { a: string; b: string }>>(true);
ok<Equal<RouteParams<'/time/12\\:30/:zone'>, { zone: string }>>(true);
ok<Equal<keyof RouteParams<'/'>, never>>(true);
ok<Equal<RouteParams<string>, Record<string, string>>>(true);

// In the route methods.
app.get('/users/:id', (req) => {
  ok<Equal<typeof req.params, { id: string }>>(true);
  return req.params.id.toUpperCase();
});
// @ts-expect-error a typo in a param name does not compile
app.get('/users/:id', (req) => req.params.idd);
app.post('/users/:id{/:tab}', (req) => {
  ok<Equal<typeof req.params.tab, string | undefined>>(true);
  // @ts-expect-error an optional param may be undefined
  return req.params.tab.length;
});
app.put('/files/*path', (req) => req.params.path.split('/'));
app.patch('/v4/:a/:b?', (req) => [req.params.a, req.params.b ?? 'absent']);
app.delete('/old/*', (req) => req.params['*']);
app.head('/h/:x', (req, res) => res.header('x', req.params.x).end());
app.options('/o/:x', (req) => req.params.x);
app.all('/any/:x', (req) => req.params.x);
// @ts-expect-error a route without params has none
app.all('/none', (req) => req.params.x);

// A path that is not a literal: any name, string values.
const dynamic: string = '/dyn/:x';
app.get(dynamic, (req) => {
  ok<Equal<typeof req.params, Record<string, string>>>(true);
  return req.params.whatever;
});

// Middleware before the handler see the same params, inline or declared apart.
app.get(
  '/orgs/:org/repos/:repo',
  (req, _res, next) => {
    ok<Equal<typeof req.params, { org: string; repo: string }>>(true);
    return next();
  },
  (req) => `${req.params.org}/${req.params.repo}`,
);
const needsOrg: Middleware<{ org: string }> = (req, _res, next) => (req.params.org === '' ? undefined : next());
app.get('/orgs/:org/members', needsOrg, (req) => req.params.org);
// @ts-expect-error a middleware that needs a param the path does not have
app.get('/teams/:team', needsOrg, (req) => req.params.team);

// Handlers and middleware typed the old way (no type arguments) still fit any route.
const plain: Middleware = (_req, _res, next) => next();
const loose: Handler = (req) => req.params.anything;
app.get('/plain/:id', plain, plain, plain, plain, plain, plain, loose);
const spread: Middleware[] = [plain, plain];
app.get('/spread/:id', ...spread, (req) => req.params.id);
const named: Handler<{ id: string }> = (req) => req.params.id;
app.get('/named/:id', named);
// @ts-expect-error a handler that needs :id on a route without it
app.get('/named/:name', named);

// Routers and WebSockets.
const api = router();
api.get('/items/:item', (req) => req.params.item);
// @ts-expect-error a typo on a router route
api.get('/items/:item', (req) => req.params.itme);
app.use('/api', api);
app.ws('/rooms/:room', {
  upgrade: (req) => ({ room: req.params.room }),
  open: (ws) => ws.subscribe(ws.data.room),
});
app.ws('/chat/:room', plain, (ws, req) => ws.send(`joined ${req.params.room}`));
// @ts-expect-error a typo in a WebSocket route's params
app.ws('/feed/:feed', { upgrade: (req) => req.params.fed });
// The socket's data type named first, as before (params then untyped).
app.ws<{ n: number }>('/typed', { upgrade: () => ({ n: 1 }), open: (ws) => ws.send(String(ws.data.n)) });

// `app.get(setting)` still reads a setting; `Parameters<App['get']>` still names the plain form.
const chained: App = app.get('/chained/:id', (req) => req.params.id).post('/chained', () => 'ok');
void chained;
const setting: unknown = app.get('trust proxy');
void setting;
type Step = Parameters<App['get']>[1];
const step: Step = (_req, _res, next) => next();
void step;
