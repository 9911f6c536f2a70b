// @gale-http/engine.io with the real engine.io-client, side by side with the real engine.io 6 on the same code: sessions
// over each transport (and the upgrade), text and binary both ways, the session registry, send callbacks, the
// 'data' event on its own, server and socket events, close reasons, and listen().
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { listen } from '@gale-http/engine.io';
import type { App } from 'gale';
import { T } from '../helpers.js';
import { type AnyEngine, client, type Kind, next, nextConnection, opened, startEngine } from './helpers.js';

const KINDS: Kind[] = ['gale', 'engine.io'];

for (const kind of KINDS) {
  for (const transports of [['polling', 'websocket'], ['websocket'], ['polling']] as const) {
    test(`${kind}: a session over ${transports.join(' then ')}, text and binary both ways`, T, async (t) => {
      const s = await startEngine(t, kind, {}, (engine) => {
        engine.on('connection', (socket: AnyEngine) => socket.on('message', (data: unknown) => socket.send(data)));
      });
      const serverSide = nextConnection(s.engine);
      const c = client(t, s.url, { transports: [...transports] });
      await opened(c);
      const socket = await serverSide;
      assert.equal(socket.id, c.id, 'the client learns the session id from the open packet');
      assert.match(socket.id, /^[\w-]{20}$/);
      assert.equal(s.engine.clientsCount, 1);
      assert.equal(s.engine.clients[socket.id], socket);
      assert.equal(socket.protocol, 4);
      assert.equal(socket.readyState, 'open');
      assert.equal(socket.transport.name, transports[0]);
      assert.equal(socket.request.headers.host, `127.0.0.1:${s.port}`);
      if (transports.length === 2 && c.transport.name !== 'websocket') await next(c, 'upgrade');
      c.send('hello');
      assert.deepEqual(await next(c, 'message'), ['hello']);
      c.send(Uint8Array.from([1, 2, 3]));
      const [bin] = await next<[Buffer]>(c, 'message');
      assert.deepEqual([...new Uint8Array(bin)], [1, 2, 3]);
      assert.equal(socket.transport.name, transports.length === 2 ? 'websocket' : transports[0]);
      const closed = next<[string]>(socket, 'close');
      c.close();
      assert.equal((await closed)[0], 'transport close');
      assert.equal(s.engine.clientsCount, 0);
      assert.equal(s.engine.clients[socket.id], undefined);
    });
  }

  test(`${kind}: 'data' fires without a 'message' listener`, T, async (t) => {
    const s = await startEngine(t, kind, {}, (engine) => {
      engine.on('connection', (socket: AnyEngine) => socket.on('data', (data: unknown) => socket.send(data)));
    });
    for (const transports of [['websocket'], ['polling']]) {
      const c = client(t, s.url, { transports });
      await opened(c);
      c.send('echo me');
      assert.deepEqual(await next(c, 'message'), ['echo me'], transports[0]);
    }
  });

  test(`${kind}: send(data, callback), send(data, options, callback), flush/drain/packet events`, T, async (t) => {
    const s = await startEngine(t, kind, { transports: ['websocket'] });
    const serverSide = nextConnection(s.engine);
    const c = client(t, s.url, { transports: ['websocket'] });
    await opened(c);
    const socket = await serverSide;
    const events: string[] = [];
    s.engine.on('flush', (sock: AnyEngine, buffer: unknown[]) => {
      assert.equal(sock, socket);
      events.push(`server flush ${buffer.length}`);
    });
    s.engine.on('drain', (sock: AnyEngine) => {
      assert.equal(sock, socket);
      events.push('server drain');
    });
    socket.on('packetCreate', (p: { type: string; data?: unknown }) => events.push(`packetCreate ${p.data}`));
    socket.on('flush', () => events.push('flush'));
    socket.on('drain', () => events.push('drain'));
    const sent = new Promise<unknown>((resolve) => socket.send('one', (transport: unknown) => resolve(transport)));
    const got = next(c, 'message');
    assert.equal(await sent, socket.transport, 'the callback gets the transport');
    assert.deepEqual(await got, ['one']);
    const sent2 = new Promise<void>((resolve) => socket.send('two', { compress: false }, () => resolve()));
    assert.deepEqual(await next(c, 'message'), ['two']);
    await sent2;
    assert.deepEqual(events, [
      'packetCreate one',
      'flush',
      'server flush 1',
      'drain',
      'server drain',
      'packetCreate two',
      'flush',
      'server flush 1',
      'drain',
      'server drain',
    ]);
    const packet = next<[{ type: string; data: string }]>(socket, 'packet');
    c.send('in');
    assert.deepEqual((await packet)[0], { type: 'message', data: 'in' });
  });

  test(
    `${kind}: socket.close() and server close(): 'forced close'; the client sees the transport close`,
    T,
    async (t) => {
      const s = await startEngine(t, kind);
      const sockets: AnyEngine[] = [];
      s.engine.on('connection', (socket: AnyEngine) => sockets.push(socket));
      const a = client(t, s.url, { transports: ['websocket'] });
      const b = client(t, s.url, { transports: ['polling'] });
      await Promise.all([opened(a), opened(b)]);
      assert.equal(s.engine.clientsCount, 2);
      const first = sockets.find((x) => x.id === a.id);
      const reason = next<[string]>(first, 'close');
      const clientClosed = next<[string]>(a, 'close');
      first.close();
      assert.equal((await reason)[0], 'forced close');
      assert.equal((await clientClosed)[0], 'transport close');
      const second = sockets.find((x) => x.id === b.id);
      const reason2 = next<[string]>(second, 'close');
      const clientClosed2 = next<[string]>(b, 'close');
      s.engine.close();
      assert.equal((await reason2)[0], 'forced close');
      assert.equal((await clientClosed2)[0], 'transport close');
      assert.equal(s.engine.clientsCount, 0);
    },
  );
}

test('listen(port, options, callback): a Gale app of its own, 501 elsewhere, engine.httpServer', T, async (t) => {
  let engine: ReturnType<typeof listen> | undefined;
  await new Promise<void>((resolve) => {
    engine = listen(0, { pingInterval: 5000 }, () => resolve());
    engine.on('connection', (socket: AnyEngine) => socket.send('hi'));
  });
  const e = engine as ReturnType<typeof listen>;
  t.after(async () => {
    e.close();
    await (e.httpServer as App).close({ timeout: 500 });
  });
  const port = (e.httpServer as App).address()?.port;
  assert.equal(typeof port, 'number');
  const other = await fetch(`http://127.0.0.1:${port}/elsewhere`);
  assert.deepEqual([other.status, await other.text()], [501, 'Not Implemented']);
  const c = client(t, `http://127.0.0.1:${port}`);
  assert.deepEqual(await next(c, 'message'), ['hi']);
  const r = await fetch(`http://127.0.0.1:${port}/engine.io/?EIO=4&transport=polling`);
  assert.equal(JSON.parse((await r.text()).slice(1)).pingInterval, 5000);
});

test('listen(port) on a port in use: the error is emitted as the server’s error', T, async (t) => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.after(() => busy.close());
  const { port } = busy.address() as net.AddressInfo;
  const engine = listen(port);
  t.after(() => (engine.httpServer as App).close({ timeout: 100 }));
  const [err] = await next<[Error]>(engine as AnyEngine, 'error');
  assert.match(err.message, new RegExp(`@gale-http/engine.io: cannot listen on port ${port}`));
});
