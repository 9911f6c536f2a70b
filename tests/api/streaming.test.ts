// Streaming responses with res.write(): chunked framing, real streaming, backpressure and 'drain'.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import {
  deferred,
  parseResponses,
  RawConn,
  rawRequest,
  show,
  simpleRequest,
  sleep,
  T,
  withApp,
  within,
  withTimeout,
} from '../helpers.js';

function routes(app: App): void {
  app.get('/many', (_req, res) => {
    for (let i = 0; i < 1000; i++) res.write(`${i},`);
    res.end('end');
  });
  app.get('/mixed', async (_req, res) => {
    res.status(206).header('x-stream', 'yes').header('content-type', 'text/csv');
    res.write('a,b\n');
    await sleep(5);
    res.write(new Uint8Array([0x31, 0x2c, 0x32, 0x0a])); // "1,2\n"
    await sleep(5);
    res.write(Buffer.from('3,4\n'));
    res.end();
  });
  app.get('/empty-write', (_req, res) => {
    res.write('a');
    res.write('');
    res.write(new Uint8Array(0));
    res.write('b');
    res.end();
  });
  app.get('/end-with-body', (_req, res) => {
    res.write('head-');
    res.end('tail');
  });
}

function expectedMany(): string {
  let s = '';
  for (let i = 0; i < 1000; i++) s += `${i},`;
  return `${s}end`;
}

test('write() responses are chunked and assembled correctly (1000 writes, fetch)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/many`);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), expectedMany());
});

test('write() response on the wire: Transfer-Encoding: chunked, no Content-Length', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/many' });
  assert.equal(res.status, 200);
  assert.equal(res.get('transfer-encoding'), 'chunked');
  assert.equal(res.get('content-length'), undefined);
  assert.equal(res.chunked, true);
  assert.equal(res.text, expectedMany());
});

test('status and headers set before write() apply; strings, Uint8Array and Buffer chunks mix', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/mixed`);
  assert.equal(r.status, 206);
  assert.equal(r.headers.get('x-stream'), 'yes');
  assert.equal(r.headers.get('content-type'), 'text/csv');
  assert.equal(await r.text(), 'a,b\n1,2\n3,4\n');
});

test('empty write() does not terminate the chunked body; a pipelined request still parses', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(
    port,
    'GET /empty-write HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /end-with-body HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 2, show(r.data));
  assert.equal(responses[0]?.text, 'ab');
  assert.equal(responses[1]?.text, 'head-tail');
});

test('written chunks reach the client before end() (real streaming)', T, async (t) => {
  const clientGotFirst = deferred<void>();
  let handlerSawClientFirst: boolean | undefined;
  const { url } = await withApp(t, (app) => {
    app.get('/live', async (_req, res) => {
      res.write('first;');
      handlerSawClientFirst = await within(clientGotFirst.promise, 3000);
      res.write('second;');
      res.end();
    });
  });
  const r = await fetch(`${url}/live`);
  assert.equal(r.status, 200);
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = '';
  while (!text.includes('first;')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  clientGotFirst.resolve();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  assert.equal(text, 'first;second;');
  assert.equal(handlerSawClientFirst, true, 'the first chunk was held back until end()');
});

test('write() returns false under backpressure, then drain fires and the full body arrives', {
  timeout: 20_000,
}, async (t) => {
  const CHUNK = 64 * 1024;
  const MAX_CHUNKS = 1024; // 64 MiB: far beyond any socket buffer
  const falseAfter = deferred<number>();
  const drained = deferred<void>();
  let totalChunks = 0;
  const { port } = await withApp(t, (app) => {
    app.get('/flood', async (_req, res) => {
      let n = 0;
      let ok = true;
      while (ok && n < MAX_CHUNKS) {
        ok = res.write(Buffer.alloc(CHUNK, n % 251));
        n++;
      }
      if (ok) {
        totalChunks = n;
        falseAfter.reject(new Error(`write() never returned false after ${n} chunks of 64 KiB to a paused client`));
        res.end();
        return;
      }
      const drain = new Promise<void>((resolve) => res.on('drain', () => resolve()));
      falseAfter.resolve(n);
      const gotDrain = await within(drain, 8000);
      if (gotDrain) drained.resolve();
      else drained.reject(new Error("no 'drain' event within 8 s after the client resumed reading"));
      res.write(Buffer.from('TAIL'));
      totalChunks = n;
      res.end();
    });
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  conn.pause();
  await conn.write('GET /flood HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  const n = await withTimeout(falseAfter.promise, 8000, 'write() to return false');
  assert.ok(n >= 1 && n < MAX_CHUNKS);
  await sleep(100);
  conn.resume();
  await withTimeout(drained.promise, 9000, "'drain'");
  assert.equal(await conn.waitForClose(8000), true, `response not completed; received ${conn.receivedBytes} bytes`);
  const [res, ...rest] = parseResponses(conn.all());
  assert.equal(rest.length, 0);
  assert.ok(res);
  assert.equal(res.status, 200);
  assert.equal(res.chunked, true);
  assert.equal(totalChunks, n);
  assert.equal(res.body.length, n * CHUNK + 4, `body length ${res.body.length}, expected ${n} chunks + TAIL`);
  for (let i = 0; i < n; i++) {
    const chunk = res.body.subarray(i * CHUNK, (i + 1) * CHUNK);
    if (!chunk.equals(Buffer.alloc(CHUNK, i % 251))) assert.fail(`chunk ${i} corrupted or out of order`);
  }
  assert.equal(res.body.subarray(n * CHUNK).toString(), 'TAIL');
});
