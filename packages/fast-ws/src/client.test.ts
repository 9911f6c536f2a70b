// FastWsClient against a scripted in-memory WebSocket: greeting gate, reply-id counter and wrap, queueing
// before connect, limits, heartbeat timeout, and choosing the WebSocket class.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FastWsClient, type WebSocketConstructor } from './client.js';
import { parseClientFrame } from './codec.js';

class FakeSocket {
  static all: FakeSocket[] = [];
  binaryType = 'blob';
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  sent: string[] = [];
  closedWith: [number | undefined, string | undefined] | null = null;
  constructor(
    readonly url: string,
    readonly protocols?: string | string[],
  ) {
    FakeSocket.all.push(this);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = [code, reason];
    queueMicrotask(() => this.onclose?.({ code: code ?? 1005, reason: reason ?? '' }));
  }
  /** Opens and greets. */
  accept(): this {
    this.onopen?.({});
    this.recv('\x00\x02');
    return this;
  }
  recv(data: unknown): void {
    this.onmessage?.({ data });
  }
}
const WebSocket = FakeSocket as unknown as WebSocketConstructor;

function replyIdOf(frame: string): string {
  const f = parseClientFrame(frame);
  assert.equal(f.kind, 'event');
  return (f as { replyId: string }).replyId;
}

test('opens with subprotocol fast-ws and resolves connected only after the greeting', async () => {
  const client = new FastWsClient('ws://x/fast', { WebSocket, reconnect: false });
  const sock = FakeSocket.all.at(-1)!;
  assert.equal(sock.protocols, 'fast-ws');
  assert.equal(sock.binaryType, 'arraybuffer');
  let connected = false;
  const p = client.connected.then(() => {
    connected = true;
  });
  sock.onopen?.({});
  await Promise.resolve();
  assert.equal(connected, false);
  sock.recv('\x00\x02');
  await p;
  assert.equal(client.isConnected, true);
  client.close();
});

test('a binary or wrong first frame is a version mismatch', async () => {
  for (const first of [new ArrayBuffer(2), '\x00\x01', '\x01[1]\x02']) {
    const client = new FastWsClient('ws://x', { WebSocket });
    const sock = FakeSocket.all.at(-1)!;
    const errors: string[] = [];
    client.on('error', (e) => errors.push(e.message));
    sock.onopen?.({});
    sock.recv(first);
    await assert.rejects(client.connected, { message: 'Server version mismatch.' });
    assert.deepEqual(errors, ['Server version mismatch.']);
    assert.deepEqual(sock.closedWith, [4002, 'server version mismatch']);
  }
});

test('reply ids count 0…65535 in decimal and wrap to 0', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false });
  const sock = FakeSocket.all.at(-1)!.accept();
  const ids: string[] = [];
  const all: Promise<unknown>[] = [];
  for (let i = 0; i < 65_538; i++) {
    all.push(client.emit('e', i, true));
    const id = replyIdOf(sock.sent.at(-1)!);
    ids.push(id);
    sock.recv(`\x06${id}\x01[${i}]\x02`);
  }
  const values = await Promise.all(all);
  assert.equal(values[65_537], 65_537);
  assert.deepEqual([ids[0], ids[1], ids[65_535], ids[65_536], ids[65_537]], ['0', '1', '65535', '0', '1']);
  client.close();
});

test('ids still waiting are skipped; all 65536 waiting rejects the next emit', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false, replyTimeout: 60_000 });
  const sock = FakeSocket.all.at(-1)!.accept();
  const waiting: Promise<unknown>[] = [];
  for (let i = 0; i < 65_536; i++) waiting.push(client.emit('e', 0, true).catch((e: Error) => e.message));
  await assert.rejects(client.emit('e', 0, true), { message: 'Too many replies pending.' });
  sock.recv('\x067\x01["seven"]\x02');
  assert.equal(await waiting[7], 'seven');
  const reused = client.emit('e', 0, true).catch((e: Error) => e.message);
  assert.equal(replyIdOf(sock.sent.at(-1)!), '7');
  client.close();
  assert.equal(await waiting[8], 'Client closed.');
  assert.equal(await reused, 'Client closed.');
});

test('frames emitted before the greeting are queued and sent after it, in order', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false, replyTimeout: 50, maxQueue: 3 });
  const sock = FakeSocket.all.at(-1)!;
  await client.emit('a', 1);
  const late = client.emit('b', 2, true); // times out while queued: never sent
  client.send('m');
  await assert.rejects(client.emit('c', 3), { message: 'Send queue is full.' });
  assert.throws(() => client.send('n'), { message: 'Send queue is full.' });
  await assert.rejects(late, { message: 'Response timeout.' });
  assert.deepEqual(sock.sent, []);
  sock.accept();
  assert.deepEqual(sock.sent, ['\x0561\x16\x01[1]\x02', '\x01["m"]\x02']);
  client.close();
});

test('a heartbeat ping without pong closes the socket with 4000; reconnect off → close', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false, pingInterval: 20, pingTimeout: 30 });
  const sock = FakeSocket.all.at(-1)!.accept();
  const keepAlive = setTimeout(() => {}, 5000); // the heartbeat timer is unref'd; a real socket keeps Node up
  const [code] = await new Promise<[number, string]>((r) => client.on('close', (...a) => r(a)));
  clearTimeout(keepAlive);
  assert.equal(code, 4000);
  assert.ok(sock.sent[0]!.startsWith('\x0f'));
  assert.match(sock.sent[0]!.slice(1), /^\d+$/);
  assert.deepEqual(sock.closedWith, [4000, 'ping timeout']);
});

test('ping() resolves on the matching pong; server pings are answered', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false });
  await assert.rejects(client.ping(), { message: 'Not connected.' });
  const sock = FakeSocket.all.at(-1)!.accept();
  const pinged: number[] = [];
  client.on('ping', (ts) => pinged.push(ts));
  const p = client.ping();
  sock.recv(`\x0e${sock.sent[0]!.slice(1)}`);
  assert.ok((await p) >= 0);
  sock.recv('\x0f42');
  assert.deepEqual(sock.sent.at(-1), '\x0e42');
  assert.deepEqual(pinged, [42]);
  client.close();
  await assert.rejects(client.ping(), { message: 'Client closed.' });
});

test('a throwing listener is reported and does not break the next frame', async () => {
  const client = new FastWsClient('ws://x', { WebSocket, reconnect: false });
  const sock = FakeSocket.all.at(-1)!.accept();
  const errors: unknown[] = [];
  const got: unknown[] = [];
  client.on('error', (e) => errors.push(e.message));
  client.on('boom', () => {
    throw new Error('listener');
  });
  client.on('message', (d) => got.push(d));
  sock.recv('\x05' + '1a0' + '\x01[1]\x02'); // some id nobody listens to: ignored
  sock.recv(`\x05${(98 + 111 * 2 + 111 * 3 + 109 * 4).toString(16)}\x01[1]\x02`); // 'boom'
  sock.recv('\x01["after"]\x02');
  assert.deepEqual(errors, ['listener']);
  assert.deepEqual(got, ['after']);
  client.close();
});

test('uses globalThis.WebSocket by default and says what to pass when there is none', () => {
  const g = globalThis as { WebSocket?: unknown };
  const saved = g.WebSocket;
  try {
    g.WebSocket = FakeSocket;
    const client = new FastWsClient('ws://default');
    assert.equal(FakeSocket.all.at(-1)!.url, 'ws://default');
    client.close();
    delete g.WebSocket;
    assert.throws(() => new FastWsClient('ws://x'), /pass \{ WebSocket \} from 'ws'/);
  } finally {
    g.WebSocket = saved;
  }
});
