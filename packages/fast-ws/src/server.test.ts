// FastWsConnection over in-memory raw sockets: dispatch, replies, lifecycle, ping/pong, bad frames, and
// channels through a tiny in-test pub/sub standing in for Gale's subscribe/publish.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientEventFrame, eventId, messageFrame, parseServerFrame } from './codec.js';
import { FastWsConnection, type FastWsEvent, fastWsHandlers, type RawSocket } from './server.js';

class FakeRaw implements RawSocket {
  sent: string[] = [];
  closedWith: [number | undefined, string | undefined] | null = null;
  send(text: string): void {
    this.sent.push(text);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = [code, reason];
  }
}

// Pub/sub like Gale's: publish reaches every subscriber except the publisher.
class Hub {
  readonly topics = new Map<string, Set<HubSocket>>();
}
class HubSocket extends FakeRaw {
  constructor(readonly hub: Hub) {
    super();
  }
  subscribe(t: string): void {
    const set = this.hub.topics.get(t) ?? new Set();
    set.add(this);
    this.hub.topics.set(t, set);
  }
  unsubscribe(t: string): void {
    this.hub.topics.get(t)?.delete(this);
  }
  publish(t: string, text: string): number {
    let n = 0;
    for (const s of this.hub.topics.get(t) ?? []) if (s !== this && ++n) s.send(text);
    return n;
  }
}

function conn(): [FastWsConnection, FakeRaw] {
  const raw = new FakeRaw();
  return [new FastWsConnection(raw), raw];
}

test('greet sends exactly 0x00 0x02', () => {
  const [c, raw] = conn();
  c.greet();
  assert.deepEqual(raw.sent, ['\x00\x02']);
});

test('an event with a reply id reaches its listener, and reply() answers once with 0x06 + id + ENC', () => {
  const [c, raw] = conn();
  const seen: FastWsEvent[] = [];
  c.on('echo', (e) => {
    seen.push(e);
    assert.equal(e.reply(e.data), true);
    assert.equal(e.reply('again'), false);
  });
  assert.equal(c.receive(clientEventFrame('echo', '42', 'hi')), true);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.name, 'echo');
  assert.equal(seen[0]!.replyId, '42');
  assert.equal(seen[0]!.data, 'hi');
  assert.deepEqual(raw.sent, ['\x0642\x01["hi"]\x02']);
});

test('replying the received primitive reuses its bytes; objects are encoded again', () => {
  const [c, raw] = conn();
  c.on('echo', (e) => e.reply(e.data));
  c.on('bump', (e) => {
    (e.data as { n: number }).n++;
    e.reply(e.data);
  });
  c.receive('\x0541f\x169\x01["\\u0061"]\x02'); // 'a', spelled as an escape by the client
  c.receive(clientEventFrame('bump', '10', { n: 1 }));
  assert.deepEqual(raw.sent, ['\x069\x01["\\u0061"]\x02', '\x0610\x01[{"n":2}]\x02']);
});

test('fire-and-forget (empty reply id): the listener runs, reply() sends nothing', () => {
  const [c, raw] = conn();
  let got: unknown;
  c.on('log', (e) => {
    got = e.data;
    assert.equal(e.reply('ignored'), false);
  });
  c.receive(clientEventFrame('log', '', { n: 1 }));
  assert.deepEqual(got, { n: 1 });
  assert.deepEqual(raw.sent, []);
});

test('events nobody listens to are dropped; names with one hash share listeners', () => {
  const [c, raw] = conn();
  const names: string[] = [];
  c.on('ab', (e) => names.push(e.name));
  c.receive(clientEventFrame('nobody', '1', 0));
  c.receive(clientEventFrame('ab', '', 0));
  assert.deepEqual(names, ['ab']);
  // 'a' and 'a\u0000' both hash to 97 = '61': one event, each listener told its own name.
  const both: string[] = [];
  c.on('a', (e) => both.push(e.name)).on('a\u0000', (e) => both.push(e.name));
  c.receive(clientEventFrame('a', '', 0));
  assert.deepEqual(both, ['a', 'a\u0000']);
  assert.deepEqual(raw.sent, []);
});

test('off removes a listener', () => {
  const [c] = conn();
  let n = 0;
  const fn = () => {
    n++;
  };
  c.on('x', fn);
  c.receive(clientEventFrame('x', '', 0));
  c.off('x', fn);
  c.receive(clientEventFrame('x', '', 0));
  assert.equal(n, 1);
});

test('plain messages, emit and send produce the documented frames', () => {
  const [c, raw] = conn();
  const got: unknown[] = [];
  c.on('message', (d) => got.push(d));
  c.receive(messageFrame(new Map([[1, 2]])));
  assert.deepEqual(got, [new Map([[1, 2]])]);
  c.emit('news', { a: 1 });
  c.send('plain');
  assert.deepEqual(raw.sent, [`\x05${eventId('news')}\x01[{"a":1}]\x02`, '\x01["plain"]\x02']);
});

test('client pings are answered with the same digits; our ping reports latency through pong', () => {
  const [c, raw] = conn();
  const pings: number[] = [];
  const pongs: number[] = [];
  c.on('ping', (ts) => pings.push(ts)).on('pong', (ms) => pongs.push(ms));
  c.receive('\x0f1234567');
  assert.deepEqual(raw.sent, ['\x0e1234567']);
  assert.deepEqual(pings, [1234567]);
  c.ping();
  const ping = parseServerFrame(raw.sent[1]!);
  assert.equal(ping.kind, 'ping');
  c.receive(`\x0e${(ping as { ts: string }).ts}`);
  assert.equal(pongs.length, 1);
  assert.ok(pongs[0]! >= 0 && pongs[0]! < 1000);
});

test('bad frames close with 1002 or 1007 and a reason; later frames are ignored', () => {
  const [c, raw] = conn();
  assert.equal(c.receive('garbage'), false);
  assert.deepEqual(raw.closedWith, [1002, 'fast-ws: unknown frame type 0x67']);
  assert.equal(c.closed, true);
  assert.equal(c.receive(messageFrame(1)), false);
  c.emit('x', 1);
  assert.deepEqual(raw.sent, []);
  const [c2, raw2] = conn();
  c2.receive('\x0541f\x161\x01[oops]\x02');
  assert.equal(raw2.closedWith?.[0], 1007);
  assert.match(raw2.closedWith?.[1] ?? '', /undecodable value/);
});

test('a host that refuses protocol close codes gets 4002/4007 instead', () => {
  const closes: [number | undefined, string | undefined][] = [];
  const strict: RawSocket = {
    send() {},
    close(code, reason) {
      if (code !== 1000 && (code === undefined || code < 3000)) throw new RangeError('1000 or 3000-4999');
      closes.push([code, reason]);
    },
  };
  new FastWsConnection(strict).receive('nope');
  new FastWsConnection(strict).receive('\x01[x]\x02');
  assert.deepEqual(
    closes.map(([code]) => code),
    [4002, 4007],
  );
});

test('handleClose emits close once and stops sends; a reply after close is dropped', () => {
  const [c, raw] = conn();
  const closes: [number, string][] = [];
  let late: FastWsEvent | undefined;
  c.on('close', (code, reason) => closes.push([code, reason]));
  c.on('slow', (e) => {
    late = e;
  });
  c.receive(clientEventFrame('slow', '3', 0));
  c.handleClose(1001, 'going away');
  c.handleClose(1006, '');
  assert.deepEqual(closes, [[1001, 'going away']]);
  assert.equal(late?.reply('x'), false);
  assert.deepEqual(raw.sent, []);
});

test('a throwing or rejecting listener is reported as error and does not stop dispatch', async () => {
  const [c, raw] = conn();
  const errors: unknown[] = [];
  c.on('error', (e) => errors.push(e));
  c.on('boom', () => {
    throw new Error('sync');
  });
  c.on('boom', (e) => {
    e.reply('still answered');
  });
  c.on('later', async () => {
    throw new Error('async');
  });
  c.receive(clientEventFrame('boom', '1', 0));
  c.receive(clientEventFrame('later', '', 0));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['sync', 'async'],
  );
  assert.deepEqual(raw.sent, ['\x061\x01["still answered"]\x02']);
});

test('channels: join, emitToChannel, quit through raw subscribe/publish', () => {
  const hub = new Hub();
  const raws = [new HubSocket(hub), new HubSocket(hub), new HubSocket(hub)];
  const [a, b, c] = raws.map((r) => new FastWsConnection(r)) as [FastWsConnection, FastWsConnection, FastWsConnection];
  a.join('room');
  b.join('room');
  c.join('other');
  a.emitToChannel('room', 'say', 'hi');
  const frame = `\x05${eventId('say')}\x01["hi"]\x02`;
  assert.deepEqual(
    raws.map((r) => r.sent),
    [[], [frame], []],
  );
  b.emitToChannel('room', 'say', 'hi');
  assert.deepEqual(raws[0]!.sent, [frame]);
  a.quit('room');
  b.emitToChannel('room', 'say', 'hi');
  assert.equal(raws[0]!.sent.length, 1);
  const plain = new FastWsConnection(new FakeRaw());
  assert.throws(() => plain.join('room'), /no subscribe/);
  assert.throws(() => plain.emitToChannel('room', 'x', 1), /no publish/);
});

test('fastWsHandlers runs one connection per socket for open/message/close callbacks', () => {
  const closes: number[] = [];
  const h = fastWsHandlers<FakeRaw>((c) => {
    c.on('echo', (e) => e.reply(e.data));
    c.on('binary', (d) => c.send(d.length));
    c.on('close', (code) => closes.push(code));
  });
  const s1 = new FakeRaw();
  const s2 = new FakeRaw();
  h.open(s1);
  h.open(s2);
  h.message(s1, Buffer.from(clientEventFrame('echo', '1', 'one')), false);
  h.message(s2, clientEventFrame('echo', '2', 'two'), false);
  h.message(s1, new Uint8Array([1, 2, 3]), true);
  h.close(s1, 1000, Buffer.from('bye'));
  h.message(s1, clientEventFrame('echo', '3', 'late'), false);
  assert.deepEqual(s1.sent, ['\x00\x02', '\x061\x01["one"]\x02', '\x01[3]\x02']);
  assert.deepEqual(s2.sent, ['\x00\x02', '\x062\x01["two"]\x02']);
  assert.deepEqual(closes, [1000]);
});
