// The connection preface (RFC 9113 §3.4): over TLS, ALPN decides the protocol — a connection that agreed on `h2` and
// does not begin with the preface gets SETTINGS and GOAWAY(PROTOCOL_ERROR), never an HTTP/1.1 answer; on a cleartext
// listener serving h2c, a first request line that is no HTTP/1.x (its version is not `HTTP/d.d`) is answered the same
// way, while HTTP/1.1 clients keep their answers (400 for a bad version on a later request, or without HTTP/2).
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import tls from 'node:tls';
import { RawConn, T, withApp } from '../helpers.js';
import { bounded, ERR, FLAG, FRAME, frame, h2App, PREFACE, RawH2, request, testPki } from './h2.js';

const okRoute = (app: Parameters<Parameters<typeof h2App>[1]>[0]) => {
  app.get('/ok', () => 'ok');
};

/** A TLS connection to `port` offering only `alpn`; resolves once the handshake is done. */
async function tlsConnect(port: number, alpn: string[]): Promise<tls.TLSSocket> {
  const sock = tls.connect({
    port,
    host: '127.0.0.1',
    servername: 'a.test',
    ca: testPki().pki.ca,
    ALPNProtocols: alpn,
  });
  sock.on('error', () => {});
  await bounded(new Promise((r) => sock.once('secureConnect', r)), 3000, 'the TLS handshake');
  return sock;
}

/** Asserts the server answered with its SETTINGS, then GOAWAY(PROTOCOL_ERROR), and closed — no HTTP/1.1 bytes. */
async function assertPrefaceError(raw: RawH2): Promise<void> {
  await raw.untilClosed('the connection to close');
  assert.ok(!raw.received.includes('HTTP/1.1'), `no HTTP/1.1 answer, got ${JSON.stringify(raw.received.toString())}`);
  assert.deepEqual(
    raw.frames.map((f) => f.type),
    [FRAME.SETTINGS, FRAME.GOAWAY],
  );
  assert.equal(raw.goaway(), ERR.PROTOCOL_ERROR);
  const goaway = raw.frames[1]?.payload;
  assert.equal(goaway?.readUInt32BE(0), 0, 'no stream was processed');
  assert.equal(goaway?.subarray(8).toString(), 'invalid connection preface');
}

test('TLS with ALPN h2: HTTP/1.1 bytes get GOAWAY(PROTOCOL_ERROR), never an HTTP/1.1 answer', T, async (t) => {
  const s = await h2App(t, okRoute, { secure: true });
  for (const bytes of ['GET /ok HTTP/1.1\r\nHost: a.test\r\n\r\n', 'INVALID CONNECTION PREFACE\r\n\r\n']) {
    const sock = await tlsConnect(s.port, ['h2']);
    t.after(() => sock.destroy());
    assert.equal(sock.alpnProtocol, 'h2');
    const raw = RawH2.over(sock);
    sock.write(bytes);
    await assertPrefaceError(raw);
  }
  // The same listener still speaks both protocols to clients that agree on them.
  const h1 = await tlsConnect(s.port, ['http/1.1']);
  t.after(() => h1.destroy());
  assert.equal(h1.alpnProtocol, 'http/1.1');
  h1.write('GET /ok HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n');
  const chunks: Buffer[] = [];
  h1.on('data', (d: Buffer) => chunks.push(d));
  await bounded(new Promise((r) => h1.once('end', r)), 3000, 'the HTTP/1.1 answer');
  assert.match(Buffer.concat(chunks).toString(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/);
  assert.equal((await request(s.connect(), { ':path': '/ok' })).body.toString(), 'ok');
});

test('TLS with ALPN h2: a preface that comes in pieces is waited for', T, async (t) => {
  const s = await h2App(t, okRoute, { secure: true });
  const sock = await tlsConnect(s.port, ['h2']);
  t.after(() => sock.destroy());
  const raw = RawH2.over(sock);
  sock.write(PREFACE.subarray(0, 5));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(raw.frames.length, 0, 'nothing answered to half a preface');
  assert.equal(raw.closed, false);
  sock.write(Buffer.concat([PREFACE.subarray(5), frame(FRAME.SETTINGS, 0, 0)]));
  await raw.until((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0, "the server's SETTINGS");
  assert.equal(raw.goaway(), undefined);
});

test('h2c: a first request line that is no HTTP/1.x gets GOAWAY; HTTP/1.1 clients keep their 400', T, async (t) => {
  const s = await h2App(t, okRoute);
  const sock = net.connect(s.port, '127.0.0.1');
  t.after(() => sock.destroy());
  const raw = RawH2.over(sock);
  sock.write('INVALID CONNECTION PREFACE\r\n\r\n');
  await assertPrefaceError(raw);

  // On a connection that already carried an HTTP/1.1 request, the same line is an HTTP/1.1 client's bad request.
  const c = await RawConn.open(s.port);
  t.after(() => c.destroy());
  await c.write('GET /ok HTTP/1.1\r\nHost: a\r\n\r\n');
  assert.equal((await c.readResponse()).text, 'ok');
  await c.write('GET /ok FOO/1.1\r\nHost: a\r\n\r\n');
  assert.equal((await c.readResponse()).status, 400);

  // A well-formed version HTTP/1.x clients never send is 505, as before, not a preface error.
  const v2 = await RawConn.open(s.port);
  t.after(() => v2.destroy());
  await v2.write('GET /ok HTTP/3.0\r\nHost: a\r\n\r\n');
  assert.equal((await v2.readResponse()).status, 505);
});

test('without HTTP/2 the same line is an HTTP/1.1 400', T, async (t) => {
  const s = await withApp(t, (app) => app.get('/ok', () => 'ok'));
  const c = await RawConn.open(s.port);
  t.after(() => c.destroy());
  await c.write('INVALID CONNECTION PREFACE\r\n\r\n');
  assert.equal((await c.readResponse()).status, 400);
});
