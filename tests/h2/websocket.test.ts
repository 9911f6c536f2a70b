// WebSockets over HTTP/2 (RFC 8441) with Node's http2 client sending extended CONNECT: the server's
// SETTINGS_ENABLE_CONNECT_PROTOCOL, many sockets and requests on one connection, the request the route sees,
// subprotocols and permessage-deflate, flow control both ways, pub/sub with HTTP/1.1 sockets, refusals, the stream
// limit, how a stream's reset or end, a connection's loss and the server's close end the sockets, and fast-ws and
// Socket.IO on streams (the framing and close-code tests run over HTTP/2 in tests/ws/protocol.test.ts).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { type TestContext, test } from 'node:test';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import WebSocket from 'ws';
import { clientEventFrame, GREETING, replyFrame } from '../../packages/fast-ws/src/codec.js';
import { closeFrame, frame, rawWsH2, readClose, readFrame } from '../ws/frames.js';
import { bounded, FLAG, FRAME, h2App, frame as h2Frame, PREFACE, RawH2, request, testPki } from './h2.js';

const T = { timeout: 30_000 };
/** An app whose sockets at /e say 'hi', echo, and push their close codes to `closes`. */
const greeter = (t: TestContext, secure: boolean, closes: number[]) =>
  h2App(
    t,
    (app) =>
      app.ws('/e', {
        open: (ws) => ws.send('hi'),
        close: (_ws, code) => closes.push(code),
        message: (ws, d) => ws.send(d),
      }),
    { secure },
  );
const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
};

/** The HPACK block of an extended CONNECT for a WebSocket at `path` (h2c), without Huffman coding or indexing. */
function connectBlock(path: string): Buffer {
  const lit = (v: string) => [Buffer.from([v.length]), Buffer.from(v)];
  return Buffer.concat([
    Buffer.from([0x02]), // :method, a literal with the static table's name
    ...lit('CONNECT'),
    Buffer.from([0x00]), // a literal with a literal name
    ...lit(':protocol'),
    ...lit('websocket'),
    Buffer.from([0x86]), // :scheme http
    Buffer.from([0x04]), // :path
    ...lit(path),
    Buffer.from([0x01]), // :authority
    ...lit('127.0.0.1'),
    Buffer.from([0x00]),
    ...lit('sec-websocket-version'),
    ...lit('13'),
  ]);
}

for (const secure of [false, true]) {
  const kind = secure ? 'TLS' : 'h2c';

  test(`${kind}: sockets and requests share one connection; the route sees an HTTP/2 request`, T, async (t) => {
    const seen: { version: string; secure: boolean; proto: string; peer: number }[] = [];
    const s = await h2App(
      t,
      (app) => {
        app.get('/port', (req) => ({ port: req.socket.remotePort }));
        app.ws('/room/:id', {
          upgrade: (req) => ({ id: req.params.id }),
          open: (ws) => {
            const req = ws.req;
            seen.push({ version: req.httpVersion, secure: req.secure, proto: req.protocol, peer: ws.remotePort });
            ws.send(`room ${(ws.data as { id: string }).id}`);
          },
          message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
        });
      },
      { secure },
    );
    const c = s.connect();
    const socks = await Promise.all([1, 2, 3, 4, 5].map((i) => rawWsH2(c, `/room/${i}`)));
    const got = await Promise.all(socks.map(({ conn }) => readFrame(conn)));
    assert.deepEqual(
      got.map((f) => f.payload.toString()),
      ['room 1', 'room 2', 'room 3', 'room 4', 'room 5'],
    );
    const port = JSON.parse((await request(c, { ':path': '/port' })).body.toString()).port as number;
    for (const [i, { conn }] of socks.entries()) {
      await conn.write(frame(1, `echo ${i}`));
      assert.equal((await readFrame(conn)).payload.toString(), `echo ${i}`);
    }
    // One TCP connection: every socket's peer is the client's one port, the same as the plain request's.
    assert.equal(seen.length, 5);
    for (const r of seen) {
      assert.deepEqual(r, { version: '2.0', secure, proto: secure ? 'https' : 'http', peer: port });
    }
    for (const { conn } of socks) conn.socket.destroy();
  });

  test(`${kind}: subprotocol and permessage-deflate are negotiated; compressed messages both ways`, T, async (t) => {
    const s = await h2App(
      t,
      (app) =>
        app.ws('/z', {
          compression: 'shared',
          compressionThreshold: 0,
          protocols: (offered: string[]) => (offered.includes('chat') ? 'chat' : false),
          message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
        }),
      { secure },
    );
    const c = s.connect();
    const { conn, head } = await rawWsH2(
      c,
      '/z',
      'Sec-WebSocket-Protocol: superchat, chat\r\nSec-WebSocket-Extensions: permessage-deflate\r\n',
    );
    assert.match(head, /^sec-websocket-protocol: chat$/m);
    assert.match(head, /^sec-websocket-extensions: permessage-deflate/m);
    assert.doesNotMatch(head, /sec-websocket-accept|upgrade|connection/i);
    const text = 'compress me '.repeat(200);
    const deflated = deflateRawSync(Buffer.from(text), { finishFlush: constants.Z_SYNC_FLUSH });
    await conn.write(frame(1, deflated.subarray(0, deflated.length - 4), { rsv1: true }));
    const back = await readFrame(conn);
    assert.equal(back.rsv1, true, 'the echo is compressed');
    const plain = inflateRawSync(Buffer.concat([back.payload, Buffer.from([0, 0, 0xff, 0xff])]), {
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    assert.equal(plain.toString(), text);
    conn.socket.destroy();
  });

  test(`${kind}: messages larger than both flow-control windows go through whole`, T, async (t) => {
    const s = await h2App(
      t,
      (app) =>
        app.ws('/big', {
          maxPayloadLength: 8 * 1024 * 1024,
          message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
        }),
      { secure },
    );
    const c = s.connect();
    const { conn } = await rawWsH2(c, '/big');
    // 3 MiB out and back: the server's receive window (256 KiB) and the client's (64 KiB) refill many times.
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 10)) & 0xff;
    await conn.write(frame(2, big));
    const back = await readFrame(conn, 15_000);
    assert.equal(back.payload.length, big.length);
    assert.ok(back.payload.equals(big));
    conn.socket.destroy();
  });

  test(`${kind}: pub/sub reaches sockets on HTTP/2 streams and on HTTP/1.1 connections alike`, T, async (t) => {
    const s = await h2App(
      t,
      (app) =>
        app.ws('/news', {
          open: (ws) => {
            ws.subscribe('news');
            ws.send('ready');
          },
          message: (ws, data) => ws.publish('news', data),
        }),
      { secure },
    );
    const c = s.connect();
    const a = await rawWsH2(c, '/news');
    const b = await rawWsH2(c, '/news');
    const url = `${secure ? 'wss' : 'ws'}://127.0.0.1:${s.port}/news`;
    const h1 = new WebSocket(url, { ca: testPki().pki.ca });
    const h1Messages: string[] = [];
    h1.on('message', (m) => h1Messages.push(m.toString()));
    await bounded(new Promise((r) => h1.once('open', r)), 5000, 'the HTTP/1.1 socket opens');
    assert.equal((await readFrame(a.conn)).payload.toString(), 'ready');
    assert.equal((await readFrame(b.conn)).payload.toString(), 'ready');
    await until(() => h1Messages.includes('ready'), 'the HTTP/1.1 socket is ready');
    await a.conn.write(frame(1, 'from a'));
    assert.equal((await readFrame(b.conn)).payload.toString(), 'from a');
    await until(() => h1Messages.includes('from a'), 'the HTTP/1.1 socket hears the HTTP/2 one');
    h1.send('from h1');
    assert.equal((await readFrame(a.conn)).payload.toString(), 'from h1');
    assert.equal((await readFrame(b.conn)).payload.toString(), 'from h1');
    h1.close();
    a.conn.socket.destroy();
    b.conn.socket.destroy();
  });

  test(`${kind}: refusals are the stream's answer; a route that does not upgrade gets 501`, T, async (t) => {
    const s = await h2App(
      t,
      (app) => {
        app.get('/page', () => 'a page');
        app.ws('/guarded', {
          upgrade: (_req, res) => {
            res.status(403).send('no entry');
          },
          message: () => {},
        });
      },
      { secure },
    );
    const c = s.connect();
    const answer = async (path: string) => {
      const st = c.request({
        ':method': 'CONNECT',
        ':protocol': 'websocket',
        ':scheme': secure ? 'https' : 'http',
        ':path': path,
        ':authority': '127.0.0.1',
        'sec-websocket-version': '13',
      });
      const chunks: Buffer[] = [];
      st.on('data', (d: Buffer) => chunks.push(d));
      const head = await bounded(new Promise<Record<string, unknown>>((r) => st.once('response', r)), 5000, path);
      await bounded(new Promise((r) => st.once('end', r)), 5000, `${path} ends`);
      return { status: head[':status'], body: Buffer.concat(chunks).toString() };
    };
    assert.deepEqual(await answer('/nowhere'), { status: 404, body: 'Not Found' });
    assert.deepEqual(await answer('/guarded'), { status: 403, body: 'no entry' });
    const page = await answer('/page');
    assert.equal(page.status, 501);
    assert.match(page.body, /no WebSocket is served at this path/);
    // A plain GET to a WebSocket route on HTTP/2 says how to open one.
    const plain = await request(c, { ':path': '/guarded' });
    assert.equal(plain.status, 426);
    assert.match(plain.body.toString(), /extended CONNECT \(RFC 8441\)/);
  });

  test(
    `${kind}: a reset stream or a lost connection closes the socket (1006); app.close() sends 1001`,
    T,
    async (t) => {
      const closes: number[] = [];
      const s = await greeter(t, secure, closes);
      const c = s.connect();
      const a = await rawWsH2(c, '/e');
      await readFrame(a.conn);
      a.conn.socket.close(0x8 /* CANCEL */);
      await until(() => closes.length === 1, 'the reset stream closed its socket');
      assert.deepEqual(closes, [1006]);
      // Other streams of the connection go on.
      const b = await rawWsH2(c, '/e');
      await readFrame(b.conn);
      await b.conn.write(frame(1, 'still here'));
      assert.equal((await readFrame(b.conn)).payload.toString(), 'still here');
      c.destroy();
      await until(() => closes.length === 2, 'the lost connection closed its socket');
      assert.deepEqual(closes, [1006, 1006]);
      // A graceful close: the socket hears 1001 (Going Away), its stream ends, and so does the connection.
      const c2 = s.connect();
      const d = await rawWsH2(c2, '/e');
      await readFrame(d.conn);
      const closing = s.app.close({ timeout: 2000 });
      const close = await readClose(d.conn);
      assert.equal(close.code, 1001);
      await d.conn.write(closeFrame(1001));
      assert.ok(await d.conn.waitForClose(3000), 'the stream ends');
      await bounded(closing, 5000, 'app.close()');
      assert.deepEqual(closes, [1006, 1006, 1001]);
    },
  );

  test(`${kind}: a client that ends its stream without a close frame closes the socket (1006)`, T, async (t) => {
    const closes: number[] = [];
    const s = await greeter(t, secure, closes);
    const c = s.connect();
    const a = await rawWsH2(c, '/e');
    await readFrame(a.conn);
    // END_STREAM with no close frame: to the socket, a TCP connection's end of file.
    a.conn.socket.end();
    await until(() => closes.length === 1, 'the ended stream closed its socket');
    assert.deepEqual(closes, [1006]);
    assert.ok(await a.conn.waitForClose(3000), 'the server ends its side of the stream too');
    // The connection itself goes on.
    assert.equal((await request(c, { ':path': '/e' })).status, 426);
  });

  test(`${kind}: a fast-ws route answers events on an HTTP/2 stream`, T, async (t) => {
    const { fastWs } = await import('@gale-http/fast-ws');
    const s = await h2App(
      t,
      (app) => app.ws('/fws', fastWs({ open: (client) => client.on('echo', (e) => e.reply(e.data)) })),
      { secure },
    );
    const c = s.connect();
    const { conn, head } = await rawWsH2(c, '/fws', 'Sec-WebSocket-Protocol: fast-ws\r\n');
    assert.match(head, /^sec-websocket-protocol: fast-ws$/m);
    assert.equal((await readFrame(conn)).payload.toString(), GREETING);
    for (const id of ['1', '2']) {
      await conn.write(frame(1, clientEventFrame('echo', id, `over h2 ${id}`)));
      assert.equal((await readFrame(conn)).payload.toString(), replyFrame(id, `over h2 ${id}`));
    }
    conn.socket.destroy();
  });
}

test(
  'an HTTP/2 connection with a WebSocket stream open outlives keepAliveTimeout; over maxConnections a stream gets 503',
  T,
  async (t) => {
    const s = await h2App(
      t,
      (app) =>
        app.ws('/e', {
          idleTimeout: 0,
          open: (ws) => ws.send('hi'),
          message: (ws, d) => ws.send(d),
        }),
      // Each WebSocket stream is served through a connection of the engine's own, counted like a socket's.
      { gale: { keepAliveTimeout: 300, maxConnections: 3 } },
    );
    const c = s.connect();
    let goaway = false;
    c.on('goaway', () => {
      goaway = true;
    });
    const a = await rawWsH2(c, '/e');
    assert.equal((await readFrame(a.conn)).payload.toString(), 'hi');
    // Well past the idle timeout of a connection with no stream: no GOAWAY, the socket still echoes.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(goaway, false, 'no GOAWAY while a WebSocket stream is open');
    assert.equal(c.closed || c.destroyed, false, 'the connection is still open');
    await a.conn.write(frame(1, 'later'));
    assert.equal((await readFrame(a.conn)).payload.toString(), 'later');
    // The HTTP/2 connection and this socket's hold 2 of the 3: one more socket fits, the next is refused.
    const b = await rawWsH2(c, '/e');
    await readFrame(b.conn);
    const st = c.request({
      ':method': 'CONNECT',
      ':protocol': 'websocket',
      ':scheme': 'http',
      ':path': '/e',
      ':authority': '127.0.0.1',
      'sec-websocket-version': '13',
    });
    const head = await bounded(new Promise<Record<string, unknown>>((r) => st.once('response', r)), 5000, 'the 503');
    assert.equal(head[':status'], 503);
    a.conn.socket.destroy();
    b.conn.socket.destroy();
  },
);

test(
  'WebSocket streams count against maxConcurrentStreams: the one past it is refused, a freed place is reused',
  T,
  async (t) => {
    const s = await h2App(t, (app) => app.ws('/e', { open: (ws) => ws.send('hi') }), {
      http2: { maxConcurrentStreams: 2 },
    });
    // A raw client: Node's would hold the third CONNECT back itself, as the server's SETTINGS ask.
    const c = await RawH2.open(s.port);
    t.after(() => c.sock.destroy());
    const connect = (id: number) => c.send(h2Frame(FRAME.HEADERS, FLAG.END_HEADERS, id, connectBlock('/e')));
    const answered = (id: number) =>
      c.until((f) => f.stream === id && (f.type === FRAME.HEADERS || f.type === FRAME.RST_STREAM), `stream ${id}`);
    for (const id of [1, 3, 5]) connect(id);
    assert.equal((await answered(1)).type, FRAME.HEADERS);
    assert.equal((await answered(3)).type, FRAME.HEADERS);
    const refused = await answered(5);
    assert.equal(refused.type, FRAME.RST_STREAM);
    assert.equal(refused.payload.readUInt32BE(0), 7 /* REFUSED_STREAM */);
    // Stream 1's socket sent 'hi' (its DATA came); once the client resets it, its place is free for another.
    await c.until((f) => f.stream === 1 && f.type === FRAME.DATA, "stream 1's first message");
    c.send(h2Frame(FRAME.RST_STREAM, 0, 1, Buffer.from([0, 0, 0, 8])));
    await new Promise((r) => setTimeout(r, 100));
    connect(7);
    assert.equal((await answered(7)).type, FRAME.HEADERS);
    assert.equal(c.closed, false);
  },
);

test(
  'a WebSocket stream out of window sends the rest when the window comes, after input that needed no answer',
  T,
  async (t) => {
    const big = 'x'.repeat(10_000);
    const s = await h2App(t, (app) => app.ws('/big', { open: (ws) => ws.send(big), message: () => {} }));
    const sock = net.connect(s.port, '127.0.0.1');
    await bounded(once(sock, 'connect'), 3000, 'connect');
    const c = RawH2.over(sock);
    t.after(() => sock.destroy());
    // SETTINGS_INITIAL_WINDOW_SIZE (0x4) 1 000: the server may send 1 000 bytes on a stream before a WINDOW_UPDATE.
    const settings = Buffer.alloc(6);
    settings.writeUInt16BE(0x4, 0);
    settings.writeUInt32BE(1000, 2);
    c.send(Buffer.concat([PREFACE, h2Frame(FRAME.SETTINGS, 0, 0, settings)]));
    await c.until((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0, 'server SETTINGS');
    c.send(h2Frame(FRAME.SETTINGS, FLAG.ACK, 0));
    c.send(h2Frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, connectBlock('/big')));
    await c.until((f) => f.stream === 1 && f.type === FRAME.HEADERS, 'the 200');
    const sent = () =>
      c.frames.filter((f) => f.stream === 1 && f.type === FRAME.DATA).reduce((n, f) => n + f.payload.length, 0);
    await until(() => sent() === 1000, 'the first 1 000 bytes');
    // Input the server has nothing to answer (a message the route ignores); then the window. The server registered
    // for window when it ran out; the input in between must not have lost that.
    c.send(h2Frame(FRAME.DATA, 0, 1, frame(1, 'ignored')));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sent(), 1000);
    const more = Buffer.alloc(4);
    more.writeUInt32BE(100_000);
    c.send(h2Frame(FRAME.WINDOW_UPDATE, 0, 1, more));
    // 10 000 bytes of text behind a 4-byte frame header (126 and a 16-bit length).
    await until(() => sent() === 10_004, 'the rest of the message once the window came');
  },
);

test(
  'Socket.IO attached to the app: its WebSocket transport opens on an HTTP/2 stream, events and acks go through',
  T,
  async (t) => {
    const { Server } = await import('@gale-http/socket.io');
    let io: InstanceType<typeof Server> | undefined;
    const s = await h2App(t, (app) => {
      io = new Server(app);
      io.on('connection', (socket) => {
        socket.on('hello', (m: string, ack: (r: string) => void) =>
          ack(`got ${m} over ${socket.conn.transport.name}, HTTP ${socket.request.httpVersion}`),
        );
      });
    });
    t.after(() => io?.close());
    const c = s.connect();
    const { conn } = await rawWsH2(c, '/socket.io/?EIO=4&transport=websocket');
    const text = async () => (await readFrame(conn)).payload.toString();
    assert.match(await text(), /^0\{"sid":/);
    await conn.write(frame(1, '40'));
    assert.match(await text(), /^40\{"sid":/);
    await conn.write(frame(1, '421["hello","h2"]'));
    assert.equal(await text(), '431["got h2 over websocket, HTTP 2.0"]');
    conn.socket.destroy();
  },
);
