// Type tests: what `derive()` middleware add to `req.state` is typed for what runs after them — on the route (up to
// four typed in order, each seeing the state of those before it), on the app or router `use` returns, and in
// WebSocket routes — without `declare module`; state nothing added does not compile.
import { derive, gale, HttpError, type Request, router, type StateMiddleware } from 'gale';
import { type Equal, ok } from './expect.js';

interface User {
  id: number;
  name: string;
}
declare function findUser(token: string | undefined): Promise<User | undefined>;

const app = gale();
const auth = derive(async (req) => {
  const user = await findUser(req.get('authorization'));
  if (user === undefined) throw new HttpError(401, 'sign in first');
  return { user };
});
ok<Equal<typeof auth, StateMiddleware<{ user: User }>>>(true);
const timing = derive(() => ({ started: Date.now() }));
const nothing = derive(() => {});

// On a route: the handler sees what each derive added; a middleware after one sees it too.
app.get('/me', auth, (req) => {
  ok<Equal<typeof req.state.user, User>>(true);
  return req.state.user.name;
});
app.get('/me/:tab', auth, timing, nothing, (req) => `${req.state.user.id} ${req.state.started} ${req.params.tab}`);
app.get(
  '/me/orgs',
  auth,
  (req, _res, next) => {
    ok<Equal<typeof req.state.user, User>>(true);
    return next();
  },
  timing,
  (req) => req.state.started + req.state.user.id,
);
// @ts-expect-error no middleware added it
app.get('/anon', (req) => req.state.user);
// @ts-expect-error a typo in the state's name
app.get('/me', auth, (req) => req.state.usr);
app.get(
  '/order',
  (req, _res, next) => {
    // @ts-expect-error state from a middleware given after the one reading it
    return req.state.user ? next() : undefined;
  },
  auth,
  () => 'x',
);

// A derive that needs state declares it on its req: routes without it do not compile.
const org = derive(async (req: Request<Record<string, string>, { user: User }>) => ({
  org: `org-of-${req.state.user.id}`,
}));
app.get('/org', auth, org, (req) => `${req.state.user.name} in ${req.state.org}`);
// @ts-expect-error org needs state.user, which nothing before it added
app.get('/org', org, (req) => req.state.org);

// On the app and on routers: `use` returns them typed with the state (chained, or kept in a constant).
const authed = app.use(auth);
authed.get('/dashboard', (req) => req.state.user.name);
authed.post('/dashboard/:panel', timing, (req) => `${req.state.user.name} ${req.params.panel} ${req.state.started}`);
const admin = router().use(auth).use(timing);
admin.get('/stats', (req) => {
  ok<Equal<typeof req.state.user, User>>(true);
  ok<Equal<typeof req.state.started, number>>(true);
  return 'ok';
});
app.use('/admin', admin);
const both = gale().use(auth, timing);
both.get('/', (req) => req.state.user.name + req.state.started);
// use with a path prefix covers only part of the app: the state is not claimed for all of it.
const partly = app.use('/secure', auth);
// @ts-expect-error the prefixed use does not type the whole app
partly.get('/open', (req) => req.state.user);

// WebSocket routes see the state in upgrade(req) and in an express-ws style handler.
app.ws('/live/:room', auth, {
  upgrade: (req) => ({ user: req.state.user, room: req.params.room }),
  open: (ws) => ws.send(`${ws.data.user.name} joined ${ws.data.room}`),
});
app.ws('/legacy', auth, (ws, req) => ws.send(req.state.user.name));
