// WebSocket wire tests with raw sockets: handshake answers (101, 400, 426, 404, 405), framing edges
// (fragmentation, control frames between fragments, 16/64-bit lengths, frames split byte by byte) and every
// protocol close code: 1002 (masking, RSV bits, opcodes, control frames), 1007 (UTF-8), 1009 (size). The framing
// and close tests run on an HTTP/1.1 connection and on HTTP/2 streams (RFC 8441; cleartext and over TLS).
import assert from 'node:assert/strict';
import type { Duplex } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { h2App } from '../h2/h2.js';
import { type App, RawConn, T, withApp } from '../helpers.js';
import { closeFrame, frame, rawWs, rawWsH2, readClose, readFrame, upgradeRequest } from './frames.js';

/** How a test's WebSockets reach the app: an HTTP/1.1 upgrade, or an extended CONNECT on an HTTP/2 connection. */
const transports = ['HTTP/1.1', 'HTTP/2 h2c', 'HTTP/2 TLS'] as const;
type Over = (typeof transports)[number];
type Opened = { conn: RawConn<Duplex>; head: string };

/** The app from `setup`, and how to open a raw WebSocket to it over `over` (one HTTP/2 connection per test). */
async function serve(
  t: TestContext,
  over: Over,
  setup: (app: App) => void,
): Promise<(path: string) => Promise<Opened>> {
  if (over === 'HTTP/1.1') {
    const { port } = await withApp(t, setup);
    return (path) => rawWs(port, path);
  }
  const s = await h2App(t, setup, { secure: over === 'HTTP/2 TLS' });
  const session = s.connect();
  return (path) => rawWsH2(session, path);
}

const echo = (app: Parameters<Parameters<typeof withApp>[1]>[0], opts = {}) =>
  app.ws('/echo', { ...opts, message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });

async function handshakeStatus(port: number, req: string): Promise<{ status: number; head: string; body: string }> {
  const conn = await RawConn.open(port);
  await conn.write(req);
  const res = await conn.readResponse();
  conn.socket.destroy();
  const head = res.raw.subarray(0, res.raw.indexOf('\r\n\r\n') + 4).toString('latin1');
  return { status: res.status, head, body: res.text };
}

test('handshake: 101 with the RFC 6455 accept key, then text and binary echo', T, async (t) => {
  const { port } = await withApp(t, (app) => echo(app));
  const { conn, head } = await rawWs(port, '/echo');
  assert.match(head, /\r\nUpgrade: websocket\r\n/i);
  assert.match(head, /\r\nConnection: Upgrade\r\n/i);
  await conn.write(frame(1, 'héllo'));
  const f = await readFrame(conn);
  assert.deepEqual([f.opcode, f.fin, f.payload.toString()], [1, true, 'héllo']);
  await conn.write(frame(2, Buffer.from([0, 1, 2, 255])));
  const b = await readFrame(conn);
  assert.deepEqual([b.opcode, [...b.payload]], [2, [0, 1, 2, 255]]);
  conn.socket.destroy();
});

test(
  'handshake refusals: plain GET 426, bad version 426 + Sec-WebSocket-Version, bad key 400, body 400, unknown path 404, POST 405',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => echo(app));
    const plain = await handshakeStatus(port, 'GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(plain.status, 426);
    assert.match(plain.head, /\r\nUpgrade: websocket\r\n/i);
    assert.match(plain.body, /WebSocket/);
    const version = await handshakeStatus(port, upgradeRequest('/echo').replace('Version: 13', 'Version: 8'));
    assert.equal(version.status, 426);
    assert.match(version.head, /\r\nSec-WebSocket-Version: 13\r\n/i);
    const key = await handshakeStatus(port, upgradeRequest('/echo', '', 'c2hvcnQ='));
    assert.equal(key.status, 400);
    assert.match(key.body, /Sec-WebSocket-Key/i);
    const body = await handshakeStatus(
      port,
      upgradeRequest('/echo', 'Content-Length: 2\r\n').replace(/\r\n\r\n$/, '\r\n\r\nhi'),
    );
    assert.equal(body.status, 400);
    const missing = await handshakeStatus(port, upgradeRequest('/nope'));
    assert.equal(missing.status, 404);
    const post = await handshakeStatus(port, upgradeRequest('/echo').replace('GET', 'POST'));
    assert.equal(post.status, 405);
  },
);

const protocolErrors: [string, Buffer, number][] = [
  ['unmasked client frame', frame(1, 'hi', { mask: false }), 1002],
  ['RSV1 without permessage-deflate', frame(1, 'hi', { rsv1: true }), 1002],
  ['RSV2 set', frame(1, 'hi', { rsv2: true }), 1002],
  ['reserved data opcode 3', frame(3, 'hi'), 1002],
  ['reserved control opcode 0xB', frame(0xb, ''), 1002],
  ['continuation with nothing to continue', frame(0, 'hi'), 1002],
  ['new data frame inside a fragmented message', Buffer.concat([frame(1, 'a', { fin: false }), frame(1, 'b')]), 1002],
  ['fragmented ping', frame(9, 'p', { fin: false }), 1002],
  ['ping longer than 125 bytes', frame(9, Buffer.alloc(126)), 1002],
  ['close with a 1-byte payload', frame(8, Buffer.from([3])), 1002],
  ['close with reserved code 1005', closeFrame(1005), 1002],
  ['invalid UTF-8 text', frame(1, Buffer.from([0x61, 0xff, 0x62])), 1007],
  ['overlong UTF-8 encoding', frame(1, Buffer.from([0xc0, 0xaf])), 1007],
  ['UTF-16 surrogate encoded in UTF-8', frame(1, Buffer.from([0xed, 0xa0, 0x80])), 1007],
  ['close reason that is not UTF-8', frame(8, Buffer.from([0x03, 0xe8, 0xff])), 1007],
];

for (const over of transports) {
  test(`${over}: fragmented text with a ping between fragments: pong first, then the whole message`, T, async (t) => {
    const open = await serve(t, over, (app) => echo(app));
    const { conn } = await open('/echo');
    // "€" is split across the two fragments: UTF-8 is checked across fragment boundaries.
    const euro = Buffer.from('a€b');
    await conn.write(
      Buffer.concat([frame(1, euro.subarray(0, 2), { fin: false }), frame(9, 'p1'), frame(0, euro.subarray(2))]),
    );
    const pong = await readFrame(conn);
    assert.deepEqual([pong.opcode, pong.payload.toString()], [10, 'p1']);
    const msg = await readFrame(conn);
    assert.deepEqual([msg.opcode, msg.payload.toString()], [1, 'a€b']);
    conn.socket.destroy();
  });

  test(`${over}: a frame written one byte at a time, and 16- and 64-bit lengths`, T, async (t) => {
    const open = await serve(t, over, (app) => echo(app));
    const { conn } = await open('/echo');
    await conn.writeSlowly(frame(1, 'slow'), 1, 2);
    assert.equal((await readFrame(conn)).payload.toString(), 'slow');
    await conn.write(frame(1, 'x', { lengthBits: 64 }));
    assert.equal((await readFrame(conn)).payload.toString(), 'x');
    const big = Buffer.alloc(70_000, 'z');
    await conn.write(frame(2, big));
    const back = await readFrame(conn, 5000);
    assert.equal(back.payload.length, 70_000);
    assert.ok(back.payload.equals(big));
    conn.socket.destroy();
  });

  for (const [name, bytes, code] of protocolErrors) {
    test(`${over}: protocol error closes with ${code}: ${name}`, T, async (t) => {
      const closes: [number, string][] = [];
      const open = await serve(t, over, (app) =>
        echo(app, { close: (_ws: unknown, c: number, r: string) => closes.push([c, r]) }),
      );
      const { conn } = await open('/echo');
      await conn.write(bytes);
      const close = await readClose(conn);
      assert.equal(close.code, code);
      assert.ok(close.reason.length > 0, 'the close frame says what was wrong');
      assert.ok(await conn.waitForClose(3000), 'the server closes the TCP connection');
      // The handler hears the same code and reason.
      for (let i = 0; i < 50 && closes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(closes, [[code, close.reason]]);
    });
  }

  test(
    `${over}: invalid UTF-8 fails fast: 1007 after the first bad fragment, before the message ends`,
    T,
    async (t) => {
      const open = await serve(t, over, (app) => echo(app));
      const { conn } = await open('/echo');
      await conn.write(frame(1, Buffer.from([0x61, 0xfe]), { fin: false }));
      assert.equal((await readClose(conn)).code, 1007);
      conn.socket.destroy();
    },
  );

  test(
    `${over}: maxPayloadLength: 1009 from the frame header, before the payload arrives; across fragments too`,
    T,
    async (t) => {
      const open = await serve(t, over, (app) => echo(app, { maxPayloadLength: 1000 }));
      const a = await open('/echo');
      // Only the header of a 1001-byte frame: the server must not wait for the payload.
      await a.conn.write(frame(2, Buffer.alloc(1001)).subarray(0, 8));
      const close = await readClose(a.conn);
      assert.equal(close.code, 1009);
      assert.match(close.reason, /longer than the maximum|too big/i);
      a.conn.socket.destroy();
      const b = await open('/echo');
      await b.conn.write(Buffer.concat([frame(2, Buffer.alloc(600), { fin: false }), frame(0, Buffer.alloc(600))]));
      assert.equal((await readClose(b.conn)).code, 1009);
      b.conn.socket.destroy();
      // A message of exactly the limit is fine.
      const c = await open('/echo');
      await c.conn.write(frame(2, Buffer.alloc(1000, 7)));
      assert.equal((await readFrame(c.conn)).payload.length, 1000);
      c.conn.socket.destroy();
    },
  );

  test(
    `${over}: close handshake: the server echoes the client close code and ends the connection (or stream)`,
    T,
    async (t) => {
      const seen: [number, string][] = [];
      const open = await serve(t, over, (app) =>
        echo(app, { close: (_ws: unknown, c: number, r: string) => seen.push([c, r]) }),
      );
      const { conn } = await open('/echo');
      await conn.write(closeFrame(4001, 'done here'));
      const close = await readClose(conn);
      assert.equal(close.code, 4001);
      assert.ok(await conn.waitForClose(3000));
      for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(seen, [[4001, 'done here']]);
      // A close frame without a code is answered with an empty close frame; the handler sees 1005.
      const b = await open('/echo');
      await b.conn.write(frame(8));
      assert.deepEqual(await readClose(b.conn), { code: 1005, reason: '' });
      b.conn.socket.destroy();
    },
  );
}

test('frames sent right behind the handshake (same packet) are not lost', T, async (t) => {
  const { port } = await withApp(t, (app) => echo(app));
  const conn = await RawConn.open(port);
  await conn.write(Buffer.concat([Buffer.from(upgradeRequest('/echo')), frame(1, 'early')]));
  await conn.readUntil('\r\n\r\n');
  assert.equal((await readFrame(conn)).payload.toString(), 'early');
  conn.socket.destroy();
});

test('an upgrade pipelined behind a normal request waits for its response', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/slow', async () => {
      await new Promise((r) => setTimeout(r, 50));
      return 'slow done';
    });
    echo(app);
  });
  const conn = await RawConn.open(port);
  await conn.write(`GET /slow HTTP/1.1\r\nHost: x\r\n\r\n${upgradeRequest('/echo')}`);
  const first = await conn.readResponse();
  assert.equal(first.body.toString(), 'slow done');
  const head = (await conn.readUntil('\r\n\r\n')).toString('latin1');
  assert.match(head, /^HTTP\/1\.1 101 /);
  await conn.write(frame(1, 'after'));
  assert.equal((await readFrame(conn)).payload.toString(), 'after');
  conn.socket.destroy();
});
