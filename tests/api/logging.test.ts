// Logging with a real pino logger: one line per request (method, url, status, duration, reqId),
// req.log / req.id from a valid X-Request-Id or a random UUID, 500s logged with the request id,
// requestLogging: false, streamed and aborted requests, and the shared console logger without one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'gale';
import pino from 'pino';
import { deferred, RawConn, simpleRequest, sleep, T, withApp, withTimeout } from '../helpers.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: { message: string; type: string };
  [k: string]: unknown;
}

function capture() {
  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { logger, lines };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Waits (bounded) until `lines` has `n` entries matching `pred`. */
async function linesFor(lines: Line[], pred: (l: Line) => boolean, n = 1): Promise<Line[]> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const found = lines.filter(pred);
    if (found.length >= n || Date.now() > deadline) return found;
    await sleep(5);
  }
}

test('one line per request: method, url, status, responseTime and reqId, at info', T, async (t) => {
  const { logger, lines } = capture();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/sync', () => 'ok');
      app.post('/async/:id', async (_req, res) => {
        await sleep(20);
        res.status(201).json({ ok: true });
      });
    },
    { logger },
  );
  await simpleRequest(port, { path: '/sync?x=1' });
  await simpleRequest(port, { method: 'POST', path: '/async/7', body: '' });
  const done = await linesFor(lines, (l) => l.msg === 'request completed', 2);
  assert.equal(done.length, 2);
  const [a, b] = done as [Line, Line];
  assert.equal(a.level, 30);
  assert.deepEqual(a.req, { method: 'GET', url: '/sync?x=1' });
  assert.deepEqual(a.res, { statusCode: 200 });
  assert.equal(typeof a.responseTime, 'number');
  assert.match(a.reqId ?? '', UUID);
  assert.deepEqual(b.req, { method: 'POST', url: '/async/7' });
  assert.deepEqual(b.res, { statusCode: 201 });
  assert.ok((b.responseTime ?? 0) >= 15, `responseTime ${b.responseTime} should cover the 20 ms await`);
  assert.notEqual(a.reqId, b.reqId);
});

test('req.log and req.id: a valid X-Request-Id is used; an invalid one is replaced by a UUID', T, async (t) => {
  const { logger, lines } = capture();
  const ids: string[] = [];
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/work', (req) => {
        req.log.info({ step: 'working' }, 'handler says hi');
        ids.push(req.id);
        return 'done';
      });
    },
    { logger },
  );
  await simpleRequest(port, { path: '/work', headers: { 'X-Request-Id': 'abc-123.def:ghi' } });
  for (const bad of ['has space', 'quote"d', 'x'.repeat(129), '']) {
    await simpleRequest(port, { path: '/work', headers: { 'X-Request-Id': bad } });
  }
  const said = await linesFor(lines, (l) => l.msg === 'handler says hi', 5);
  const completed = await linesFor(lines, (l) => l.msg === 'request completed', 5);
  assert.equal(said[0]?.reqId, 'abc-123.def:ghi');
  assert.equal(said[0]?.step, 'working');
  assert.equal(completed[0]?.reqId, 'abc-123.def:ghi', 'the request line has the same id');
  assert.equal(ids[0], 'abc-123.def:ghi');
  for (let i = 1; i < 5; i++) {
    assert.match(said[i]?.reqId ?? '', UUID, `invalid id #${i} must be replaced`);
    assert.equal(completed[i]?.reqId, said[i]?.reqId);
    assert.equal(ids[i], said[i]?.reqId);
  }
});

test('a 500 is logged at error with the error and the request id', T, async (t) => {
  const { logger, lines } = capture();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/boom', async () => {
        await sleep(1);
        throw new Error('kaboom');
      });
    },
    { logger },
  );
  const r = await simpleRequest(port, { path: '/boom', headers: { 'X-Request-Id': 'req-500' } });
  assert.equal(r.status, 500);
  const [err] = await linesFor(lines, (l) => l.level === 50);
  assert.ok(err);
  assert.equal(err.reqId, 'req-500');
  assert.equal(err.msg, 'gale: 500 while handling a request');
  assert.equal(err.err?.message, 'kaboom');
  const [done] = await linesFor(lines, (l) => l.msg === 'request completed');
  assert.deepEqual(done?.res, { statusCode: 500 });
  assert.equal(done?.reqId, 'req-500');
});

test('requestLogging: false keeps req.log and error logging but drops the request lines', T, async (t) => {
  const { logger, lines } = capture();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/quiet', (req) => {
        req.log.warn('explicit');
        return 'ok';
      });
      app.get('/boom', () => {
        throw new Error('still logged');
      });
    },
    { logger, requestLogging: false },
  );
  await simpleRequest(port, { path: '/quiet' });
  await simpleRequest(port, { path: '/boom' });
  await linesFor(lines, (l) => l.level === 50);
  await sleep(50);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [
      [40, 'explicit'],
      [50, 'gale: 500 while handling a request'],
    ],
  );
  assert.match(lines[0]?.reqId ?? '', UUID);
});

test('streamed responses are logged when they end; an aborted one is logged as aborted (warn)', T, async (t) => {
  const { logger, lines } = capture();
  const aborted = deferred<void>();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/stream', async (_req, res) => {
        res.status(206).write('a');
        await sleep(5);
        res.end('b');
      });
      app.get('/hang', (req, res) => {
        res.write('started');
        req.signal.addEventListener('abort', () => aborted.resolve());
      });
    },
    { logger },
  );
  await simpleRequest(port, { path: '/stream' });
  const [streamed] = await linesFor(lines, (l) => l.req?.url === '/stream');
  assert.equal(streamed?.msg, 'request completed');
  assert.deepEqual(streamed?.res, { statusCode: 206 });
  const conn = await RawConn.open(port);
  await conn.write('GET /hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await conn.readUntil('started');
  conn.destroy();
  await withTimeout(aborted.promise, 5000, 'the abort');
  const [gone] = await linesFor(lines, (l) => l.req?.url === '/hang');
  assert.equal(gone?.msg, 'request aborted');
  assert.equal(gone?.level, 40);
  assert.deepEqual(gone?.req, { method: 'GET', url: '/hang' });
});

test('without a logger: req.log is one shared console logger, req.id still works, nothing is logged', T, async (t) => {
  const seen: { log: unknown; id: string }[] = [];
  const original = console.log;
  const printed: unknown[] = [];
  console.log = (...args: unknown[]) => printed.push(args);
  t.after(() => {
    console.log = original;
  });
  const { port } = await withApp(t, (app) => {
    app.get('/', (req: Request) => {
      seen.push({ log: req.log, id: req.id });
      return 'ok';
    });
    app.get('/plain', () => 'plain');
  });
  await simpleRequest(port, { path: '/', headers: { 'X-Request-Id': 'given-1' } });
  await simpleRequest(port, { path: '/' });
  await simpleRequest(port, { path: '/plain' });
  assert.equal(seen.length, 2);
  assert.equal(seen[0]?.log, seen[1]?.log, 'the same object: no per-request logger is made');
  assert.equal(seen[0]?.id, 'given-1');
  assert.match(seen[1]?.id ?? '', UUID);
  assert.deepEqual(printed, [], 'no request lines without a logger');
});
