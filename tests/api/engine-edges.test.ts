// Engine behaviours a user meets at the edges: a taken port, app.fixed refusing bad input, and a
// streamed request body that the handler does not read yet pausing the socket instead of piling up.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { gale } from 'gale';
import { deferred, sleep, T, withApp } from '../helpers.js';

test('listen on a port in use rejects with EADDRINUSE and a message naming the address', T, async (t) => {
  const { port } = await withApp(t, (app) => app.get('/', () => 'first'));
  const second = gale();
  await assert.rejects(second.listen(port, '127.0.0.1'), (err: NodeJS.ErrnoException) => {
    assert.equal(err.code, 'EADDRINUSE');
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    return true;
  });
  const r = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(await r.text(), 'first', 'the first server keeps serving');
});

test('app.fixed refuses framing headers, bad header names and bad statuses with a clear message', T, () => {
  const app = gale();
  assert.throws(() => app.fixed('GET', '/a', { body: 'x', headers: { 'Content-Length': '1' } }), /set by the engine/);
  assert.throws(() => app.fixed('GET', '/b', { body: 'x', headers: { 'bad name': 'v' } }), /invalid header name/);
  assert.throws(() => app.fixed('GET', '/c', { body: 'x', headers: { 'x-v': 'a\r\nb' } }), /invalid value/);
  assert.throws(() => app.fixed('GET', '/d', { status: 42, body: 'x' }), /invalid status code 42/);
});

test('a streamed body the handler has not read yet pauses the socket; nothing is lost', {
  timeout: 30_000,
}, async (t) => {
  const SIZE = 32 * 1024 * 1024;
  const gate = deferred();
  const { port } = await withApp(
    t,
    (app) => {
      app.post('/slow', async (req) => {
        await gate.promise;
        let n = 0;
        let sum = 0;
        for await (const chunk of req.stream()) {
          // Sample the bytes at absolute offsets 0, 4096, 8192, … whatever the chunk boundaries.
          for (let i = (4096 - (n % 4096)) % 4096; i < chunk.length; i += 4096) sum = (sum + chunk[i]) % 65521;
          n += chunk.length;
        }
        return { n, sum };
      });
    },
    { bodyLimit: 64 * 1024 * 1024 },
  );
  const body = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i += 4096) body[i] = i % 251;
  let expected = 0;
  for (let i = 0; i < SIZE; i += 4096) expected = (expected + (body[i] as number)) % 65521;
  const sock = connect(port, '127.0.0.1');
  t.after(() => sock.destroy());
  await once(sock, 'connect');
  sock.write(`POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`);
  sock.write(body);
  await sleep(700);
  // The engine holds at most 256 KiB for JS; kernel buffers take a few MiB more. The rest must still
  // be queued on the client: if the engine kept reading, this would be near 0.
  assert.ok(sock.writableLength > 16 * 1024 * 1024, `client still had only ${sock.writableLength} bytes queued`);
  gate.resolve();
  let reply = '';
  sock.setEncoding('utf8');
  sock.on('data', (d: string) => {
    reply += d;
  });
  await once(sock, 'end');
  assert.match(reply, /^HTTP\/1\.1 200 OK\r\n/);
  assert.equal(reply.slice(reply.indexOf('\r\n\r\n') + 4), JSON.stringify({ n: SIZE, sum: expected }));
});
