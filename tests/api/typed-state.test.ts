// derive(): what a middleware returns is merged into req.state for what runs after it — on a route, on the app or a
// router `use` returns, in WebSocket routes — one state object per request; a derive that throws or answers stops
// the chain. (tests/types/state.ts proves the typing; this proves the run-time half.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { derive, HttpError, router } from 'gale';
import { sleep, T, withApp } from '../helpers.js';
import { connect, nextMessage } from '../ws/clients.js';

async function get(port: number, path: string, headers: Record<string, string> = {}) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return [r.status, await r.text()] as const;
}

const auth = derive(async (req) => {
  await sleep(1);
  const user = req.get('x-user');
  if (user === undefined) throw new HttpError(401, 'sign in first');
  return { user };
});
const stamp = derive(() => ({ stamp: 'sync' }));

test('a route: derive middleware (sync and async) add to req.state, in order, for the handler', T, async (t) => {
  let ran = 0;
  const { port } = await withApp(t, (app) => {
    app.get(
      '/me/:tab',
      auth,
      (req, _res, next) => {
        assert.equal(req.state.user, 'ada'); // a middleware after a derive sees its state
        return next();
      },
      stamp,
      (req) => {
        ran++;
        return { user: req.state.user, stamp: req.state.stamp, tab: req.params.tab, keys: Object.keys(req.state) };
      },
    );
  });
  assert.deepEqual(await get(port, '/me/repos', { 'x-user': 'ada' }), [
    200,
    '{"user":"ada","stamp":"sync","tab":"repos","keys":["user","stamp"]}',
  ]);
  assert.deepEqual(await get(port, '/me/repos'), [401, 'sign in first']);
  assert.equal(ran, 1, 'the handler did not run after the derive threw');
});

test('each request has a state of its own', T, async (t) => {
  const counter = derive((req) => ({ seen: req.get('x-n') }));
  const { port } = await withApp(t, (app) => {
    app.get('/n', counter, async (req) => {
      await sleep(Number(req.get('x-n')) * 5);
      return String(req.state.seen);
    });
    app.get('/empty', (req) => JSON.stringify(req.state));
  });
  const answers = await Promise.all([3, 1, 2].map((n) => get(port, '/n', { 'x-n': String(n) })));
  assert.deepEqual(
    answers.map(([, body]) => body),
    ['3', '1', '2'],
  );
  assert.deepEqual(await get(port, '/empty'), [200, '{}']);
});

test('a derive that answers with res stops the chain', T, async (t) => {
  let ran = 0;
  const gate = derive((req, res) => {
    if (req.get('x-open') !== 'yes') {
      res.status(403).send('closed');
      return;
    }
    return { open: true };
  });
  const { port } = await withApp(t, (app) => {
    app.get('/gate', gate, (req) => {
      ran++;
      return String(req.state.open);
    });
  });
  assert.deepEqual(await get(port, '/gate'), [403, 'closed']);
  assert.deepEqual(await get(port, '/gate', { 'x-open': 'yes' }), [200, 'true']);
  assert.equal(ran, 1);
});

test('app.use and router.use: the app or router they return has the state for routes declared after', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/before', () => 'no auth here');
    const authed = app.use(auth);
    authed.get('/dashboard', (req) => `dashboard of ${req.state.user}`);
    const admin = router().use(stamp);
    admin.get('/stats', (req) => `${req.state.stamp} stats`);
    authed.use('/admin', admin);
  });
  assert.deepEqual(await get(port, '/before'), [200, 'no auth here']);
  assert.deepEqual(await get(port, '/dashboard', { 'x-user': 'grace' }), [200, 'dashboard of grace']);
  assert.deepEqual(await get(port, '/dashboard'), [401, 'sign in first']);
  assert.deepEqual(await get(port, '/admin/stats', { 'x-user': 'grace' }), [200, 'sync stats']);
  assert.deepEqual(await get(port, '/admin/stats'), [401, 'sign in first']);
});

test('WebSocket routes: upgrade(req) and (ws, req) handlers see the params and the state', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/rooms/:room', auth, {
      upgrade: (req) => ({ user: req.state.user, room: req.params.room }),
      open: (ws) => ws.send(`${ws.data.user} in ${ws.data.room}`),
    });
    app.ws('/legacy/:room', auth, (ws, req) => ws.send(`${req.state.user} in ${req.params.room} (legacy)`));
  });
  const a = await connect(`ws://127.0.0.1:${port}/rooms/lobby`, [], { headers: { 'x-user': 'ada' } });
  assert.equal(String((await nextMessage(a)).data), 'ada in lobby');
  a.close();
  const b = await connect(`ws://127.0.0.1:${port}/legacy/attic`, [], { headers: { 'x-user': 'bob' } });
  assert.equal(String((await nextMessage(b)).data), 'bob in attic (legacy)');
  b.close();
  await assert.rejects(connect(`ws://127.0.0.1:${port}/rooms/lobby`), /HTTP 401/);
});
