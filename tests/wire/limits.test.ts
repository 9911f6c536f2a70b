// Protocol limits and bad input. Every rejection: exact status, plain-text body, Connection: close,
// the socket closes, and a fresh connection is still served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import {
  buildRequest,
  isImfFixdate,
  parseResponses,
  RawConn,
  rawRequest,
  show,
  simpleRequest,
  sleep,
  T,
  withApp,
} from '../helpers.js';

function routes(app: App): void {
  app.get('/ok', () => 'ok');
  app.post('/echo', async (req) => await req.text());
  app.get('/slow', async () => {
    await sleep(500);
    return 'slow';
  });
}

async function expectServesOk(port: number): Promise<void> {
  const res = await simpleRequest(port, { path: '/ok' });
  assert.equal(res.status, 200, 'server no longer answers a new connection');
  assert.equal(res.text, 'ok');
}

/** Sends `bytes` on a new connection and asserts a single `status` rejection, then a fresh 200. */
async function expectRejected(port: number, bytes: string | Buffer, status: number): Promise<void> {
  const r = await rawRequest(port, bytes, { waitForClose: true, timeoutMs: 4000 });
  const what = `request ${show(bytes, 300)} → ${show(r.data)}`;
  assert.ok(r.data.length > 0, `no response at all for ${what}`);
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 1, what);
  const res = responses[0];
  assert.ok(res);
  assert.equal(res.status, status, what);
  assertRejectionShape(res, what);
  assert.equal(r.closed, true, `socket not closed after ${status}: ${what}`);
  await expectServesOk(port);
}

function assertRejectionShape(res: ReturnType<typeof parseResponses>[number], what: string): void {
  assert.equal(res.get('connection')?.toLowerCase(), 'close', `Connection header: ${what}`);
  assert.match(res.get('content-type') ?? '', /^text\/plain/, `Content-Type: ${what}`);
  assert.ok(res.body.length > 0, `empty body: ${what}`);
  assert.ok(isImfFixdate(res.get('date')), `Date: ${what}`);
}

const H = 'Host: 127.0.0.1\r\n';

test('431: header section larger than the default maxHeaderSize (16384)', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `GET /ok HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431);
});

test('431: many headers adding up beyond a custom maxHeaderSize; a section under it is fine', T, async (t) => {
  const { port } = await withApp(t, routes, { maxHeaderSize: 1024 });
  let small = `GET /ok HTTP/1.1\r\n${H}`;
  for (let i = 0; i < 10; i++) small += `X-H${i}: ${'v'.repeat(40)}\r\n`; // ~560 bytes
  const ok = await rawRequest(port, `${small}Connection: close\r\n\r\n`, { waitForClose: true });
  assert.equal(parseResponses(ok.data)[0]?.status, 200, show(ok.data));
  let big = `GET /ok HTTP/1.1\r\n${H}`;
  for (let i = 0; i < 30; i++) big += `X-H${i}: ${'v'.repeat(60)}\r\n`; // ~2.1 KB
  await expectRejected(port, `${big}\r\n`, 431);
});

test('431: more than maxHeaders (default 100) header fields', T, async (t) => {
  const { port } = await withApp(t, routes);
  let req = `GET /ok HTTP/1.1\r\n${H}`;
  for (let i = 0; i < 150; i++) req += `X-${i}: v\r\n`;
  await expectRejected(port, `${req}\r\n`, 431);
});

test('maxHeaders boundary: exactly maxHeaders fields is accepted, one more is 431', T, async (t) => {
  const { port } = await withApp(t, routes, { maxHeaders: 10 });
  const make = (n: number) => {
    let s = `GET /ok HTTP/1.1\r\n${H}Connection: close\r\n`;
    for (let i = 2; i < n; i++) s += `X-${i}: v\r\n`;
    return `${s}\r\n`;
  };
  const ok = await rawRequest(port, make(10), { waitForClose: true });
  assert.equal(parseResponses(ok.data)[0]?.status, 200, `10 headers with maxHeaders 10: ${show(ok.data)}`);
  await expectRejected(port, make(11), 431);
});

test('414: request-target longer than the default maxUriLength (8192)', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `GET /ok?q=${'a'.repeat(9000)} HTTP/1.1\r\n${H}\r\n`, 414);
});

test('maxUriLength boundary: a target of exactly maxUriLength is accepted, one more is 414', T, async (t) => {
  const { port } = await withApp(t, routes, { maxUriLength: 100 });
  const target = (len: number) => `/ok?q=${'b'.repeat(len - 6)}`;
  assert.equal(target(100).length, 100);
  const ok = await rawRequest(port, `GET ${target(100)} HTTP/1.1\r\n${H}Connection: close\r\n\r\n`, {
    waitForClose: true,
  });
  assert.equal(parseResponses(ok.data)[0]?.status, 200, show(ok.data));
  await expectRejected(port, `GET ${target(101)} HTTP/1.1\r\n${H}\r\n`, 414);
});

test('400: malformed request lines', T, async (t) => {
  const { port } = await withApp(t, routes);
  const bad = [
    'GARBAGE\r\n\r\n',
    'GET /ok\r\nHost: 127.0.0.1\r\n\r\n',
    'GET  /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    'GET /ok HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n',
    'GET /ok FTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    'G(T /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    '\x01\x02\x03\r\n\r\n',
  ];
  for (const b of bad) await expectRejected(port, b, 400);
});

test('400: invalid bytes in header names', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const line of ['Bad Name: x', 'X-Foo : bar', 'X(a): b', 'X-\x01: v', 'X-\xff: v', ': empty-name']) {
    await expectRejected(port, `GET /ok HTTP/1.1\r\n${H}${line}\r\n\r\n`, 400);
  }
});

test('400: invalid bytes in header values', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const value of ['a\x00b', 'a\x01b', 'a\x7fb', 'a\x1bb']) {
    await expectRejected(port, `GET /ok HTTP/1.1\r\n${H}X-Val: ${value}\r\n\r\n`, 400);
  }
});

test('400: Content-Length together with Transfer-Encoding', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(
    port,
    `POST /echo HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
    400,
  );
});

test('400: differing duplicate Content-Length; identical duplicates are accepted', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `POST /echo HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`, 400);
  const ok = await rawRequest(
    port,
    `POST /echo HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`,
    { waitForClose: true },
  );
  const res = parseResponses(ok.data)[0];
  assert.equal(res?.status, 200, show(ok.data));
  assert.equal(res?.text, 'hello');
});

test('400: non-numeric Content-Length', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const v of ['abc', '-1', '1 2', '0x10']) {
    await expectRejected(port, `POST /echo HTTP/1.1\r\n${H}Content-Length: ${v}\r\n\r\n`, 400);
  }
});

test('400: obs-fold (header line starting with whitespace)', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `GET /ok HTTP/1.1\r\n${H}X-Folded: first\r\n second\r\n\r\n`, 400);
  await expectRejected(port, `GET /ok HTTP/1.1\r\n${H}X-Folded: first\r\n\tsecond\r\n\r\n`, 400);
});

test('400: bad chunk size', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(
    port,
    `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
    400,
  );
  await expectRejected(
    port,
    `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n`,
    400,
  );
});

test('400: HTTP/1.1 request without Host; HTTP/1.0 without Host is fine', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, 'GET /ok HTTP/1.1\r\n\r\n', 400);
  const r = await rawRequest(port, 'GET /ok HTTP/1.0\r\n\r\n', { waitForClose: true });
  assert.equal(parseResponses(r.data)[0]?.status, 200, show(r.data));
});

test('417: Expect with anything but 100-continue', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `POST /echo HTTP/1.1\r\n${H}Expect: something-else\r\nContent-Length: 2\r\n\r\n`, 417);
});

test('501: a transfer coding other than chunked is refused, never handed over still encoded', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(
    port,
    `POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
    501,
  );
});

test('505: HTTP/2.0 request line', T, async (t) => {
  const { port } = await withApp(t, routes);
  await expectRejected(port, `GET /ok HTTP/2.0\r\n${H}\r\n`, 505);
});

test('413: Content-Length over bodyLimit is refused before the body is sent', T, async (t) => {
  const { port } = await withApp(t, routes, { bodyLimit: 1024 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(`POST /echo HTTP/1.1\r\n${H}Content-Length: 2000\r\n\r\n`);
  const res = await conn.readResponse({ timeoutMs: 2000 });
  assert.equal(res.status, 413);
  assertRejectionShape(res, '413');
  assert.equal(await conn.waitForClose(2000), true);
  await expectServesOk(port);
});

test('413 comes back immediately for a claimed 10 MiB body that is never sent', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const start = Date.now();
  await conn.write(`POST /echo HTTP/1.1\r\n${H}Content-Length: ${10 * 1024 * 1024}\r\n\r\n`);
  const res = await conn.readResponse({ timeoutMs: 3000 });
  const elapsed = Date.now() - start;
  assert.equal(res.status, 413);
  assert.ok(elapsed < 1000, `413 took ${elapsed} ms`);
  assertRejectionShape(res, '413');
  assert.equal(await conn.waitForClose(2000), true);
  await expectServesOk(port);
});

test('bodyLimit boundary: a body of exactly bodyLimit bytes is accepted, one more is 413', T, async (t) => {
  const { port } = await withApp(t, routes, { bodyLimit: 1024 });
  const ok = await rawRequest(
    port,
    buildRequest({ method: 'POST', path: '/echo', body: 'x'.repeat(1024), headers: { Connection: 'close' } }),
    { waitForClose: true },
  );
  const res = parseResponses(ok.data)[0];
  assert.equal(res?.status, 200, show(ok.data, 200));
  assert.equal(res?.body.length, 1024);
  await expectRejected(port, buildRequest({ method: 'POST', path: '/echo', body: 'x'.repeat(1025) }), 413);
});

test('413 for a chunked body as soon as bodyLimit is passed (before the last chunk)', T, async (t) => {
  const { port } = await withApp(t, routes, { bodyLimit: 1024 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(`POST /echo HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n`);
  await conn.write(`258\r\n${'a'.repeat(600)}\r\n`);
  await sleep(50);
  assert.equal(conn.buf.length, 0, `responded before the limit was passed: ${show(conn.buf)}`);
  await conn.write(`258\r\n${'b'.repeat(600)}\r\n`); // 1200 > 1024; no terminating chunk is ever sent
  const res = await conn.readResponse({ timeoutMs: 3000 });
  assert.equal(res.status, 413);
  assertRejectionShape(res, 'chunked 413');
  assert.equal(await conn.waitForClose(2000), true);
  await expectServesOk(port);
});

test('413 with Expect: 100-continue and an oversized Content-Length (no body sent)', T, async (t) => {
  const { port } = await withApp(t, routes, { bodyLimit: 1024 });
  const r = await rawRequest(port, `POST /echo HTTP/1.1\r\n${H}Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n`, {
    waitForClose: true,
  });
  const finals = parseResponses(r.data).filter((x) => x.status >= 200);
  assert.equal(finals.length, 1, show(r.data));
  assert.equal(finals[0]?.status, 413);
  assert.equal(r.closed, true);
});

test('408: headers incomplete after headersTimeout', T, async (t) => {
  const { port } = await withApp(t, routes, { headersTimeout: 300 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const start = Date.now();
  await conn.write(`GET /ok HTTP/1.1\r\n${H}X-Partial: yes\r\n`);
  const res = await conn.readResponse({ timeoutMs: 3000 });
  const elapsed = Date.now() - start;
  assert.equal(res.status, 408);
  assertRejectionShape(res, '408');
  assert.ok(elapsed >= 250, `408 after only ${elapsed} ms`);
  assert.ok(elapsed < 2000, `408 after ${elapsed} ms`);
  assert.equal(await conn.waitForClose(2000), true);
  await expectServesOk(port);
});

test('408: headersTimeout is a total deadline, not reset by trickled header bytes', T, async (t) => {
  const { port } = await withApp(t, routes, { headersTimeout: 300 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const start = Date.now();
  await conn.write(`GET /ok HTTP/1.1\r\n${H}`);
  let i = 0;
  while (!conn.closed && conn.buf.length === 0 && Date.now() - start < 3000) {
    await conn.write(`X-T${i++}: v\r\n`);
    await sleep(50);
  }
  const elapsed = Date.now() - start;
  const res = await conn.readResponse({ timeoutMs: 1000 });
  assert.equal(res.status, 408);
  assert.ok(elapsed < 2000, `trickling headers kept the connection alive for ${elapsed} ms`);
  assert.equal(await conn.waitForClose(2000), true);
});

test('a request that is slower than keepAliveTimeout is not cut off', T, async (t) => {
  const { port } = await withApp(t, routes, { keepAliveTimeout: 300 });
  const res = await simpleRequest(port, { path: '/slow' });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'slow');
});

test('idle keep-alive socket is closed after keepAliveTimeout, silently', T, async (t) => {
  const { port } = await withApp(t, routes, { keepAliveTimeout: 300 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(`GET /ok HTTP/1.1\r\n${H}\r\n`);
  const res = await conn.readResponse();
  assert.equal(res.status, 200);
  const answeredAt = Date.now();
  // a second request within the timeout is still served
  await sleep(150);
  assert.equal(conn.closed, false, 'closed before keepAliveTimeout');
  await conn.write(`GET /ok HTTP/1.1\r\n${H}\r\n`);
  assert.equal((await conn.readResponse()).text, 'ok');
  const secondAt = Date.now();
  assert.equal(await conn.waitForClose(3000), true, 'idle keep-alive socket was not closed');
  const idle = conn.closedAt - secondAt;
  assert.ok(idle >= 200, `closed after ${idle} ms idle (keepAliveTimeout 300)`);
  assert.ok(idle < 2000, `closed after ${idle} ms idle (keepAliveTimeout 300)`);
  assert.ok(answeredAt <= secondAt);
  assert.equal(conn.buf.length, 0, `bytes sent on idle close: ${show(conn.buf)}`);
  await expectServesOk(port);
});

test('408: request body incomplete after requestTimeout', T, async (t) => {
  const { port } = await withApp(t, routes, { requestTimeout: 300 });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const start = Date.now();
  await conn.write(`POST /echo HTTP/1.1\r\n${H}Content-Length: 100\r\n\r\n0123456789`);
  const res = await conn.readResponse({ timeoutMs: 3000 });
  const elapsed = Date.now() - start;
  assert.equal(res.status, 408);
  assertRejectionShape(res, '408 body');
  assert.ok(elapsed >= 250 && elapsed < 2000, `408 after ${elapsed} ms (requestTimeout 300)`);
  assert.equal(await conn.waitForClose(2000), true);
  await expectServesOk(port);
});
