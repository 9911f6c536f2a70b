// Shared helpers for Gale's integration tests: app lifecycle, a raw-socket client, and a strict
// HTTP/1.1 response parser that splits pipelined responses (Content-Length, chunked, HEAD, 1xx).
// All traffic goes to 127.0.0.1; every wait is bounded.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { after, type TestContext } from 'node:test';
import { gale } from 'gale';

export type App = ReturnType<typeof gale>;
export type GaleOptions = NonNullable<Parameters<typeof gale>[0]>;

export const HOST = '127.0.0.1';
/** Options for every test(): nothing may hang. */
export const T = { timeout: 10_000 } as const;

// Every app is closed by its test. If something (a leaked native handle, a socket the engine never
// closed) still keeps the process alive after the last test, fail loudly instead of hanging the run.
after(() => {
  setTimeout(() => {
    const live = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
    // What actually keeps the loop alive: referenced and active libuv handles (a pending setTimeout
    // shows as 'timer'; a native server that was never closed as 'poll').
    const report = process.report.getReport() as unknown as {
      libuv: { type: string; is_active: boolean; is_referenced: boolean }[];
    };
    const holding = report.libuv.filter((h) => h.is_active && h.is_referenced).map((h) => h.type);
    process.stderr.write(
      `gale tests: the process is still alive 3 s after the last test (a leaked handle, an app not closed or a timer not cleared?); active resources: ${live.join(', ')}; referenced libuv handles: ${holding.join(', ')}\n`,
    );
    process.exit(1);
  }, 3000).unref();
});

// ---------------------------------------------------------------------------------------------
// small utilities

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Deferred<V> {
  promise: Promise<V>;
  resolve: (v: V) => void;
  reject: (e: unknown) => void;
  settled: boolean;
}

export function deferred<V = void>(): Deferred<V> {
  let resolve!: (v: V) => void;
  let reject!: (e: unknown) => void;
  const d = {} as Deferred<V>;
  d.settled = false;
  d.promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  d.resolve = (v: V) => {
    d.settled = true;
    resolve(v);
  };
  d.reject = (e: unknown) => {
    d.settled = true;
    reject(e);
  };
  return d;
}

/** Rejects with a descriptive error if `p` does not settle within `ms`. */
export async function withTimeout<V>(p: Promise<V>, ms: number, label: string): Promise<V> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${label}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves true if `p` settles within `ms`, false otherwise; never leaves a timer behind. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Printable form of raw bytes for assertion messages (JSON-escaped latin1, truncated). */
export function show(data: Buffer | string, max = 1500): string {
  const s = typeof data === 'string' ? data : data.toString('latin1');
  const cut = s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
  return JSON.stringify(cut);
}

// ---------------------------------------------------------------------------------------------
// app lifecycle

export interface StartedApp {
  app: App;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  /** app.close({ timeout }) bounded by a hard deadline; idempotent. */
  close: (timeoutMs?: number) => Promise<void>;
}

export async function startApp(setup: (app: App) => void, opts?: GaleOptions): Promise<StartedApp> {
  const app = opts === undefined ? gale() : gale(opts);
  setup(app);
  const addr = await withTimeout(Promise.resolve(app.listen(0, HOST)), 5000, 'app.listen()');
  const port = addr.port;
  if (typeof port !== 'number' || port <= 0)
    throw new Error(`app.listen() returned a bad address: ${JSON.stringify(addr)}`);
  let closing: Promise<void> | undefined;
  // idleGrace 0: a test's idle keep-alive connections carry no request that closing could lose, so the app closes
  // without waiting close()'s grace for one (tests of shutdown itself call app.close() with its defaults).
  const close = (timeoutMs = 1000): Promise<void> => {
    closing ??= withTimeout(
      Promise.resolve(app.close({ timeout: timeoutMs, idleGrace: 0 })).then(() => undefined),
      timeoutMs + 4000,
      'app.close()',
    );
    return closing;
  };
  return { app, port, url: `http://${HOST}:${port}`, close };
}

/** startApp + close the app when the test ends (pass or fail). */
export async function withApp(t: TestContext, setup: (app: App) => void, opts?: GaleOptions): Promise<StartedApp> {
  const s = await startApp(setup, opts);
  t.after(() => s.close());
  return s;
}

// ---------------------------------------------------------------------------------------------
// request building

export interface RequestSpec {
  method?: string;
  path?: string;
  version?: string;
  /** Header lines in order; Host: 127.0.0.1 is prepended unless `host: false` or a Host is given. */
  headers?: Array<[string, string]> | Record<string, string>;
  host?: boolean;
  body?: string | Buffer;
  /** Add Content-Length for `body` automatically (default true when body given and no TE/CL). */
  autoLength?: boolean;
}

/** Builds raw request bytes. Header names/values are written verbatim (latin1). */
export function buildRequest(spec: RequestSpec = {}): Buffer {
  const method = spec.method ?? 'GET';
  const path = spec.path ?? '/';
  const version = spec.version ?? 'HTTP/1.1';
  const list: Array<[string, string]> = Array.isArray(spec.headers)
    ? [...spec.headers]
    : Object.entries(spec.headers ?? {});
  const has = (n: string) => list.some(([k]) => k.toLowerCase() === n);
  if (spec.host !== false && !has('host') && version !== 'HTTP/1.0') list.unshift(['Host', HOST]);
  const body = spec.body === undefined ? undefined : Buffer.isBuffer(spec.body) ? spec.body : Buffer.from(spec.body);
  if (body !== undefined && spec.autoLength !== false && !has('content-length') && !has('transfer-encoding')) {
    list.push(['Content-Length', String(body.length)]);
  }
  let head = `${method} ${path} ${version}\r\n`;
  for (const [k, v] of list) head += `${k}: ${v}\r\n`;
  head += '\r\n';
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** Encodes `parts` as a chunked body (each part one chunk) with the terminating zero chunk. */
export function chunked(parts: Array<string | Buffer>, trailer = ''): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const b = Buffer.isBuffer(p) ? p : Buffer.from(p);
    if (b.length === 0) continue;
    out.push(Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`0\r\n${trailer}\r\n`));
  return Buffer.concat(out);
}

// ---------------------------------------------------------------------------------------------
// response parsing

export interface ParsedResponse {
  statusLine: string;
  version: string;
  status: number;
  reason: string;
  /** Header fields in wire order, names as sent. */
  headers: Array<[string, string]>;
  /** Header value by case-insensitive name; several fields are joined with ", ". */
  get(name: string): string | undefined;
  getAll(name: string): string[];
  body: Buffer;
  /** body decoded as UTF-8 */
  text: string;
  chunked: boolean;
  /** Decoded chunk payloads in order (chunked responses only). */
  chunks: Buffer[];
  trailers: Array<[string, string]>;
  /** The exact bytes of this response. */
  raw: Buffer;
}

export class ResponseParseError extends Error {}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');

function parseFieldLine(line: string, where: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon <= 0) throw new ResponseParseError(`malformed ${where} line ${show(line)}`);
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) throw new ResponseParseError(`malformed ${where} name ${show(name)}`);
  return [name, line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')];
}

export interface ParseOptions {
  /** The response answers a HEAD request: no body follows the header section. */
  head?: boolean;
  /** The connection has ended: a response without length runs to the end of `buf`. */
  eof?: boolean;
}

/**
 * Parses one response at the start of `buf`. Returns null if more bytes are needed; throws
 * ResponseParseError if the bytes are not a well-formed HTTP/1.x response.
 */
export function parseOne(buf: Buffer, opts: ParseOptions = {}): { res: ParsedResponse; consumed: number } | null {
  const headEnd = buf.indexOf(CRLFCRLF);
  if (headEnd < 0) {
    if (opts.eof && buf.length > 0)
      throw new ResponseParseError(`connection ended inside a response head: ${show(buf)}`);
    return null;
  }
  const headText = buf.subarray(0, headEnd).toString('latin1');
  const lines = headText.split('\r\n');
  const statusLine = lines[0] ?? '';
  const m = /^HTTP\/(\d\.\d) (\d{3})(?: ([^\r\n]*))?$/.exec(statusLine);
  if (!m) throw new ResponseParseError(`malformed status line ${show(statusLine)} in ${show(buf)}`);
  const headers = lines.slice(1).map((l) => parseFieldLine(l, 'header'));
  const status = Number(m[2]);
  const getAll = (list: Array<[string, string]>, name: string) =>
    list.filter(([k]) => k.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
  const te = getAll(headers, 'transfer-encoding');
  const cl = getAll(headers, 'content-length');
  let pos = headEnd + 4;
  let body = Buffer.alloc(0);
  const chunks: Buffer[] = [];
  const trailers: Array<[string, string]> = [];
  let isChunked = false;

  const noBody = opts.head || (status >= 100 && status < 200) || status === 204 || status === 304;
  if (!noBody && te.length > 0) {
    if (cl.length > 0)
      throw new ResponseParseError(`response has both Transfer-Encoding and Content-Length: ${show(headText)}`);
    const codings = te
      .join(',')
      .split(',')
      .map((s) => s.trim().toLowerCase());
    if (codings[codings.length - 1] !== 'chunked') {
      throw new ResponseParseError(`unsupported Transfer-Encoding ${show(te.join(', '))}`);
    }
    isChunked = true;
    for (;;) {
      const lineEnd = buf.indexOf(CRLF, pos);
      if (lineEnd < 0) return incomplete(buf, opts, 'chunk size line');
      const sizeLine = buf.subarray(pos, lineEnd).toString('latin1');
      const sm = /^([0-9a-fA-F]+)(;.*)?$/.exec(sizeLine);
      if (!sm) throw new ResponseParseError(`bad chunk size line ${show(sizeLine)} in ${show(buf)}`);
      const size = Number.parseInt(sm[1] ?? '', 16);
      pos = lineEnd + 2;
      if (size === 0) {
        for (;;) {
          const tEnd = buf.indexOf(CRLF, pos);
          if (tEnd < 0) return incomplete(buf, opts, 'chunked trailer section');
          const line = buf.subarray(pos, tEnd).toString('latin1');
          pos = tEnd + 2;
          if (line === '') break;
          trailers.push(parseFieldLine(line, 'trailer'));
        }
        break;
      }
      if (buf.length < pos + size + 2) return incomplete(buf, opts, 'chunk data');
      chunks.push(Buffer.from(buf.subarray(pos, pos + size)));
      if (buf[pos + size] !== 0x0d || buf[pos + size + 1] !== 0x0a) {
        throw new ResponseParseError(`chunk data not followed by CRLF in ${show(buf)}`);
      }
      pos += size + 2;
    }
    body = Buffer.concat(chunks);
  } else if (!noBody && cl.length > 0) {
    const values = new Set(
      cl
        .join(',')
        .split(',')
        .map((s) => s.trim()),
    );
    if (values.size !== 1) throw new ResponseParseError(`conflicting Content-Length ${show(cl.join(', '))}`);
    const v = [...values][0] ?? '';
    if (!/^\d+$/.test(v)) throw new ResponseParseError(`bad Content-Length ${show(v)}`);
    const len = Number(v);
    if (buf.length < pos + len) return incomplete(buf, opts, `body of ${len} bytes`);
    body = Buffer.from(buf.subarray(pos, pos + len));
    pos += len;
  } else if (!noBody) {
    // close-delimited body
    if (!opts.eof) return null;
    body = Buffer.from(buf.subarray(pos));
    pos = buf.length;
  }
  const res: ParsedResponse = {
    statusLine,
    version: m[1] ?? '',
    status,
    reason: m[3] ?? '',
    headers,
    get: (name) => {
      const all = getAll(headers, name);
      return all.length === 0 ? undefined : all.join(', ');
    },
    getAll: (name) => getAll(headers, name),
    body,
    text: body.toString('utf8'),
    chunked: isChunked,
    chunks,
    trailers,
    raw: Buffer.from(buf.subarray(0, pos)),
  };
  return { res, consumed: pos };
}

function incomplete(buf: Buffer, opts: ParseOptions, what: string): null {
  if (opts.eof) throw new ResponseParseError(`connection ended inside ${what}: ${show(buf)}`);
  return null;
}

/**
 * Splits a byte stream into responses. `head` marks responses (by index in the result, 1xx
 * interim responses included) that answer HEAD requests. With `eof` (default true) the stream is
 * complete: a truncated response throws. Leftover bytes that are not a response throw.
 */
export function parseResponses(
  data: Buffer,
  opts: { head?: boolean[] | boolean; eof?: boolean } = {},
): ParsedResponse[] {
  const eof = opts.eof ?? true;
  const out: ParsedResponse[] = [];
  let buf = data;
  while (buf.length > 0) {
    const head = Array.isArray(opts.head) ? (opts.head[out.length] ?? false) : (opts.head ?? false);
    const r = parseOne(buf, { head, eof });
    if (!r) throw new ResponseParseError(`incomplete response #${out.length + 1}: ${show(buf)}`);
    out.push(r.res);
    buf = buf.subarray(r.consumed);
  }
  return out;
}

/** Exactly one response; throws listing what arrived otherwise. */
export function parseSingle(data: Buffer, opts: { head?: boolean } = {}): ParsedResponse {
  const all = parseResponses(data, { head: opts.head ?? false });
  if (all.length !== 1) throw new Error(`expected exactly 1 response, got ${all.length}: ${show(data)}`);
  return all[0] as ParsedResponse;
}

// ---------------------------------------------------------------------------------------------
// raw socket client

export class RawConn<S extends Duplex = net.Socket> {
  /** A TCP socket, or the HTTP/2 stream a WebSocket rides on (`RawConn.over`). */
  readonly socket: S;
  /** Unconsumed received bytes, kept as a list so large transfers stay linear. */
  private pending: Buffer[] = [];
  /** Every byte ever received */
  received: Buffer[] = [];
  receivedBytes = 0;

  /** Received bytes not yet consumed by read*() */
  get buf(): Buffer {
    if (this.pending.length !== 1) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0] as Buffer;
  }

  set buf(b: Buffer) {
    this.pending = [b];
  }
  /** The peer ended or reset the connection (or we destroyed it). */
  closed = false;
  /** The connection was reset (ECONNRESET / EPIPE) rather than ended cleanly. */
  reset = false;
  error: Error | undefined;
  lastDataAt = 0;
  closedAt = 0;
  private listeners = new Set<() => void>();

  private constructor(socket: S) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.pending.push(d);
      this.received.push(d);
      this.receivedBytes += d.length;
      this.lastDataAt = Date.now();
      this.notify();
    });
    socket.on('end', () => {
      this.markClosed();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      this.error = e;
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE') this.reset = true;
      this.markClosed();
    });
    socket.on('close', () => this.markClosed());
  }

  private markClosed() {
    if (!this.closed) {
      this.closed = true;
      this.closedAt = Date.now();
    }
    this.notify();
  }

  static open(port: number, timeoutMs = 3000): Promise<RawConn> {
    return withTimeout(
      new Promise<RawConn>((resolve, reject) => {
        const s = net.connect({ port, host: HOST });
        s.setNoDelay(true);
        const onErr = (e: Error) => reject(e);
        s.once('error', onErr);
        s.once('connect', () => {
          s.off('error', onErr);
          resolve(new RawConn(s));
        });
      }),
      timeoutMs,
      `connect to ${HOST}:${port}`,
    );
  }

  /** A RawConn over a byte stream that is not a TCP socket: an HTTP/2 stream carrying a WebSocket (RFC 8441). */
  static over<D extends Duplex>(stream: D): RawConn<D> {
    return new RawConn(stream);
  }

  private notify() {
    for (const l of [...this.listeners]) l();
  }

  /** All bytes received so far (consumed or not). */
  all(): Buffer {
    return Buffer.concat(this.received);
  }

  /** Writes bytes; resolves once handed to the kernel. Write errors (peer closed) are recorded, not thrown. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data, (err) => {
        if (err) this.error ??= err;
        resolve();
      });
    });
  }

  /** Writes `data` in pieces of `size` bytes with `delayMs` between them. */
  async writeSlowly(data: string | Buffer, size: number, delayMs: number): Promise<void> {
    const b = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    for (let i = 0; i < b.length; i += size) {
      await this.write(b.subarray(i, i + size));
      if (delayMs > 0) await sleep(delayMs);
      else await new Promise((r) => setImmediate(r));
    }
  }

  /** Waits until `check` returns non-undefined (re-evaluated on every arrival/close). */
  waitFor<V>(check: () => V | undefined, timeoutMs: number, label: string): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      const listener = () => {
        let v: V | undefined;
        try {
          v = check();
        } catch (e) {
          done();
          reject(e);
          return;
        }
        if (v !== undefined) {
          done();
          resolve(v);
        }
      };
      timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${label}; closed=${this.closed}; unconsumed bytes: ${show(this.buf)}`,
          ),
        );
      }, timeoutMs);
      this.listeners.add(listener);
      listener();
    });
  }

  /** Consumes and returns bytes up to and including `marker`. */
  async readUntil(marker: string | Buffer, timeoutMs = 3000): Promise<Buffer> {
    const m = typeof marker === 'string' ? Buffer.from(marker, 'latin1') : marker;
    return this.waitFor(
      () => {
        const i = this.buf.indexOf(m);
        if (i >= 0) {
          const out = Buffer.from(this.buf.subarray(0, i + m.length));
          this.buf = this.buf.subarray(i + m.length);
          return out;
        }
        if (this.closed) throw new Error(`connection closed before ${show(m)} arrived; got ${show(this.buf)}`);
        return undefined;
      },
      timeoutMs,
      show(m),
    );
  }

  /** Consumes exactly `n` bytes. */
  async readBytes(n: number, timeoutMs = 3000): Promise<Buffer> {
    return this.waitFor(
      () => {
        if (this.buf.length >= n) {
          const out = Buffer.from(this.buf.subarray(0, n));
          this.buf = this.buf.subarray(n);
          return out;
        }
        if (this.closed) throw new Error(`connection closed after ${this.buf.length} of ${n} bytes: ${show(this.buf)}`);
        return undefined;
      },
      timeoutMs,
      `${n} bytes`,
    );
  }

  /** Consumes one complete response. */
  async readResponse(opts: { head?: boolean; timeoutMs?: number } = {}): Promise<ParsedResponse> {
    return this.waitFor(
      () => {
        const r = parseOne(this.buf, { head: opts.head ?? false, eof: this.closed });
        if (r) {
          this.buf = this.buf.subarray(r.consumed);
          return r.res;
        }
        if (this.closed) throw new Error(`connection closed before a complete response; got ${show(this.buf)}`);
        return undefined;
      },
      opts.timeoutMs ?? 3000,
      'a complete response',
    );
  }

  /** Resolves true once the peer has closed the connection, false if still open after `timeoutMs`. */
  async waitForClose(timeoutMs = 3000): Promise<boolean> {
    try {
      await this.waitFor(() => (this.closed ? true : undefined), timeoutMs, 'close');
      return true;
    } catch {
      return false;
    }
  }

  /** Waits until `quietMs` pass without data (after the first byte), the connection closes, or `timeoutMs`. */
  async waitQuiet(quietMs: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const now = Date.now();
      if (now >= deadline) return;
      if (this.lastDataAt > 0 && now - this.lastDataAt >= quietMs) return;
      const wakeAt = this.lastDataAt > 0 ? Math.min(deadline, this.lastDataAt + quietMs) : deadline;
      await this.nextEvent(wakeAt - now);
    }
  }

  /** Resolves on the next arrival/close or after `ms`. */
  nextEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.listeners.add(done);
    });
  }

  /** Consumes everything received so far. */
  take(): Buffer {
    const out = this.buf;
    this.buf = Buffer.alloc(0);
    return out;
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Half-close our side (FIN). */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export interface RawResult {
  /** Everything the server sent */
  data: Buffer;
  /** The server closed (or reset) the connection before we gave up */
  closed: boolean;
  reset: boolean;
}

/**
 * Opens a connection, writes `bytes`, and collects everything until the server closes the socket
 * (waitForClose) or, otherwise, until `quietMs` pass without data after the first byte. Never waits
 * longer than `timeoutMs`. The socket is destroyed afterwards.
 */
export async function rawRequest(
  port: number,
  bytes: string | Buffer,
  opts: { waitForClose?: boolean; timeoutMs?: number; quietMs?: number } = {},
): Promise<RawResult> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const conn = await RawConn.open(port);
  try {
    await conn.write(bytes);
    if (opts.waitForClose) await conn.waitForClose(timeoutMs);
    else await conn.waitQuiet(opts.quietMs ?? 250, timeoutMs);
    return { data: conn.all(), closed: conn.closed, reset: conn.reset };
  } finally {
    conn.destroy();
  }
}

/** Sends one request with `Connection: close` and returns the single parsed response. */
export async function simpleRequest(port: number, spec: RequestSpec = {}): Promise<ParsedResponse> {
  const list: Array<[string, string]> = Array.isArray(spec.headers)
    ? [...spec.headers]
    : Object.entries(spec.headers ?? {});
  if (!list.some(([k]) => k.toLowerCase() === 'connection')) list.push(['Connection', 'close']);
  const r = await rawRequest(port, buildRequest({ ...spec, headers: list }), { waitForClose: true, timeoutMs: 5000 });
  if (!r.closed) throw new Error(`server did not close a Connection: close request; got ${show(r.data)}`);
  return parseSingle(r.data, { head: (spec.method ?? 'GET') === 'HEAD' });
}

/** Tries to connect; resolves the error code on failure, or 'connected' on success. */
export function tryConnect(port: number, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: HOST });
    const timer = setTimeout(() => {
      s.destroy();
      resolve('timeout');
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code ?? 'error');
    });
  });
}

/** Asserts-free check that a Date header value is a valid IMF-fixdate. */
export function isImfFixdate(v: string | undefined | null): boolean {
  if (!v) return false;
  return /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(
    v,
  );
}
