// PROXY protocol (v1 text, v2 binary) over the wire: with `proxyProtocol` the header's client address is
// `req.ip` (after the response too) and `ws.remoteAddress`, LOCAL/UNKNOWN keep the connection's own, a missing or
// malformed header gets 400; without the option a connection that starts with one gets 400 saying so. Real HAProxy
// and nginx in front of Gale are tested with the scale-out topology (tests/scale).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';
import { acceptFor } from '../ws/frames.js';

const SIG = Buffer.from('\r\n\r\n\0\r\nQUIT\n', 'latin1');

function v2(cmd: number, fam: number, block: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(block.length);
  return Buffer.concat([SIG, Buffer.from([0x20 | cmd, fam]), len, block]);
}

function v2ipv4(src: string, sport: number, dst: string, dport: number): Buffer {
  const b = Buffer.alloc(12);
  Buffer.from(src.split('.').map(Number)).copy(b, 0);
  Buffer.from(dst.split('.').map(Number)).copy(b, 4);
  b.writeUInt16BE(sport, 8);
  b.writeUInt16BE(dport, 10);
  return v2(1, 0x11, b);
}

const ipApp = (app: Parameters<Parameters<typeof withApp>[1]>[0]) => {
  app.get('/ip', (req) => ({ ip: req.ip }));
  app.ws('/ws', { open: (ws) => ws.send(ws.remoteAddress) });
};

test('proxyProtocol: v1 and v2 headers give req.ip; the connection stays usable for keep-alive', T, async (t) => {
  const { port } = await withApp(t, ipApp, { proxyProtocol: true });
  const cases: [Buffer, string][] = [
    [Buffer.from('PROXY TCP4 192.0.2.7 203.0.113.1 56324 443\r\n'), '192.0.2.7'],
    [Buffer.from('PROXY TCP6 2001:db8::7 2001:db8::1 56324 443\r\n'), '2001:db8::7'],
    [v2ipv4('198.51.100.9', 4000, '10.0.0.1', 80), '198.51.100.9'],
    [Buffer.from('PROXY UNKNOWN\r\n'), '127.0.0.1'],
    [v2(0, 0, Buffer.alloc(0)), '127.0.0.1'], // LOCAL: a health check from the balancer itself
  ];
  for (const [header, ip] of cases) {
    const conn = await RawConn.open(port);
    // The header and the request in one write, then a second request on the same connection.
    await conn.write(Buffer.concat([header, buildRequest({ path: '/ip' })]));
    assert.equal(JSON.parse((await conn.readResponse()).text).ip, ip, header.toString('latin1'));
    await conn.write(buildRequest({ path: '/ip' }));
    assert.equal(JSON.parse((await conn.readResponse()).text).ip, ip);
    conn.socket.destroy();
  }
  // Split across writes, byte by byte.
  const conn = await RawConn.open(port);
  await conn.writeSlowly(
    Buffer.concat([v2ipv4('203.0.113.5', 1, '10.0.0.1', 80), buildRequest({ path: '/ip' })]),
    3,
    1,
  );
  assert.equal(JSON.parse((await conn.readResponse()).text).ip, '203.0.113.5');
  conn.socket.destroy();
});

test('proxyProtocol: WebSocket upgrades after the header see the client address', T, async (t) => {
  const { port } = await withApp(t, ipApp, { proxyProtocol: true });
  const conn = await RawConn.open(port);
  const key = 'dGhlIHNhbXBsZSBub25jZQ==';
  await conn.write(
    'PROXY TCP4 192.0.2.44 203.0.113.1 5000 80\r\n' +
      'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
      `Sec-WebSocket-Key: ${key}\r\n\r\n`,
  );
  const head = (await conn.readUntil('\r\n\r\n')).toString('latin1');
  assert.match(head, new RegExp(`Sec-WebSocket-Accept: ${acceptFor(key).replace(/[+/]/g, '\\$&')}`));
  const frame = await conn.readBytes(2 + '192.0.2.44'.length);
  assert.equal(frame.subarray(2).toString(), '192.0.2.44');
  conn.socket.destroy();
});

test('proxyProtocol: a connection without a valid header gets 400 and is closed', T, async (t) => {
  const { port } = await withApp(t, ipApp, { proxyProtocol: true });
  for (const bad of [
    buildRequest({ path: '/ip' }),
    Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\nGET /ip HTTP/1.1\r\nHost: x\r\n\r\n'),
    Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4])]),
  ]) {
    const conn = await RawConn.open(port);
    await conn.write(bad);
    const res = await conn.readResponse();
    assert.equal(res.status, 400);
    assert.match(res.text, /PROXY protocol header/);
    assert.ok(await conn.waitForClose(3000));
  }
});

test(
  'without proxyProtocol a PROXY header is refused (400 saying so), so clients cannot forge their address',
  T,
  async (t) => {
    const { port } = await withApp(t, ipApp);
    for (const header of [Buffer.from('PROXY TCP4 6.6.6.6 1.1.1.1 1 2\r\n'), v2ipv4('6.6.6.6', 1, '1.1.1.1', 2)]) {
      const conn = await RawConn.open(port);
      await conn.write(Buffer.concat([header, buildRequest({ path: '/ip' })]));
      const res = await conn.readResponse();
      assert.equal(res.status, 400);
      assert.match(res.text, /does not expect one.*proxyProtocol/s);
      conn.socket.destroy();
    }
    const r = await fetch(`http://127.0.0.1:${port}/ip`);
    assert.equal((await r.json()).ip, '127.0.0.1');
  },
);

test('proxyProtocol: the client address and port read after the response, IPv4 and IPv6 alike', T, async (t) => {
  const late: string[] = [];
  const { port } = await withApp(
    t,
    (app) =>
      app.get('/late', (req, res) => {
        res.send('ok');
        // A later turn, nothing read before: the response's end kept the peer.
        setTimeout(() => late.push(`${req.ip} ${req.remotePort}`), 5);
      }),
    { proxyProtocol: true },
  );
  const cases: [Buffer, string][] = [
    [Buffer.from('PROXY TCP4 192.0.2.7 203.0.113.1 56324 443\r\n'), '192.0.2.7 56324'],
    [Buffer.from('PROXY TCP6 2001:db8::7 2001:db8::1 40001 443\r\n'), '2001:db8::7 40001'],
    [v2ipv4('198.51.100.9', 258, '10.0.0.1', 80), '198.51.100.9 258'],
  ];
  for (const [n, [header, want]] of cases.entries()) {
    const conn = await RawConn.open(port);
    await conn.write(Buffer.concat([header, buildRequest({ path: '/late' })]));
    assert.equal((await conn.readResponse()).text, 'ok');
    for (let i = 0; i < 100 && late.length <= n; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(late[n], want);
    conn.socket.destroy();
  }
});
