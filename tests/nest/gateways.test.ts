// Nest WebSocket gateways on Gale's engine: the gateway of fixture/gateways.ts over WebSocket (GaleWsAdapter, a `ws`
// client) and over Socket.IO (GaleIoAdapter, socket.io-client), each answering the same conversation as on Nest's own
// adapters (WsAdapter, IoAdapter) with Express on node:http; and both attached again when supertest has listened and
// closed the server before app.listen().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GaleExpressAdapter } from '@gale-http/express/nest';
import { GaleIoAdapter } from '@gale-http/express/nest/socket.io';
import { GaleWsAdapter } from '@gale-http/express/nest/ws';
import { Server as GaleIoServer } from '@gale-http/socket.io';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { WsAdapter } from '@nestjs/platform-ws';
import { type Socket as IoSocket, io as ioClient } from 'socket.io-client';
import supertest from 'supertest';
import WebSocket from 'ws';
import { buildFixture, type GatewaysFixture } from './build.js';

const built = buildFixture();
const { WsAppModule, IoAppModule, IoGateway, BadWsAppModule } = await built.load<GatewaysFixture>('gateways');

type Kind = 'node' | 'gale';

async function start(kind: Kind, module: unknown, ws: 'ws' | 'io'): Promise<{ app: INestApplication; url: string }> {
  const adapter = kind === 'gale' ? new GaleExpressAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(module as never, adapter, { logger: false });
  if (ws === 'ws') app.useWebSocketAdapter(kind === 'gale' ? new GaleWsAdapter(app) : new WsAdapter(app));
  else app.useWebSocketAdapter(kind === 'gale' ? new GaleIoAdapter(app) : new IoAdapter(app));
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl() };
}

/** A `ws` client whose messages are read one at a time (`next()`: the next one, or 'nothing' after `ms`). */
class Client {
  private readonly queue: unknown[] = [];
  private waiter: ((m: unknown) => void) | undefined;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const m = isBinary ? `binary:${String(data)}` : JSON.parse(String(data));
      if (this.waiter) {
        const w = this.waiter;
        this.waiter = undefined;
        w(m);
      } else this.queue.push(m);
    });
  }
  static open(url: string, protocols?: string[], options?: WebSocket.ClientOptions): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, options);
      const client = new Client(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }
  send(m: unknown, binary = false): void {
    const text = typeof m === 'string' ? m : JSON.stringify(m);
    this.ws.send(binary ? Buffer.from(text) : text);
  }
  next(ms = 2000): Promise<unknown> {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve('nothing');
      }, ms);
      this.waiter = (m) => {
        clearTimeout(timer);
        resolve(m);
      };
    });
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/** The conversation with the ws gateway: what each step got. */
async function wsConversation(base: string): Promise<unknown[]> {
  const log: unknown[] = [];
  const ws = base.replace(/^http/, 'ws');
  const a = await Client.open(`${ws}/ws`);
  log.push(await a.next());
  a.send({ event: 'echo', data: { x: 1 } });
  log.push(await a.next());
  a.send({ event: 'add', data: [1, 2, 3] });
  log.push(await a.next());
  a.send({ event: 'later', data: 'z' });
  log.push(await a.next());
  // No answer to these: a failing handler, an unknown event, a message that is not JSON; then an echo.
  a.send({ event: 'fail' });
  a.send({ event: 'unknown', data: 1 });
  a.send('not json');
  a.send({ event: 'echo', data: 'after' });
  // The failing handler's exception (Nest's BaseWsExceptionFilter sends it to native WebSocket clients), then the echo.
  log.push(await a.next(), await a.next());
  a.send({ event: 'echo', data: 'binary' }, true);
  log.push(await a.next());
  const b = await Client.open(`${ws}/ws?x=1`);
  log.push(await b.next());
  b.send({ event: 'broadcast', data: 'hi' });
  log.push(await a.next(), await b.next());
  await b.close();
  a.send({ event: 'broadcast', data: 'alone' });
  log.push(await a.next());
  const c = await Client.open(`${ws}/ws`);
  log.push(await c.next());
  // A path no gateway serves: refused.
  log.push(
    await Client.open(`${ws}/elsewhere`).then(
      () => 'open',
      () => 'refused',
    ),
  );
  log.push(await (await fetch(`${base}/ping`)).json());
  // The guarded gateway: verifyClient refuses a client without the token, handleProtocols picks the subprotocol, and
  // a message over maxPayload (64 bytes) closes the connection with 1009.
  const status = await new Promise((resolve) => {
    const refused = new WebSocket(`${ws}/guarded`);
    refused.once('unexpected-response', (_req, res) => resolve(res.statusCode));
    refused.once('open', () => resolve('open'));
  });
  log.push(status);
  const g = await Client.open(`${ws}/guarded`, ['chat.v1', 'chat.v2'], { headers: { 'x-token': 'secret' } });
  log.push(g.ws.protocol);
  g.send({ event: 'whoami' });
  log.push(await g.next());
  const closed = new Promise((resolve) => g.ws.once('close', (code) => resolve(code)));
  g.send({ event: 'whoami', data: 'x'.repeat(100) });
  log.push(await closed);
  await Promise.all([a.close(), c.close()]);
  return log;
}

/** A connected socket, and the first `welcome` it got (listened for before connecting: it may come in the same read). */
function connect(url: string, transport: 'websocket' | 'polling'): Promise<IoSocket & { welcome: Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const s = ioClient(url, { transports: [transport], reconnection: false, forceNew: true });
    const welcome = new Promise((w) => s.once('welcome', w));
    s.once('connect', () => resolve(Object.assign(s, { welcome })));
    s.once('connect_error', reject);
  });
}

function once(s: IoSocket, event: string, ms = 2000): Promise<unknown> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('nothing'), ms);
    s.once(event, (m: unknown) => {
      clearTimeout(timer);
      resolve(m);
    });
  });
}

/** The conversation with the Socket.IO gateway: what each step got. */
async function ioConversation(base: string): Promise<unknown[]> {
  const log: unknown[] = [];
  const s1 = await connect(base, 'websocket');
  log.push(await s1.welcome);
  log.push(await s1.emitWithAck('add', [1, 2, 3]));
  const echoed = once(s1, 'echo');
  s1.emit('echo', { x: 1 });
  log.push(await echoed);
  log.push(await s1.emitWithAck('join', 'r1'));
  const s2 = await connect(base, 'polling');
  log.push(await s2.welcome, await s2.emitWithAck('join', 'r2'));
  const news1 = once(s1, 'news');
  const news2 = once(s2, 'news', 300);
  s2.emit('shout', { room: 'r1', text: 'hello r1' });
  log.push(await news1, await news2);
  const exception = once(s1, 'exception');
  s1.emit('fail');
  log.push(await exception);
  s2.disconnect();
  const s3 = await connect(base, 'polling');
  log.push(await s3.welcome, await s3.emitWithAck('add', [40, 2]));
  log.push(await (await fetch(`${base}/ping`)).json());
  s1.disconnect();
  s3.disconnect();
  return log;
}

test('a ws gateway on GaleWsAdapter has the conversation it has on WsAdapter with Express', {
  timeout: 30_000,
}, async (t) => {
  const node = await start('node', WsAppModule, 'ws');
  t.after(() => node.app.close());
  const gale = await start('gale', WsAppModule, 'ws');
  t.after(() => gale.app.close());
  const expected = await wsConversation(node.url);
  const actual = await wsConversation(gale.url);
  assert.deepEqual(actual, expected);
  // Not an empty conversation on both sides:
  assert.deepEqual(expected.slice(0, 4), [
    { event: 'welcome', data: { clients: 1, url: '/ws' } },
    { event: 'echo', data: { x: 1 } },
    6,
    { event: 'later', data: 'z' },
  ]);
  assert.deepEqual(expected.slice(4, 7), [
    { event: 'exception', data: { status: 'error', message: 'nope', cause: { pattern: 'fail' } } },
    { event: 'echo', data: 'after' },
    { event: 'echo', data: 'binary' },
  ]);
  assert.deepEqual(expected.slice(7), [
    { event: 'welcome', data: { clients: 2, url: '/ws?x=1' } },
    { event: 'news', data: 'hi' },
    { event: 'news', data: 'hi' },
    { event: 'news', data: 'alone' },
    { event: 'welcome', data: { clients: 2, url: '/ws' } },
    'refused',
    { pong: true },
    401,
    'chat.v2',
    { event: 'whoami', data: 'chat.v2' },
    1009,
  ]);
});

test('a Socket.IO gateway on GaleIoAdapter has the conversation it has on IoAdapter with Express', {
  timeout: 30_000,
}, async (t) => {
  const node = await start('node', IoAppModule, 'io');
  t.after(() => node.app.close());
  const gale = await start('gale', IoAppModule, 'io');
  t.after(() => gale.app.close());
  const expected = await ioConversation(node.url);
  const actual = await ioConversation(gale.url);
  assert.deepEqual(actual, expected);
  assert.deepEqual(expected, [
    { clients: 1 },
    6,
    { x: 1 },
    'joined r1',
    { clients: 2 },
    'joined r2',
    'hello r1',
    'nothing',
    { status: 'error', message: 'nope', cause: { pattern: 'fail' } },
    { clients: 2 },
    42,
    { pong: true },
  ]);
  // Socket.IO on the engine: @gale-http/socket.io's server, on the Gale app serving the HTTP server.
  const gateway = gale.app.get(IoGateway);
  assert.ok(gateway.server instanceof GaleIoServer);
  assert.equal((gateway.server as unknown as GaleIoServer).httpServer, gale.app.getHttpServer().galeApp);
});

test('the gateways attach to the Gale app of every listen: supertest first, then app.listen()', {
  timeout: 30_000,
}, async (t) => {
  for (const kind of ['ws', 'io'] as const) {
    const app = await NestFactory.create(kind === 'ws' ? WsAppModule : IoAppModule, new GaleExpressAdapter(), {
      logger: false,
    });
    t.after(() => app.close());
    app.useWebSocketAdapter(kind === 'ws' ? new GaleWsAdapter(app) : new GaleIoAdapter(app));
    await app.init();
    await supertest(app.getHttpServer()).get('/ping').expect(200, { pong: true });
    await supertest(app.getHttpServer()).get('/ping').expect(200, { pong: true });
    await app.listen(0, '127.0.0.1');
    const url = await app.getUrl();
    if (kind === 'ws') {
      const c = await Client.open(`${url.replace(/^http/, 'ws')}/ws`);
      assert.deepEqual(await c.next(), { event: 'welcome', data: { clients: 1, url: '/ws' } });
      c.send({ event: 'add', data: [2, 3] });
      assert.equal(await c.next(), 5);
      const closed = new Promise((resolve) => c.ws.once('close', resolve));
      await app.close();
      await closed;
    } else {
      // Attaching again after supertest's close waits for that app to be closed: give it its turn.
      const s = await connect(url, 'websocket');
      assert.equal(await s.emitWithAck('add', [2, 3]), 5);
      const gone = new Promise((resolve) => s.once('disconnect', resolve));
      await app.close();
      await gone;
    }
  }
});

test("Nest's own WsAdapter and IoAdapter on GaleExpressAdapter, and a ws option the engine cannot honour: errors that say what to do", async () => {
  const cases: [unknown, (app: INestApplication) => unknown, RegExp][] = [
    [WsAppModule, (app) => new WsAdapter(app), /cannot listen for 'upgrade'.*GaleWsAdapter/s],
    [IoAppModule, (app) => new IoAdapter(app), /cannot listen for 'request'.*GaleIoAdapter/s],
    [BadWsAppModule, (app) => new GaleWsAdapter(app), /autoPong.*the engine always answers pings/],
  ];
  for (const [module, adapter, message] of cases) {
    const app = await NestFactory.create(module as never, new GaleExpressAdapter(), { logger: false });
    app.useWebSocketAdapter(adapter(app) as never);
    await assert.rejects(app.init(), { code: 'GALE_NEST_UNSUPPORTED', message });
    await app.close();
  }
});
