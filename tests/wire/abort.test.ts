// Client disconnects: req.signal aborts while the handler is pending, and the server keeps serving.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App, Deferred } from '../helpers.js';
import { deferred, RawConn, simpleRequest, sleep, T, withApp, within, withTimeout } from '../helpers.js';

interface Probe {
  started: Deferred<AbortSignal>;
  aborted: Deferred<void>;
  abortedAtStart: boolean | undefined;
}

function newProbe(): Probe {
  return { started: deferred<AbortSignal>(), aborted: deferred<void>(), abortedAtStart: undefined };
}

test('client destroys the socket while an async handler awaits: req.signal aborts', T, async (t) => {
  const probe = newProbe();
  let lateWriteError: unknown;
  const { port } = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
    app.get('/wait', async (req, res) => {
      probe.abortedAtStart = req.signal.aborted;
      req.signal.addEventListener('abort', () => probe.aborted.resolve(), { once: true });
      probe.started.resolve(req.signal);
      await within(probe.aborted.promise, 5000);
      try {
        res.end('too late'); // must not crash the process
      } catch (e) {
        lateWriteError = e;
      }
    });
  });
  const conn = await RawConn.open(port);
  await conn.write('GET /wait HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const signal = await withTimeout(probe.started.promise, 3000, 'handler start');
  assert.equal(probe.abortedAtStart, false, 'signal already aborted when the handler started');
  conn.destroy();
  await withTimeout(probe.aborted.promise, 3000, "req.signal 'abort' event after the client disconnected");
  assert.equal(signal.aborted, true);
  await sleep(50);
  void lateWriteError; // either outcome is acceptable; the server must survive it
  const res = await simpleRequest(port, { path: '/ok' });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'ok');
});

test('req.signal does not abort when the response completed before the client went away', T, async (t) => {
  let captured: AbortSignal | undefined;
  let abortEvents = 0;
  const { port } = await withApp(t, (app) => {
    app.get('/fast', (req) => {
      captured = req.signal;
      req.signal.addEventListener('abort', () => abortEvents++);
      return 'done';
    });
  });
  const conn = await RawConn.open(port);
  await conn.write('GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const res = await conn.readResponse();
  assert.equal(res.text, 'done');
  conn.destroy();
  await sleep(200);
  assert.ok(captured, 'handler did not run');
  assert.equal(captured.aborted, false, 'signal aborted although the response had ended');
  assert.equal(abortEvents, 0);
});

test('client disconnects in the middle of the request body: no handler sees a truncated body', T, async (t) => {
  // The engine may dispatch before or after the body has arrived; either way a handler that runs
  // must see its signal abort and its body read reject, never a truncated body.
  let started = false;
  const aborted = deferred<void>();
  const bodyOutcome = deferred<string>();
  const { port } = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
    app.post('/upload', async (req) => {
      started = true;
      req.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
      if (req.signal.aborted) aborted.resolve();
      try {
        const body = await req.text();
        bodyOutcome.resolve(`resolved with ${body.length} bytes`);
      } catch {
        bodyOutcome.resolve('rejected');
      }
      return 'unreachable';
    });
  });
  const conn = await RawConn.open(port);
  await conn.write('POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n');
  await conn.write('x'.repeat(1000));
  await sleep(150);
  conn.destroy();
  await sleep(400);
  if (started) {
    await withTimeout(aborted.promise, 3000, 'req.signal abort');
    assert.equal(await withTimeout(bodyOutcome.promise, 3000, 'req.text() to settle'), 'rejected');
  }
  const res = await simpleRequest(port, { path: '/ok' });
  assert.equal(res.status, 200);
});

test('client disconnects while a write() stream is in progress: signal aborts, server survives', T, async (t) => {
  const aborted = deferred<void>();
  const firstChunk = deferred<void>();
  const { port } = await withApp(t, (app) => {
    app.get('/ok', () => 'ok');
    app.get('/ticker', async (req, res) => {
      req.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
      res.write('tick\n');
      firstChunk.resolve();
      for (let i = 0; i < 100 && !req.signal.aborted; i++) {
        await sleep(20);
        try {
          res.write('tick\n');
        } catch {
          break;
        }
      }
      try {
        res.end();
      } catch {
        // ignore
      }
    });
  });
  const conn = await RawConn.open(port);
  await conn.write('GET /ticker HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await conn.readUntil('tick\n', 3000);
  await withTimeout(firstChunk.promise, 1000, 'first chunk');
  conn.destroy();
  await withTimeout(aborted.promise, 3000, 'req.signal abort during streaming');
  const res = await simpleRequest(port, { path: '/ok' });
  assert.equal(res.status, 200);
});

test('many clients abandoning pending requests at once; the server keeps serving', T, async (t) => {
  let started = 0;
  let abortedCount = 0;
  const allStarted = deferred<void>();
  const allAborted = deferred<void>();
  const N = 20;
  const setup = (app: App) => {
    app.get('/ok', () => 'ok');
    app.get('/hang/:i', async (req) => {
      req.signal.addEventListener('abort', () => {
        if (++abortedCount === N) allAborted.resolve();
      });
      if (++started === N) allStarted.resolve();
      await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve()));
      return 'never sent';
    });
  };
  const { port } = await withApp(t, setup);
  const conns = await Promise.all(Array.from({ length: N }, () => RawConn.open(port)));
  await Promise.all(conns.map((c, i) => c.write(`GET /hang/${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)));
  await withTimeout(allStarted.promise, 3000, `all ${N} handlers to start (started ${started})`);
  for (const c of conns) c.destroy();
  await withTimeout(allAborted.promise, 3000, `all ${N} signals to abort`);
  assert.equal(abortedCount, N);
  for (let i = 0; i < 3; i++) {
    const res = await simpleRequest(port, { path: '/ok' });
    assert.equal(res.status, 200);
  }
});
