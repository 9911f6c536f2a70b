// app.close(): stop accepting, finish in-flight requests (with Connection: close), close idle
// keep-alive sockets, force-close at the deadline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deferred, parseResponses, RawConn, show, sleep, T, tryConnect, withApp, withTimeout } from '../helpers.js';

test('close() while a slow request is in flight: it completes with 200 + Connection: close', T, async (t) => {
  const started = deferred<void>();
  const s = await withApp(t, (app) => {
    app.get('/slow', async () => {
      started.resolve();
      await sleep(400);
      return 'slow done';
    });
  });
  const conn = await RawConn.open(s.port);
  t.after(() => conn.destroy());
  await conn.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await withTimeout(started.promise, 3000, 'handler start');

  let closeResolvedAt = 0;
  const closeStart = Date.now();
  const closing = s.close(5000).then(() => {
    closeResolvedAt = Date.now();
  });

  await sleep(50);
  assert.equal(await tryConnect(s.port), 'ECONNREFUSED', 'new connections must be refused after close()');
  assert.equal(closeResolvedAt, 0, 'close() resolved while a request was still in flight');

  const res = await conn.readResponse({ timeoutMs: 3000 });
  const answeredAt = Date.now();
  assert.equal(res.status, 200);
  assert.equal(res.text, 'slow done');
  assert.equal(res.get('connection'), 'close');
  assert.equal(await conn.waitForClose(2000), true, 'socket not closed after the in-flight response');

  await withTimeout(closing, 3000, 'close() to resolve');
  assert.ok(closeResolvedAt >= answeredAt - 20, 'close() resolved before the in-flight response was sent');
  assert.ok(closeResolvedAt - closeStart < 3000, `close() took ${closeResolvedAt - closeStart} ms`);
});

test('close() with a pipelined second request: every response sent is complete, the last says close', T, async (t) => {
  const started = deferred<void>();
  const s = await withApp(t, (app) => {
    app.get('/slow', async () => {
      started.resolve();
      await sleep(200);
      return 'first';
    });
    app.get('/fast', () => 'second');
  });
  const conn = await RawConn.open(s.port);
  t.after(() => conn.destroy());
  await conn.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await withTimeout(started.promise, 3000, 'handler start');
  const closing = s.close(3000);
  assert.equal(await conn.waitForClose(3000), true, 'socket not closed during shutdown');
  await withTimeout(closing, 4000, 'close()');
  // The in-flight request is answered; the queued one may or may not be. Whatever was sent must be
  // well-formed and the last response must announce the close.
  const responses = parseResponses(conn.all());
  assert.ok(responses.length >= 1 && responses.length <= 2, show(conn.all()));
  assert.equal(responses[0]?.status, 200);
  assert.equal(responses[0]?.text, 'first');
  if (responses.length === 2) assert.equal(responses[1]?.text, 'second');
  assert.equal(responses[responses.length - 1]?.get('connection'), 'close');
});

test('close() closes idle keep-alive connections promptly', T, async (t) => {
  const s = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
  });
  const conns = await Promise.all([RawConn.open(s.port), RawConn.open(s.port), RawConn.open(s.port)]);
  t.after(() => {
    for (const c of conns) c.destroy();
  });
  for (const c of conns) {
    await c.write('GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.equal((await c.readResponse()).text, 'ok');
  }
  const start = Date.now();
  await withTimeout(s.close(5000), 3000, 'close() with only idle connections');
  const elapsed = Date.now() - start;
  assert.ok(elapsed < 1000, `close() with idle connections took ${elapsed} ms (deadline 5000)`);
  for (const c of conns) assert.equal(await c.waitForClose(1000), true, 'idle keep-alive socket left open');
  assert.equal(await tryConnect(s.port), 'ECONNREFUSED');
});

test('close() with no connections resolves quickly and frees the port', T, async (t) => {
  const s = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
  });
  assert.equal(await tryConnect(s.port), 'connected');
  const start = Date.now();
  await withTimeout(s.close(5000), 3000, 'close()');
  assert.ok(Date.now() - start < 1000);
  assert.equal(await tryConnect(s.port), 'ECONNREFUSED');
});

test(
  'close({ timeout: 200 }) with a handler that never answers resolves at the deadline and closes the socket',
  T,
  async (t) => {
    const started = deferred<void>();
    const s = await withApp(t, (app) => {
      app.get('/never', () => {
        started.resolve();
        return new Promise<never>(() => {});
      });
    });
    const conn = await RawConn.open(s.port);
    t.after(() => conn.destroy());
    await conn.write('GET /never HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await withTimeout(started.promise, 3000, 'handler start');
    const start = Date.now();
    await withTimeout(s.close(200), 3000, 'close({ timeout: 200 })');
    const elapsed = Date.now() - start;
    assert.ok(elapsed >= 150, `close() resolved after ${elapsed} ms, before the 200 ms deadline`);
    assert.ok(elapsed < 1200, `close() resolved after ${elapsed} ms, long after the 200 ms deadline`);
    assert.equal(await conn.waitForClose(1000), true, 'socket still open after the forced close');
    assert.equal(await tryConnect(s.port), 'ECONNREFUSED');
  },
);

test('close({ timeout }) with a half-sent request (headers incomplete) does not wait for it', T, async (t) => {
  const s = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
  });
  const conn = await RawConn.open(s.port);
  t.after(() => conn.destroy());
  await conn.write('GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  await sleep(50);
  const start = Date.now();
  await withTimeout(s.close(300), 3000, 'close({ timeout: 300 })');
  assert.ok(Date.now() - start < 1300, `close() took ${Date.now() - start} ms`);
  assert.equal(await conn.waitForClose(1000), true);
});
