// Helpers for the HTTP/2 tests: an app listening with `http2` (cleartext h2c, or TLS with ALPN h2), Node's http2
// client with bounded waits, and raw HTTP/2 frames for the hostile-client tests (a frame writer, a frame reader,
// and the few HPACK bytes a minimal request needs).
import http2 from 'node:http2';
import net from 'node:net';
import { after, type TestContext } from 'node:test';
import type { App, GaleOptions } from '../helpers.js';
import { type Leaf, makePki, type Pki } from '../tls/certs.js';

/** `p`, or a rejection naming `what` after `ms`. */
export async function bounded<V>(p: Promise<V>, ms: number, what: string): Promise<V> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let pkiCache: { pki: Pki; leaf: Leaf } | undefined;
// Made on first use, often inside a test; removed after the file's last test (this module is imported at the top).
after(() => pkiCache?.pki.remove());
/** One CA and one leaf for `a.test` (and 127.0.0.1) per test process. */
export function testPki(): { pki: Pki; leaf: Leaf } {
  if (pkiCache === undefined) {
    const pki = makePki();
    pkiCache = { pki, leaf: pki.leaf('a.test') };
  }
  return pkiCache;
}

export interface H2App {
  app: App;
  port: number;
  /** `http://127.0.0.1:port` or `https://…` */
  origin: string;
  secure: boolean;
  /** Connects Node's http2 client (closed when the test ends). */
  connect(opts?: http2.SecureClientSessionOptions): http2.ClientHttp2Session;
}

/** An app from `setup`, listening on 127.0.0.1 with HTTP/2 (TLS when `secure`); closed when the test ends. */
export async function h2App(
  t: TestContext,
  setup: (app: App) => void,
  opts: { secure?: boolean; http2?: object | boolean; gale?: GaleOptions } = {},
): Promise<H2App> {
  const { gale } = await import('gale');
  const app = gale(opts.gale);
  setup(app);
  const secure = opts.secure ?? false;
  const { pki, leaf } = testPki();
  const addr = await app.listen({
    port: 0,
    host: '127.0.0.1',
    http2: opts.http2 ?? true,
    ...(secure ? { tls: { cert: leaf.cert, key: leaf.key } } : {}),
  });
  t.after(() => app.close({ timeout: 500 }));
  const origin = `${secure ? 'https' : 'http'}://127.0.0.1:${addr.port}`;
  const sessions: http2.ClientHttp2Session[] = [];
  t.after(() => {
    for (const s of sessions) s.destroy();
  });
  return {
    app,
    port: addr.port,
    origin,
    secure,
    connect(o = {}) {
      const s = http2.connect(origin, secure ? { ca: pki.ca, servername: 'a.test', ...o } : o);
      s.on('error', () => {});
      sessions.push(s);
      return s;
    },
  };
}

/** `POST /up` reads the whole body and answers `complete`; when its reader fails (408, 413), the status it failed
 *  with and `timed out`. For the stalled-upload tests of HTTP/2 and HTTP/3. */
export function uploadRoute(app: App): void {
  app.post('/up', async (req, res) => {
    try {
      await req.text();
      return 'complete';
    } catch (err) {
      res.status((err as { status?: number }).status ?? 500);
      return 'timed out';
    }
  });
}

export interface H2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on `session`; resolves with the whole response (bounded by `ms`). */
export function request(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: string | Uint8Array,
  ms = 8000,
): Promise<H2Response> {
  const done = new Promise<H2Response>((resolve, reject) => {
    const req = session.request(headers, { endStream: body === undefined });
    const parts: Buffer[] = [];
    let head: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => {
      head = h;
    });
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve({ status: Number(head[':status']), headers: head, body: Buffer.concat(parts) }));
    req.on('error', reject);
    if (body !== undefined) req.end(body);
  });
  return bounded(done, ms, `HTTP/2 ${String(headers[':method'] ?? 'GET')} ${String(headers[':path'])}`);
}

// ---------------------------------------------------------------------------------------------
// raw frames (RFC 9113 §4) for clients that misbehave on purpose

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
export const FRAME = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
};
export const FLAG = { END_STREAM: 1, ACK: 1, END_HEADERS: 4 };
export const ERR = { NO_ERROR: 0, PROTOCOL_ERROR: 1, FLOW_CONTROL_ERROR: 3, CANCEL: 8, ENHANCE_YOUR_CALM: 11 };

export function frame(type: number, flags: number, stream: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}

/**
 * An HPACK block for `method path` over http with no Huffman coding: `:method` and `:scheme` from the static table
 * (or `:method` as a literal), `:path` as a literal with an indexed name (RFC 7541 §6.2.2).
 */
export function requestBlock(path: string, method: 'GET' | 'POST' = 'GET'): Buffer {
  const p = Buffer.from(path);
  if (p.length > 126) throw new Error('requestBlock: path too long for a one-byte length');
  return Buffer.concat([Buffer.from([method === 'GET' ? 0x82 : 0x83, 0x86, 0x04, p.length]), p]);
}

export interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

/** A raw TCP client speaking frames: collects every frame the server sends and whether it closed. */
export class RawH2 {
  readonly frames: Frame[] = [];
  closed = false;
  private buf = Buffer.alloc(0);
  private readonly waiters: (() => void)[] = [];
  readonly sock: net.Socket;

  /** Every byte the server sent, in order. */
  received = Buffer.alloc(0);

  private constructor(sock: net.Socket) {
    this.sock = sock;
    sock.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 9) {
        const len = this.buf.readUIntBE(0, 3);
        if (this.buf.length < 9 + len) break;
        this.frames.push({
          type: this.buf[3] as number,
          flags: this.buf[4] as number,
          stream: this.buf.readUInt32BE(5) & 0x7fffffff,
          payload: this.buf.subarray(9, 9 + len),
        });
        this.buf = this.buf.subarray(9 + len);
      }
      this.wake();
    });
    sock.on('close', () => {
      this.closed = true;
      this.wake();
    });
    sock.on('error', () => {});
  }

  /** Reads the frames of a connected socket (TCP, or TLS with ALPN h2) that has sent nothing yet. */
  static over(sock: net.Socket): RawH2 {
    return new RawH2(sock);
  }

  /** Connects, sends the preface and an empty SETTINGS frame, and acknowledges the server's SETTINGS. */
  static async open(port: number): Promise<RawH2> {
    const sock = net.connect(port, '127.0.0.1');
    await bounded(new Promise((r) => sock.once('connect', r)), 3000, 'raw h2 connect');
    const c = new RawH2(sock);
    sock.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
    await c.until((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0, 'server SETTINGS');
    sock.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
    return c;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Writes bytes unless the socket is gone (a flood keeps writing after the server cut it off). */
  send(b: Buffer): boolean {
    if (this.closed || this.sock.destroyed) return false;
    return this.sock.write(b);
  }

  /** Waits for a frame matching `pred` (already received or coming), or fails after `ms`. */
  async until(pred: (f: Frame) => boolean, what: string, ms = 5000): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const f = this.frames.find(pred);
      if (f) return f;
      if (this.closed) throw new Error(`connection closed before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** Waits until the server closed the connection. */
  async untilClosed(what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** The GOAWAY's error code, if one came. */
  goaway(): number | undefined {
    const f = this.frames.find((x) => x.type === FRAME.GOAWAY);
    return f?.payload.readUInt32BE(4);
  }

  destroy(): void {
    this.sock.destroy();
  }
}
