// Who a publish reaches, decided in the engine: several topics reach each subscriber once, `except` leaves out
// subscribers of other topics, ws.publish leaves out the sender, and `volatile` skips sockets that are not writable
// now (a full send buffer, or output of this loop turn not gone yet) while the others get the message.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { sleep, T, withApp } from '../helpers.js';
import { connect, nextMessage } from './clients.js';

test('publish to several topics, with except and the sender excluded: each socket at most once', T, async (t) => {
  let app!: Parameters<Parameters<typeof withApp>[1]>[0];
  const { port } = await withApp(t, (a) => {
    app = a;
    a.ws('/r', {
      message: (ws, data) => {
        const [op, ...args] = data.toString().split(' ');
        if (op === 'join') for (const topic of args) ws.subscribe(topic);
        if (op === 'say') ws.publish(['a', 'b'], `from ${args[0]}`, { except: ['muted'] });
        ws.send('ok');
      },
    });
  });
  const clients = await Promise.all([1, 2, 3, 4, 5].map(() => connect(`ws://127.0.0.1:${port}/r`)));
  const [c1, c2, c3, c4, c5] = clients as [
    (typeof clients)[0],
    (typeof clients)[0],
    (typeof clients)[0],
    (typeof clients)[0],
    (typeof clients)[0],
  ];
  const cmd = async (c: typeof c1, m: string) => {
    c.send(m);
    assert.equal((await nextMessage(c)).data.toString(), 'ok');
  };
  await cmd(c1, 'join a b'); // in both rooms: gets it once
  await cmd(c2, 'join a');
  await cmd(c3, 'join b muted'); // muted: left out
  await cmd(c4, 'join c'); // in neither
  await cmd(c5, 'join a b'); // the sender
  // app.publish to both rooms except muted.
  assert.equal(app.publish(['a', 'b', 'a'], 'all', { except: ['muted'] }), 3);
  for (const c of [c1, c2, c5]) assert.equal((await nextMessage(c)).data.toString(), 'all');
  // ws.publish from c5 to a and b except muted: c1 and c2 only.
  c5.send('say c5');
  assert.equal((await nextMessage(c5)).data.toString(), 'ok');
  for (const c of [c1, c2]) assert.equal((await nextMessage(c)).data.toString(), 'from c5');
  // Nothing else arrived anywhere: a marker sent to everyone comes next.
  for (const c of clients) c.send('join marker');
  for (const c of clients) assert.equal((await nextMessage(c)).data.toString(), 'ok');
  assert.equal(app.publish('marker', 'end'), 5);
  for (const c of clients) assert.equal((await nextMessage(c)).data.toString(), 'end');
  // An except topic nobody has excludes nobody; an unknown topic reaches nobody.
  assert.equal(app.publish('a', 'x', { except: ['nobody'] }), 3);
  assert.equal(app.publish(['nope', 'nada'], 'x'), 0);
  for (const c of clients) c.close();
});

test('volatile publish skips a socket whose send buffer is full; the others get it', { timeout: 15_000 }, async (t) => {
  let app!: Parameters<Parameters<typeof withApp>[1]>[0];
  const { port } = await withApp(t, (a) => {
    app = a;
    a.ws('/v', { maxBackpressure: 64 * 1024 * 1024, open: (ws) => ws.subscribe('news') });
  });
  // A raw client that upgrades and then never reads.
  const stuck = net.connect(port, '127.0.0.1');
  t.after(() => stuck.destroy());
  stuck.on('error', () => {});
  stuck.write(
    'GET /v HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  await new Promise((r) => stuck.once('data', r));
  stuck.pause();
  const live = await connect(`ws://127.0.0.1:${port}/v`);
  await sleep(50);
  // Fill the stuck socket's kernel buffers (the live client keeps reading).
  const big = Buffer.alloc(256 * 1024, 120);
  let liveGot = 0;
  live.on('message', () => liveGot++);
  // Until the stuck socket's backlog shows in the engine (its kernel buffers are full by then).
  for (let i = 0; i < 200 && app.stats().pendingOutput < 4 * 1024 * 1024; i++) {
    app.publish('news', big);
    await sleep(10);
  }
  assert.ok(app.stats().pendingOutput >= 4 * 1024 * 1024, 'the stuck socket has a backlog');
  const reached = app.publish('news', 'volatile', { volatile: true });
  assert.equal(reached, 1, 'only the reading client is reached');
  assert.equal(app.publish('news', 'normal'), 2, 'a normal publish still queues for both');
  live.close();
  assert.ok(liveGot > 0);
});

test(
  'volatile publish skips a socket that got something earlier in the same loop turn, as socket.io does',
  T,
  async (t) => {
    let app!: Parameters<Parameters<typeof withApp>[1]>[0];
    const { port } = await withApp(t, (a) => {
      app = a;
      a.ws('/v', { open: (ws) => ws.subscribe('room'), message: (ws) => ws.send('ready') });
    });
    const c = await connect(`ws://127.0.0.1:${port}/v`);
    t.after(() => c.close());
    c.send('hi');
    assert.equal((await nextMessage(c)).data.toString(), 'ready');
    // Two volatile publishes in one turn: the first is still waiting to go out when the second is decided.
    assert.equal(app.publish('room', 'v1', { volatile: true }), 1);
    assert.equal(app.publish('room', 'v2', { volatile: true }), 0);
    // A regular publish, then a volatile one: the volatile one is dropped.
    await sleep(20);
    assert.equal(app.publish('room', 'r1'), 1);
    assert.equal(app.publish('room', 'v3', { volatile: true }), 0);
    // In a later turn, once that went out, a volatile publish reaches the socket again.
    await sleep(20);
    assert.equal(app.publish('room', 'v4', { volatile: true }), 1);
    for (const want of ['v1', 'r1', 'v4']) assert.equal((await nextMessage(c)).data.toString(), want);
  },
);
