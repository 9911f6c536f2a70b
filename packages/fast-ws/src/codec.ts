// fast-ws wire format (hans00/fastWS): event-name hashing, frame builders and strict frame parsers for both
// directions. Sans-IO and browser-safe: no sockets, no node: imports. Parsers return errors, they never throw.
import { defaultValueCodec, type ValueCodec } from './value.js';

export {
  createValueCodec,
  defaultValueCodec,
  type Serializer,
  type ValueCodec,
  type ValueCodecOptions,
} from './value.js';

/** Control characters of the protocol. */
export const DATA_START = '\x01';
export const DATA_END = '\x02';
export const EVENT = '\x05';
export const RESPONSE = '\x06';
export const IDLE = '\x16';
export const PONG = '\x0e';
export const PING = '\x0f';
/** The server's first frame: protocol version 2. */
export const GREETING = '\x00\x02';

const C_DATA_START = 0x01;
const C_DATA_END = 0x02;
const C_EVENT = 0x05;
const C_RESPONSE = 0x06;
const C_IDLE = 0x16;
const C_PONG = 0x0e;
const C_PING = 0x0f;

/** Longest event id (2^53 in hex has 14 digits) and reply id / timestamp we accept. */
const MAX_ID = 14;
const MAX_DIGITS = 16;

/**
 * The wire id of an event name: Σ charCode(name[i])·(i+1) in lowercase hex. Names never cross the wire,
 * so different names with the same sum are the same event.
 *
 * @example
 * eventId('echo'); // '41f'
 */
export function eventId(name: string): string {
  let sum = 0;
  for (let i = 0; i < name.length; i++) sum += name.charCodeAt(i) * (i + 1);
  return sum.toString(16);
}

/**
 * ENC(v): 0x01 + replicator text + 0x02.
 *
 * @example
 * encodeValue('abc'); // '\x01["abc"]\x02'
 */
export function encodeValue(value: unknown, codec: ValueCodec = defaultValueCodec): string {
  return DATA_START + codec.encode(value) + DATA_END;
}

/**
 * Client → server event: 0x05 + id(name) + 0x16 + replyId + ENC(data); replyId '' = no reply wanted.
 *
 * @example
 * clientEventFrame('echo', '0', 'hi'); // '\x0541f\x160\x01["hi"]\x02'
 */
export function clientEventFrame(name: string, replyId: string, data: unknown, codec?: ValueCodec): string {
  return EVENT + eventId(name) + IDLE + replyId + encodeValue(data, codec);
}

/**
 * Server → client event: 0x05 + id(name) + ENC(data). Also what a channel publish carries.
 *
 * @example
 * app.publish('room', serverEventFrame('said', 'hi')); // every subscriber, the sender included
 */
export function serverEventFrame(name: string, data: unknown, codec?: ValueCodec): string {
  return EVENT + eventId(name) + encodeValue(data, codec);
}

/**
 * Server → client reply to a client event: 0x06 + replyId + ENC(data).
 *
 * @example
 * replyFrame('7', 'hi'); // '\x067\x01["hi"]\x02'
 */
export function replyFrame(replyId: string, data: unknown, codec?: ValueCodec): string {
  return RESPONSE + replyId + encodeValue(data, codec);
}

/**
 * Plain message (either direction): exactly ENC(data).
 *
 * @example
 * messageFrame(null); // '\x01[null]\x02'
 */
export function messageFrame(data: unknown, codec?: ValueCodec): string {
  return encodeValue(data, codec);
}

/**
 * App-level ping (either direction): 0x0F + the sender's clock in ms.
 *
 * @example
 * pingFrame(1700000000000); // '\x0f1700000000000'
 */
export function pingFrame(now: number = Date.now()): string {
  return PING + String(Math.floor(now));
}

/**
 * Answer to a ping: 0x0E + the ping's timestamp digits, unchanged.
 *
 * @example
 * pongFrame('1700000000000'); // '\x0e1700000000000'
 */
export function pongFrame(ts: string): string {
  return PONG + ts;
}

/** Why a frame was refused: 1002 for bad framing, 1007 for a value that does not decode. */
export interface FrameError {
  kind: 'error';
  code: 1002 | 1007;
  reason: string;
}
export interface MessageFrame {
  kind: 'message';
  data: unknown;
}
/** `ts` stays the digits as sent, so the pong echoes them byte for byte. */
export interface PingFrame {
  kind: 'ping' | 'pong';
  ts: string;
}
/** What a client may send. */
export type ClientFrame =
  /** `enc` is ENC(data) as received, so a reply of the same primitive can reuse it instead of re-encoding. */
  { kind: 'event'; id: string; replyId: string; data: unknown; enc: string } | MessageFrame | PingFrame | FrameError;
/** What a server may send. */
export type ServerFrame =
  | { kind: 'greeting' }
  | { kind: 'event'; id: string; data: unknown }
  | { kind: 'reply'; replyId: string; data: unknown }
  | MessageFrame
  | PingFrame
  | FrameError;

function protocolError(reason: string): FrameError {
  return { kind: 'error', code: 1002, reason: `fast-ws: ${reason}` };
}

/**
 * A close reason must fit 123 bytes of UTF-8; keeping it ASCII makes length = bytes.
 *
 * @example
 * clampReason('bad \u00e9'); // 'bad ?'
 */
export function clampReason(reason: string): string {
  let out = '';
  for (let i = 0; i < reason.length && out.length < 123; i++) {
    const c = reason.charCodeAt(i);
    out += c >= 0x20 && c < 0x7f ? reason[i] : '?';
  }
  return out;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

// Index just past a run of `ok` characters starting at `from` (at most `max` of them), or -1 when the run is
// empty or too long.
function scan(text: string, from: number, ok: (c: number) => boolean, max: number): number {
  let i = from;
  while (i < text.length && ok(text.charCodeAt(i))) i++;
  return i === from || i - from > max ? -1 : i;
}

// Decodes ENC(v) at text[start..]; the 0x01 at `start` is already checked by the caller.
function decodeAt(text: string, start: number, codec: ValueCodec): { ok: true; data: unknown } | FrameError {
  if (text.length - start < 2 || text.charCodeAt(text.length - 1) !== C_DATA_END) {
    return protocolError('value does not end with 0x02');
  }
  try {
    return { ok: true, data: codec.decode(text.slice(start + 1, -1)) };
  } catch (err) {
    return { kind: 'error', code: 1007, reason: clampReason(`fast-ws: undecodable value: ${(err as Error)?.message}`) };
  }
}

function parsePing(text: string, kind: 'ping' | 'pong'): PingFrame | FrameError {
  return scan(text, 1, isDigit, MAX_DIGITS) === text.length
    ? { kind, ts: text.slice(1) }
    : protocolError(`${kind} timestamp is not 1-16 decimal digits`);
}

function parseMessage(text: string, codec: ValueCodec): MessageFrame | FrameError {
  const v = decodeAt(text, 0, codec);
  return 'ok' in v ? { kind: 'message', data: v.data } : v;
}

function frameType(c: number): string {
  return `0x${c.toString(16).padStart(2, '0')}`;
}

/**
 * Parses one text frame sent by a client. Never throws: garbage yields `{ kind: 'error', code, reason }`,
 * and the server should close with that code and reason.
 *
 * @example
 * parseClientFrame('\x0541f\x1612\x01["hi"]\x02'); // { kind: 'event', id: '41f', replyId: '12', data: 'hi' }
 */
export function parseClientFrame(text: string, codec: ValueCodec = defaultValueCodec): ClientFrame {
  if (text.length === 0) return protocolError('empty frame');
  const c = text.charCodeAt(0);
  switch (c) {
    case C_EVENT: {
      const idEnd = scan(text, 1, isHex, MAX_ID);
      if (idEnd < 0 || text.charCodeAt(idEnd) !== C_IDLE) {
        return protocolError('event id must be lowercase hex followed by 0x16');
      }
      // An empty reply id (fire-and-forget) is allowed; otherwise decimal digits, then ENC.
      let dataAt = idEnd + 1;
      if (isDigit(text.charCodeAt(dataAt))) dataAt = scan(text, dataAt, isDigit, MAX_DIGITS);
      if (dataAt < 0 || text.charCodeAt(dataAt) !== C_DATA_START) {
        return protocolError('reply id must be decimal digits followed by 0x01');
      }
      const v = decodeAt(text, dataAt, codec);
      if (!('ok' in v)) return v;
      const id = text.slice(1, idEnd);
      return { kind: 'event', id, replyId: text.slice(idEnd + 1, dataAt), data: v.data, enc: text.slice(dataAt) };
    }
    case C_DATA_START:
      return parseMessage(text, codec);
    case C_PING:
      return parsePing(text, 'ping');
    case C_PONG:
      return parsePing(text, 'pong');
    case C_RESPONSE:
      return protocolError('a client may not send a reply (0x06)');
    default:
      return protocolError(`unknown frame type ${frameType(c)}`);
  }
}

/**
 * Parses one text frame sent by a server (for clients). Never throws, like {@link parseClientFrame}.
 *
 * @example
 * parseServerFrame('\x06' + '7' + '\x01["hi"]\x02'); // { kind: 'reply', replyId: '7', data: 'hi' }
 */
export function parseServerFrame(text: string, codec: ValueCodec = defaultValueCodec): ServerFrame {
  if (text === GREETING) return { kind: 'greeting' };
  if (text.length === 0) return protocolError('empty frame');
  const c = text.charCodeAt(0);
  switch (c) {
    case C_EVENT: {
      const idEnd = scan(text, 1, isHex, MAX_ID);
      if (idEnd < 0 || text.charCodeAt(idEnd) !== C_DATA_START) {
        return protocolError('event id must be lowercase hex followed by 0x01');
      }
      const v = decodeAt(text, idEnd, codec);
      return 'ok' in v ? { kind: 'event', id: text.slice(1, idEnd), data: v.data } : v;
    }
    case C_RESPONSE: {
      // fastWS 2.x servers also answer fire-and-forget events, with an empty reply id: allowed, so clients
      // can ignore it.
      let idEnd = 1;
      if (isDigit(text.charCodeAt(1))) idEnd = scan(text, 1, isDigit, MAX_DIGITS);
      if (idEnd < 0 || text.charCodeAt(idEnd) !== C_DATA_START) {
        return protocolError('reply id must be decimal digits followed by 0x01');
      }
      const v = decodeAt(text, idEnd, codec);
      return 'ok' in v ? { kind: 'reply', replyId: text.slice(1, idEnd), data: v.data } : v;
    }
    case C_DATA_START:
      return parseMessage(text, codec);
    case C_PING:
      return parsePing(text, 'ping');
    case C_PONG:
      return parsePing(text, 'pong');
    default:
      return protocolError(`unknown frame type ${frameType(c)}`);
  }
}
