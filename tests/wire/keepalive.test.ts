// Connection persistence: HTTP/1.1 default keep-alive, HTTP/1.0 rules, Connection: close, HEAD framing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { isImfFixdate, parseResponses, RawConn, rawRequest, show, sleep, T, withApp } from '../helpers.js';

function routes(app: App): void {
  app.get('/data', () => 'hello world');
  app.get('/n/:i', (req) => `n${req.params.i}`);
  app.get('/stream', async (_req, res) => {
    res.write('one,');
    await sleep(10);
    res.write('two,');
    res.end('three');
  });
}

test('HTTP/1.1 keeps the connection alive by default: two requests on one socket', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('GET /n/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const a = await conn.readResponse();
  assert.equal(a.status, 200);
  assert.equal(a.text, 'n1');
  assert.notEqual(a.get('connection')?.toLowerCase(), 'close');
  assert.ok(isImfFixdate(a.get('date')), `Date: ${a.get('date')}`);
  await sleep(100);
  assert.equal(conn.closed, false, 'server closed a keep-alive connection');
  await conn.write('GET /n/2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const b = await conn.readResponse();
  assert.equal(b.status, 200);
  assert.equal(b.text, 'n2');
  assert.equal(conn.closed, false);
});

test('HTTP/1.0 without keep-alive: response, then the server closes', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(port, 'GET /data HTTP/1.0\r\n\r\n', { waitForClose: true });
  assert.equal(r.closed, true, `HTTP/1.0 connection left open; got ${show(r.data)}`);
  const [res, ...extra] = parseResponses(r.data);
  assert.equal(extra.length, 0);
  assert.ok(res);
  assert.match(res.statusLine, /^HTTP\/1\.[01] 200 /);
  assert.equal(res.text, 'hello world');
  assert.notEqual(res.get('connection')?.toLowerCase(), 'keep-alive');
  assert.ok(isImfFixdate(res.get('date')));
});

test('HTTP/1.0 + Connection: keep-alive stays open and says Connection: keep-alive', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('GET /n/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n');
  const a = await conn.readResponse();
  assert.equal(a.status, 200);
  assert.equal(a.text, 'n1');
  assert.equal(a.get('connection')?.toLowerCase(), 'keep-alive');
  assert.ok(a.get('content-length') !== undefined, 'a kept-alive 1.0 response needs Content-Length');
  await sleep(100);
  assert.equal(conn.closed, false, 'HTTP/1.0 keep-alive connection was closed');
  await conn.write('GET /n/2 HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n');
  const b = await conn.readResponse();
  assert.equal(b.text, 'n2');
  assert.equal(b.get('connection')?.toLowerCase(), 'keep-alive');
  // a final 1.0 request without keep-alive closes
  await conn.write('GET /n/3 HTTP/1.0\r\n\r\n');
  const c = await conn.readResponse();
  assert.equal(c.text, 'n3');
  assert.equal(await conn.waitForClose(2000), true);
});

test('HTTP/1.0 response from write() is not chunked (body delimited by close)', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(port, 'GET /stream HTTP/1.0\r\n\r\n', { waitForClose: true });
  assert.equal(r.closed, true);
  const res = parseResponses(r.data)[0];
  assert.ok(res);
  assert.equal(res.status, 200);
  assert.equal(res.get('transfer-encoding'), undefined, 'HTTP/1.0 clients do not understand chunked');
  assert.equal(res.text, 'one,two,three');
});

test('HTTP/1.1 write() response is chunked on the wire', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(port, 'GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', {
    waitForClose: true,
  });
  const res = parseResponses(r.data)[0];
  assert.ok(res);
  assert.equal(res.get('transfer-encoding'), 'chunked');
  assert.equal(res.get('content-length'), undefined);
  assert.equal(res.text, 'one,two,three');
  assert.ok(res.chunks.length >= 2, `expected several chunks, got ${res.chunks.length}`);
});

test('Connection: close → response says Connection: close and the socket closes', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('GET /data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  const res = await conn.readResponse();
  assert.equal(res.status, 200);
  assert.equal(res.text, 'hello world');
  assert.equal(res.get('connection'), 'close');
  assert.equal(await conn.waitForClose(2000), true, 'socket not closed after Connection: close');
  assert.equal(conn.buf.length, 0, `extra bytes after the response: ${show(conn.buf)}`);
});

test('Connection header is matched case-insensitively and as a token list', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const value of ['CLOSE', 'Close', 'foo, close']) {
    const r = await rawRequest(port, `GET /data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${value}\r\n\r\n`, {
      waitForClose: true,
    });
    assert.equal(r.closed, true, `Connection: ${value} did not close`);
    const [res] = parseResponses(r.data);
    assert.equal(res?.status, 200);
    assert.equal(res?.get('connection')?.toLowerCase(), 'close', `Connection: ${value}`);
  }
});

test('requests pipelined after a Connection: close request are not answered', T, async (t) => {
  let calls = 0;
  const { port } = await withApp(t, (app) => {
    routes(app);
    app.get('/count', () => {
      calls++;
      return 'counted';
    });
  });
  const r = await rawRequest(
    port,
    'GET /data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\nGET /count HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    { waitForClose: true },
  );
  assert.equal(r.closed, true);
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 1, show(r.data));
  assert.equal(responses[0]?.text, 'hello world');
  await sleep(50);
  assert.equal(calls, 0, 'handler after Connection: close must not run');
});

test('HEAD: headers incl. Content-Length of the GET body, no body; next pipelined request parses', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(
    port,
    'HEAD /data HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  assert.equal(r.closed, true);
  const responses = parseResponses(r.data, { head: [true, false] });
  assert.equal(responses.length, 2, show(r.data));
  const [head, get] = responses;
  assert.equal(head?.status, 200);
  assert.equal(head?.get('content-length'), '11');
  assert.equal(head?.get('content-type'), 'text/plain; charset=utf-8');
  assert.ok(isImfFixdate(head?.get('date')));
  assert.equal(get?.status, 200);
  assert.equal(get?.text, 'hello world');
  assert.equal(get?.get('content-length'), '11');
});

test('HEAD followed by GET on a keep-alive socket (sequential, not pipelined)', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('HEAD /n/42 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const head = await conn.readResponse({ head: true });
  assert.equal(head.status, 200);
  assert.equal(head.get('content-length'), '3');
  await sleep(100);
  assert.equal(conn.buf.length, 0, `HEAD response carried a body: ${show(conn.buf)}`);
  await conn.write('GET /n/43 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const get = await conn.readResponse();
  assert.equal(get.text, 'n43');
});

test('Date header is present on every response, including 404 and errors', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    routes(app);
    app.get('/boom', () => {
      throw new Error('boom');
    });
  });
  const r = await rawRequest(
    port,
    'GET /data HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'GET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'GET /boom HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data);
  assert.deepEqual(
    responses.map((x) => x.status),
    [200, 404, 500, 200],
  );
  for (const res of responses) assert.ok(isImfFixdate(res.get('date')), `${res.statusLine}: Date ${res.get('date')}`);
  const d = Date.parse(responses[0]?.get('date') ?? '');
  assert.ok(Math.abs(d - Date.now()) < 5000, `Date is off: ${responses[0]?.get('date')}`);
});

test('HEAD on a route that streams with write(): no body bytes, next pipelined request parses', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(
    port,
    'HEAD /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /n/7 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data, { head: [true, false] });
  assert.equal(responses.length, 2, show(r.data));
  assert.equal(responses[0]?.status, 200);
  assert.equal(responses[1]?.text, 'n7');
});
