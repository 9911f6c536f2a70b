// HTTP/2 streams over time with Node's http2 client: flow control with a slow reader (the handler sees
// backpressure, other streams on the connection carry on), bodies streamed both ways as they arrive, a client's
// RST_STREAM reaching the handler as the abort HTTP/1.1 gives, res.destroy() resetting only its stream, GOAWAY
// on app.close() and on the idle timeout, and the request body timeout.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { test } from 'node:test';
import { deferred, sleep } from '../helpers.js';
import { bounded, h2App, request, uploadRoute } from './h2.js';

const T = { timeout: 30_000 };

test('flow control: a reader that stops makes write() wait for drain, and other streams carry on', T, async (t) => {
  const total = 4 * 1024 * 1024;
  let writtenAtResume = -1;
  let written = 0;
  let waits = 0;
  const s = await h2App(t, (app) => {
    app.get('/slow', async (_req, res) => {
      res.type('application/octet-stream');
      const chunk = Buffer.alloc(16 * 1024, 0x5a);
      while (written < total) {
        written += chunk.length;
        if (!res.write(chunk)) {
          waits++;
          await new Promise<void>((r) => res.once('drain', r));
        }
      }
      res.end();
    });
    app.get('/hello', () => 'hello');
  });
  const c = s.connect({ settings: { initialWindowSize: 65_535 } });
  // A large connection window, so the paused stream holds only its own window and not everyone's.
  await bounded(new Promise((r) => c.once('connect', r)), 3000, 'connect');
  c.setLocalWindowSize(32 * 1024 * 1024);
  const slow = c.request({ ':path': '/slow' });
  slow.pause();
  let got = 0;
  const ended = new Promise<void>((resolve, reject) => {
    slow.on('data', (d: Buffer) => {
      got += d.length;
    });
    slow.on('end', resolve);
    slow.on('error', reject);
  });
  await sleep(400);
  // The stalled stream does not hold the connection up.
  const other = await request(c, { ':path': '/hello' });
  assert.equal(other.body.toString(), 'hello');
  writtenAtResume = written;
  slow.resume();
  await bounded(ended, 20_000, 'the slow download');
  assert.equal(got, total);
  assert.ok(waits > 0, 'write() returned false and the handler waited for drain');
  assert.ok(
    writtenAtResume < 1024 * 1024,
    `the handler was held back while the client read nothing (${writtenAtResume})`,
  );
});

test('bodies stream both ways: each echoed chunk comes back before the next is sent', T, async (t) => {
  const s = await h2App(t, (app) => {
    app.post('/echo', async (req, res) => {
      res.type('text/plain');
      for await (const chunk of req.stream()) res.write(chunk as Buffer);
      res.end('|end');
    });
    app.get('/sse', (_req, res) => {
      const sse = res.sse();
      let n = 0;
      const timer = setInterval(() => {
        sse.send(`tick ${++n}`);
        if (n === 3) {
          clearInterval(timer);
          sse.close();
        }
      }, 20);
    });
  });
  const c = s.connect();
  const r = c.request({ ':method': 'POST', ':path': '/echo' }, { endStream: false });
  let echoed = '';
  let wake: (() => void) | undefined;
  r.setEncoding('utf8');
  r.on('data', (d: string) => {
    echoed += d;
    wake?.();
  });
  const ended = new Promise((resolve) => r.on('end', resolve));
  for (let i = 0; i < 5; i++) {
    const piece = `piece-${i};`;
    r.write(piece);
    await bounded(
      new Promise<void>((resolve) => {
        wake = () => echoed.endsWith(piece) && resolve();
        wake();
      }),
      3000,
      `echo of ${piece}`,
    );
  }
  r.end();
  await bounded(ended, 3000, 'end of the echo');
  assert.equal(echoed, 'piece-0;piece-1;piece-2;piece-3;piece-4;|end');

  const events = await request(c, { ':path': '/sse' });
  assert.equal(events.headers['content-type'], 'text/event-stream');
  assert.match(events.body.toString(), /data: tick 1\n\n[\s\S]*data: tick 3\n\n/);
});

test("a client's RST_STREAM reaches the handler as an abort; the connection serves on", T, async (t) => {
  const started = deferred();
  const aborted = deferred<string>();
  const s = await h2App(t, (app) => {
    app.get('/wait', async (req) => {
      started.resolve();
      await new Promise<void>((resolve) => {
        req.signal.addEventListener('abort', () => {
          aborted.resolve(String((req.signal.reason as Error).message));
          resolve();
        });
      });
    });
    app.get('/stream', async (req, res) => {
      res.type('text/plain');
      while (!req.aborted) {
        res.write('x'.repeat(1000));
        await sleep(5);
      }
    });
    app.get('/ok', () => 'ok');
  });
  const c = s.connect();
  const r = c.request({ ':path': '/wait' });
  r.on('error', () => {});
  await bounded(started.promise, 3000, 'handler start');
  r.close(http2.constants.NGHTTP2_CANCEL);
  assert.equal(await bounded(aborted.promise, 3000, 'abort in the handler'), 'client disconnected');

  // A response being streamed: the reset stops it.
  const st = c.request({ ':path': '/stream' });
  st.on('error', () => {});
  await bounded(new Promise((resolve) => st.once('data', resolve)), 3000, 'first chunk');
  st.close(http2.constants.NGHTTP2_CANCEL);
  await sleep(100);
  assert.equal((await request(c, { ':path': '/ok' })).body.toString(), 'ok');
  const stats = s.app.stats();
  assert.equal(stats.requestsInFlight, 0, 'every record was released');
  assert.equal(stats.connections, 1);
});

test('res.destroy() resets its stream only', T, async (t) => {
  const s = await h2App(t, (app) => {
    app.get('/broken', (_req, res) => {
      res.type('text/plain');
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    app.get('/ok', () => 'ok');
  });
  const c = s.connect();
  const r = c.request({ ':path': '/broken' });
  r.on('error', () => {});
  const code = await bounded(
    new Promise<number>((resolve) => {
      r.on('close', () => resolve(r.rstCode));
      r.resume();
    }),
    3000,
    'reset of /broken',
  );
  assert.equal(code, http2.constants.NGHTTP2_INTERNAL_ERROR);
  assert.equal((await request(c, { ':path': '/ok' })).body.toString(), 'ok');
});

test('app.close() sends GOAWAY: streams in flight finish, then the connection closes', T, async (t) => {
  const started = deferred();
  const s = await h2App(t, (app) => {
    app.get('/slow', async () => {
      started.resolve();
      await sleep(300);
      return 'finished';
    });
  });
  const c = s.connect();
  const goaway = new Promise<number>((resolve) => c.once('goaway', (code) => resolve(code)));
  const closed = new Promise((resolve) => c.once('close', resolve));
  const inflight = request(c, { ':path': '/slow' });
  await bounded(started.promise, 3000, 'handler start');
  const closing = s.app.close();
  assert.equal(await bounded(goaway, 3000, 'GOAWAY'), http2.constants.NGHTTP2_NO_ERROR);
  const r = await inflight;
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), 'finished');
  await bounded(closing, 5000, 'app.close()');
  await bounded(closed, 5000, 'client session closed');
});

test('an idle connection gets GOAWAY after keepAliveTimeout', T, async (t) => {
  const s = await h2App(t, (app) => app.get('/', () => 'x'), { gale: { keepAliveTimeout: 300 } });
  const c = s.connect();
  assert.equal((await request(c, { ':path': '/' })).body.toString(), 'x');
  const goaway = new Promise<number>((resolve) => c.once('goaway', (code) => resolve(code)));
  const closed = new Promise((resolve) => c.once('close', resolve));
  assert.equal(await bounded(goaway, 3000, 'GOAWAY when idle'), http2.constants.NGHTTP2_NO_ERROR);
  await bounded(closed, 3000, 'close after GOAWAY');
  await bounded(
    (async () => {
      while (s.app.connections > 0) await sleep(20);
    })(),
    3000,
    'server side closed',
  );
});

test('a request body that stops arriving fails with 408 after requestTimeout', T, async (t) => {
  const s = await h2App(t, uploadRoute, { gale: { requestTimeout: 300 } });
  const c = s.connect();
  const r = c.request({ ':method': 'POST', ':path': '/up' }, { endStream: false });
  r.write('some of the body');
  const status = await bounded(
    new Promise<number>((resolve, reject) => {
      r.on('response', (h) => resolve(Number(h[':status'])));
      r.on('error', reject);
    }),
    5000,
    'answer to the stalled upload',
  );
  assert.equal(status, 408);
  r.close();
});
