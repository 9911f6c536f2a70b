// Interop with fastWS's own peers, rebuilt from their wire rules because npm serves neither fast-ws-client nor
// fast-ws-server: values go through the unmodified `replicator` package, frames are built and split the way
// fastWS's client (packages/client/base.js) and server (ws-protocol/fast-ws.js) do, and every byte is checked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Replicator from 'replicator';
import { WebSocket } from 'ws';
import { FastWsClient } from '../../packages/fast-ws/src/client.js';
import type { FastWsConnection } from '../../packages/fast-ws/src/server.js';
import { next, startRawServer, startServer, T, until } from './harness.js';

const rep = new Replicator();
const hash = (name: string) => {
  let sum = 0;
  for (let i = 0; i < name.length; i++) sum += name.charCodeAt(i) * (i + 1);
  return sum.toString(16);
};
const ENC = (v: unknown) => `\x01${rep.encode(v)}\x02`;
// fastWS client: event = 0x05 + hash + 0x16 + replyId ('' when not waiting) + ENC(data).
const clientEvent = (name: string, data: unknown, replyId = '') => `\x05${hash(name)}\x16${replyId}${ENC(data)}`;
// fastWS client's reading of a reply: id = Number(text between 0x06 and the first 0x01).
const readReply = (f: string) => ({
  id: Number(f.slice(1, f.indexOf('\x01'))),
  data: rep.decode(f.slice(f.indexOf('\x01') + 1, -1)),
});

/** A raw `ws` socket speaking fast-ws by hand; `frames` collects what the server sent. */
async function rawPeer(url: string) {
  const ws = new WebSocket(url, 'fast-ws');
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(d.toString()));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  await until(() => frames.length >= 1);
  return { ws, frames };
}

test('fastWS client bytes against FastWsConnection: greeting, reply, fire-and-forget, pings, events', T, async () => {
  let conn: FastWsConnection | undefined;
  const got: unknown[] = [];
  const pongs: number[] = [];
  const server = await startServer((c) => {
    conn = c;
    c.on('echo', (e) => e.reply(e.data));
    c.on('note', (e) => {
      got.push(e.data);
      e.reply('ignored'); // empty reply id: nothing may be sent
    });
    c.on('message', (d) => got.push(d));
    c.on('pong', (ms) => pongs.push(ms));
  });
  const { ws, frames } = await rawPeer(server.url);
  try {
    assert.equal(ws.protocol, 'fast-ws');
    assert.deepEqual(frames, ['\x00\x02']);
    const payload = '0'.repeat(1024);
    ws.send(clientEvent('echo', payload, '0'));
    await until(() => frames.length === 2);
    assert.equal(frames[1], `\x060${ENC(payload)}`);
    assert.deepEqual(readReply(frames[1]!), { id: 0, data: payload });

    const special = { d: new Date(5), m: new Map([[1, new Set(['a'])]]), n: Number.NaN, u: undefined, r: /x/g };
    ws.send(clientEvent('echo', special, '65535'));
    await until(() => frames.length === 3);
    assert.equal(frames[2], `\x0665535${ENC(special)}`);

    ws.send(clientEvent('note', [1, 2]));
    ws.send(ENC({ plain: true }));
    ws.send('\x0f1700000000000');
    await until(() => frames.length === 4);
    assert.equal(frames[3], '\x0e1700000000000'); // the pong is the only answer: no reply to 'note'
    assert.deepEqual(got, [[1, 2], { plain: true }]);

    conn!.emit('news', { a: [1] });
    conn!.send('hello');
    await until(() => frames.length === 6);
    assert.equal(frames[4], `\x05${hash('news')}${ENC({ a: [1] })}`);
    assert.equal(frames[5], ENC('hello'));

    conn!.ping();
    await until(() => frames.length === 7);
    assert.ok(frames[6]!.startsWith('\x0f'));
    assert.match(frames[6]!.slice(1), /^\d+$/);
    ws.send(`\x0e${frames[6]!.slice(1)}`); // fastWS peers answer 0x0E + the same digits
    await until(() => pongs.length === 1);
    assert.ok(pongs[0]! >= 0 && pongs[0]! < 1000);
  } finally {
    ws.terminate();
    await server.close();
  }
});

// A stand-in for a fastWS 2.x server: greets, answers every event (an empty reply id included), pings back.
function fastWs2Server(ws: WebSocket, handlers: Record<string, (data: unknown) => unknown>): void {
  ws.send('\x00\x02');
  ws.on('message', (d) => {
    const text = d.toString();
    if (text[0] === '\x0f') return ws.send(`\x0e${text.slice(1)}`);
    if (text[0] !== '\x05') return;
    const idle = text.indexOf('\x16');
    const start = text.indexOf('\x01');
    const id = text.slice(1, idle);
    const replyId = text.slice(idle + 1, start);
    const data = rep.decode(text.slice(start + 1, -1));
    const name = Object.keys(handlers).find((n) => hash(n) === id);
    if (!name) return;
    Promise.resolve(handlers[name]!(data)).then((out) => ws.send(`\x06${replyId}${ENC(out)}`));
  });
}

test(
  'FastWsClient against a fastWS 2.x-style server: replies, an empty-id reply ignored, events, ping',
  T,
  async () => {
    const server = await startRawServer((ws) =>
      fastWs2Server(ws, {
        slow: async (d) => {
          await new Promise((r) => setTimeout(r, 100));
          return d;
        },
        ff: () => 'stray reply',
        hello: () => {
          ws.send(`\x05${hash('greet')}${ENC({ to: 'you', at: new Date(0) })}`);
          return null;
        },
      }),
    );
    const client = new FastWsClient(server.url, { WebSocket, reconnect: false });
    try {
      await client.connected;
      // Request id 0 is pending while the server sends `\x06\x01…` for the fire-and-forget event; fastWS's
      // own client would resolve request 0 with 'stray reply'.
      const slow = client.emit('slow', 'right', true);
      await client.emit('ff', 1);
      assert.equal(await slow, 'right');
      const greet = new Promise((r) => client.on('greet', r));
      await client.emit('hello', 0, true);
      assert.deepEqual(await greet, { to: 'you', at: new Date(0) });
      assert.ok((await client.ping()) >= 0);
      assert.equal(client.isConnected, true);
    } finally {
      const closed = next(client, 'close');
      client.close();
      await closed;
      await server.close();
    }
  },
);
