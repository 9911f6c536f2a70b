// @gale-http/socket.io's Redis adapter against the real thing: a @gale-http/socket.io server and a socket.io 4 server (node:http)
// using @socket.io/redis-adapter share one redis-server; real socket.io-client connections on each. Broadcasts
// (rooms, except, binary), fetchSockets and RemoteSocket, socketsJoin, disconnectSockets, serverSideEmit with acks and
// acknowledged broadcasts must cross in both directions.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createRedisAdapter, Server as GaleServer } from '@gale-http/socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { gale } from 'gale';
import { Redis } from 'ioredis';
import { Server as SioServer } from 'socket.io';
import { type Socket as ClientSocket, io as connect } from 'socket.io-client';
import { type RedisServer, startRedis, until, within } from './services.js';

const T = { timeout: 20_000 };
let redis: RedisServer;
// biome-ignore lint/suspicious/noExplicitAny: both servers are driven through socket.io's API
let galeIo: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
let sio: any;
let galeClient: ClientSocket;
let sioClient: ClientSocket;
const redisClients: Redis[] = [];
let closeAll: () => Promise<void>;

function client(port: number): Promise<ClientSocket> {
  const c = connect(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false });
  return new Promise((resolve, reject) => {
    c.once('connect', () => resolve(c));
    c.once('connect_error', reject);
  });
}

function once<T = unknown[]>(c: ClientSocket, ev: string, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ev}" within ${ms} ms`)), ms);
    c.once(ev, (...args: unknown[]) => {
      clearTimeout(timer);
      resolve(args as T);
    });
  });
}

before(async () => {
  redis = await startRedis();
  const pair = () => {
    const pub = new Redis(redis.url);
    const sub = pub.duplicate();
    redisClients.push(pub, sub);
    for (const c of [pub, sub]) c.on('error', () => {});
    return [pub, sub] as const;
  };
  const app = gale();
  const [gp, gs] = pair();
  galeIo = new GaleServer(app, { adapter: createRedisAdapter(gp, gs) });
  const { port: galePort } = await app.listen(0, '127.0.0.1');
  const server = http.createServer();
  const [sp, ss] = pair();
  sio = new SioServer(server, { adapter: createAdapter(sp, ss) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sioPort = (server.address() as AddressInfo).port;
  for (const io of [galeIo, sio]) {
    // biome-ignore lint/suspicious/noExplicitAny: socket.io's socket
    io.on('connection', (socket: any) => {
      socket.data.server = io === galeIo ? 'gale' : 'socket.io';
      socket.on('join', (room: string, ack: () => void) => {
        socket.join(room);
        ack();
      });
    });
  }
  galeClient = await client(galePort);
  sioClient = await client(sioPort);
  // Both servers subscribe their request channels: wait until each sees the other.
  await until(
    'both servers on the Redis channels',
    5000,
    async () => (await galeIo.of('/').adapter.serverCount()) === 2,
  );
  closeAll = async () => {
    galeClient.close();
    sioClient.close();
    await within(galeIo.close(), 3000);
    await within(new Promise((r) => sio.close(r)), 3000);
    for (const c of redisClients) c.disconnect();
  };
});

after(async () => {
  await closeAll?.();
  await redis?.stop();
});

test('room broadcasts cross both ways, binary included, except honoured', T, async () => {
  await galeClient.emitWithAck('join', 'room');
  await sioClient.emitWithAck('join', 'room');
  const atSio = once(sioClient, 'news');
  const atGale = once(galeClient, 'news');
  galeIo.to('room').emit('news', 'from gale', Buffer.from([1, 2, 3]));
  const [text, bytes] = (await atSio) as [string, Buffer];
  assert.equal(text, 'from gale');
  assert.deepEqual([...Buffer.from(bytes)], [1, 2, 3]);
  await atGale;

  const back = once(galeClient, 'reply');
  sio.to('room').emit('reply', { from: 'socket.io' });
  assert.deepEqual(await back, [{ from: 'socket.io' }]);

  // except: the socket.io client's own id is a room on the socket.io server; the gale server must honour it too.
  const seen: string[] = [];
  sioClient.on('limited', () => seen.push('sio'));
  const atGale2 = once(galeClient, 'limited');
  galeIo
    .to('room')
    .except(sioClient.id as string)
    .emit('limited');
  await atGale2;
  const marker = once(sioClient, 'marker');
  galeIo.to('room').emit('marker');
  await marker;
  assert.deepEqual(seen, [], 'the excluded socket on the other server got nothing');
});

test('fetchSockets sees the other server’s sockets; RemoteSocket.emit, socketsJoin and data cross', T, async () => {
  const fromGale = await galeIo.fetchSockets();
  const remote = fromGale.find((s: { id: string }) => s.id === sioClient.id);
  assert.ok(remote, 'gale sees the socket.io server’s socket');
  assert.equal(remote.data.server, 'socket.io');
  assert.ok(remote.rooms.has(sioClient.id));
  const got = once(sioClient, 'direct');
  remote.emit('direct', 42);
  assert.deepEqual(await got, [42]);

  const fromSio = await sio.fetchSockets();
  const galeSide = fromSio.find((s: { id: string }) => s.id === galeClient.id);
  assert.ok(galeSide, 'socket.io sees the gale server’s socket');
  assert.equal(galeSide.data.server, 'gale');
  assert.equal(typeof galeSide.handshake.time, 'string');

  galeIo.in(sioClient.id).socketsJoin('vip');
  await until('the socket.io socket in "vip"', 3000, () => sio.of('/').adapter.rooms.get('vip')?.has(sioClient.id));
  const vip = once(sioClient, 'vip-news');
  galeIo.to('vip').emit('vip-news');
  await vip;
  assert.ok(!galeIo.of('/').adapter.rooms.has('vip'), 'no gale socket was added');
});

test('serverSideEmit with acks, both ways', T, async () => {
  galeIo.on('ping', (n: number, cb: (v: unknown) => void) => cb({ by: 'gale', n: n + 1 }));
  sio.on('ping', (n: number, cb: (v: unknown) => void) => cb({ by: 'socket.io', n: n + 1 }));
  assert.deepEqual(await galeIo.serverSideEmitWithAck('ping', 1), [{ by: 'socket.io', n: 2 }]);
  assert.deepEqual(await sio.serverSideEmitWithAck('ping', 10), [{ by: 'gale', n: 11 }]);
  const heard = new Promise((r) => sio.on('hello', r));
  galeIo.serverSideEmit('hello', 'from gale');
  assert.equal(await heard, 'from gale');
});

test('an acknowledged broadcast collects the answers of both servers’ clients', T, async () => {
  galeClient.on('question', (cb: (v: string) => void) => cb('gale client'));
  sioClient.on('question', (cb: (v: string) => void) => cb('socket.io client'));
  const fromGale = await galeIo.timeout(3000).emitWithAck('question');
  assert.deepEqual([...fromGale].sort(), ['gale client', 'socket.io client']);
  const fromSio = await sio.timeout(3000).emitWithAck('question');
  assert.deepEqual([...fromSio].sort(), ['gale client', 'socket.io client']);
});

test('disconnectSockets reaches the other server', T, async () => {
  const extra = await client((sio.httpServer.address() as AddressInfo).port);
  await extra.emitWithAck('join', 'kick');
  const gone = once<[string]>(extra, 'disconnect');
  galeIo.in('kick').disconnectSockets();
  assert.equal((await gone)[0], 'io server disconnect');
});

test('node-redis clients work too (a third server on the same Redis)', T, async () => {
  const { createClient } = await import('redis');
  const pub = createClient({ url: redis.url });
  const sub = pub.duplicate();
  for (const c of [pub, sub]) c.on('error', () => {});
  await Promise.all([pub.connect(), sub.connect()]);
  const app = gale();
  const third = new GaleServer(app, { adapter: createRedisAdapter(pub, sub) });
  third.on('connection', (socket: { join(r: string): void }) => socket.join('room'));
  const { port } = await app.listen(0, '127.0.0.1');
  const c = await client(port);
  try {
    await until('three servers on the channels', 5000, async () => (await third.of('/').adapter.serverCount()) === 3);
    const atThird = once(c, 'hi');
    sio.to('room').emit('hi', 'from socket.io');
    assert.deepEqual(await atThird, ['from socket.io']);
    const atSio = once(sioClient, 'hey');
    third.to('room').emit('hey', 'from node-redis');
    assert.deepEqual(await atSio, ['from node-redis']);
  } finally {
    c.close();
    await within(third.close(), 3000);
    await Promise.allSettled([pub.quit(), sub.quit()]);
  }
});
