// Request bodies on the wire: Content-Length, chunked (extensions, trailers, split writes), 100-continue.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import {
  buildRequest,
  chunked,
  parseResponses,
  parseSingle,
  RawConn,
  rawRequest,
  show,
  sleep,
  T,
  withApp,
} from '../helpers.js';

function echoRoutes(app: App): void {
  app.post('/echo', async (req) => await req.text());
  app.post('/bin', async (req) => new Uint8Array(await req.arrayBuffer()));
  app.put('/echo', async (req) => await req.text());
  app.get('/ping', () => 'pong');
}

test('Content-Length body is echoed', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const r = await rawRequest(
    port,
    'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello world',
    { waitForClose: true },
  );
  const res = parseSingle(r.data);
  assert.equal(res.status, 200);
  assert.equal(res.text, 'hello world');
  assert.equal(res.get('content-length'), '11');
  assert.equal(res.get('content-type'), 'text/plain; charset=utf-8');
});

test('binary Content-Length body (all 256 byte values, 64 KiB) round-trips exactly', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const body = Buffer.alloc(65536);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7 + (i >> 8)) & 0xff;
  const r = await rawRequest(
    port,
    buildRequest({ method: 'POST', path: '/bin', body, headers: { Connection: 'close' } }),
    {
      waitForClose: true,
      timeoutMs: 5000,
    },
  );
  const res = parseSingle(r.data);
  assert.equal(res.status, 200);
  assert.equal(res.get('content-type'), 'application/octet-stream');
  assert.equal(res.get('content-length'), '65536');
  assert.ok(res.body.equals(body), 'echoed bytes differ');
});

test('Content-Length: 0 and a POST without any body give an empty body', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.post('/len', async (req) => `len=${(await req.text()).length}`);
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('POST /len HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n');
  assert.equal((await conn.readResponse()).text, 'len=0');
  await conn.write('POST /len HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.equal((await conn.readResponse()).text, 'len=0');
  // the connection is still usable: nothing was taken as a body
  await conn.write('POST /len HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc');
  assert.equal((await conn.readResponse()).text, 'len=3');
});

test('Content-Length body split across many small writes', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const body = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(`POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n`);
  await conn.writeSlowly(body, 37, 2);
  const res = await conn.readResponse({ timeoutMs: 5000 });
  assert.equal(res.status, 200);
  assert.equal(res.text, body);
});

test('chunked body with chunk extensions and trailers is echoed; next pipelined request parses', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const bytes =
    'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n' +
    '5;foo=bar\r\nhello\r\n' +
    '6;name="quoted value";x\r\n world\r\n' +
    'A\r\n, 01234567\r\n' + // upper-case hex size (10 bytes)
    '0;last=1\r\nX-Trailer: yes\r\nX-Checksum: abc\r\n\r\n' +
    'GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
  const r = await rawRequest(port, bytes, { waitForClose: true });
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 2, show(r.data));
  assert.equal(responses[0]?.status, 200);
  assert.equal(responses[0]?.text, 'hello world, 01234567');
  assert.equal(responses[1]?.status, 200);
  assert.equal(responses[1]?.text, 'pong');
  assert.equal(r.closed, true);
});

test('chunked body written in pieces (size lines, data and CRLFs split) is echoed', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const parts: string[] = [];
  for (let i = 0; i < 40; i++) parts.push(`part-${i}-${'x'.repeat(i * 3)};`);
  const expected = parts.join('');
  const body = chunked(parts, 'X-T: 1\r\n');
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
  await conn.writeSlowly(body, 7, 1);
  const res = await conn.readResponse({ timeoutMs: 8000 });
  assert.equal(res.status, 200);
  assert.equal(res.text, expected);
  // keep-alive still works after a chunked body
  await conn.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.equal((await conn.readResponse()).text, 'pong');
});

test('chunked body written one byte at a time', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const bytes = Buffer.concat([
    Buffer.from('PUT /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n'),
    chunked(['a', 'bc', 'def', 'ghij']),
  ]);
  await conn.writeSlowly(bytes, 1, 0);
  const res = await conn.readResponse({ timeoutMs: 5000 });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'abcdefghij');
});

test('binary chunked body with large chunks round-trips', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const parts: Buffer[] = [];
  for (let i = 0; i < 8; i++) parts.push(Buffer.alloc(10_000 + i * 1000, i + 1));
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(
    Buffer.concat([
      Buffer.from('POST /bin HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n'),
      chunked(parts),
    ]),
  );
  const res = await conn.readResponse({ timeoutMs: 5000 });
  assert.equal(res.status, 200);
  assert.ok(res.body.equals(Buffer.concat(parts)), `body length ${res.body.length}`);
});

test('Expect: 100-continue → exactly "HTTP/1.1 100 Continue\\r\\n\\r\\n", then the body, then 200', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 13\r\nExpect: 100-continue\r\n\r\n');
  const interim = await conn.readUntil('\r\n\r\n', 3000);
  assert.equal(interim.toString('latin1'), 'HTTP/1.1 100 Continue\r\n\r\n');
  await sleep(50);
  assert.equal(conn.buf.length, 0, `nothing but 100 Continue may arrive before the body: ${show(conn.buf)}`);
  await conn.write('continue body');
  const res = await conn.readResponse();
  assert.equal(res.status, 200);
  assert.equal(res.text, 'continue body');
  assert.equal(conn.buf.length, 0);
});

test('Expect: 100-continue with a chunked body', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(
    'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-Continue\r\n\r\n',
  );
  assert.equal((await conn.readUntil('\r\n\r\n')).toString('latin1'), 'HTTP/1.1 100 Continue\r\n\r\n');
  await conn.write(chunked(['chunked ', 'after ', 'continue']));
  const res = await conn.readResponse();
  assert.equal(res.status, 200);
  assert.equal(res.text, 'chunked after continue');
});

test('100-continue is sent again for the next request on the same connection', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  for (const word of ['first', 'second']) {
    await conn.write(
      `POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${word.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    assert.equal((await conn.readUntil('\r\n\r\n')).toString('latin1'), 'HTTP/1.1 100 Continue\r\n\r\n');
    await conn.write(word);
    const res = await conn.readResponse();
    assert.equal(res.status, 200);
    assert.equal(res.text, word);
  }
});

test('an unread request body is discarded before the next request on the connection', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    echoRoutes(app);
    app.post('/ignore', () => 'ignored the body');
  });
  const r = await rawRequest(
    port,
    'POST /ignore HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 32\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y\r\n\r\n' +
      'POST /ignore HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' +
      'GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data);
  assert.deepEqual(
    responses.map((x) => `${x.status} ${x.text}`),
    ['200 ignored the body', '200 ignored the body', '200 pong'],
    show(r.data),
  );
});

test(
  'a body sent to a path with no route (404) or wrong method (405) is skipped, not parsed as a request',
  T,
  async (t) => {
    const { port } = await withApp(t, echoRoutes);
    const r = await rawRequest(
      port,
      'POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 37\r\n\r\nGET /ping HTTP/1.1\r\nHost: smuggle\r\n\r\n' +
        'DELETE /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n25\r\nGET /ping HTTP/1.1\r\nHost: smuggle\r\n\r\n\r\n0\r\n\r\n' +
        'GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      { waitForClose: true },
    );
    const responses = parseResponses(r.data);
    assert.deepEqual(
      responses.map((x) => x.status),
      [404, 405, 200],
      show(r.data),
    );
    assert.equal(responses[2]?.text, 'pong');
  },
);

test('HTTP/1.0 request with a Content-Length body', T, async (t) => {
  const { port } = await withApp(t, echoRoutes);
  const r = await rawRequest(port, 'POST /echo HTTP/1.0\r\nContent-Length: 4\r\n\r\nold!', { waitForClose: true });
  assert.equal(r.closed, true);
  const [res] = parseResponses(r.data);
  assert.equal(res?.status, 200);
  assert.equal(res?.text, 'old!');
});

test(
  'Expect: 100-continue to a path with no route: 404, then either Connection: close or the body is skipped',
  T,
  async (t) => {
    const { port } = await withApp(t, echoRoutes);
    const conn = await RawConn.open(port);
    t.after(() => conn.destroy());
    await conn.write('POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n');
    let res = await conn.readResponse();
    if (res.status === 100) res = await conn.readResponse();
    assert.equal(res.status, 404);
    await sleep(100);
    if (conn.closed) {
      // closing without reading the body is fine, but the response must say so (RFC 9110 §10.1.1)
      assert.equal(
        res.get('connection'),
        'close',
        `the server closed after ${show(res.raw)} without Connection: close`,
      );
    } else {
      await conn.write('hello');
      await conn.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const next = await conn.readResponse();
      assert.equal(`${next.status} ${next.text}`, '200 pong');
    }
  },
);
