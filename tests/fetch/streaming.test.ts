// Streams through fetch handlers: a slow reader stops the Response stream being pulled (bounded pulls, nothing
// buffered), an upload is read as it arrives and the socket is not read while the handler holds the body,
// request.signal aborts on disconnect (pending handler, streaming body: the stream's cancel runs), and stream
// errors before and after the head. Real sockets on 127.0.0.1.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { Logger } from 'gale';
import { deferred, HOST, parseResponses, RawConn, sleep, T, withTimeout } from '../helpers.js';
import { withServe } from './util.js';

function quietLogger(): Logger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  const l = { errors, info: () => {}, warn: () => {}, error: (...a: unknown[]) => errors.push(a), child: () => l };
  return l;
}

test('backpressure: a paused client stops the Response stream being pulled; then every byte arrives', {
  timeout: 40_000,
}, async (t) => {
  const CHUNK = 64 * 1024;
  const MAX = 512; // 32 MiB: far more than socket buffers and the engine's high-water mark hold
  let pulls = 0;
  const chunk = (i: number) => new Uint8Array(CHUNK).fill(i % 251);
  const { port } = await withServe(t, {
    fetch: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            if (pulls === MAX) c.close();
            else c.enqueue(chunk(pulls++));
          },
        }),
      ),
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  conn.pause();
  const rss0 = process.memoryUsage().rss;
  await conn.write(`GET / HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
  let last = -1;
  const deadline = Date.now() + 10_000;
  while (pulls !== last && Date.now() < deadline) {
    last = pulls;
    await sleep(300);
  }
  assert.equal(pulls, last, 'the stream kept being pulled by a paused client');
  assert.ok(pulls > 0 && pulls < MAX / 4, `pulled ${pulls} of ${MAX} chunks (${(pulls * CHUNK) >> 20} MiB) unread`);
  const grown = process.memoryUsage().rss - rss0;
  assert.ok(grown < 24 * 1024 * 1024, `RSS grew ${grown >> 20} MiB while the client read nothing`);
  conn.resume();
  assert.equal(await conn.waitForClose(20_000), true, `not completed; received ${conn.receivedBytes} bytes`);
  assert.equal(pulls, MAX);
  const [res] = parseResponses(conn.all());
  assert.ok(res);
  assert.equal(res.body.length, MAX * CHUNK);
  for (let i = 0; i < MAX; i++) {
    if (res.body[i * CHUNK] !== i % 251 || res.body[(i + 1) * CHUNK - 1] !== i % 251)
      assert.fail(`chunk ${i} corrupted`);
  }
});

test('an upload is read as it arrives: each chunk is answered before the client sends the next', T, async (t) => {
  const { port } = await withServe(t, {
    fetch: (req) => {
      const reader = (req.body as ReadableStream<Uint8Array>).getReader();
      const enc = new TextEncoder();
      // Duplex echo: the response streams while the request body is still coming.
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(c) {
            const { done, value } = await reader.read();
            if (done) c.close();
            else c.enqueue(enc.encode(`got ${new TextDecoder().decode(value)};`));
          },
        }),
      );
    },
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  for (const piece of ['alpha', 'beta', 'gamma']) {
    await conn.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    // The next piece goes only after the handler has echoed this one: nothing was buffered until the end.
    await conn.readUntil(`got ${piece};`, 3000);
  }
  await conn.write('0\r\n\r\n');
  await conn.readUntil('0\r\n\r\n', 3000);
});

test('upload backpressure: while the handler holds the body unread, the socket is not drained', {
  timeout: 30_000,
}, async (t) => {
  const SIZE = 24 * 1024 * 1024;
  const release = deferred();
  let received = 0;
  const { port } = await withServe(
    t,
    {
      fetch: async (req) => {
        await release.promise;
        const reader = (req.body as ReadableStream<Uint8Array>).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.length;
        }
        return new Response(String(received));
      },
    },
    { bodyLimit: 64 * 1024 * 1024 },
  );
  const socket = net.connect(port, HOST);
  t.after(() => socket.destroy());
  await new Promise((r) => socket.once('connect', r));
  let answer = '';
  socket.on('data', (d) => {
    answer += d.toString('latin1');
  });
  socket.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`);
  socket.write(Buffer.alloc(SIZE, 7));
  await sleep(800);
  const stuck = socket.writableLength;
  assert.ok(stuck > 8 * 1024 * 1024, `the server took ${(SIZE - stuck) >> 20} MiB of a body nobody read`);
  release.resolve();
  await withTimeout(new Promise((r) => socket.once('close', r)), 20_000, 'the answer');
  assert.equal(received, SIZE);
  assert.match(answer, new RegExp(`\\r\\n\\r\\n${SIZE}$`));
});

test('request.signal aborts when the client disconnects while the handler is pending', T, async (t) => {
  const aborted = deferred<unknown>();
  const started = deferred();
  const { port } = await withServe(t, {
    fetch: (req) =>
      new Promise<Response>((resolve) => {
        started.resolve();
        req.signal.addEventListener('abort', () => {
          aborted.resolve(req.signal.reason);
          resolve(new Response('too late'));
        });
      }),
  });
  const conn = await RawConn.open(port);
  await conn.write(`GET /slow HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  await withTimeout(started.promise, 3000, 'the handler to start');
  conn.destroy();
  const reason = await withTimeout(aborted.promise, 3000, 'request.signal to abort');
  assert.match(String((reason as Error)?.message), /client disconnected/);
});

test(
  'a streaming Response body is cancelled when the client goes away, mid-stream and before its first chunk',
  T,
  async (t) => {
    let cancelledMid: unknown;
    let cancelledEarly = false;
    let pullsAfterCancel = 0;
    const midCancelled = deferred();
    const earlyCancelled = deferred();
    const { port } = await withServe(t, {
      fetch: (req) => {
        if (req.url.endsWith('/late')) {
          // nothing for a long time (an event stream): the client leaves while the server waits for the first chunk
          return new Response(
            new ReadableStream({
              start: () => new Promise(() => {}),
              cancel() {
                cancelledEarly = true;
                earlyCancelled.resolve();
              },
            }),
          );
        }
        return new Response(
          new ReadableStream<Uint8Array>({
            async pull(c) {
              if (cancelledMid !== undefined) pullsAfterCancel++;
              await sleep(5);
              c.enqueue(new TextEncoder().encode('tick\n'));
            },
            cancel(reason) {
              cancelledMid = reason ?? 'cancelled';
              midCancelled.resolve();
            },
          }),
        );
      },
    });
    const conn = await RawConn.open(port);
    await conn.write(`GET /ticks HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    await conn.readUntil('tick\n');
    await conn.readUntil('tick\n');
    conn.destroy();
    await withTimeout(midCancelled.promise, 3000, "the stream's cancel after a mid-stream disconnect");
    await sleep(50);
    assert.ok(pullsAfterCancel <= 1, `pulled ${pullsAfterCancel} times after cancel`);

    const early = await RawConn.open(port);
    await early.write(`GET /late HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    await sleep(50);
    early.destroy();
    await withTimeout(earlyCancelled.promise, 3000, "the stream's cancel before any chunk");
    assert.equal(cancelledEarly, true);
  },
);

test('a stream that fails before its first chunk is a 500; after it, the connection is cut', T, async (t) => {
  const logger = quietLogger();
  const { port } = await withServe(
    t,
    {
      fetch: (req) => {
        const late = req.url.endsWith('/late');
        let n = 0;
        return new Response(
          new ReadableStream<Uint8Array>({
            async pull(c) {
              await sleep(2);
              if (!late || n++ > 2) throw new Error(late ? 'failed mid-stream' : 'failed at once');
              c.enqueue(new TextEncoder().encode(`part${n};`));
            },
          }),
        );
      },
    },
    { logger, requestLogging: false },
  );
  const early = await RawConn.open(port);
  t.after(() => early.destroy());
  await early.write(`GET /early HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  assert.equal((await early.readResponse()).status, 500);
  const late = await RawConn.open(port);
  t.after(() => late.destroy());
  await late.write(`GET /late HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  assert.equal(await late.waitForClose(3000), true, 'the connection is closed after a mid-stream failure');
  const data = late.all().toString('latin1');
  assert.match(data, /part1;/);
  assert.doesNotMatch(data, /\r\n0\r\n\r\n$/, 'a failed stream must not look complete');
  const messages = logger.errors.map((e) => (e[0] as Error).message);
  assert.ok(messages.includes('failed at once') && messages.includes('failed mid-stream'), JSON.stringify(messages));
});
