// Raw WebSocket helpers for the wire tests: the client's handshake over a RawConn, client frames built
// byte by byte (masked or not, any opcode, RSV bits, 16/64-bit lengths) and a strict parser of server frames.
import { createHash, randomBytes } from 'node:crypto';
import type http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import { RawConn, withTimeout } from '../helpers.js';

export const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
export const ACCEPT = 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=';

export function acceptFor(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** The upgrade request for `path`; `extra` lines end with \r\n. */
export function upgradeRequest(path: string, extra = '', key = KEY): string {
  return (
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
    `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n${extra}\r\n`
  );
}

/** Opens a raw connection, sends the handshake and checks the 101; the RawConn then speaks frames. */
export async function rawWs(port: number, path: string, extra = ''): Promise<{ conn: RawConn; head: string }> {
  const conn = await RawConn.open(port);
  await conn.write(upgradeRequest(path, extra));
  const headBuf = await conn.readUntil('\r\n\r\n');
  const head = headBuf.toString('latin1');
  if (!head.startsWith('HTTP/1.1 101 ')) throw new Error(`expected 101, got:\n${head}`);
  if (!head.includes(`\r\nSec-WebSocket-Accept: ${ACCEPT}\r\n`)) throw new Error(`bad accept:\n${head}`);
  return { conn, head };
}

/**
 * Opens a WebSocket on a stream of an HTTP/2 connection (RFC 8441): an extended CONNECT once the server's SETTINGS
 * allow it, `extra` header lines ("Name: value\r\n") as fields, a 200 checked; the RawConn then speaks frames on
 * the stream. `head` is the response's fields as "name: value" lines.
 */
export async function rawWsH2(
  session: http2.ClientHttp2Session,
  path: string,
  extra = '',
): Promise<{ conn: RawConn<http2.ClientHttp2Stream>; head: string }> {
  if (!session.remoteSettings?.enableConnectProtocol) {
    await withTimeout(
      new Promise((r) => session.once('remoteSettings', r)),
      3000,
      "the server's SETTINGS with ENABLE_CONNECT_PROTOCOL",
    );
    if (!session.remoteSettings.enableConnectProtocol)
      throw new Error('the server did not send ENABLE_CONNECT_PROTOCOL');
  }
  const headers: http2.OutgoingHttpHeaders = {
    ':method': 'CONNECT',
    ':protocol': 'websocket',
    ':scheme': session.encrypted ? 'https' : 'http',
    ':path': path,
    ':authority': '127.0.0.1',
    'sec-websocket-version': '13',
  };
  for (const line of extra.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const stream = session.request(headers, { endStream: false });
  const res = await withTimeout(
    new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    }),
    3000,
    `the answer to CONNECT ${path}`,
  );
  const head = Object.entries(res)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\r\n');
  if (Number(res[':status']) !== 200) throw new Error(`expected 200, got:\n${head}`);
  return { conn: RawConn.over(stream), head };
}

export interface FrameOpts {
  fin?: boolean;
  rsv1?: boolean;
  rsv2?: boolean;
  rsv3?: boolean;
  /** false: send unmasked (a protocol error from a client). Default: a random mask. */
  mask?: boolean;
  /** Force a length encoding: 16 or 64 bits even when shorter would do. */
  lengthBits?: 7 | 16 | 64;
}

/** One client frame. */
export function frame(opcode: number, payload: Buffer | string = Buffer.alloc(0), o: FrameOpts = {}): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const fin = o.fin ?? true;
  const masked = o.mask ?? true;
  const b0 = (fin ? 0x80 : 0) | (o.rsv1 ? 0x40 : 0) | (o.rsv2 ? 0x20 : 0) | (o.rsv3 ? 0x10 : 0) | opcode;
  const bits = o.lengthBits ?? (data.length < 126 ? 7 : data.length < 65536 ? 16 : 64);
  const m = masked ? 0x80 : 0;
  let head: Buffer;
  if (bits === 7) head = Buffer.from([b0, m | data.length]);
  else if (bits === 16) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = m | 126;
    head.writeUInt16BE(data.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = m | 127;
    head.writeBigUInt64BE(BigInt(data.length), 2);
  }
  if (!masked) return Buffer.concat([head, data]);
  const key = randomBytes(4);
  const body = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) body[i] = (data[i] as number) ^ (key[i & 3] as number);
  return Buffer.concat([head, key, body]);
}

/** A client close frame with `code` and `reason`. */
export function closeFrame(code: number, reason = ''): Buffer {
  const p = Buffer.alloc(2 + Buffer.byteLength(reason));
  p.writeUInt16BE(code, 0);
  p.write(reason, 2);
  return frame(8, p);
}

export interface ServerFrame {
  fin: boolean;
  rsv1: boolean;
  opcode: number;
  payload: Buffer;
}

/** Parses one server frame from the front of `buf` (servers never mask); null if incomplete. */
export function parseFrame(buf: Buffer): { frame: ServerFrame; used: number } | null {
  if (buf.length < 2) return null;
  const b0 = buf[0] as number;
  const b1 = buf[1] as number;
  if (b1 & 0x80) throw new Error('server frame is masked');
  if (b0 & 0x30) throw new Error('server frame has RSV2/RSV3 set');
  let len = b1 & 0x7f;
  let off = 2;
  if (len === 126) {
    if (buf.length < 4) return null;
    len = buf.readUInt16BE(2);
    off = 4;
  } else if (len === 127) {
    if (buf.length < 10) return null;
    len = Number(buf.readBigUInt64BE(2));
    off = 10;
  }
  if (buf.length < off + len) return null;
  return {
    frame: {
      fin: (b0 & 0x80) !== 0,
      rsv1: (b0 & 0x40) !== 0,
      opcode: b0 & 0x0f,
      payload: buf.subarray(off, off + len),
    },
    used: off + len,
  };
}

/** Reads the next whole server frame from `conn`. */
export async function readFrame(conn: RawConn<Duplex>, timeoutMs = 3000): Promise<ServerFrame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = parseFrame(conn.buf);
    if (got) {
      conn.buf = conn.buf.subarray(got.used);
      return got.frame;
    }
    if (conn.closed) throw new Error(`connection closed before a whole frame (have ${conn.buf.length} bytes)`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no whole frame within ${timeoutMs} ms (have ${conn.buf.length} bytes)`);
    await conn.nextEvent(left);
  }
}

/** Reads frames until a close frame; returns its code (1005 for none) and reason. */
export async function readClose(conn: RawConn<Duplex>, timeoutMs = 3000): Promise<{ code: number; reason: string }> {
  for (;;) {
    const f = await readFrame(conn, timeoutMs);
    if (f.opcode !== 8) continue;
    if (f.payload.length === 0) return { code: 1005, reason: '' };
    return { code: f.payload.readUInt16BE(0), reason: f.payload.subarray(2).toString() };
  }
}
