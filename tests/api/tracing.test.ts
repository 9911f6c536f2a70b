// Gale's diagnostics_channel TracingChannels (gale.request, gale.handler) seen by real subscribers over real
// sockets: event order for sync and async handlers, the context (method, url, path, route, status), errors thrown,
// rejected and passed to next(), routers, the fallback, fetch handlers, serve(), WebSocket upgrades, aborted
// responses, a store bound to `start` (AsyncLocalStorage) seen by the handler, and untraced requests left alone.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import net from 'node:net';
import { type TestContext, test } from 'node:test';
import { Response as GaleResponse, HttpError, type RequestTrace, router, serve, TRACING_CHANNELS } from 'gale';
import WebSocket from 'ws';
import { deferred, HOST, sleep, T, withApp, withTimeout } from '../helpers.js';

const requests = tracingChannel<unknown, RequestTrace>('gale.request');
const handlers = tracingChannel<unknown, RequestTrace>('gale.handler');

type Event = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';
interface Seen {
  ch: 'request' | 'handler';
  ev: Event;
  ctx: RequestTrace;
  status: number | undefined;
  error: unknown;
}

/** Subscribes to every event of both channels for this test; returns what they saw, in order. */
function record(t: TestContext, which: ('request' | 'handler')[] = ['request', 'handler']): Seen[] {
  const seen: Seen[] = [];
  for (const ch of which) {
    const channel = ch === 'request' ? requests : handlers;
    const on = (ev: Event) => (ctx: RequestTrace) => seen.push({ ch, ev, ctx, status: ctx.status, error: ctx.error });
    const subs = {
      start: on('start'),
      end: on('end'),
      asyncStart: on('asyncStart'),
      asyncEnd: on('asyncEnd'),
      error: on('error'),
    };
    channel.subscribe(subs);
    t.after(() => channel.unsubscribe(subs));
  }
  return seen;
}

/** Waits (bounded) until gale.request's asyncEnd was seen `n` times. */
async function settled(seen: Seen[], n = 1): Promise<void> {
  const deadline = Date.now() + 3000;
  while (seen.filter((s) => s.ch === 'request' && s.ev === 'asyncEnd').length < n) {
    if (Date.now() > deadline) throw new Error(`no asyncEnd; saw ${seen.map((s) => `${s.ch}:${s.ev}`).join(' ')}`);
    await sleep(5);
  }
}

const order = (seen: Seen[]) => seen.map((s) => `${s.ch}:${s.ev}`);

test('the channel names are exported', () => {
  assert.deepEqual(TRACING_CHANNELS, { request: 'gale.request', handler: 'gale.handler' });
});

test('a sync handler: start, handler start/end, end, then asyncStart/asyncEnd with the status', T, async (t) => {
  const seen = record(t);
  const { url } = await withApp(t, (app) => {
    app.get('/users/:id', (req, res) => res.status(201).send(`user ${req.params.id}`));
  });
  const r = await fetch(`${url}/users/7?full=1`);
  assert.equal(r.status, 201);
  assert.equal(await r.text(), 'user 7');
  await settled(seen);
  assert.deepEqual(order(seen), [
    'request:start',
    'handler:start',
    'handler:end',
    'request:end',
    'request:asyncStart',
    'request:asyncEnd',
  ]);
  const ctx = seen[0]?.ctx as RequestTrace;
  assert.ok(
    seen.every((s) => s.ctx === ctx),
    'one context object for every event of a request',
  );
  assert.equal(ctx.method, 'GET');
  assert.equal(ctx.url, '/users/7?full=1');
  assert.equal(ctx.path, '/users/7');
  assert.equal(ctx.route, '/users/:id');
  assert.equal(ctx.status, 201);
  assert.equal(ctx.aborted, false);
  assert.equal(ctx.error, undefined);
  assert.ok(ctx.response instanceof GaleResponse);
  assert.equal(ctx.request.params.id, '7');
  // The status is known only once the response is done.
  assert.equal(seen.find((s) => s.ev === 'start')?.status, undefined);
});

test(
  'an async handler: gale.handler settles with asyncStart/asyncEnd; the response end comes after end',
  T,
  async (t) => {
    const seen = record(t);
    const { url } = await withApp(t, (app) => {
      app.get('/slow', async () => {
        await sleep(20);
        return { ok: true };
      });
    });
    const r = await fetch(`${url}/slow`);
    assert.deepEqual(await r.json(), { ok: true });
    await settled(seen);
    const o = order(seen);
    assert.deepEqual(o.slice(0, 4), ['request:start', 'handler:start', 'handler:end', 'request:end']);
    assert.ok(o.includes('handler:asyncStart') && o.includes('handler:asyncEnd'));
    assert.ok(o.indexOf('handler:asyncStart') < o.indexOf('handler:asyncEnd'));
    assert.ok(o.indexOf('request:asyncStart') < o.indexOf('request:asyncEnd'));
    assert.equal(seen.at(-1)?.status ?? seen.find((s) => s.ev === 'asyncEnd')?.status, 200);
  },
);

test(
  'a thrown error: error on both channels (once each), then a 500 end; onError answers are traced too',
  T,
  async (t) => {
    const seen = record(t);
    const boom = new Error('boom');
    const teapot = new HttpError(418, 'short and stout');
    const { url } = await withApp(t, (app) => {
      app.get('/sync', () => {
        throw boom;
      });
      app.get('/async', async () => {
        await sleep(1);
        throw teapot;
      });
      app.onError((err, _req, res) => {
        if (err === teapot) res.status(418).send('teapot');
        else throw err;
      });
    });
    const quiet = t.mock.method(console, 'error', () => {});
    assert.equal((await fetch(`${url}/sync`)).status, 500);
    await settled(seen);
    assert.deepEqual(order(seen), [
      'request:start',
      'handler:start',
      'handler:error',
      'request:error',
      'handler:end',
      'request:end',
      'request:asyncStart',
      'request:asyncEnd',
    ]);
    assert.equal(seen.find((s) => s.ev === 'error')?.error, boom);
    assert.equal(seen.at(-1)?.status, 500);
    seen.length = 0;
    const r = await fetch(`${url}/async`);
    assert.equal(r.status, 418);
    assert.equal(await r.text(), 'teapot');
    await settled(seen);
    const o = order(seen);
    assert.equal(o.filter((e) => e === 'request:error').length, 1);
    assert.equal(o.filter((e) => e === 'handler:error').length, 1);
    assert.ok(o.indexOf('handler:error') < o.indexOf('handler:asyncStart'), o.join(' '));
    assert.equal(seen.find((s) => s.ev === 'error')?.error, teapot);
    assert.equal(seen.at(-1)?.status, 418);
    quiet.mock.restore();
  },
);

test(
  'middleware: next(err) and an async middleware throwing reach the error channel; routers join the route',
  T,
  async (t) => {
    const seen = record(t);
    const api = router();
    api.use(async (req, _res, next) => {
      if (req.get('x-fail') === 'next') return next(new HttpError(403, 'no'));
      if (req.get('x-fail') === 'throw') throw new HttpError(401, 'who');
      await next();
    });
    api.get('/items/:itemId', (req) => ({ item: req.params.itemId }));
    const { url } = await withApp(t, (app) => {
      app.use('/api', api);
    });
    assert.deepEqual(await (await fetch(`${url}/api/items/3`)).json(), { item: '3' });
    await settled(seen);
    const ctx = seen[0]?.ctx as RequestTrace;
    assert.equal(ctx.route, '/api/items/:itemId');
    assert.equal(ctx.path, '/api/items/3');
    assert.equal(ctx.status, 200);
    assert.ok(!order(seen).some((e) => e.endsWith(':error')));
    seen.length = 0;
    assert.equal((await fetch(`${url}/api/items/3`, { headers: { 'x-fail': 'next' } })).status, 403);
    await settled(seen);
    assert.deepEqual(
      seen.filter((s) => s.ev === 'error').map((s) => [s.ch, (s.error as HttpError).status]),
      [
        ['handler', 403],
        ['request', 403],
      ],
    );
    seen.length = 0;
    assert.equal((await fetch(`${url}/api/items/3`, { headers: { 'x-fail': 'throw' } })).status, 401);
    await settled(seen);
    assert.equal(seen.filter((s) => s.ch === 'request' && s.ev === 'error').length, 1);
    assert.equal(seen.at(-1)?.status, 401);
  },
);

test('no route matched: the fallback (notFound) is traced with route undefined', T, async (t) => {
  const seen = record(t, ['request']);
  const { url } = await withApp(t, (app) => {
    app.get('/here', () => 'here');
    app.notFound((_req, res) => res.status(404).send('nothing'));
  });
  assert.equal((await fetch(`${url}/nowhere?x`)).status, 404);
  await settled(seen);
  const ctx = seen[0]?.ctx as RequestTrace;
  assert.equal(ctx.route, undefined);
  assert.equal(ctx.path, '/nowhere');
  assert.equal(ctx.status, 404);
});

test('fetch handlers: app.fetch(prefix, …) and serve() go through the same channels', T, async (t) => {
  const seen = record(t, ['request']);
  const { url } = await withApp(t, (app) => {
    app.fetch('/web', async (request) => Response.json({ path: new URL(request.url).pathname }, { status: 202 }));
  });
  const r = await fetch(`${url}/web/a/b`);
  assert.equal(r.status, 202);
  assert.deepEqual(await r.json(), { path: '/a/b' });
  await settled(seen);
  assert.equal(seen[0]?.ctx.route, '/web/*galeFetchPath');
  assert.equal(seen[0]?.ctx.path, '/web/a/b');
  assert.equal(seen.at(-1)?.status, 202);
  seen.length = 0;
  const server = await serve({ fetch: () => new Response('served', { status: 203 }), port: 0, hostname: HOST });
  t.after(() => server.close({ timeout: 500 }));
  const s = await fetch(`http://${HOST}:${server.port}/x?y=1`);
  assert.equal(s.status, 203);
  assert.equal(await s.text(), 'served');
  await settled(seen);
  assert.equal(seen[0]?.ctx.url, '/x?y=1');
  assert.equal(seen[0]?.ctx.route, undefined);
  assert.equal(seen.at(-1)?.status, 203);
});

test('a WebSocket upgrade is traced: its response ends with 101', T, async (t) => {
  const seen = record(t, ['request']);
  const { port } = await withApp(t, (app) => {
    app.ws('/chat/:room', { message: (ws, data) => ws.send(data) });
  });
  const ws = new WebSocket(`ws://${HOST}:${port}/chat/lobby`);
  t.after(() => ws.terminate());
  await withTimeout(new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)), 3000, 'open');
  await settled(seen);
  const ctx = seen[0]?.ctx as RequestTrace;
  assert.equal(ctx.route, '/chat/:room');
  assert.equal(ctx.status, 101);
  assert.deepEqual(order(seen), ['request:start', 'request:end', 'request:asyncStart', 'request:asyncEnd']);
  ws.close();
});

test('a client that leaves mid-stream: the response ends aborted', T, async (t) => {
  const seen = record(t, ['request']);
  const wrote = deferred();
  const { port } = await withApp(t, (app) => {
    app.get('/stream', (_req, res) => {
      res.write('first');
      wrote.resolve();
    });
  });
  const sock = net.connect(port, HOST);
  sock.on('error', () => {});
  sock.write(`GET /stream HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  await withTimeout(wrote.promise, 3000, 'the first write');
  await sleep(20);
  sock.destroy();
  await settled(seen);
  const ctx = seen[0]?.ctx as RequestTrace;
  assert.equal(ctx.aborted, true);
  assert.equal(ctx.status, 200);
});

test('a store bound to gale.request start is the active one in the handler, across awaits', T, async (t) => {
  const store = new AsyncLocalStorage<string>();
  requests.start.bindStore(store, (ctx) => `${ctx.method} ${ctx.route}`);
  t.after(() => requests.start.unbindStore(store));
  const { url } = await withApp(t, (app) => {
    app.use(async (_req, res, next) => {
      res.header('x-in-middleware', store.getStore() ?? 'none');
      await next();
    });
    app.get('/ctx/:x', async () => {
      await sleep(5);
      return { store: store.getStore() ?? 'none' };
    });
  });
  const r = await fetch(`${url}/ctx/1`);
  assert.deepEqual(await r.json(), { store: 'GET /ctx/:x' });
  assert.equal(r.headers.get('x-in-middleware'), 'GET /ctx/:x');
});

test('without subscribers a request gets the plain Response and no trace', T, async (t) => {
  let proto: unknown;
  const { url } = await withApp(t, (app) => {
    app.get('/plain', (_req, res) => {
      proto = Object.getPrototypeOf(res);
      res.send('ok');
    });
  });
  assert.equal(requests.hasSubscribers || handlers.hasSubscribers, false);
  assert.equal(await (await fetch(`${url}/plain`)).text(), 'ok');
  assert.equal(proto, GaleResponse.prototype);
});
