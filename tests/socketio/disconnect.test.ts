// Disconnect reasons, provoked the same way against @gale-http/socket.io and the reference socket.io 4 (on node:http):
// each scenario must give the reason socket.io names on both sides, on both servers. Then reconnection after a
// server-side disconnect and after a network cut (the client's TCP socket destroyed).
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { Socket as ClientSocket } from 'socket.io-client';
import { sleep, T, withTimeout } from '../helpers.js';
import { type AnyServer, client, connected, type Kind, next, nextServerSocket, startServer } from './helpers.js';

interface Scenario {
  name: string;
  /** Server options (both servers). */
  opts?: Record<string, unknown>;
  transport?: 'websocket' | 'polling';
  provoke(c: ClientSocket, socket: AnyServer, io: AnyServer): void | Promise<void>;
  server: string;
  client: string;
}

/** The Node `ws` client socket under a socket.io-client connected over WebSocket. */
function tcpOf(c: ClientSocket): net.Socket {
  return (c.io.engine.transport as unknown as { ws: { _socket: net.Socket } }).ws._socket;
}

const scenarios: Scenario[] = [
  {
    name: 'the client disconnects',
    provoke: (c) => {
      c.disconnect();
    },
    server: 'client namespace disconnect',
    client: 'io client disconnect',
  },
  {
    name: 'the server disconnects the socket',
    provoke: (_c, socket) => socket.disconnect(),
    server: 'server namespace disconnect',
    client: 'io server disconnect',
  },
  {
    name: 'the server disconnects the socket and closes the connection',
    provoke: (_c, socket) => socket.disconnect(true),
    server: 'server namespace disconnect',
    client: 'io server disconnect',
  },
  {
    name: 'the network is cut (TCP socket destroyed)',
    provoke: (c) => {
      tcpOf(c).destroy();
    },
    server: 'transport close',
    client: 'transport close',
  },
  {
    name: 'the client stops answering pings',
    // The client's own deadline is pingInterval + pingTimeout after the last ping it got, the server's pingTimeout
    // after the ping it sent: pingInterval is the margin by which the server's close must arrive first (50 ms lost
    // that race once on a loaded CI machine, the client reporting its own 'ping timeout').
    opts: { pingInterval: 300, pingTimeout: 100 },
    provoke: (c) => {
      const engine = c.io.engine as unknown as { _sendPacket: (type: string, ...rest: unknown[]) => void };
      const send = engine._sendPacket.bind(engine);
      engine._sendPacket = (type, ...rest) => {
        if (type !== 'pong') send(type, ...rest);
      };
    },
    server: 'ping timeout',
    client: 'transport close',
  },
  {
    name: 'the server shuts down',
    provoke: (_c, _socket, io) => {
      io.close();
    },
    server: 'server shutting down',
    client: 'transport close',
  },
  {
    name: 'an Engine.IO packet that does not parse',
    provoke: (c) => {
      (c.io.engine.transport as unknown as { ws: { send(d: string): void } }).ws.send('x');
    },
    server: 'parse error',
    client: 'transport close',
  },
  {
    name: 'a Socket.IO packet that does not parse',
    provoke: (c) => {
      c.io.engine.write('9garbage');
    },
    server: 'forced close',
    client: 'transport close',
  },
  {
    name: 'a WebSocket message over maxHttpBufferSize',
    opts: { maxHttpBufferSize: 1000 },
    provoke: (c) => {
      c.emit('big', 'x'.repeat(2000));
    },
    server: 'transport error',
    client: 'transport close',
  },
];

for (const sc of scenarios) {
  test(`disconnect reason when ${sc.name}: '${sc.server}' on the server, like socket.io`, T, async (t) => {
    const reasons: Record<Kind, [string, string]> = { gale: ['', ''], 'gale-node': ['', ''], 'socket.io': ['', ''] };
    for (const kind of ['socket.io', 'gale', 'gale-node'] as Kind[]) {
      const transport = sc.transport ?? 'websocket';
      const s = await startServer(t, kind, { transports: [transport], ...sc.opts });
      const serverSide = nextServerSocket(s.io);
      const c = await connected(t, s.url, { transports: [transport] });
      const socket = await serverSide;
      const serverReason = next<[string]>(socket, 'disconnect', 4000);
      const clientReason = sc.client === '' ? Promise.resolve(['']) : next<[string]>(c, 'disconnect', 4000);
      await sleep(20);
      await sc.provoke(c, socket, s.io);
      reasons[kind] = [(await serverReason)[0], (await clientReason)[0] as string];
      c.disconnect();
      await s.close();
    }
    assert.deepEqual(reasons['socket.io'], [sc.server, sc.client], 'the reference gives the expected reasons');
    assert.deepEqual(reasons.gale, reasons['socket.io']);
    assert.deepEqual(reasons['gale-node'], reasons['socket.io'], 'on a node:http server too');
  });
}

/** A raw long-polling session: handshake, join '/', then a poll left pending on its own TCP connection. */
async function rawPollingSession(port: number): Promise<{ sid: string; poll: net.Socket }> {
  const base = `http://127.0.0.1:${port}/socket.io/?EIO=4&transport=polling`;
  const open = await (await fetch(base)).text();
  const sid = JSON.parse(open.slice(1)).sid as string;
  const joined = await fetch(`${base}&sid=${sid}`, { method: 'POST', body: '40' });
  assert.equal(await joined.text(), 'ok');
  assert.match(await (await fetch(`${base}&sid=${sid}`)).text(), /^40\{"sid":/);
  const poll = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => poll.once('connect', resolve));
  poll.write(`GET /socket.io/?EIO=4&transport=polling&sid=${sid} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return { sid, poll };
}

test("a long-polling client cut mid-poll: 'transport error' on the server, like socket.io", T, async (t) => {
  const reasons: Record<string, string> = {};
  for (const kind of ['socket.io', 'gale', 'gale-node'] as Kind[]) {
    const s = await startServer(t, kind, { transports: ['polling'] });
    const serverSide = nextServerSocket(s.io);
    const { poll } = await rawPollingSession(s.port);
    const socket = await serverSide;
    const reason = next<[string]>(socket, 'disconnect', 4000);
    await sleep(50); // the poll is pending on the server
    poll.destroy();
    reasons[kind] = (await reason)[0];
    await s.close();
  }
  assert.equal(reasons['socket.io'], 'transport error');
  assert.equal(reasons.gale, reasons['socket.io']);
  assert.equal(reasons['gale-node'], reasons['socket.io']);
});

test('a polling POST over maxHttpBufferSize gets 413, and the connection ends as with socket.io', T, async (t) => {
  const seen: Record<string, unknown[]> = {};
  for (const kind of ['socket.io', 'gale', 'gale-node'] as Kind[]) {
    const s = await startServer(t, kind, { transports: ['polling'], maxHttpBufferSize: 1000 });
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, { transports: ['polling'] });
    const socket = await serverSide;
    const big: unknown[] = [];
    socket.on('big', () => big.push('delivered'));
    const serverReason = next<[string]>(socket, 'disconnect', 4000);
    const clientReason = next<[string]>(c, 'disconnect', 4000);
    c.emit('big', 'x'.repeat(2000));
    seen[kind] = [(await clientReason)[0], (await serverReason)[0], big];
    await s.close();
  }
  assert.deepEqual(seen['socket.io']?.[2], [], 'the oversized packet is never delivered');
  assert.deepEqual(seen.gale, seen['socket.io']);
  assert.deepEqual(seen['gale-node'], seen['socket.io']);
});

test('reconnection after a server-side disconnect: no automatic retry, socket.connect() works', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] });
  const serverSide = nextServerSocket(s.io);
  const c = await connected(t, s.url, { transports: ['websocket'], reconnection: true, reconnectionDelay: 20 });
  const first = c.id;
  const socket = await serverSide;
  const gone = next<[string]>(c, 'disconnect');
  socket.disconnect();
  assert.equal((await gone)[0], 'io server disconnect');
  await sleep(150);
  assert.equal(c.connected, false, 'socket.io clients do not reconnect after the server disconnected them');
  c.connect();
  await next(c, 'connect');
  assert.notEqual(c.id, first);
  assert.equal((await s.io.fetchSockets()).length, 1);
});

for (const transport of ['websocket', 'polling'] as const) {
  test(`reconnection after the connection is cut (${transport}): automatic, with a new socket`, T, async (t) => {
    const s = await startServer(t, 'gale', { transports: [transport] });
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, {
      transports: [transport],
      reconnection: true,
      reconnectionDelay: 20,
      reconnectionDelayMax: 50,
    });
    const socket = await serverSide;
    const first = c.id;
    const gone = next<[string]>(c, 'disconnect');
    const serverGone = next<[string]>(socket, 'disconnect');
    if (transport === 'websocket') tcpOf(c).destroy();
    else socket.conn.close(); // the server drops the session; the client's next poll finds it gone
    const reason = (await gone)[0];
    assert.ok(['transport close', 'transport error'].includes(reason), reason);
    assert.ok(['transport close', 'forced close'].includes((await serverGone)[0]));
    await withTimeout(next(c, 'connect', 4000), 4000, 'automatic reconnection');
    assert.notEqual(c.id, first);
    assert.equal(c.connected, true);
    c.on('echo', (m: unknown, ack: (m: unknown) => void) => ack(m));
    const [again] = (await s.io.fetchSockets()) as AnyServer[];
    assert.equal(await again.timeout(1000).emitWithAck('echo', 'back'), 'back');
  });
}

test('a client that connects but never joins a namespace is closed after connectTimeout', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'], connectTimeout: 100 });
  const c = client(t, s.url, { transports: ['websocket'], autoConnect: false });
  c.io.open();
  await next(c.io, 'open');
  assert.equal(s.io.engine.clientsCount, 1);
  await next(c.io, 'close', 2000);
  assert.equal(s.io.engine.clientsCount, 0);
});
