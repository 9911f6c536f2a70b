// Connection state recovery (socket.io ≥ 4.6's connectionStateRecovery) with the real client: after a network
// cut the client reconnects with its pid and last offset, and gets its id, rooms, data and every packet it
// missed (room broadcasts and direct emits, in order); sessions that were ended on purpose are not recovered.
import assert from 'node:assert/strict';
import type net from 'node:net';
import { test } from 'node:test';
import type { Socket as ClientSocket } from 'socket.io-client';
import { sleep, T } from '../helpers.js';
import { type AnyServer, collect, connected, next, nextServerSocket, startServer } from './helpers.js';

const recovery = { connectionStateRecovery: { maxDisconnectionDuration: 5000 } };
const reconnecting = { reconnection: true, reconnectionDelay: 300, reconnectionDelayMax: 300, randomizationFactor: 0 };

function cut(c: ClientSocket): void {
  const t = c.io.engine.transport as unknown as { ws?: { _socket: net.Socket } };
  if (t.ws) t.ws._socket.destroy();
  else throw new Error('cut() needs a WebSocket transport');
}

for (const transport of ['websocket', 'polling'] as const) {
  test(`missed packets, rooms, id and data are restored after a cut (${transport})`, T, async (t) => {
    const s = await startServer(t, 'gale', { transports: [transport], ...recovery }, (io) => {
      io.on('connection', (socket: AnyServer) => {
        if (!socket.recovered) {
          socket.join('R');
          socket.data.count = 1;
        } else socket.data.count++;
      });
    });
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, { transports: [transport], ...reconnecting });
    assert.equal(c.recovered, false);
    const socket = await serverSide;
    assert.equal(socket.recovered, false);
    const got = collect(c, 'ev');
    s.io.to('R').emit('ev', 'before');
    await next(c, 'ev');
    const id = c.id;

    const serverGone = next<[string]>(socket, 'disconnect');
    if (transport === 'websocket') cut(c);
    else socket.conn.close(); // for polling, the server drops the connection
    const [reason] = await serverGone;
    assert.ok(['transport close', 'forced close'].includes(reason), reason);
    // The client is away: these are missed and must be replayed.
    s.io.to('R').emit('ev', 'missed-1');
    s.io.emit('ev', 'missed-2');
    s.io.to('other-room').emit('ev', 'not-for-me');
    s.io.except('R').emit('ev', 'excluded');

    const back = nextServerSocket(s.io);
    await next(c, 'connect', 4000);
    const again = await back;
    assert.equal(c.recovered, true, 'the client says it recovered');
    assert.equal(again.recovered, true);
    assert.equal(c.id, id, 'same socket id');
    assert.equal(again.id, id);
    assert.ok(again.rooms.has('R'), 'rooms restored');
    assert.equal(again.data.count, 2, 'socket.data restored');
    await sleep(100);
    // Each stored event carries its offset as a last argument (as with socket.io).
    assert.deepEqual(
      got.map((a) => a[0]),
      ['before', 'missed-1', 'missed-2'],
    );
    for (const a of got) assert.equal(typeof a[1], 'string');
    // After recovery, broadcasts keep flowing.
    s.io.to('R').emit('ev', 'after');
    await next(c, 'ev');
  });
}

test('no recovery after the server disconnected the socket, nor after the client did', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'], ...recovery });
  const serverSide = nextServerSocket(s.io);
  const c = await connected(t, s.url, { transports: ['websocket'], ...reconnecting });
  const first = c.id;
  const socket = await serverSide;
  s.io.emit('ev', 'x'); // gives the client an offset
  await next(c, 'ev');
  socket.disconnect();
  await next(c, 'disconnect');
  c.connect();
  await next(c, 'connect');
  assert.equal(c.recovered, false);
  assert.notEqual(c.id, first);
  const second = c.id;
  s.io.emit('ev', 'y');
  await next(c, 'ev');
  c.disconnect();
  c.connect();
  await next(c, 'connect');
  assert.equal(c.recovered, false);
  assert.notEqual(c.id, second);
});

test('a session older than maxDisconnectionDuration is not recovered', T, async (t) => {
  const s = await startServer(t, 'gale', {
    transports: ['websocket'],
    connectionStateRecovery: { maxDisconnectionDuration: 100 },
  });
  const serverSide = nextServerSocket(s.io);
  const c = await connected(t, s.url, { transports: ['websocket'], ...reconnecting });
  const first = c.id;
  const socket = await serverSide;
  s.io.emit('ev', 'x');
  await next(c, 'ev');
  const gone = next(socket, 'disconnect');
  cut(c);
  await gone;
  await next(c, 'connect', 4000); // after 300 ms, more than 100
  assert.equal(c.recovered, false);
  assert.notEqual(c.id, first);
});
