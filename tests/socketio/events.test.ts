// @gale-http/socket.io events with the real socket.io-client over each transport: acknowledgements both ways (with
// timeout() and emitWithAck, and the timeout errors), binary data both ways (Buffer, ArrayBuffer, typed arrays,
// nested in objects and arrays), once/off/onAny/offAny/onAnyOutgoing, socket middlewares, and the server-wide
// operations (fetchSockets, socketsJoin/Leave, disconnectSockets, serverSideEmit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep, T } from '../helpers.js';
import { type AnyServer, collect, connected, next, nextServerSocket, startServer } from './helpers.js';

for (const transport of ['websocket', 'polling'] as const) {
  const opts = { transports: [transport] };

  test(`acks both ways, with timeouts and emitWithAck (${transport})`, T, async (t) => {
    const s = await startServer(t, 'gale', opts);
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, opts);
    const socket = await serverSide;
    // client → server, answered
    socket.on('add', (a: number, b: number, ack: (sum: number) => void) => ack(a + b));
    assert.equal(await c.emitWithAck('add', 2, 3), 5);
    assert.equal(await c.timeout(1000).emitWithAck('add', 20, 22), 42);
    // client → server, never answered: the client's timeout fires
    socket.on('silent', () => {});
    await assert.rejects(c.timeout(100).emitWithAck('silent'), /operation has timed out/);
    // server → client, answered (callback and promise forms)
    c.on('mul', (a: number, b: number, ack: (p: number) => void) => ack(a * b));
    const viaCallback = await new Promise((resolve) => socket.emit('mul', 6, 7, resolve));
    assert.equal(viaCallback, 42);
    assert.equal(await socket.emitWithAck('mul', 3, 3), 9);
    const [err, answer] = await new Promise<unknown[]>((resolve) =>
      socket.timeout(1000).emit('mul', 2, 2, (...a: unknown[]) => resolve(a)),
    );
    assert.equal(err, null);
    assert.equal(answer, 4);
    // server → client, never answered
    c.on('ignore', () => {});
    await assert.rejects(socket.timeout(100).emitWithAck('ignore'), /operation has timed out/);
    const [timeoutErr] = await new Promise<unknown[]>((resolve) =>
      socket.timeout(50).emit('ignore', (...a: unknown[]) => resolve(a)),
    );
    assert.match(String(timeoutErr), /operation has timed out/);
    // an ack is sent once, however often it is called
    socket.on('twice', (ack: (n: number) => void) => {
      ack(1);
      ack(2);
    });
    assert.equal(await c.emitWithAck('twice'), 1);
    // broadcast acks: one answer per socket, and the timeout error with the answers that came
    const c2 = await connected(t, s.url, opts);
    c2.on('mul', (a: number, b: number, ack: (p: number) => void) => ack(a * b + 1));
    const answers = (await s.io.timeout(1000).emitWithAck('mul', 2, 5)) as number[];
    assert.deepEqual(
      answers.sort((x, y) => x - y),
      [10, 11],
    );
    c2.on('ignore', () => {});
    await assert.rejects(s.io.timeout(100).emitWithAck('ignore'), (e: Error & { responses?: unknown[] }) => {
      assert.match(e.message, /operation has timed out/);
      assert.deepEqual(e.responses, []);
      return true;
    });
  });

  test(
    `binary both ways: Buffer, ArrayBuffer, typed arrays, nested in objects and arrays (${transport})`,
    T,
    async (t) => {
      const s = await startServer(t, 'gale', opts);
      const serverSide = nextServerSocket(s.io);
      const c = await connected(t, s.url, opts);
      const socket = await serverSide;
      const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
      // client → server: Buffers arrive as Buffers wherever they were nested
      const got = next<unknown[]>(socket, 'bin');
      const ab = new Uint8Array([9, 8, 7]).buffer;
      c.emit('bin', bytes, ab, { deep: { list: [1, new Uint8Array([5, 6]), 'x'] } }, [bytes, { b: bytes }]);
      const [b1, b2, nested, arr] = (await got) as [Buffer, Buffer, { deep: { list: unknown[] } }, unknown[]];
      assert.ok(Buffer.isBuffer(b1) && b1.equals(bytes));
      assert.ok(Buffer.isBuffer(b2) && b2.equals(Buffer.from([9, 8, 7])));
      assert.equal(nested.deep.list[0], 1);
      assert.ok((nested.deep.list[1] as Buffer).equals(Buffer.from([5, 6])));
      assert.equal(nested.deep.list[2], 'x');
      assert.ok((arr[0] as Buffer).equals(bytes));
      assert.ok(((arr[1] as { b: Buffer }).b as Buffer).equals(bytes));
      // server → client
      const back = next<unknown[]>(c, 'bin');
      socket.emit('bin', bytes, new Uint8Array([4, 4]).buffer, { nested: [Buffer.from('hé')] });
      const [r1, r2, r3] = (await back) as [Buffer, Buffer, { nested: Buffer[] }];
      assert.ok(Buffer.from(r1).equals(bytes));
      assert.ok(Buffer.from(r2).equals(Buffer.from([4, 4])));
      assert.equal(Buffer.from(r3.nested[0] as Buffer).toString(), 'hé');
      // binary in acks, both ways
      socket.on('echo', (data: unknown, ack: (d: unknown) => void) => ack(data));
      const echoed = (await c.emitWithAck('echo', { blob: bytes })) as { blob: Buffer };
      assert.ok(Buffer.from(echoed.blob).equals(bytes));
      c.on('reverse', (b: Buffer, ack: (d: Buffer) => void) => ack(Buffer.from(b).reverse()));
      const rev = (await socket.emitWithAck('reverse', Buffer.from([1, 2, 3]))) as Buffer;
      assert.deepEqual([...rev], [3, 2, 1]);
      // a large binary message (100 KiB) in one piece
      const big = Buffer.alloc(100 * 1024, 7);
      const bigGot = next<[Buffer]>(socket, 'big', 5000);
      c.emit('big', big);
      assert.ok((await bigGot)[0].equals(big));
    },
  );

  test(`once, off, onAny, offAny, onAnyOutgoing and socket middlewares (${transport})`, T, async (t) => {
    const s = await startServer(t, 'gale', opts);
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, opts);
    const socket = await serverSide;
    const any: unknown[][] = [];
    const anyFn = (...a: unknown[]) => any.push(a);
    socket.onAny(anyFn);
    const onceCalls = collect(socket, 'once-only');
    socket.once('once-only', () => {});
    const offCalls: unknown[] = [];
    const offFn = (x: unknown) => offCalls.push(x);
    socket.on('off-me', offFn);
    const outgoing: unknown[][] = [];
    socket.onAnyOutgoing((...a: unknown[]) => outgoing.push(a));
    const blocked: unknown[] = [];
    socket.use(([event]: [string], nextFn: (e?: Error) => void) =>
      event === 'forbidden' ? nextFn(new Error('forbidden event')) : nextFn(),
    );
    socket.on('forbidden', () => blocked.push('ran'));
    const errored = next<[Error]>(socket, 'error');

    c.emit('once-only', 1);
    c.emit('once-only', 2);
    c.emit('off-me', 'a');
    await sleep(100);
    socket.off('off-me', offFn);
    c.emit('off-me', 'b');
    c.emit('forbidden');
    assert.equal((await errored)[0].message, 'forbidden event');
    await sleep(100);
    socket.offAny(anyFn);
    c.emit('after-offany');
    const pong = next<[string]>(c, 'pong');
    socket.emit('pong', 'p');
    await pong;
    await sleep(50);
    assert.equal(onceCalls.length, 2, 'collect() saw both, the once listener ran once');
    assert.deepEqual(offCalls, ['a']);
    assert.deepEqual(blocked, [], 'the middleware stopped the event');
    assert.deepEqual(
      any.map((a) => a[0]),
      ['once-only', 'once-only', 'off-me', 'off-me', 'forbidden'],
    );
    assert.deepEqual(outgoing, [['pong', 'p']]);
    assert.throws(() => socket.emit('disconnect'), /reserved event name/);
  });
}

test('fetchSockets, socketsJoin/socketsLeave, disconnectSockets, remote-like operations on rooms', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] }, (io) => {
    io.on('connection', (socket: AnyServer) => {
      socket.data.name = socket.handshake.auth.name;
      socket.join(socket.handshake.auth.team);
    });
  });
  const o = { transports: ['websocket'] };
  const a = await connected(t, s.url, { ...o, auth: { name: 'a', team: 'red' } });
  const b = await connected(t, s.url, { ...o, auth: { name: 'b', team: 'red' } });
  const c = await connected(t, s.url, { ...o, auth: { name: 'c', team: 'blue' } });
  const names = async (op: AnyServer) =>
    ((await op.fetchSockets()) as { data: { name: string } }[]).map((x) => x.data.name).sort();
  assert.deepEqual(await names(s.io), ['a', 'b', 'c']);
  assert.deepEqual(await names(s.io.in('red')), ['a', 'b']);
  assert.deepEqual(await names(s.io.in('red').except('blue')), ['a', 'b']);
  assert.deepEqual(await names(s.io.except('red')), ['c']);
  assert.deepEqual([...(await s.io.in('blue').allSockets())], [c.id]);

  s.io.in('red').socketsJoin('vip');
  assert.deepEqual(await names(s.io.in('vip')), ['a', 'b']);
  const got = next<[string]>(b, 'vip');
  s.io.to('vip').emit('vip', 'welcome');
  assert.deepEqual(await got, ['welcome']);
  s.io.in(a.id as string).socketsLeave('vip');
  assert.deepEqual(await names(s.io.in('vip')), ['b']);

  const [sockA] = (await s.io.in(a.id as string).fetchSockets()) as AnyServer[];
  assert.deepEqual([...sockA.rooms].sort(), [a.id, 'red'].sort());
  assert.deepEqual(sockA.handshake.auth, { name: 'a', team: 'red' });

  const gone = next<[string]>(c, 'disconnect');
  s.io.in('blue').disconnectSockets();
  assert.equal((await gone)[0], 'io server disconnect');
  assert.deepEqual(await names(s.io), ['a', 'b']);
  const bothGone = Promise.all([next(a, 'disconnect'), next(b, 'disconnect')]);
  s.io.disconnectSockets(true);
  await bothGone;
  // The close reaches the server a moment after the clients see it (bounded wait, for a loaded machine).
  for (let i = 0; i < 100 && s.io.engine.clientsCount > 0; i++) await sleep(20);
  assert.equal(s.io.engine.clientsCount, 0, 'disconnectSockets(true) closed the connections');
});

test('serverSideEmit: reserved names refused; with no other server, acks resolve with no answers', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] });
  assert.throws(() => s.io.serverSideEmit('connection'), /reserved event name/);
  assert.equal(s.io.serverSideEmit('hello', 1), true);
  assert.deepEqual(await s.io.serverSideEmitWithAck('count'), []);
  assert.equal(await s.io.of('/').adapter.serverCount(), 1);
});

test('volatile: dropped when the transport is busy, delivered when it is idle', T, async (t) => {
  for (const transport of ['polling', 'websocket'] as const) {
    const s = await startServer(t, 'gale', { transports: [transport] });
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, { transports: [transport] });
    const socket = await serverSide;
    const got = collect(c, 'v');
    await sleep(50);
    // Idle transport: a volatile emit goes out.
    socket.volatile.emit('v', 'idle');
    await sleep(100);
    assert.deepEqual(got, [['idle']], transport);
    got.length = 0;
    // A regular emit takes the pending poll / fills the socket's buffer in this tick; the volatile one right
    // after it is dropped (as socket.io drops it while the transport is not writable).
    socket.emit('v', 'regular');
    socket.volatile.emit('v', 'dropped');
    await sleep(150);
    assert.deepEqual(got, [['regular']], transport);
  }
});

test('application code that throws is logged; the server and the connection keep working', T, async (t) => {
  const logged: unknown[][] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => logged.push(a);
  t.after(() => {
    console.error = error;
  });
  const s = await startServer(t, 'gale', { transports: ['websocket'] }, (io) => {
    io.on('connection', (socket: AnyServer) => {
      socket.on('boom', () => {
        throw new Error('listener bug');
      });
      socket.on('echo', (m: unknown, ack: (m: unknown) => void) => ack(m));
      socket.use(([ev]: [string], next: () => void) => {
        if (ev === 'mw-boom') throw new Error('middleware bug');
        next();
      });
      socket.on('ask', () => {
        socket.emit('question', () => {
          throw new Error('ack callback bug');
        });
      });
      socket.on('disconnect', () => {
        throw new Error('disconnect listener bug');
      });
      throw new Error('connection listener bug');
    });
  });
  const c = await connected(t, s.url, { transports: ['websocket'] });
  c.on('question', (ack: () => void) => ack());
  const errored = next<[Error]>(s.io.of('/').sockets.get(c.id), 'error');
  c.emit('boom');
  c.emit('mw-boom');
  c.emit('ask');
  assert.equal((await errored)[0].message, 'middleware bug', "a throwing packet middleware is the socket's 'error'");
  assert.equal(await c.timeout(1000).emitWithAck('echo', 'still here'), 'still here');
  c.disconnect();
  await sleep(50);
  const messages = logged.map((a) => String((a[1] as Error | undefined)?.message));
  for (const m of ['connection listener bug', 'listener bug', 'ack callback bug', 'disconnect listener bug']) {
    assert.ok(messages.includes(m), `logged: ${m} (got ${messages.join(' | ')})`);
  }
  const again = await connected(t, s.url, { transports: ['websocket'] });
  assert.equal(await again.timeout(1000).emitWithAck('echo', 1), 1);
});

test(
  'broadcasts as socket.io: two volatile binary broadcasts in one turn deliver one; packetCreate tells of an engine broadcast with its frame',
  T,
  async (t) => {
    const seen: Record<string, unknown[]> = {};
    for (const kind of ['socket.io', 'gale', 'gale-node'] as const) {
      const s = await startServer(t, kind, { transports: ['websocket'] });
      const serverSide = nextServerSocket(s.io);
      const c = await connected(t, s.url, { transports: ['websocket'] });
      const socket = await serverSide;
      const evs: unknown[] = [];
      c.on('ev', (b: Buffer) => evs.push([...Buffer.from(b)]));
      const created = next<[{ options: { compress: boolean; wsPreEncodedFrame?: Buffer[] } }]>(
        socket.conn,
        'packetCreate',
      );
      s.io.compress(false).emit('woot', 'hi');
      const [packet] = await created;
      const frame = packet.options.wsPreEncodedFrame;
      await next(c, 'woot');
      await sleep(30);
      s.io.volatile.emit('ev', Buffer.from([1, 2, 3]));
      s.io.volatile.emit('ev', Buffer.from([4, 5, 6]));
      await sleep(150);
      seen[kind] = [
        packet.options.compress,
        Array.isArray(frame) ? Buffer.concat(frame).toString('latin1') : frame,
        evs,
      ];
      c.disconnect();
      await s.close();
    }
    assert.deepEqual(seen['socket.io'], [false, '\x81\x0f42["woot","hi"]', [[1, 2, 3]]], 'the reference');
    assert.deepEqual(seen.gale, seen['socket.io']);
    assert.deepEqual(seen['gale-node'], seen['socket.io']);
  },
);
