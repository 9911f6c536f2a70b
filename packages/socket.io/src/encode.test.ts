// The encoding fast path must produce exactly socket.io-parser's bytes: compared on packets of every kind the fast
// path takes (strings long and short, with quotes, backslashes, control characters, non-ASCII, surrogate pairs and
// lone surrogates; numbers including NaN and -0; booleans; null) and on packets it hands back (objects, binary,
// undefined, other packet types, namespaces and ids).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Encoder, PacketType } from 'socket.io-parser';
import { encodePacket } from './encode.js';
import type { Packet } from './types.js';

const long = (s: string) => s.repeat(Math.ceil(100 / s.length));

const values: unknown[] = [
  '',
  'short',
  long('0'),
  long('plain ascii text '),
  long('quote " inside '),
  long('back\\slash '),
  long('new\nline '),
  long('tab\t '),
  long('nul\u0000 '),
  long('\u001f unit sep '),
  long('é ü ñ 日本語 '),
  long('pair 😀 '),
  long('lone \ud800 high '),
  long('lone \udc00 low '),
  long('\u2028 line sep \u2029 '),
  0,
  -0,
  1.5,
  -12e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
];

test('EVENT and ACK packets of primitives: byte-identical to socket.io-parser', () => {
  const encoder = new Encoder();
  for (const type of [PacketType.EVENT, PacketType.ACK]) {
    for (const nsp of ['/', '/chat']) {
      for (const id of [undefined, 0, 42]) {
        for (const v of values) {
          const data = type === PacketType.EVENT ? ['ev', v, 'tail'] : [v];
          const p = (): Packet => ({ type, nsp, id, data: [...data] });
          assert.deepEqual(encodePacket(encoder, p()), encoder.encode(p()), JSON.stringify({ type, nsp, id, v }));
        }
      }
    }
  }
});

test('packets the fast path does not take are socket.io-parser’s own encoding', () => {
  const encoder = new Encoder();
  const cases: Packet[] = [
    { type: PacketType.EVENT, nsp: '/', data: ['obj', { a: long('x'), b: [1, 2] }] },
    { type: PacketType.EVENT, nsp: '/', data: ['bin', Buffer.from([1, 2, 3])] },
    { type: PacketType.EVENT, nsp: '/', data: ['nested-bin', { b: new Uint8Array([4]) }] },
    { type: PacketType.EVENT, nsp: '/', data: ['undef', undefined] },
    { type: PacketType.ACK, nsp: '/x', id: 3, data: [Buffer.from('ack')] },
    { type: PacketType.CONNECT, nsp: '/', data: { sid: 'abc' } },
    { type: PacketType.DISCONNECT, nsp: '/chat' },
    { type: PacketType.CONNECT_ERROR, nsp: '/', data: { message: 'no', data: { code: 1 } } },
    { type: PacketType.EVENT, nsp: '/', data: [] },
  ];
  for (const c of cases) {
    const copy = (): Packet => structuredClone(c);
    assert.deepEqual(encodePacket(encoder, copy()), encoder.encode(copy()), JSON.stringify(c.data));
  }
});
