// fast-ws end to end: FastWsClient (with the `ws` package's WebSocket) against FastWsConnection mounted on a
// real `ws` WebSocketServer over node:http on 127.0.0.1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { FastWsClient, type FastWsClientOptions } from '../../packages/fast-ws/src/client.js';
import type { FastWsConnection, FastWsEvent } from '../../packages/fast-ws/src/server.js';
import { next, type Server, startRawServer, startServer, T, until } from './harness.js';

const PAYLOAD = '0'.repeat(1024);

async function withPair(
  setup: (c: FastWsConnection) => void,
  opts: FastWsClientOptions,
  body: (client: FastWsClient, server: Server) => Promise<void>,
): Promise<void> {
  const server = await startServer(setup);
  const client = new FastWsClient(server.url, { WebSocket, reconnect: false, ...opts });
  try {
    await client.connected;
    await body(client, server);
  } finally {
    client.close();
    await server.close();
  }
}

test('echo: emit(name, 1024 × "0", true) resolves with the reply, sequentially and concurrently', T, async () => {
  const replyIds: string[] = [];
  await withPair(
    (c) =>
      c.on('echo', (e) => {
        replyIds.push(e.replyId);
        e.reply(e.data);
      }),
    {},
    async (client, server) => {
      assert.deepEqual(server.protocols, ['fast-ws']);
      for (let i = 0; i < 20; i++) assert.equal(await client.emit('echo', PAYLOAD, true), PAYLOAD);
      const many = await Promise.all(Array.from({ length: 200 }, (_, i) => client.emit('echo', { i }, true)));
      assert.deepEqual(
        many,
        Array.from({ length: 200 }, (_, i) => ({ i })),
      );
      // Reply ids are a decimal counter from 0.
      assert.deepEqual(replyIds.slice(0, 3), ['0', '1', '2']);
      assert.equal(replyIds.at(-1), '219');
    },
  );
});

test('every special value crosses the wire both ways', T, async () => {
  const circ: Record<string, unknown> = { n: 1 };
  circ.me = circ;
  const value = {
    when: new Date(1_700_000_000_000),
    re: /x+/gi,
    map: new Map([['k', new Set([1, 2])]]),
    nan: Number.NaN,
    undef: undefined,
    bytes: new Uint8Array([1, 2, 3]),
    err: new RangeError('bad'),
    circ,
  };
  await withPair(
    (c) => c.on('echo', (e) => e.reply(e.data)),
    {},
    async (client) => {
      const back = (await client.emit('echo', value, true)) as typeof value;
      assert.deepEqual(back.when, value.when);
      assert.deepEqual(back.re, value.re);
      assert.deepEqual(back.map, value.map);
      assert.ok(Number.isNaN(back.nan));
      assert.ok('undef' in back && back.undef === undefined);
      assert.deepEqual(back.bytes, value.bytes);
      assert.ok(back.err instanceof RangeError && back.err.message === 'bad');
      assert.equal((back.circ as Record<string, unknown>).me, back.circ);
    },
  );
});

test('fire-and-forget reaches the server with an empty reply id and gets no reply', T, async () => {
  const seen: FastWsEvent[] = [];
  await withPair(
    (c) =>
      c.on('log', (e) => {
        seen.push(e);
        e.reply('must not arrive');
      }),
    {},
    async (client) => {
      assert.equal(await client.emit('log', 'hello'), undefined);
      await until(() => seen.length === 1);
      assert.equal(seen[0]!.replyId, '');
      assert.equal(seen[0]!.data, 'hello');
    },
  );
});

test('no reply within replyTimeout rejects with "Response timeout."', T, async () => {
  await withPair(
    (c) => c.on('silent', () => {}),
    { replyTimeout: 100 },
    async (client) => {
      const t0 = Date.now();
      await assert.rejects(client.emit('silent', 1, true), { message: 'Response timeout.' });
      assert.ok(Date.now() - t0 >= 90);
    },
  );
});

test('server emit and send reach the client listeners', T, async () => {
  let conn: FastWsConnection | undefined;
  await withPair(
    (c) => {
      conn = c;
    },
    {},
    async (client) => {
      const news = new Promise<unknown>((r) => client.on('news', r));
      conn!.emit('news', { headline: 'x' });
      assert.deepEqual(await news, { headline: 'x' });
      const msg = next(client, 'message');
      conn!.send([1, 2]);
      assert.deepEqual(await msg, [[1, 2]]);
    },
  );
});

test('client send reaches the server as message; binary frames bypass the protocol', T, async () => {
  const got: unknown[] = [];
  await withPair(
    (c) => {
      c.on('message', (d) => got.push(d));
      c.on('binary', (d) => got.push(Buffer.from(d).toString('hex')));
    },
    {},
    async (client, server) => {
      client.send({ hi: true });
      await until(() => got.length === 1);
      assert.deepEqual(got, [{ hi: true }]);
      const bin = next(client, 'binary');
      for (const ws of server.sockets) ws.send(Buffer.from([0xca, 0xfe]));
      const [buf] = await bin;
      assert.deepEqual([...new Uint8Array(buf)], [0xca, 0xfe]);
    },
  );
});

test('app-level ping/pong: latency both ways, pings answered', T, async () => {
  let conn: FastWsConnection | undefined;
  const serverPongs: number[] = [];
  const serverPings: number[] = [];
  await withPair(
    (c) => {
      conn = c;
      c.on('pong', (ms) => serverPongs.push(ms));
      c.on('ping', (ts) => serverPings.push(ts));
    },
    {},
    async (client) => {
      const latency = await client.ping();
      assert.ok(latency >= 0 && latency < 1000, String(latency));
      assert.equal(serverPings.length, 1);
      assert.ok(Math.abs(serverPings[0]! - Date.now()) < 5000);
      const clientPing = next(client, 'ping');
      conn!.ping();
      await clientPing;
      await until(() => serverPongs.length === 1);
      assert.ok(serverPongs[0]! >= 0 && serverPongs[0]! < 1000);
    },
  );
});

test('reconnects after the server drops the connection; pending replies reject', T, async () => {
  const server = await startServer((c) => {
    c.on('echo', (e) => e.reply(e.data));
    c.on('hang', () => {});
  });
  const client = new FastWsClient(server.url, { WebSocket, reconnect: { delay: 20, maxDelay: 100 } });
  try {
    await client.connected;
    const pending = client.emit('hang', 0, true);
    await until(() => server.sockets.size === 1);
    const disconnected = next(client, 'disconnect');
    const reconnecting = next(client, 'reconnecting');
    const reconnected = new Promise<void>((r) => disconnected.then(() => client.on('connect', r)));
    for (const ws of server.sockets) ws.terminate();
    await disconnected;
    await assert.rejects(pending, { message: 'Connection closed.' });
    const [attempt, delay] = await reconnecting;
    assert.equal(attempt, 1);
    assert.ok(delay >= 10 && delay <= 20);
    await reconnected;
    assert.equal(await client.emit('echo', 'again', true), 'again');
    // Frames emitted while away are queued and sent after the next greeting.
    for (const ws of server.sockets) ws.close(1001, 'restart');
    await next(client, 'disconnect');
    const queued = client.emit('echo', 'queued', true);
    assert.equal(await queued, 'queued');
  } finally {
    client.close();
    await server.close();
  }
});

test('reconnect gives up after `retries` attempts and closes for good', T, async () => {
  const server = await startServer(() => {});
  const client = new FastWsClient(server.url, { WebSocket, reconnect: { delay: 10, retries: 2 } });
  const attempts: number[] = [];
  client.on('reconnecting', (n) => attempts.push(n));
  await client.connected;
  await server.close();
  const [code] = await next(client, 'close');
  assert.equal(typeof code, 'number');
  assert.deepEqual(attempts, [1, 2]);
  assert.equal(client.isConnected, false);
  await assert.rejects(client.connected, /Client closed/);
  await assert.rejects(client.emit('x', 1), /Client closed/);
});

test('close() rejects what is pending and stops for good', T, async () => {
  const server = await startServer((c) => c.on('hang', () => {}));
  const client = new FastWsClient(server.url, { WebSocket });
  await client.connected;
  const pending = client.emit('hang', 0, true);
  const closed = next(client, 'close');
  client.close();
  await assert.rejects(pending, { message: 'Client closed.' });
  assert.equal((await closed)[0], 1000);
  await assert.rejects(client.emit('x', 1, true), { message: 'Client closed.' });
  await server.close();
});

test('a bad frame closes the socket with 1002, an undecodable value with 1007', T, async () => {
  const server = await startServer((c) => c.on('echo', (e) => e.reply(e.data)));
  try {
    for (const [frame, code, reason] of [
      ['garbage', 1002, /unknown frame type 0x67/],
      ['\x0541f\x161\x01["unterminated\x02', 1007, /undecodable value/],
      ['\x0541f\x161\x01["no end"]', 1002, /0x02/],
    ] as const) {
      const ws = new WebSocket(server.url, 'fast-ws');
      const greeting = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
      const closed = new Promise<[number, string]>((r) => ws.once('close', (c, why) => r([c, why.toString()])));
      assert.equal(await greeting, '\x00\x02');
      ws.send(frame);
      const [got, why] = await closed;
      assert.equal(got, code, frame);
      assert.match(why, reason);
    }
  } finally {
    await server.close();
  }
});

test('a server whose first frame is not the greeting: "Server version mismatch.", no reconnect', T, async () => {
  const server = await startRawServer((ws) => ws.send('hello'));
  const client = new FastWsClient(server.url, { WebSocket, reconnect: { delay: 10 } });
  const error = next(client, 'error');
  const closed = next(client, 'close');
  await assert.rejects(client.connected, { message: 'Server version mismatch.' });
  assert.equal((await error)[0].message, 'Server version mismatch.');
  assert.equal((await closed)[0], 4002);
  await server.close();
});

test('a garbage frame from the server: error, close 4002, then reconnect', T, async () => {
  let n = 0;
  const server = await startRawServer((ws) => {
    ws.send('\x00\x02');
    if (n++ === 0) ws.send('\x05nothex\x01[1]\x02');
  });
  const client = new FastWsClient(server.url, { WebSocket, reconnect: { delay: 10 } });
  try {
    const [err] = await next(client, 'error');
    assert.match(err.message, /event id/);
    const [code] = await next(client, 'disconnect');
    assert.equal(code, 4002);
    await next(client, 'connect');
  } finally {
    client.close();
    await server.close();
  }
});
