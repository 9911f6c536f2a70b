// The node:http ServerResponse half of the Express layer's `res`: headers, writeHead, write, end,
// events, socket — over a Gale Response. A whole reply (end with a body) is one Gale call; writes
// stream, with the Content-Length the app set (the engine frames by it) or chunked. Middleware may
// patch write/end/writeHead on the instance (compression, morgan, express-session do): every
// internal path goes through `this.`.
// Over 400 lines: NodeResponse reimplements the node:http ServerResponse surface that middleware may call (about 40
// methods and getters: the writable* getters, the header methods, writeHead, write, end, destroy, no-op stubs such as
// cork and writeContinue) with node:http's error codes, all on one class sharing _header, _clen, _te and _streaming.
import { OutgoingMessage, STATUS_CODES } from 'node:http';
import { Stream } from 'node:stream';
import type { Response as GaleResponse } from 'gale';
import type { ExpressRequest } from './request.js';
import type { SocketView } from './socket.js';

type HeaderValue = string | number | readonly string[];
/** node:http underneath (node-adapter.ts) takes the Content-Length as a header. */
type Sink = { length?: (v: HeaderValue | undefined, te?: HeaderValue) => void };
type Cb = (err?: Error | null) => void;

const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

function codeError(code: string, message: string, Kind: ErrorConstructor = Error): Error {
  return Object.assign(new Kind(message), { code });
}

// Header names and values an app sets are mostly the same strings on every request (helmet sets ~12 fixed ones):
// names already checked map to their lower case, values already checked are remembered, so a repeat costs one hash
// lookup (cached in the string) instead of a regex and a toLowerCase. Both stop growing at CACHE_MAX entries, and
// long values are never kept, so per-request values (ETags, cookies) cannot grow them without bound.
const CACHE_MAX = 512;
const LOWER = new Map<string, string>();
const VALID = new Set<string>();

/** The lower case of a valid header name, or throws node:http's ERR_INVALID_HTTP_TOKEN. */
function checkedLower(name: string): string {
  const known = LOWER.get(name);
  if (known !== undefined) return known;
  if (typeof name !== 'string' || !name || !TOKEN.test(name)) {
    throw codeError('ERR_INVALID_HTTP_TOKEN', `Header name must be a valid HTTP token ["${name}"]`, TypeError);
  }
  const lower = name.toLowerCase();
  if (LOWER.size < CACHE_MAX) LOWER.set(name, lower);
  return lower;
}

function checkValue(name: string, value: string): void {
  if (VALID.has(value)) return;
  if (INVALID_CHAR.test(value)) {
    throw codeError('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`, TypeError);
  }
  if (value.length <= 256 && VALID.size < CACHE_MAX) VALID.add(value);
}

/** node:http's checks of setHeader(name, value): returns the name's lower case. */
function validateHeader(name: string, value: unknown): string {
  const lower = checkedLower(name);
  if (value === undefined) {
    throw codeError('ERR_HTTP_INVALID_HEADER_VALUE', `Invalid value "undefined" for header "${name}"`, TypeError);
  }
  if (typeof value === 'string') checkValue(name, value);
  else if (Array.isArray(value)) for (const v of value) checkValue(name, String(v));
  else checkValue(name, String(value));
  return lower;
}

function headersSentError(): Error {
  return codeError('ERR_HTTP_HEADERS_SENT', 'Cannot set headers after they are sent to the client');
}

function toData(chunk: unknown, encoding: unknown): string | Uint8Array {
  if (typeof chunk === 'string') {
    if (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8') return chunk;
    return Buffer.from(chunk, encoding as BufferEncoding);
  }
  if (chunk instanceof Uint8Array) return chunk;
  throw codeError(
    'ERR_INVALID_ARG_TYPE',
    `The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${typeof chunk}`,
    TypeError,
  );
}

function byteLength(d: string | Uint8Array): number {
  return typeof d === 'string' ? Buffer.byteLength(d) : d.byteLength;
}

/**
 * node:http's private symbol for an OutgoingMessage's header store (`{ lower: [name, value] }`). Some packages call
 * `http.OutgoingMessage.prototype.setHeader.call(res, …)` on an Express response (`cookies`, which cookie-session and
 * Keystone use, does when `res.set` exists); those methods read and write this store, so `res` exposes a view of its
 * headers under the same symbol (made on first use: nothing is paid by responses nobody calls that way).
 */
const kOutHeaders = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders');
const outHeadersView = new WeakMap<NodeResponse, object>();

function outHeaders(res: NodeResponse): object {
  let view = outHeadersView.get(res);
  if (view === undefined) {
    view = new Proxy(Object.create(null) as object, {
      get: (_t, key) => {
        if (typeof key !== 'string') return undefined;
        const value = res.getHeader(key);
        return value === undefined ? undefined : [key, value];
      },
      set: (_t, key, entry) => {
        if (typeof key !== 'string' || !Array.isArray(entry)) return false;
        res.setHeader(String(entry[0] ?? key), entry[1] as HeaderValue);
        return true;
      },
      deleteProperty: (_t, key) => {
        if (typeof key === 'string') res.removeHeader(key);
        return true;
      },
      has: (_t, key) => typeof key === 'string' && res.hasHeader(key),
      ownKeys: () => res.getHeaderNames(),
      getOwnPropertyDescriptor: (_t, key) => {
        if (typeof key !== 'string') return undefined;
        const value = res.getHeader(key);
        if (value === undefined) return undefined;
        return { configurable: true, enumerable: true, writable: true, value: [key, value] };
      },
    });
    outHeadersView.set(res, view);
  }
  return view;
}

/**
 * node:http keeps a request's fields for as long as the object lives, and Express middleware reads them late (a
 * logger in a later event-loop turn, `send` after the socket was destroyed): copy them out of the engine before it
 * lets go of the request. Gale's own end and destroy do it for every response; this is for the client leaving first.
 * A no-op over node:http.
 */
function keepRequest(req: ExpressRequest): void {
  // One copy of the head and peer, parsed only if something reads a field after the engine lets go (node:http's
  // request underneath has no such method: it keeps everything itself).
  (req._g as unknown as { _keep?: () => void })._keep?.();
}

/** node:http underneath (node-adapter.ts): it frames by the headers it is given. */
function isNodeSink(g: GaleResponse): boolean {
  return (g as unknown as Sink).length !== undefined;
}

/** The app set a non-zero Content-Length on a response that has a body (not HEAD, 1xx, 204 or 304). */
function declaresBody(res: NodeResponse): boolean {
  const s = res.statusCode;
  return (
    res._clen !== undefined && Number(res._clen) > 0 && res.req.method !== 'HEAD' && s >= 200 && s !== 204 && s !== 304
  );
}

/**
 * node:http from Node 24 on: `writableFinished` turns true a tick after `end()` (once the socket took the bytes), and
 * `end()`'s callback runs before the socket is let go (`res.socket` is still set in it); Node 20 and 22 do both at once.
 */
const LATE_FINISH = Number(process.versions.node.split('.')[0]) >= 24;

function emitFinish(res: NodeResponse): void {
  res._done = true;
  // node:http lets go of the socket as the response finishes, before the app's 'finish' listeners run (from Node 24,
  // after end()'s callback, which runs on 'prefinish' here).
  if (!LATE_FINISH) res._detached = true;
  res.emit('prefinish');
  res._detached = true;
  res.emit('finish');
  res.emit('close');
}

/**
 * The node:http side of the Express response. Express's helpers (response.ts) extend it.
 *
 * @example
 * app.get('/raw', (req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: EventEmitter's methods come from the prototype chain set below the class
export class NodeResponse {
  /** @internal the Gale response underneath */
  _g: GaleResponse;
  req: ExpressRequest;
  statusCode = 200;
  statusMessage: string | undefined = undefined;
  /** Truthy once the head is committed (Node keeps the header text here; middleware tests it). */
  _header: boolean | string = false;
  /** True once end() was called (Node's `finished`). */
  finished = false;
  /** @internal the engine has the whole response (writableFinished) */
  _done = false;
  /** @internal 'finish' came: res.socket is null from then on, as on node:http */
  _detached = false;
  /** @internal */ _clen: HeaderValue | undefined = undefined;
  /** @internal */ _te: HeaderValue | undefined = undefined;
  /** @internal the head went to Gale as a streamed (chunked) response */
  _streaming = false;
  /** @internal Gale's close/drain are forwarded */
  _watching = false;
  /** @internal */ _destroyed = false;
  sendDate = true;
  chunkedEncoding = false;
  shouldKeepAlive = true;
  useChunkedEncodingByDefault = true;
  declare _events: object | undefined;

  constructor(g: GaleResponse, req: ExpressRequest) {
    this._g = g;
    this.req = req;
  }

  get headersSent(): boolean {
    return Boolean(this._header);
  }
  get writableEnded(): boolean {
    return this.finished;
  }
  get writableFinished(): boolean {
    return this._done;
  }
  get writable(): boolean {
    return !this.finished && !this._destroyed;
  }
  get destroyed(): boolean {
    return this._destroyed;
  }
  get writableLength(): number {
    return 0;
  }
  get writableHighWaterMark(): number {
    return 16384;
  }
  get writableCorked(): number {
    return 0;
  }
  get writableNeedDrain(): boolean {
    return false;
  }
  get writableObjectMode(): boolean {
    return false;
  }
  get socket(): SocketView | null {
    return this._detached ? null : this.req.socket;
  }
  get connection(): SocketView | null {
    return this._detached ? null : this.req.socket;
  }

  /** @internal forward Gale's drain and client-gone events (installed when someone listens) */
  _watch(): void {
    if (this._watching) return;
    this._watching = true;
    this._g.on('close', () => {
      if (this.finished || this._destroyed) return;
      this._destroyed = true;
      keepRequest(this.req);
      this.req._aborted();
      this.emit('close');
    });
    this._g.on('drain', () => this.emit('drain'));
  }

  // ---- headers -------------------------------------------------------------------------------

  setHeader(name: string, value: HeaderValue): this {
    if (this._header) throw headersSentError();
    const lower = validateHeader(name, value);
    if (lower === 'content-length') this._clen = value;
    else if (lower === 'transfer-encoding') this._te = value;
    // Destroyed (socket.destroy(), the client gone) before its head: node:http still takes headers, which are never
    // sent; so do we, instead of the Gale response's headers-sent error (send() sets some after the socket died).
    else if (!this._g.headersSent) this._g._headerValid(name, lower, value);
    return this;
  }
  appendHeader(name: string, value: HeaderValue): this {
    const prev = this.getHeader(name);
    if (prev === undefined) return this.setHeader(name, value);
    const list = Array.isArray(prev) ? [...prev] : [String(prev)];
    if (Array.isArray(value)) list.push(...value);
    else list.push(String(value));
    return this.setHeader(name, list);
  }
  setHeaders(headers: Headers | Map<string, HeaderValue>): this {
    for (const [k, v] of headers) this.setHeader(k, v);
    return this;
  }
  getHeader(name: string): HeaderValue | undefined {
    const lower = LOWER.get(name) ?? name.toLowerCase();
    if (lower === 'content-length') return this._clen;
    if (lower === 'transfer-encoding') return this._te;
    return this._g._getLower(lower);
  }
  getHeaderNames(): string[] {
    const names = this._g.getHeaderNames();
    if (this._clen !== undefined) names.push('content-length');
    if (this._te !== undefined) names.push('transfer-encoding');
    return names;
  }
  getRawHeaderNames(): string[] {
    return this.getHeaderNames();
  }
  getHeaders(): Record<string, HeaderValue> {
    const out = Object.create(null) as Record<string, HeaderValue>;
    for (const n of this.getHeaderNames()) out[n] = this.getHeader(n) as HeaderValue;
    return out;
  }
  hasHeader(name: string): boolean {
    return this.getHeader(name) !== undefined;
  }
  removeHeader(name: string): void {
    if (this._header) throw headersSentError();
    const lower = LOWER.get(name) ?? name.toLowerCase();
    if (lower === 'content-length') this._clen = undefined;
    else if (lower === 'transfer-encoding') this._te = undefined;
    else if (!this._g.headersSent) this._g._removeLower(lower);
  }

  /** Commits status and headers (sent with the first write or the end). */
  writeHead(statusCode: number, reason?: unknown, obj?: unknown): this {
    if (this._header)
      throw codeError('ERR_HTTP_HEADERS_SENT', 'Cannot write headers after they are sent to the client');
    const code = statusCode | 0;
    if (code < 100 || code > 999) {
      throw codeError('ERR_HTTP_INVALID_STATUS_CODE', `Invalid status code: ${statusCode}`, RangeError);
    }
    if (typeof reason === 'string') this.statusMessage = reason;
    else {
      this.statusMessage ||= STATUS_CODES[code] || 'unknown';
      obj ??= reason;
    }
    this.statusCode = code;
    if (Array.isArray(obj)) {
      if (obj.length > 0 && Array.isArray(obj[0])) {
        for (const [k, v] of obj as [string, HeaderValue][]) if (k) this.appendHeader(k, v);
      } else {
        if (obj.length % 2 !== 0)
          throw codeError('ERR_INVALID_ARG_VALUE', 'The argument headers is invalid', TypeError);
        for (let n = 0; n < obj.length; n += 2) if (obj[n]) this.appendHeader(obj[n], obj[n + 1]);
      }
    } else if (obj && typeof obj === 'object') {
      for (const k of Object.keys(obj))
        if (k) this.setHeader(k, (obj as Record<string, HeaderValue>)[k] as HeaderValue);
    }
    this._header = true;
    return this;
  }
  /** node:http's own setHeader/appendHeader ask this (Node ≥ 24) when called on this response (see kOutHeaders). */
  _isLenientHeaderValidation(): boolean {
    return false;
  }
  _implicitHeader(): void {
    this.writeHead(this.statusCode);
  }
  flushHeaders(): void {
    if (!this._header) this._implicitHeader();
    this._startStream();
    if (!this._g.finished) this._g.write('');
  }
  writeContinue(): void {}
  writeProcessing(): void {}
  writeEarlyHints(): void {}
  addTrailers(): void {}
  setTimeout(_ms: number, cb?: () => void): this {
    if (cb) this.once('timeout', cb);
    return this;
  }
  cork(): void {}
  uncork(): void {}
  assignSocket(): void {}
  detachSocket(): void {}

  // ---- body ----------------------------------------------------------------------------------

  /** @internal status, reason phrase and declared length onto the Gale response, just before its head goes */
  _commit(): void {
    const g = this._g;
    g.status(this.statusCode);
    const msg = this.statusMessage;
    if (msg !== undefined && msg !== STATUS_CODES[this.statusCode]) g.statusMessage = msg;
    const sink = g as unknown as Sink;
    if (sink.length !== undefined) sink.length(this._clen, this._te);
    // Checked by setHeader with node:http's rules, stricter than Gale's header(): no second check.
    else if (this._clen !== undefined) g._headerValid('Content-Length', 'content-length', this._clen);
  }

  /** @internal sends the head as a streamed response (Content-Length framed when one was set, else chunked) */
  _startStream(): void {
    if (this._streaming) return;
    this._streaming = true;
    this._watch();
    if (!this._g.finished) this._commit();
  }

  write(chunk: unknown, encoding?: unknown, cb?: Cb): boolean {
    if (typeof encoding === 'function') {
      cb = encoding as Cb;
      encoding = undefined;
    }
    if (this.finished) {
      const err = codeError('ERR_STREAM_WRITE_AFTER_END', 'write after end');
      process.nextTick(() => {
        cb?.(err);
        this.emit('error', err);
      });
      return false;
    }
    if (chunk === null) throw codeError('ERR_STREAM_NULL_VALUES', 'May not write null values to stream', TypeError);
    if (!this._header) this._implicitHeader();
    const data = toData(chunk, encoding);
    let ok = true;
    const len = byteLength(data);
    if (len !== 0 && !this._destroyed) {
      this._startStream();
      if (!this._g.finished) ok = this._g.write(data);
    }
    if (cb) process.nextTick(cb);
    return ok;
  }

  end(chunk?: unknown, encoding?: unknown, cb?: Cb): this {
    if (typeof chunk === 'function') {
      cb = chunk as Cb;
      chunk = undefined;
    } else if (typeof encoding === 'function') {
      cb = encoding as Cb;
      encoding = undefined;
    }
    if (this.finished) {
      if (cb) process.nextTick(cb);
      return this;
    }
    const data = chunk === undefined || chunk === null ? undefined : toData(chunk, encoding);
    if (!this._header) this._implicitHeader();
    this.finished = true;
    // Gale's end keeps the request's head for late reads (in the engine's end, or before a stream's end); over
    // node:http nothing needs keeping.
    const g = this._g;
    if (!this._destroyed && !g.finished) {
      if (this._streaming) g.end(data);
      else if (this._te !== undefined && this._clen === undefined && g.write !== undefined && !isNodeSink(g)) {
        // The app framed the body with Transfer-Encoding: the engine sends it as a stream (chunked, no
        // Content-Length), the framing it writes itself for every streamed body.
        this._startStream();
        g.write(data ?? ''); // an empty write still sends the streamed head
        g.end();
      } else if (
        declaresBody(this) &&
        (data === undefined || byteLength(data) === 0) &&
        g.write !== undefined &&
        !isNodeSink(g)
      ) {
        // A length declared and no body sent: the head keeps the app's Content-Length, as node:http's does, and the
        // engine closes the connection after the short body (the client sees it incomplete, not a whole empty one).
        this._startStream();
        g.write(''); // sends the streamed head
        g.end();
      } else {
        // A whole body: the engine sends its real length (a HEAD answer states the declared one).
        this._commit();
        g.end(data);
      }
    }
    if (cb) this.once(LATE_FINISH ? 'prefinish' : 'finish', cb);
    // The engine has the whole response: finished for writableFinished at once, as node:http is once its socket took
    // the bytes (from Node 24, a tick later: then with 'finish', unless nothing listens); 'finish' comes on the next
    // tick.
    const emit = this._events !== undefined || this.req._readableState !== undefined;
    this._done = !LATE_FINISH || !emit;
    if (emit) process.nextTick(emitFinish, this);
    return this;
  }

  /** Abandons the response: the connection is closed without completing it. */
  destroy(err?: Error): this {
    if (this._destroyed) return this;
    this._destroyed = true;
    // Gale's destroy keeps the request's head for late reads.
    if (!this._g.finished) this._g.destroy();
    process.nextTick(() => {
      if (err) this.emit('error', err);
      this.emit('close');
    });
    return this;
  }
}

if (kOutHeaders !== undefined) {
  Object.defineProperty(NodeResponse.prototype, kOutHeaders, {
    configurable: true,
    get(this: NodeResponse) {
      return outHeaders(this);
    },
    // Node assigns a fresh store only when it found none (null); the view is never null, so nothing to keep.
    set() {},
  });
}

// Legacy Stream (an EventEmitter with pipe), as OutgoingMessage: `res instanceof Stream` holds, and
// EventEmitter's methods create their state on first use (no per-response cost until then).
Object.setPrototypeOf(NodeResponse.prototype, Stream.prototype);
export interface NodeResponse extends NodeJS.EventEmitter {}
for (const name of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener'] as const) {
  const orig = (Stream.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[name] as (
    ...a: unknown[]
  ) => unknown;
  Object.defineProperty(NodeResponse.prototype, name, {
    configurable: true,
    writable: true,
    value: function (this: NodeResponse, ...args: unknown[]) {
      this._watch();
      return orig.apply(this, args);
    },
  });
}
