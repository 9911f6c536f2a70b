// @gale-http/socket.io wherever socket.io apps attach it, each compared with socket.io 4 where both can run: a
// node:http server with a request listener of its own (which keeps its requests), node:https, `io.attach(server,
// options)`, `new Server(port)`, the server @gale-http/express's listen() returns (served by the engine), the browser
// bundle (ETag and 304, compression, CORS, serveClient: false), URLs under the path, close(cb) and attaching again,
// and close(cb) ending although clients keep using keep-alive connections that were busy at close().
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { test } from 'node:test';
import express from '@gale-http/express';
import { Server as GaleServer } from '@gale-http/socket.io';
import { App } from 'gale';
import { Server as SioServer } from 'socket.io';
import { type Socket as ClientSocket, io as connectClient } from 'socket.io-client';
import { RawConn, sleep, T, withTimeout } from '../helpers.js';
import { makePki } from '../tls/certs.js';

type AnyServer = GaleServer | SioServer;
const IMPLS = { gale: GaleServer, 'socket.io': SioServer } as const;

/** Connects a socket.io-client to `url`, resolves once connected over `transport` (closed after the test). */
async function connect(
  t: import('node:test').TestContext,
  url: string,
  opts: Record<string, unknown> = {},
): Promise<ClientSocket> {
  const c = connectClient(url, { forceNew: true, reconnection: false, ...opts });
  t.after(() => {
    c.disconnect();
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      c.once('connect', () => resolve());
      c.once('connect_error', reject);
    }),
    4000,
    `connect to ${url}`,
  );
  return c;
}

/** An echo with ack over `transport`: resolves the ack's answer. */
async function echo(c: ClientSocket): Promise<unknown> {
  return withTimeout(c.emitWithAck('echo', 'hi'), 3000, 'the echo ack');
}

const onEcho = (io: AnyServer) =>
  io.on('connection', (s: { on: (e: string, f: (x: unknown, ack: (y: unknown) => void) => void) => void }) =>
    s.on('echo', (x, ack) => ack(x)),
  );

for (const impl of ['socket.io', 'gale'] as const) {
  test(
    `${impl}: new Server(http.createServer(handler)) — polling and WebSocket, and the handler keeps its requests`,
    T,
    async (t) => {
      const server = http.createServer((req, res) => res.end(`app ${req.url}`));
      const io = new IMPLS[impl](server);
      onEcho(io);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      t.after(() => {
        server.closeAllConnections();
        return io.close();
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal(io.httpServer, server);
      assert.equal(await (await fetch(`${url}/hello?x=1`)).text(), 'app /hello?x=1');
      // Bare '/socket.io' is not Engine.IO's path ('/socket.io/' is): the app answers it.
      assert.equal(await (await fetch(`${url}/socket.io`)).text(), 'app /socket.io');
      for (const transports of [['polling'], ['websocket'], ['polling', 'websocket']]) {
        const c = await connect(t, url, { transports });
        assert.equal(await echo(c), 'hi', `${transports.join('+')} echo`);
        c.disconnect();
      }
    },
  );

  test(
    `${impl}: an upgrade to another path is ended after destroyUpgradeTimeout unless another listener takes it`,
    T,
    async (t) => {
      const server = http.createServer();
      const io = new IMPLS[impl](server, { destroyUpgradeTimeout: 100 } as never);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      t.after(() => io.close());
      const { port } = server.address() as AddressInfo;
      const sock = net.connect(port, '127.0.0.1');
      sock.write(
        'GET /other HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
      const t0 = Date.now();
      await withTimeout(once(sock, 'close'), 3000, 'the upgrade to end');
      assert.ok(Date.now() - t0 >= 80, 'not before destroyUpgradeTimeout');
    },
  );

  test(`${impl}: new Server(https.createServer(…)) over TLS, polling and WebSocket`, T, async (t) => {
    const pki = makePki();
    t.after(() => pki.remove());
    const leaf = pki.leaf('localhost');
    const server = https.createServer({ cert: leaf.cert, key: leaf.key });
    const io = new IMPLS[impl](server);
    onEcho(io);
    io.on('connection', (s: { handshake: { secure: boolean }; emit: (e: string, v: unknown) => void }) =>
      s.emit('secure', s.handshake.secure),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => {
      server.closeAllConnections();
      return io.close();
    });
    const url = `https://localhost:${(server.address() as AddressInfo).port}`;
    const c = connectClient(url, { forceNew: true, reconnection: false, ca: pki.ca } as never);
    t.after(() => c.disconnect());
    const secure = await withTimeout(new Promise((resolve) => c.once('secure', resolve)), 4000, 'the secure event');
    assert.equal(secure, true);
    assert.equal(await echo(c), 'hi');
    await withTimeout(
      new Promise<void>((resolve) => {
        if (c.io.engine.transport.name === 'websocket') resolve();
        else c.io.engine.once('upgrade', () => resolve());
      }),
      3000,
      'the upgrade to WebSocket over TLS',
    );
    assert.equal(await echo(c), 'hi');
  });

  test(`${impl}: the browser bundle: ETag and 304, compression, CORS; 400 with serveClient: false`, T, async (t) => {
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    const io = new IMPLS[impl](server, { cors: { origin: 'https://good.example' } });
    const bare = http.createServer((_req, res) => res.writeHead(404).end());
    const noClient = new IMPLS[impl](bare, { serveClient: false });
    for (const s of [server, bare]) {
      s.listen(0, '127.0.0.1');
      await once(s, 'listening');
    }
    t.after(() => Promise.all([io.close(), noClient.close()]));
    const url = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const js = await fetch(`${url(server)}/socket.io/socket.io.min.js?v=1`, {
      headers: { 'accept-encoding': 'br', origin: 'https://good.example' },
    });
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'application/javascript; charset=utf-8');
    assert.equal(js.headers.get('content-encoding'), 'br');
    assert.equal(js.headers.get('access-control-allow-origin'), 'https://good.example');
    const etag = js.headers.get('etag') as string;
    assert.match(etag, /^"4\.\d+\.\d+"$/);
    assert.match(await js.text(), /engine\.io/);
    const map = await fetch(`${url(server)}/socket.io/socket.io.esm.min.js.map`);
    assert.equal(map.headers.get('content-type'), 'application/json; charset=utf-8');
    for (const tag of [etag, `W/${etag}`]) {
      const r = await fetch(`${url(server)}/socket.io/socket.io.js`, { headers: { 'if-none-match': tag } });
      assert.equal(r.status, 304, `If-None-Match: ${tag}`);
    }
    const gz = await fetch(`${url(server)}/socket.io/socket.io.msgpack.min.js`, {
      headers: { 'accept-encoding': 'gzip, deflate' },
    });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal((await fetch(`${url(bare)}/socket.io/socket.io.js`)).status, 400);
  });
}

test(
  "gale: attach options merge under the constructor's; new Server(port); close(cb) errors; attach again",
  T,
  async (t) => {
    const io = new GaleServer({ pingTimeout: 6000 });
    const server = http.createServer();
    io.attach(server, { pingInterval: 24000, pingTimeout: 1000 });
    assert.equal(io.eio.opts.pingTimeout, 6000, "the constructor's option wins, as in socket.io");
    assert.equal(io.eio.opts.pingInterval, 24000);
    const closed = await new Promise<Error | undefined>((resolve) => io.close(resolve));
    assert.equal((closed as Error & { code?: string })?.code, 'ERR_SERVER_NOT_RUNNING');

    const byPort = new GaleServer(0);
    onEcho(byPort);
    assert.ok(byPort.httpServer instanceof App, 'new Server(port) makes a Gale app');
    const port = (byPort.httpServer as App).address()?.port ?? 0;
    assert.ok(port > 0, 'bound before the constructor returns');
    assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status, 404);
    const c = await connect(t, `http://127.0.0.1:${port}`, { transports: ['websocket'] });
    assert.equal(await echo(c), 'hi');
    await new Promise<void>((resolve) => byPort.close(() => resolve()));
    // Attached again after close, on the same port: clients reconnect.
    byPort.listen(port);
    t.after(() => byPort.close());
    const again = await connect(t, `http://127.0.0.1:${port}`, { transports: ['websocket'] });
    assert.equal(await echo(again), 'hi');
  },
);

test(
  "gale: the server @gale-http/express's listen() returns: Socket.IO on the engine beside the Express app",
  T,
  async (t) => {
    const app = express();
    app.get('/api', (_req, res) => res.json({ api: true }));
    const server = app.listen(0);
    const io = new GaleServer(server);
    onEcho(io);
    t.after(() => io.close());
    assert.equal(io.httpServer, server);
    assert.ok(io._app instanceof App, 'attached to the Gale app that serves the Express server');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    assert.deepEqual(await (await fetch(`${url}/api`)).json(), { api: true });
    for (const transports of [['polling'], ['websocket'], ['polling', 'websocket']]) {
      const c = await connect(t, url, { transports });
      assert.equal(await echo(c), 'hi');
      c.disconnect();
    }
  },
);

test('gale and socket.io: URLs under the path are Engine.IO requests', T, async (t) => {
  const answers: Record<string, [number, string][]> = {};
  for (const impl of ['socket.io', 'gale'] as const) {
    const server = http.createServer((_req, res) => res.writeHead(404).end('app'));
    const io = new IMPLS[impl](server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => io.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const got: [number, string][] = [];
    for (const path of [
      '/socket.io/default/?EIO=4&transport=polling',
      '/socket.io/x?EIO=4&transport=nope',
      '/socket.io',
    ]) {
      const r = await fetch(`${url}${path}`);
      const text = (await r.text()).replace(/"sid":"[\w-]+"/, '"sid":"<id>"');
      got.push([r.status, text]);
    }
    answers[impl] = got;
  }
  assert.deepEqual(answers.gale, answers['socket.io']);
});

test(
  'gale: io.close(cb) on a node:http server ends although clients keep using connections busy at close()',
  T,
  async (t) => {
    // node:http keeps answering on keep-alive connections busy at close(), keeping them (and close()) open: a browser's
    // socket.io-client reconnecting through them held a SIGTERM exit for minutes. Answers after close() end them.
    const app = express();
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/slow', async (_req, res) => {
      await released;
      res.send('slow');
    });
    app.get('/health', (_req, res) => res.json({ ok: true }));
    const server = http.createServer(app);
    const io = new GaleServer(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => server.closeAllConnections());
    const { port } = server.address() as AddressInfo;
    const conns: RawConn[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await RawConn.open(port);
      t.after(() => c.destroy());
      await c.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      conns.push(c);
    }
    const [first, second] = conns as [RawConn, RawConn];
    await first.nextEvent(50);
    const closed = new Promise<void>((resolve) => io.close(() => resolve()));
    while (server.listening) await sleep(5); // io.close() closes the server once its sessions are closed
    release();
    for (const c of conns) assert.equal((await c.readResponse()).text, 'slow');
    assert.equal(first.closed, false, 'node:http keeps a connection that was busy at close()');

    await first.write('GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n\r\n');
    const handshake = await first.readResponse();
    assert.equal(handshake.status, 200, 'a request after close() is still answered');
    assert.equal(handshake.get('connection'), 'close');
    assert.ok(await first.waitForClose(2000), 'and its connection ends');

    await second.write(
      'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const refused = await second.readResponse();
    assert.equal(refused.status, 503, 'no WebSocket is opened after close()');
    assert.equal(refused.text, 'the server is closing');
    assert.ok(await second.waitForClose(2000));
    await withTimeout(closed, 2000, 'the close callback, once the last connection has ended');
  },
);
