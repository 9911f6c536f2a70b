// Both transports on one server (the engine serves long-polling and WebSocket upgrades at one path): sockets that upgrade move their rooms into the engine's pub/sub, long-polling sockets keep
// getting broadcasts from JS, and a room with both kinds of members gets each broadcast once per socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Socket as ClientSocket } from 'socket.io-client';
import { sleep, T } from '../helpers.js';
import { type AnyServer, client, connected, next, startServer } from './helpers.js';

test('a room with upgraded, polling-only and WebSocket-only members: each gets a broadcast once', T, async (t) => {
  const s = await startServer(t, 'gale', {}, (io) => {
    io.on('connection', (socket: AnyServer) => {
      socket.join('R');
      socket.on('shout', (m: string) => socket.to('R').emit('m', m));
    });
  });
  const upgraded = await connected(t, s.url); // polling, then WebSocket
  const polling = await connected(t, s.url, { transports: ['polling'] });
  const ws = await connected(t, s.url, { transports: ['websocket'] });
  if (upgraded.io.engine.transport.name !== 'websocket') await next(upgraded.io.engine, 'upgrade');
  await sleep(50);
  const app = s.io._app;
  const topic = `${s.io.of('/')._topic}\x1fR`;
  assert.equal(app.subscribers(topic), 2, 'the upgraded socket and the WebSocket one are engine subscribers');
  const all = [upgraded, polling, ws];
  const heard = (c: ClientSocket) => {
    const got: string[] = [];
    c.on('m', (m: string) => got.push(m));
    return got;
  };
  const logs = all.map(heard);
  s.io.to('R').emit('m', 'everyone');
  polling.emit('shout', 'from polling');
  ws.emit('shout', 'from ws');
  upgraded.emit('shout', 'from upgraded');
  s.io
    .to('R')
    .except(polling.id as string)
    .emit('m', 'not polling');
  await sleep(300);
  assert.deepEqual(logs[0]?.sort(), ['everyone', 'from polling', 'from ws', 'not polling']);
  assert.deepEqual(logs[1]?.sort(), ['everyone', 'from upgraded', 'from ws']);
  assert.deepEqual(logs[2]?.sort(), ['everyone', 'from polling', 'from upgraded', 'not polling']);
  // binary across the upgrade
  const bin = next<[Buffer]>(upgraded, 'bin');
  s.io.to('R').emit('bin', Buffer.from([7, 7]));
  assert.deepEqual([...Buffer.from((await bin)[0])], [7, 7]);
});

test('packets emitted during the upgrade arrive once and in order', T, async (t) => {
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  t.after(() => clearInterval(timer));
  // Emitting starts with the connection, on the server: the upgrade runs alongside the CONNECT (the client may
  // finish it before 'connect' reaches this test), so packets go out before, during and after the switch.
  const s = await startServer(t, 'gale', {}, (io) => {
    io.once('connection', (socket: AnyServer) => {
      socket.emit('n', i++);
      timer = setInterval(() => socket.emit('n', i++), 2);
    });
  });
  const serverSide = new Promise<AnyServer>((resolve) => s.io.once('connection', resolve));
  const c = client(t, s.url);
  const got: number[] = [];
  c.on('n', (n: number) => got.push(n));
  const upgraded = next(c.io.engine, 'upgrade');
  const socket = await serverSide;
  await upgraded;
  await sleep(50);
  clearInterval(timer);
  await sleep(100);
  assert.equal(socket.conn.transport.name, 'websocket');
  assert.ok(got.length > 5, `got ${got.length}`);
  assert.deepEqual(
    got,
    got.map((_, k) => k),
    'no packet lost, duplicated or reordered across the switch',
  );
});
