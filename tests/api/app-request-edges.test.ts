// app.request() beyond parity with a socket: an app that never listens (and whose timers go away after), 100
// requests at once, aborts both ways (the caller's signal, a body stream cancelled), backpressure both ways
// (a slow reader of a big streamed answer, a streamed upload), SSE, Expect: 100-continue, what the request
// says about its peer, the refused cases (Upgrade, a closed app), serve() and app.fetch mounts, close().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, type GaleError, gale, serve } from 'gale';
import { deferred, sleep, T, withTimeout } from '../helpers.js';

const quiet = { logger: { error() {}, warn() {}, info() {} } } as const;

/**
 * The engine's libuv timers in the loop: its tick repeats, its kick is referenced. Node's own timer handles
 * (the one behind setTimeout, and the unreferenced one-shot timers Node 26's fetch classes arm) are neither
 * while no referenced JS timer is pending, so they do not count.
 */
function engineTimers(): number {
  type Handle = { type: string; is_referenced: boolean; repeat: number };
  const report = process.report.getReport() as unknown as { libuv: Handle[] };
  return report.libuv.filter((h) => h.type === 'timer' && (h.is_referenced || h.repeat > 0)).length;
}

// 120 s, not T's 10: under Wine each process.report.getReport() takes 2–4 s here, and CI once saw three of them
// pass 30 s (Node's own report, Gale not involved).
test('an app that never listens answers in-process; its timers go with its last request', {
  timeout: 120_000,
}, async () => {
  const before = engineTimers();
  const app = gale();
  app.get('/hi/:name', (req) => `hi ${req.params.name}`);
  app.post('/echo', async (req) => req.text());
  app.get('/timers', () => String(engineTimers()));
  assert.equal(app.address(), null);
  // The engine's tick and kick. A caller's signal replaces app.request()'s default timeout, whose timer would
  // reference Node's one timer handle while the request waits (and could fire while a slow report blocks the loop).
  const serving = Number(await (await app.request('/timers', { signal: new AbortController().signal })).text());
  assert.equal(serving, before + 2, `tick and kick while it serves: ${before} → ${serving}`);
  const res = await app.request('/hi/ada');
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'hi ada');
  const echo = await app.request(new URL('http://localhost/echo'), { method: 'POST', body: 'body' });
  assert.equal(await echo.text(), 'body');
  const viaRequest = await app.request(new Request('http://localhost/hi/x', { headers: { 'x-a': '1' } }));
  assert.equal(await viaRequest.text(), 'hi x');
  assert.equal(app.stats().connections, 0, 'each in-process connection is gone with its response');
  await sleep(5);
  assert.equal(engineTimers(), before, 'no timer left behind');
  assert.equal(await (await app.request('/hi/again')).text(), 'hi again', 'and made again when needed');
  await app.close();
  await assert.rejects(app.request('/hi/late'), (err: GaleError) => err.code === ErrorCodes.IN_PROCESS);
});

test('100 requests at once, each its own connection, all answered', T, async () => {
  const app = gale();
  app.get('/n/:n', async (req) => {
    await sleep(Number(req.params.n) % 7);
    return { n: Number(req.params.n) };
  });
  const all = await Promise.all(
    Array.from({ length: 100 }, (_, i) => app.request(`/n/${i}`).then(async (r) => (await r.json()).n as number)),
  );
  assert.deepEqual(
    all,
    Array.from({ length: 100 }, (_, i) => i),
  );
  await sleep(1); // the records of the last answers are let go at the end of their turn
  const s = app.stats();
  assert.equal(s.connections, 0);
  assert.equal(s.requestsInFlight, 0);
  await app.close();
});

test('the peer reads as 127.0.0.1, the host as given, https: URLs as secure', T, async () => {
  const app = gale();
  app.get('/who', (req) => ({
    ip: req.ip,
    remote: req.socket.remoteAddress,
    secure: req.secure,
    protocol: req.protocol,
    hostname: req.hostname,
    host: req.get('host'),
    version: req.httpVersion,
  }));
  const plain = await (await app.request('/who')).json();
  assert.deepEqual(plain, {
    ip: '127.0.0.1',
    remote: '127.0.0.1',
    secure: false,
    protocol: 'http',
    hostname: 'localhost',
    host: 'localhost',
    version: '1.1',
  });
  const tls = await (await app.request('https://api.example.com:8443/who')).json();
  assert.equal(tls.secure, true);
  assert.equal(tls.protocol, 'https');
  assert.equal(tls.host, 'api.example.com:8443');
  await app.close();
});

test('the caller aborts: the promise rejects and the handler sees its request aborted', T, async () => {
  const logged: unknown[] = [];
  const app = gale({ logger: { error: (...a: unknown[]) => logged.push(a), warn() {}, info() {} } });
  const aborted = deferred<boolean>();
  app.get('/slow', async (req) => {
    await new Promise((r) => req.signal.addEventListener('abort', r));
    aborted.resolve(true);
    return 'too late';
  });
  const sentLate = deferred<boolean>();
  app.get('/slow-send', async (req, res) => {
    await new Promise((r) => req.signal.addEventListener('abort', r));
    res.send('too late'); // no one to answer: dropped, as on a destroyed node:http response
    sentLate.resolve(true);
  });
  const ac = new AbortController();
  const pending = app.request('/slow', { signal: ac.signal });
  await sleep(20);
  ac.abort();
  await assert.rejects(pending, { name: 'AbortError' });
  assert.equal(await withTimeout(aborted.promise, 2000, 'the handler hearing of the abort'), true);
  const ac2 = new AbortController();
  const pending2 = app.request('/slow-send', { signal: ac2.signal });
  await sleep(20);
  ac2.abort();
  await assert.rejects(pending2, { name: 'AbortError' });
  assert.equal(await withTimeout(sentLate.promise, 2000, 'the late res.send()'), true);
  await sleep(10);
  assert.deepEqual(logged, [], 'an answer after the client left is no error');
  const already = AbortSignal.abort();
  await assert.rejects(app.request('/slow', { signal: already }), { name: 'AbortError' });
  await app.close({ timeout: 100 });
});

test('a big streamed answer to a slow reader: backpressure in the engine, every byte in order', T, async () => {
  const app = gale();
  let waitedForDrain = 0;
  const piece = Buffer.alloc(64 * 1024, 'z');
  app.get('/firehose', async (_req, res) => {
    res.type('bin');
    for (let i = 0; i < 40; i++) {
      piece[0] = i;
      if (!res.write(Buffer.from(piece))) {
        waitedForDrain++;
        await new Promise<void>((r) => res.once('drain', r));
      }
    }
    res.end();
  });
  const res = await app.request('/firehose');
  assert.equal(res.headers.get('transfer-encoding'), 'chunked');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    await sleep(1);
  }
  const all = Buffer.concat(chunks);
  assert.equal(all.length, 40 * piece.length);
  for (let i = 0; i < 40; i++) assert.equal(all[i * piece.length], i, `piece ${i} in its place`);
  assert.ok(waitedForDrain > 0, 'res.write() reported backpressure');
  await app.close();
});

test('a streamed upload larger than the pipe arrives whole, read as it comes', T, async () => {
  const app = gale({ bodyLimit: 8 * 1024 * 1024 });
  app.post('/count', async (req) => {
    let n = 0;
    for await (const chunk of req.webStream()) n += chunk.length;
    return { n };
  });
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= 3 * 1024 * 1024) return c.close();
      const chunk = new Uint8Array(32 * 1024).fill(7);
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
  const res = await app.request('/count', { method: 'POST', body, duplex: 'half' } as RequestInit);
  assert.deepEqual(await res.json(), { n: 3 * 1024 * 1024 });
  // Over the limit while streaming: the engine's 413, as over a socket.
  const small = gale({ bodyLimit: 1000 });
  small.post('/count', async (req) => ({ n: (await req.arrayBuffer()).byteLength }));
  const over = await small.request('/count', {
    method: 'POST',
    body: new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(600));
        c.enqueue(new Uint8Array(600));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  assert.equal(over.status, 413);
  await Promise.all([app.close(), small.close()]);
});

test('Expect: 100-continue: the interim answer is skipped, the final one returned', T, async () => {
  const app = gale();
  app.post('/up', async (req) => ({ got: await req.text() }));
  const res = await app.request('/up', {
    method: 'POST',
    headers: { expect: '100-continue' },
    body: new ReadableStream({
      async start(c) {
        await sleep(10);
        c.enqueue(new TextEncoder().encode('late body'));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { got: 'late body' });
  await app.close();
});

test('SSE in-process: events as they come; cancelling the body closes the stream on the server', T, async () => {
  const app = gale();
  const closed = deferred<void>();
  app.get('/events', (_req, res) => {
    const sse = res.sse({ heartbeat: 0 });
    let n = 0;
    const timer = setInterval(() => sse.send({ data: `tick ${++n}` }), 5);
    sse.onClose(() => {
      clearInterval(timer);
      closed.resolve();
    });
  });
  const res = await app.request('/events');
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('tick 3')) text += decoder.decode((await reader.read()).value, { stream: true });
  assert.match(text, /data: tick 1\n\ndata: tick 2\n\n/);
  await reader.cancel();
  await withTimeout(closed.promise, 2000, 'the server seeing the client go');
  await app.close();
});

test('refused: Upgrade requests (WebSocket, h2c) and requests after close', T, async () => {
  const app = gale();
  app.ws('/ws', { message() {} });
  app.get('/h', () => 'h');
  await assert.rejects(
    app.request('/ws', { headers: { upgrade: 'websocket', connection: 'Upgrade' } }),
    (err: GaleError) => err.code === ErrorCodes.IN_PROCESS && /needs a socket/.test(err.message),
  );
  await assert.rejects(app.request('/h', { headers: { upgrade: 'h2c' } }), { code: ErrorCodes.IN_PROCESS });
  // The same path without Upgrade is a plain GET, answered as over a socket (no GET route there: 426).
  assert.equal((await app.request('/h')).status, 200);
  await app.close();
  await assert.rejects(app.request('/h'), { code: ErrorCodes.IN_PROCESS });
});

test('close() waits for in-process requests in flight, which end with Connection: close', T, async () => {
  const app = gale();
  const started = deferred<void>();
  app.get('/slow', async () => {
    started.resolve();
    await sleep(30);
    return 'done';
  });
  const pending = app.request('/slow');
  await started.promise;
  const closing = app.close();
  const res = await pending;
  assert.equal(res.headers.get('connection'), 'close');
  assert.equal(await res.text(), 'done');
  await withTimeout(closing, 2000, 'app.close()');
});

test('in-process connections count toward maxConnections: over it, the engine answers 503', T, async () => {
  const app = gale({ maxConnections: 1 });
  const release = deferred<void>();
  app.get('/hold', async () => {
    await release.promise;
    return 'held';
  });
  const first = app.request('/hold');
  await sleep(10);
  const second = await app.request('/hold');
  assert.equal(second.status, 503);
  assert.equal(second.headers.get('retry-after'), '1');
  release.resolve();
  assert.equal(await (await first).text(), 'held');
  await app.close();
});

test('errors, odd statuses and app.request from inside a handler', T, async () => {
  const app = gale(quiet);
  app.get('/inner', () => ({ inner: true }));
  app.get('/outer', async () => ({ outer: await (await app.request('/inner')).json() }));
  app.get('/odd', (_req, res) => res.status(799).end('odd'));
  app.get('/destroyed', (_req, res) => {
    res.write('partial');
    setTimeout(() => res.destroy(), 5);
  });
  app.get('/gone', (_req, res) => {
    setTimeout(() => res.destroy(), 5);
  });
  assert.deepEqual(await (await app.request('/outer')).json(), { outer: { inner: true } });
  const odd = await app.request('/odd');
  assert.equal(odd.status, 799);
  assert.equal(await odd.text(), 'odd');
  const cut = await app.request('/destroyed');
  await assert.rejects(cut.text(), /terminated/);
  await assert.rejects(app.request('/gone'), { code: ErrorCodes.IN_PROCESS });
  await app.close();
});

test('serve() and app.fetch() mounts answer in-process too', T, async () => {
  const server = await serve({
    fetch: (req) => Response.json({ path: new URL(req.url).pathname, method: req.method }),
    port: 0,
    hostname: '127.0.0.1',
  });
  const res = await server.request('/anything', { method: 'DELETE' });
  assert.deepEqual(await res.json(), { path: '/anything', method: 'DELETE' });
  const app = gale();
  app.fetch('/api', async (req) => new Response(`api saw ${new URL(req.url).pathname} ${await req.text()}`));
  const mounted = await app.request('/api/users', { method: 'POST', body: 'x=1' });
  assert.equal(await mounted.text(), 'api saw /users x=1');
  await Promise.all([server.close(), app.close()]);
});
