// WebSocket traffic for the live fuzzer: upgrade requests (valid, with extensions and subprotocols, or
// bent) and client frames, valid and invalid: every opcode, RSV bits, masking, 7/16/64-bit lengths at their
// boundaries, fragments with control frames between them, bad UTF-8 and close codes, compressed payloads.
// No I/O here.
import { randomBytes } from 'node:crypto';
import { deflateRawSync, constants as z } from 'node:zlib';
import type { Rng } from './rng.js';

export const WS_PATHS = ['/echo', '/broadcast', '/fws'];

/** An upgrade request; `valid` handshakes are the common case so that frames get exercised. */
export function upgradeRequest(rng: Rng): { bytes: Buffer; deflate: boolean } {
  const path = rng.pick(WS_PATHS);
  const deflate = rng.chance(0.4);
  const lines = [
    `GET ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
  ];
  if (deflate)
    lines.push(
      `Sec-WebSocket-Extensions: ${rng.pick([
        'permessage-deflate',
        'permessage-deflate; client_max_window_bits',
        'permessage-deflate; server_max_window_bits=10; client_max_window_bits=9',
        'permessage-deflate; server_no_context_takeover; client_no_context_takeover',
        'permessage-deflate; server_max_window_bits=8',
        'permessage-deflate; bogus',
        'x-webkit-deflate-frame, permessage-deflate',
      ])}`,
    );
  if (path === '/fws' || rng.chance(0.1))
    lines.push(`Sec-WebSocket-Protocol: ${rng.pick(['fast-ws', 'chat', 'a, b', ''])}`);
  return { bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), deflate };
}

export interface FrameSpec {
  fin?: boolean;
  rsv?: number;
  opcode: number;
  payload: Buffer;
  mask?: boolean;
  lengthBits?: 7 | 16 | 64;
  /** Declared length differs from the payload (a lie). */
  declared?: bigint;
}

/** Encodes one client frame. */
export function encodeFrame(f: FrameSpec): Buffer {
  const masked = f.mask ?? true;
  const len = f.declared ?? BigInt(f.payload.length);
  const bits = f.lengthBits ?? (len < 126n ? 7 : len < 65536n ? 16 : 64);
  const b0 = ((f.fin ?? true) ? 0x80 : 0) | ((f.rsv ?? 0) << 4) | (f.opcode & 0x0f);
  const m = masked ? 0x80 : 0;
  let head: Buffer;
  if (bits === 7) head = Buffer.from([b0, m | Number(len & 0x7fn)]);
  else if (bits === 16) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = m | 126;
    head.writeUInt16BE(Number(len & 0xffffn), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = m | 127;
    head.writeBigUInt64BE(len & 0xffffffffffffffffn, 2);
  }
  if (!masked) return Buffer.concat([head, f.payload]);
  const key = randomBytes(4);
  const body = Buffer.alloc(f.payload.length);
  for (let i = 0; i < body.length; i++) body[i] = (f.payload[i] as number) ^ (key[i & 3] as number);
  return Buffer.concat([head, key, body]);
}

function text(rng: Rng, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = 0x20 + rng.int(95);
  return b;
}

function compressed(data: Buffer): Buffer {
  const out = deflateRawSync(data, { finishFlush: z.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

/** One message as frames: valid most of the time, with the protocol errors a hostile client would try. */
export function messageFrames(rng: Rng, deflate: boolean): FrameSpec[] {
  const kind = rng.weighted([
    [30, 'text'],
    [20, 'binary'],
    [10, 'fragmented'],
    [8, 'control'],
    [6, 'compressed'],
    [3, 'bad-utf8'],
    [3, 'unmasked'],
    [3, 'reserved-opcode'],
    [3, 'rsv'],
    [3, 'big-control'],
    [2, 'fragmented-control'],
    [2, 'orphan-continuation'],
    [2, 'huge-length'],
    [2, 'close'],
    [2, 'bad-close'],
  ] as const);
  switch (kind) {
    case 'text':
      return [{ opcode: 1, payload: text(rng, rng.size(70_000)) }];
    case 'binary':
      return [{ opcode: 2, payload: rng.bytes(rng.size(70_000)) }];
    case 'fragmented': {
      const parts = rng.range(2, 6);
      const op = rng.pick([1, 2]);
      const frames: FrameSpec[] = [];
      for (let i = 0; i < parts; i++) {
        frames.push({ opcode: i === 0 ? op : 0, fin: i === parts - 1, payload: text(rng, rng.size(300)) });
        if (rng.chance(0.3)) frames.push({ opcode: 9, payload: text(rng, rng.int(20)) });
      }
      return frames;
    }
    case 'control':
      return [{ opcode: rng.pick([9, 10]), payload: rng.bytes(rng.int(126)) }];
    case 'compressed': {
      const data = rng.chance(0.8) ? compressed(text(rng, rng.size(20_000))) : rng.bytes(rng.size(200));
      return [{ opcode: rng.pick([1, 2]), rsv: deflate || rng.chance(0.2) ? 4 : 0, payload: data }];
    }
    case 'bad-utf8':
      return [{ opcode: 1, payload: Buffer.from([0x61, rng.pick([0xc0, 0xed, 0xf8, 0x80, 0xe2]), 0xa0, 0x80]) }];
    case 'unmasked':
      return [{ opcode: 1, payload: text(rng, 10), mask: false }];
    case 'reserved-opcode':
      return [{ opcode: rng.pick([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]), payload: rng.bytes(5) }];
    case 'rsv':
      return [{ opcode: 1, rsv: rng.range(1, 7), payload: text(rng, 5) }];
    case 'big-control':
      return [{ opcode: rng.pick([8, 9, 10]), payload: rng.bytes(rng.range(126, 300)) }];
    case 'fragmented-control':
      return [{ opcode: 9, fin: false, payload: rng.bytes(3) }];
    case 'orphan-continuation':
      return [{ opcode: 0, payload: text(rng, 5) }];
    case 'huge-length':
      return [
        {
          opcode: 2,
          payload: rng.bytes(rng.int(20)),
          lengthBits: 64,
          declared: rng.pick([0x7fffffffffffffffn, 0x8000000000000000n, 1n << 40n, 2n * 1024n * 1024n]),
        },
      ];
    case 'close': {
      const p = Buffer.alloc(2);
      p.writeUInt16BE(rng.pick([1000, 1001, 3000, 4999]));
      return [{ opcode: 8, payload: Buffer.concat([p, text(rng, rng.int(50))]) }];
    }
    default: {
      const p = Buffer.alloc(2);
      p.writeUInt16BE(rng.pick([0, 999, 1004, 1005, 1006, 1015, 2000, 5000, 65535]));
      return [{ opcode: 8, payload: rng.chance(0.5) ? p.subarray(0, 1) : p }];
    }
  }
}
