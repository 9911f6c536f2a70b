// Rooms and broadcasts with real socket.io-clients: io.to/in/except, socket.to/broadcast, unions of rooms
// without duplicates, exclusions of one, a few and most members (the three ways the adapter publishes), rooms
// of different namespaces and servers kept apart, each packet encoded once, and the engine's topic
// subscriptions following join/leave/disconnect. Run over WebSocket (engine pub/sub) and polling (from JS). And the
// adapter option in each of its forms (a class, a plain function, an arrow function).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Adapter, type AdapterNamespace, type Server } from '@gale-http/socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import { sleep, T } from '../helpers.js';
import { type AnyServer, connected, next, startServer } from './helpers.js';

/** Everything each client received up to a marker the server sends it directly afterwards (FIFO per socket). */
async function deliveries(io: AnyServer, clients: ClientSocket[], nsp = '/'): Promise<string[][]> {
  const out = clients.map(() => [] as string[]);
  const done = clients.map(
    (c, i) =>
      new Promise<void>((resolve) => {
        const onAny = (ev: string, ...args: unknown[]) => {
          if (ev === 'marker') {
            c.offAny(onAny);
            resolve();
          } else (out[i] as string[]).push(`${ev}:${args.join(',')}`);
        };
        c.onAny(onAny);
      }),
  );
  await sleep(30);
  for (const c of clients) io.of(nsp).sockets.get(c.id)?.emit('marker');
  await Promise.all(done);
  return out;
}

for (const transport of ['websocket', 'polling'] as const) {
  test(`rooms and exclusions: to, except, broadcast, unions without duplicates (${transport})`, T, async (t) => {
    const s = await startServer(t, 'gale', { transports: [transport] }, (io) => {
      io.on('connection', (socket: AnyServer) => {
        for (const r of socket.handshake.auth.rooms as string[]) socket.join(r);
        socket.on('to-room-except-me', (room: string) => socket.to(room).emit('m', 'from', socket.handshake.auth.n));
        socket.on('broadcast', () => socket.broadcast.emit('m', 'all-but', socket.handshake.auth.n));
      });
    });
    // 6 clients: all in R; 0-1 in X (2 of 6: few); 0-3 in Y (4 of 6: most); 4-5 and a 7th in S (overlap).
    const rooms = [['R', 'X', 'Y'], ['R', 'X', 'Y'], ['R', 'Y'], ['R', 'Y'], ['R', 'S'], ['R', 'S'], ['S']];
    const cs: ClientSocket[] = [];
    for (const [n, r] of rooms.entries()) {
      cs.push(await connected(t, s.url, { transports: [transport], auth: { n, rooms: r } }));
    }
    let encodes = 0;
    const encode = s.io.encoder.encode.bind(s.io.encoder);
    s.io.encoder.encode = (p: unknown) => {
      encodes++;
      return encode(p);
    };
    const check = async (label: string, act: () => void, expected: number[]) => {
      encodes = 0;
      act();
      const got = await deliveries(s.io, cs);
      const reached = got.flatMap((list, i) => list.map(() => i));
      assert.deepEqual(reached, expected, `${label}: which clients got it (once each)`);
      for (const list of got) for (const m of list) assert.equal(m, list[0], label);
      return got;
    };
    // (an object argument, so that the packet goes through socket.io-parser's encoder, counted here)
    await check('io.to(R)', () => s.io.to('R').emit('m', { n: 1 }), [0, 1, 2, 3, 4, 5]);
    assert.equal(encodes, 1, 'the broadcast was encoded once for the 6 sockets');
    await check('io.to(R).except(X): 2 of 6 excluded', () => s.io.to('R').except('X').emit('m', 2), [2, 3, 4, 5]);
    await check('io.to(R).except(Y): 4 of 6 excluded', () => s.io.to('R').except('Y').emit('m', 3), [4, 5]);
    await check('io.to(R).except([X, S])', () => s.io.to('R').except(['X', 'S']).emit('m', 4), [2, 3]);
    await check('io.to(R).to(S): union, each once', () => s.io.to('R').to('S').emit('m', 5), [0, 1, 2, 3, 4, 5, 6]);
    await check('io.to([S, X]).except(Y)', () => s.io.to(['S', 'X']).except('Y').emit('m', 6), [4, 5, 6]);
    await check('io.in(X).in(Y)', () => s.io.in('X').in('Y').emit('m', 7), [0, 1, 2, 3]);
    await check('io.except(S): the whole namespace minus S', () => s.io.except('S').emit('m', 8), [0, 1, 2, 3]);
    await check('io.emit', () => s.io.emit('m', 9), [0, 1, 2, 3, 4, 5, 6]);
    await check('io.to(nobody)', () => s.io.to('nobody').emit('m', 10), []);
    await check('io.to(a socket id)', () => s.io.to(cs[3]?.id).emit('m', 11), [3]);
    await check('socket.to(R) from client 4', () => cs[4]?.emit('to-room-except-me', 'R'), [0, 1, 2, 3, 5]);
    await check('socket.to(S) from client 6', () => cs[6]?.emit('to-room-except-me', 'S'), [4, 5]);
    await check('socket.broadcast from client 0', () => cs[0]?.emit('broadcast'), [1, 2, 3, 4, 5, 6]);
    const ns = s.io.of('/').sockets.get(cs[2]?.id);
    await check('socket.broadcast.to(R).except(X)', () => ns.broadcast.to('R').except('X').emit('m', 12), [3, 4, 5]);
    await check('socket.to(R).to(S)', () => ns.to('R').to('S').emit('m', 13), [0, 1, 3, 4, 5, 6]);
    await sleep(50); // polling clients have their next poll waiting again (a volatile packet needs one)
    await check('volatile to(R)', () => s.io.volatile.to('R').emit('m', 14), [0, 1, 2, 3, 4, 5]);
    // binary packets (a string and an attachment each) keep their frames together per socket
    encodes = 0;
    s.io.to('S').emit('bin', Buffer.from([1, 2, 3]));
    const bins = await Promise.all([4, 5, 6].map((i) => next<[Buffer]>(cs[i] as ClientSocket, 'bin')));
    for (const [b] of bins) assert.deepEqual([...Buffer.from(b)], [1, 2, 3]);
    assert.equal(encodes, 1);
  });
}

test('engine topics follow join, leave and disconnect; exclusions leave subscriptions as they were', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] });
  const app = s.io._app;
  const topic = (room?: string, nsp = '/') => {
    const base = s.io.of(nsp)._topic as string;
    return room === undefined ? base : `${base}\x1f${room}`;
  };
  const cs: ClientSocket[] = [];
  for (let i = 0; i < 4; i++) cs.push(await connected(t, s.url, { transports: ['websocket'] }));
  const server = (i: number) => s.io.of('/').sockets.get(cs[i]?.id);
  assert.equal(app.subscribers(topic()), 4, 'every WebSocket socket subscribes to its namespace topic');
  assert.equal(app.subscribers(topic(cs[0]?.id)), 1, 'and to its own room');
  for (let i = 0; i < 4; i++) server(i).join('R');
  server(0).join('X');
  server(1).join('X');
  assert.equal(app.subscribers(topic('R')), 4);
  s.io.to('R').except('X').emit('m');
  assert.equal(app.subscribers(topic('R')), 4, 'excluded members were subscribed again');
  server(2).leave('R');
  assert.equal(app.subscribers(topic('R')), 3);
  s.io.in('X').socketsLeave('R');
  assert.equal(app.subscribers(topic('R')), 1);
  const gone = next(cs[3] as ClientSocket, 'disconnect');
  server(3).disconnect();
  await gone;
  assert.equal(app.subscribers(topic('R')), 0);
  assert.equal(app.subscribers(topic()), 3);
  assert.equal(s.io.of('/').adapter.rooms.has('R'), false, 'the empty room is gone');
});

test('rooms of different namespaces and of two servers on one app are kept apart', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] }, (io) => {
    for (const nsp of ['/', '/other']) io.of(nsp).on('connection', (socket: AnyServer) => socket.join('R'));
  });
  const { Server } = await import('@gale-http/socket.io');
  const io2 = new Server(s.io._app, { path: '/second', transports: ['websocket'] });
  io2.on('connection', (socket) => socket.join('R'));
  t.after(() => io2.close());
  const o = { transports: ['websocket'] };
  const a = await connected(t, s.url, o);
  const b = await connected(t, `${s.url}/other`, o);
  const c = await connected(t, s.url, { ...o, path: '/second' });
  const got = Promise.all([deliveries(s.io, [a]), deliveries(s.io, [b], '/other'), deliveries(io2, [c])]);
  s.io.to('R').emit('m', 'main /');
  s.io.of('/other').to('R').emit('m', 'main /other');
  io2.to('R').emit('m', 'second /');
  assert.deepEqual(await got, [[['m:main /']], [['m:main /other']], [['m:second /']]]);
});

test('dynamic namespaces: the parent broadcasts to every child', T, async (t) => {
  let parent: AnyServer;
  const s = await startServer(t, 'gale', { transports: ['websocket'] }, (io) => {
    parent = io.of(/^\/game-\d+$/);
  });
  const a = await connected(t, `${s.url}/game-1`, { transports: ['websocket'] });
  const b = await connected(t, `${s.url}/game-2`, { transports: ['websocket'] });
  const got = Promise.all([next(a, 'tick'), next(b, 'tick')]);
  parent.emit('tick', 1);
  assert.deepEqual(await got, [[1], [1]]);
  assert.throws(() => parent.fetchSockets(), /not supported on parent namespaces/);
});

test('the adapter option: a class, a plain function or an arrow function that makes the adapter', T, async (t) => {
  class Tagged extends Adapter {
    constructor(
      nsp: AdapterNamespace,
      readonly tag: string,
    ) {
      super(nsp);
    }
  }
  class FromClass extends Tagged {
    constructor(nsp: AdapterNamespace) {
      super(nsp, 'class');
    }
  }
  const made: string[] = [];
  // An arrow function cannot be called with `new` (socket.io's `new adapter(nsp)` throws on one): it is called.
  const s = await startServer(t, 'gale', {
    transports: ['websocket'],
    adapter: (nsp) => {
      made.push(nsp.name);
      return new Tagged(nsp, 'arrow');
    },
  });
  const io: Server = s.io;
  io.on('connection', (socket) => socket.join('R'));
  const tag = (nsp: string) => (io.of(nsp).adapter as Tagged).tag;
  assert.equal(tag('/'), 'arrow');
  assert.deepEqual(made, ['/']);
  const c = await connected(t, s.url, { transports: ['websocket'] });
  const got = next(c, 'm');
  io.to('R').emit('m', 1);
  assert.deepEqual(await got, [1], 'a broadcast through the adapter the arrow function made');
  // A plain function is called with `new`, as socket.io does: the object it returns is the adapter.
  io.adapter(function (nsp) {
    return new Tagged(nsp, 'function');
  });
  assert.equal(tag('/'), 'function');
  assert.equal(tag('/other'), 'function');
  io.adapter(FromClass);
  assert.equal(tag('/'), 'class');
  assert.ok(io.of('/other').adapter instanceof FromClass);
});
