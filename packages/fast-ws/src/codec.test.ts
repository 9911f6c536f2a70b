// fast-ws codec: exact wire bytes (seed-systems.md "004 — fastWS", items 1–9), replicator compatibility of
// every special value, and strict parsing: garbage gives a typed 1002/1007 result and never throws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Replicator from 'replicator';
import {
  clampReason,
  clientEventFrame,
  createValueCodec,
  defaultValueCodec,
  encodeValue,
  eventId,
  GREETING,
  messageFrame,
  parseClientFrame,
  parseServerFrame,
  pingFrame,
  pongFrame,
  replyFrame,
  serverEventFrame,
} from './codec.js';

test('eventId: Σ charCode·(i+1) as lowercase hex, no padding', () => {
  assert.equal(eventId('echo'), '41f'); // 101 + 99·2 + 104·3 + 111·4 = 1055
  assert.equal(eventId(''), '0');
  assert.equal(eventId('a'), '61');
  assert.equal(eventId('ab'), (97 + 98 * 2).toString(16));
  // Names never cross the wire, so two names with the same sum are one event: 'ba' = 98 + 97·2 = 292.
  assert.equal(eventId('ba'), (292).toString(16));
  assert.equal(eventId('\u00ff'), 'ff');
});

test('frames are byte for byte the documented ones', () => {
  assert.equal(GREETING, '\x00\x02');
  assert.equal(encodeValue('abc'), '\x01["abc"]\x02');
  assert.equal(messageFrame('abc'), '\x01["abc"]\x02');
  assert.equal(clientEventFrame('echo', '', 'x'), '\x0541f\x16\x01["x"]\x02');
  assert.equal(clientEventFrame('echo', '65535', 'x'), '\x0541f\x1665535\x01["x"]\x02');
  assert.equal(serverEventFrame('echo', { a: 1 }), '\x0541f\x01[{"a":1}]\x02');
  assert.equal(replyFrame('7', 'x'), '\x067\x01["x"]\x02');
  assert.equal(pingFrame(1700000000123), '\x0f1700000000123');
  assert.equal(pongFrame('1700000000123'), '\x0e1700000000123');
  const payload = '0'.repeat(1024);
  assert.equal(clientEventFrame('echo', '0', payload), `\x0541f\x160\x01["${payload}"]\x02`);
});

// Every value replicator treats specially, plus plain JSON and circular structures.
function samples(): [string, unknown][] {
  const circ: Record<string, unknown> = { a: 1 };
  circ.self = circ;
  const shared = { x: 1 };
  return [
    ['string', 'abc'],
    ['unicode', 'héllo \u{1f600} \u0001\u0002'],
    ['number', 42.5],
    ['negative zero', -0], // JSON: arrives as 0
    ['Infinity', Number.POSITIVE_INFINITY], // JSON: arrives as null
    ['true', true],
    ['null', null],
    ['NaN', Number.NaN],
    ['undefined', undefined],
    ['Date', new Date(1_700_000_000_123)],
    ['RegExp', /a.b+/gim],
    [
      'Map',
      new Map<unknown, unknown>([
        ['k', 1],
        [2, { v: [1] }],
      ]),
    ],
    ['Set', new Set([1, 'two', null])],
    ['ArrayBuffer', new Uint8Array([1, 2, 255]).buffer],
    ['Uint8Array', new Uint8Array([1, 2, 255])],
    ['Int16Array', new Int16Array([-2, 300])],
    ['Float64Array', new Float64Array([1.5, -0.25])],
    ['Buffer', Buffer.from('hi')],
    ['keys @t/@r escaped', { '@t': 1, '@r': 2, '#@t': 3 }],
    ['nested', { list: [1, 'a', { b: [undefined, Number.NaN, new Date(5)] }] }],
    ['circular', circ],
    ['shared reference', { p: shared, q: shared }],
  ];
}

test('encoding matches the replicator package for every sample (Errors aside)', () => {
  const reference = new Replicator();
  for (const [label, v] of samples()) assert.equal(defaultValueCodec.encode(v), reference.encode(v), label);
});

test('every sample survives a round trip, also when encoded by the replicator package', () => {
  const reference = new Replicator();
  for (const [label, v] of samples()) {
    for (const text of [defaultValueCodec.encode(v), reference.encode(v)]) {
      const out = parseClientFrame(`\x01${text}\x02`);
      assert.equal(out.kind, 'message', label);
      const data = (out as { data: unknown }).data;
      if (label === 'circular') {
        const o = data as Record<string, unknown>;
        assert.equal(o.a, 1);
        assert.equal(o.self, o);
      } else if (label === 'shared reference') {
        const o = data as { p: unknown; q: unknown };
        assert.deepEqual(o.p, { x: 1 });
        assert.equal(o.p, o.q);
      } else {
        const expected = label === 'negative zero' ? 0 : label === 'Infinity' ? null : v;
        assert.deepEqual(data, expected, label);
      }
    }
  }
});

test('Errors: name and message travel, the stack only on request; unknown names become Error', () => {
  const err = new TypeError('boom');
  assert.equal(defaultValueCodec.encode(err), '[{"@t":"[[Error]]","data":{"name":"TypeError","message":"boom"}}]');
  const back = defaultValueCodec.decode(defaultValueCodec.encode(err)) as Error;
  assert.ok(back instanceof TypeError);
  assert.equal(back.message, 'boom');
  assert.equal(back.stack, 'TypeError: boom');
  const withStack = createValueCodec({ errorStacks: true });
  assert.equal(withStack.encode(err), new Replicator().encode(err));
  assert.equal((withStack.decode(withStack.encode(err)) as Error).stack, err.stack);
  // replicator would construct globalThis[name]: here a Function, an allocation, …
  for (const name of ['Function', 'SharedArrayBuffer', 'ArrayBuffer', 'Proxy']) {
    const v = defaultValueCodec.decode(`[{"@t":"[[Error]]","data":{"name":"${name}","message":"1"}}]`);
    assert.equal(Object.getPrototypeOf(v), Error.prototype, name);
  }
});

test('a custom serializer replaces JSON on both sides', () => {
  const codec = createValueCodec({
    serializer: { serialize: (refs) => `J${JSON.stringify(refs)}`, deserialize: (t) => JSON.parse(t.slice(1)) },
  });
  assert.equal(codec.encode('a'), 'J["a"]');
  assert.deepEqual(codec.decode(codec.encode(new Set([1]))), new Set([1]));
});

test('client frames parse into typed results', () => {
  assert.deepEqual(parseClientFrame('\x0541f\x16\x01["x"]\x02'), {
    kind: 'event',
    id: '41f',
    replyId: '',
    data: 'x',
    enc: '\x01["x"]\x02',
  });
  assert.deepEqual(parseClientFrame('\x0541f\x1612\x01[1]\x02'), {
    kind: 'event',
    id: '41f',
    replyId: '12',
    data: 1,
    enc: '\x01[1]\x02',
  });
  assert.deepEqual(parseClientFrame('\x01[{"a":[1]}]\x02'), { kind: 'message', data: { a: [1] } });
  assert.deepEqual(parseClientFrame('\x0f123'), { kind: 'ping', ts: '123' });
  assert.deepEqual(parseClientFrame('\x0e123'), { kind: 'pong', ts: '123' });
});

test('server frames parse into typed results', () => {
  assert.deepEqual(parseServerFrame('\x00\x02'), { kind: 'greeting' });
  assert.deepEqual(parseServerFrame('\x0541f\x01["x"]\x02'), { kind: 'event', id: '41f', data: 'x' });
  assert.deepEqual(parseServerFrame('\x0665535\x01["x"]\x02'), { kind: 'reply', replyId: '65535', data: 'x' });
  // fastWS 2.x answers fire-and-forget events too, with an empty id.
  assert.deepEqual(parseServerFrame('\x06\x01["x"]\x02'), { kind: 'reply', replyId: '', data: 'x' });
  assert.deepEqual(parseServerFrame('\x01[null]\x02'), { kind: 'message', data: null });
  assert.deepEqual(parseServerFrame('\x0f5'), { kind: 'ping', ts: '5' });
  assert.deepEqual(parseServerFrame('\x0e5'), { kind: 'pong', ts: '5' });
});

const BAD_CLIENT: [string, 1002 | 1007, RegExp][] = [
  ['', 1002, /empty frame/],
  ['hello', 1002, /unknown frame type 0x68/],
  ['\x00\x02', 1002, /unknown frame type 0x00/],
  ['\x05', 1002, /event id/],
  ['\x0541f', 1002, /event id/],
  ['\x0541F\x16\x01[1]\x02', 1002, /event id/],
  ['\x05\x16\x01[1]\x02', 1002, /event id/],
  ['\x05123456789abcdef\x16\x01[1]\x02', 1002, /event id/],
  ['\x0541f\x01[1]\x02', 1002, /event id/], // server form, no 0x16
  ['\x0541f\x16', 1002, /reply id/],
  ['\x0541f\x16-1\x01[1]\x02', 1002, /reply id/],
  ['\x0541f\x1612345678901234567\x01[1]\x02', 1002, /reply id/],
  ['\x0541f\x161\x01[1]', 1002, /0x02/],
  ['\x0541f\x161\x01\x02', 1007, /undecodable/],
  ['\x01["a"]', 1002, /0x02/],
  ['\x01', 1002, /0x02/],
  ['\x01{"a":1}\x02', 1007, /not a replicator reference array/],
  ['\x01"abc"\x02', 1007, /not a replicator reference array/],
  ['\x01[]\x02', 1007, /not a replicator reference array/],
  ['\x01[nope]\x02', 1007, /undecodable value/],
  ['\x01[{"@t":"[[Nope]]","data":1}]\x02', 1007, /Nope/],
  ['\x01[{"@t":"[[Map]]","data":{"length":1e12}}]\x02', 1007, /malformed \[\[Map\]\]/],
  ['\x01[{"@t":"[[Set]]","data":{"length":1e12}}]\x02', 1007, /malformed \[\[Set\]\]/],
  ['\x01[{"@t":"[[Buffer]]","data":{"length":1e9}}]\x02', 1007, /malformed \[\[Buffer\]\]/],
  ['\x01[{"@t":"[[ArrayBuffer]]","data":{"length":1e9}}]\x02', 1007, /malformed/],
  ['\x01[{"@t":"[[TypedArray]]","data":{"ctorName":"Float64Array","arr":1e10}}]\x02', 1007, /malformed/],
  ['\x01[{"@t":"[[Date]]","data":"x"}]\x02', 1007, /malformed \[\[Date\]\]/],
  ['\x01[{"@t":"[[RegExp]]","data":{"src":"(","flags":""}}]\x02', 1007, /undecodable/],
  ['\x01[{"@t":"[[Error]]","data":{"name":"Error","message":5}}]\x02', 1007, /malformed \[\[Error\]\]/],
  [`\x01${'['.repeat(100_000)}${']'.repeat(100_000)}\x02`, 1007, /undecodable/],
  ['\x0f', 1002, /ping timestamp/],
  ['\x0f12a', 1002, /ping timestamp/],
  ['\x0e', 1002, /pong timestamp/],
  ['\x061\x01[1]\x02', 1002, /may not send a reply/],
];

test('garbage from a client yields 1002 (framing) or 1007 (value) with a reason', () => {
  for (const [frame, code, reason] of BAD_CLIENT) {
    const r = parseClientFrame(frame);
    assert.equal(r.kind, 'error', JSON.stringify(frame.slice(0, 40)));
    if (r.kind !== 'error') continue;
    assert.equal(r.code, code, JSON.stringify(frame.slice(0, 40)));
    assert.match(r.reason, reason);
    assert.ok(Buffer.byteLength(r.reason) <= 123);
  }
});

test('garbage from a server yields typed errors too', () => {
  for (const frame of [
    '',
    '\x00',
    '\x00\x03',
    '\x05zz\x01[1]\x02',
    '\x0541f\x16\x01[1]\x02',
    '\x06a\x01[1]\x02',
    '\x06',
  ]) {
    assert.equal(parseServerFrame(frame).kind, 'error', JSON.stringify(frame));
  }
  assert.deepEqual(parseServerFrame('\x061\x01[x]\x02').kind, 'error');
});

test('{"@r": key} reaches only entries of the reference array', () => {
  for (const key of ['"__proto__"', '"constructor"', '"length"', '-1', '1.5', '99', 'null']) {
    const r = parseClientFrame(`\x01[{"a":{"@r":${key}}}]\x02`);
    assert.equal(r.kind, 'message', key);
    const a = (r as { data: { a: unknown } }).data.a;
    assert.ok(a === undefined || typeof a === 'number', `${key} gave ${String(a)}`);
  }
});

test('random bytes never throw', () => {
  let seed = 1;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const alphabet = '\x00\x01\x02\x05\x06\x0e\x0f\x16[]{}"@tr:,0123456789abcdef';
  for (let n = 0; n < 20_000; n++) {
    let s = '';
    const len = rnd() % 24;
    for (let i = 0; i < len; i++) s += alphabet[rnd() % alphabet.length];
    assert.ok(typeof parseClientFrame(s).kind === 'string');
    assert.ok(typeof parseServerFrame(s).kind === 'string');
  }
});

test('clampReason keeps close reasons ASCII and within 123 bytes', () => {
  assert.equal(clampReason('ok'), 'ok');
  assert.equal(clampReason('é\u0001'), '??');
  assert.equal(clampReason('x'.repeat(500)).length, 123);
});
