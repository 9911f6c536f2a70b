// Lifecycle hooks: the order they run in on a route with schemas, a hook that answers ends the request, onSend
// replaces the body (and its ETag), onError observes before the error handlers, onResponse after the answer (404s
// too, for the app's own hooks), onClose at app.close(), hooks added after the routes still apply; and what a
// WebSocket route runs.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { derive, gale, router } from 'gale';
import WebSocket from 'ws';
import { z } from 'zod';

test('every hook runs in its place around middleware, the checks and the handler', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.addHook('onRequest', (req) => {
    seen.push(`onRequest ${req.method} ${req.path}`);
  });
  app.use((_req, _res, next) => {
    seen.push('middleware');
    return next();
  });
  app.addHook('preParsing', () => {
    seen.push('preParsing');
  });
  app.addHook('preValidation', async (req) => {
    await new Promise((r) => setTimeout(r, 5));
    seen.push(`preValidation body=${JSON.stringify(req.body)}`);
  });
  app.addHook('preHandler', (req) => {
    seen.push(`preHandler body=${JSON.stringify(req.body)}`);
  });
  app.addHook('onSend', (_req, res, payload) => {
    seen.push(`onSend ${payload}`);
    res.header('x-seen', String(seen.length));
    return `[${payload}]`;
  });
  app.addHook('onResponse', (_req, res) => {
    seen.push(`onResponse ${res.statusCode}`);
  });
  app.post('/items', { body: z.object({ n: z.coerce.number() }) }, (req) => {
    seen.push(`handler ${typeof req.body.n}`);
    return { n: req.body.n * 2 };
  });

  const res = await app.request('/items', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ n: '21' }),
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '[{"n":42}]');
  assert.equal(res.headers.get('x-seen'), '7');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [
    'onRequest POST /items',
    'middleware',
    'preParsing',
    'preValidation body={"n":"21"}',
    'preHandler body={"n":21}',
    'handler number',
    'onSend {"n":42}',
    'onResponse 200',
  ]);
});

test('a hook that answers ends the request there; onSend and onResponse still see that answer', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.addHook('onRequest', async (req, res) => {
    if (req.get('x-key') !== 'k') res.status(401).json({ error: 'no key' });
  });
  app.addHook('preHandler', (req, res) => {
    if (req.query.deny !== undefined) res.status(403).send('denied');
  });
  app.addHook('onSend', (_req, res, payload) => {
    seen.push(`onSend ${res.statusCode} ${payload}`);
  });
  app.addHook('onResponse', (_req, res) => {
    seen.push(`onResponse ${res.statusCode}`);
  });
  app.get('/x', () => {
    seen.push('handler');
    return 'ok';
  });

  const noKey = await app.request('/x');
  assert.deepEqual([noKey.status, await noKey.json()], [401, { error: 'no key' }]);
  const denied = await app.request('/x?deny', { headers: { 'x-key': 'k' } });
  assert.deepEqual([denied.status, await denied.text()], [403, 'denied']);
  const ok = await app.request('/x', { headers: { 'x-key': 'k' } });
  assert.deepEqual([ok.status, await ok.text()], [200, 'ok']);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [
    'onSend 401 {"error":"no key"}',
    'onResponse 401',
    'onSend 403 denied',
    'onResponse 403',
    'handler',
    'onSend 200 ok',
    'onResponse 200',
  ]);
});

test('onSend: a replaced body gets its own ETag; an async onSend is a 500; streams pass undefined', async (t) => {
  const app = gale({ etag: true });
  t.after(() => app.close());
  const payloads: unknown[] = [];
  app.addHook('onSend', (req, _res, payload) => {
    payloads.push(payload);
    if (req.path === '/async') return Promise.resolve('late') as never;
    return typeof payload === 'string' ? payload.toUpperCase() : undefined;
  });
  app.get('/text', () => 'hello');
  app.get('/async', () => 'x');
  app.get('/stream', (_req, res) => {
    res.write('a');
    res.end('b');
  });
  const plain = gale({ etag: true }).get('/text', () => 'HELLO');
  t.after(() => plain.close());

  const text = await app.request('/text');
  assert.equal(await text.text(), 'HELLO');
  const expected = (await plain.request('/text')).headers.get('etag');
  assert.ok(expected);
  assert.equal(text.headers.get('etag'), expected, 'the ETag is the sent body’s');
  const again = await app.request('/text', { headers: { 'if-none-match': expected } });
  assert.equal(again.status, 200, 'the 304 check ran on the body before the hook (documented)');

  const failed = await app.request('/async');
  assert.equal(failed.status, 500);
  const streamed = await app.request('/stream');
  assert.equal(await streamed.text(), 'ab');
  // (the 500 that answers a failed onSend does not run the hooks again)
  assert.deepEqual(payloads, ['hello', 'hello', 'x', undefined]);
});

test('onError observes the error before the error handlers answer; a failing onError hook is logged', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.addHook('onError', (_req, _res, err) => {
    seen.push(`first ${(err as Error).message}`);
    throw new Error('the hook itself failed');
  });
  app.addHook('onError', async (req, _res, err) => {
    seen.push(`second ${(err as Error).message} ${req.path}`);
  });
  app.onError((err, _req, res) => res.status(418).json({ caught: (err as Error).message }));
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.get('/fine', () => 'fine');
  const res = await app.request('/boom');
  assert.deepEqual([res.status, await res.json()], [418, { caught: 'boom' }]);
  assert.equal(await (await app.request('/fine')).text(), 'fine');
  assert.deepEqual(seen, ['first boom', 'second boom /boom']);
});

test("the app's hooks see unmatched paths (404) too; hooks added after the routes apply to them", async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.get('/early', () => 'early');
  const before = await app.request('/early');
  assert.equal(await before.text(), 'early');
  app.addHook('onRequest', (req) => {
    seen.push(`onRequest ${req.path}`);
  });
  app.addHook('onResponse', (req, res) => {
    seen.push(`onResponse ${req.path} ${res.statusCode}`);
  });
  await (await app.request('/early')).text();
  await (await app.request('/missing')).text();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [
    'onRequest /early',
    'onResponse /early 200',
    'onRequest /missing',
    'onResponse /missing 404',
  ]);
});

test('onClose hooks run once the server has closed, in order; close() rejects with the first that failed', async () => {
  const seen: string[] = [];
  const app = gale();
  app.addHook('onClose', async () => {
    await new Promise((r) => setTimeout(r, 5));
    seen.push(`app (listening: ${app.address() !== null})`);
  });
  app.register((instance) => {
    instance.addHook('onClose', () => {
      seen.push('plugin');
    });
  });
  await app.listen(0, '127.0.0.1');
  await app.close();
  assert.deepEqual(seen, ['app (listening: false)', 'plugin']);

  const failing = gale();
  failing.addHook('onClose', () => {
    throw new Error('could not flush');
  });
  failing.addHook('onClose', () => {
    seen.push('still ran');
  });
  await assert.rejects(failing.close(), /could not flush/);
  assert.equal(seen.at(-1), 'still ran');
});

test('the hook names and values are checked', () => {
  const app = gale();
  assert.throws(() => app.addHook('onReqest' as 'onRequest', () => {}), {
    message:
      'addHook(): "onReqest" is not a hook; the hooks are onRequest, preParsing, preValidation, preHandler, onSend, onResponse, onError, onClose',
  });
  assert.throws(() => app.addHook('onRequest', 'nope' as never), /addHook\('onRequest'\): the hook must be a function/);
  assert.throws(() => app.decorateRequest('user', {}), /every request would share that one object/);
});

test('a WebSocket route runs onRequest (which may refuse the upgrade) and decorations, not the answer hooks', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.decorateRequest('who', 'nobody');
  app.addHook('onRequest', (req, res) => {
    seen.push(`onRequest ${(req as unknown as { who: string }).who}`);
    if (req.get('x-token') !== 't') res.status(401).send('no token');
  });
  app.addHook('onSend', () => {
    seen.push('onSend');
  });
  app.use(derive(() => ({ n: 1 }))).ws('/ws', { open: (ws) => ws.send('hi'), message: (ws, data) => ws.send(data) });
  const { port } = await app.listen(0, '127.0.0.1');

  const refused = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  refused.on('error', () => {}); // terminating a socket that never opened reports an error
  const [, response] = (await once(refused, 'unexpected-response')) as [unknown, { statusCode: number }];
  assert.equal(response.statusCode, 401);
  refused.terminate();

  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { 'x-token': 't' } });
  const [hello] = await once(ws, 'message');
  assert.equal(String(hello), 'hi');
  ws.close();
  await once(ws, 'close');
  // A WebSocket route runs no answer hooks (onSend, onResponse), for a refusal either.
  assert.deepEqual(seen, ['onRequest nobody', 'onRequest nobody']);
});

test('a router’s hooks apply to its own routes, wherever it is mounted, and not to the app’s', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  const api = router().addHook('preHandler', (req) => {
    seen.push(`api ${req.path}`);
  });
  api.get('/items', () => 'items');
  app.use('/api', api);
  app.get('/page', () => 'page');
  assert.equal(await (await app.request('/api/items')).text(), 'items');
  assert.equal(await (await app.request('/page')).text(), 'page');
  assert.deepEqual(seen, ['api /api/items']);
});
