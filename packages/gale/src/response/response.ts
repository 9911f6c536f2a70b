// The response object handlers receive. A whole reply goes to the engine in one native call; a
// streamed reply sends its head on the first write() and reports backpressure like a Node stream.
// Core here; the other methods are documented in api.ts and kept in headers.ts, helpers.ts, file.ts, etag.ts.
// Over 400 lines: Response is one class whose ~50 methods share the reply state (headersSent, finished, _headers,
// _ctype, the deferred ETag fields) that send/json/end/write/finish check and set; its header, helper and file methods
// are already one-line delegations to headers.ts, helpers.ts and file.ts, and the typed interface of the node:http
// members merges with the class here.
import { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import encodeUrl from 'encodeurl';
import { ErrorCodes, GaleError } from '../errors.js';
import { SafeHtml } from '../html.js';
import { logRequestDone, primeRequestLog } from '../logging.js';
import { CT_BYTES, CT_HTML, CT_JSON, CT_NONE, CT_TEXT, type NativeServer, type ReplyMeta } from '../native.js';
import { defineResponseMembers } from '../node-members.js';
import type { SocketView } from '../node-socket.js';
import type { HeaderValue } from '../options.js';
import type { Request } from '../request/request.js';
import type { SseOptions, SseStream } from '../sse.js';
import { pump, type StreamSource } from '../stream.js';
import type { CookieOptions, DownloadOptions, FormatHandler, HeaderEntry, ResponseHost, ResponseView } from './api.js';
import { notModified, tagNow } from './etag.js';
import { download, sendFile } from './file.js';
import {
  addLinks,
  addVary,
  appendHeader,
  attachment,
  blockOf,
  getLower,
  headerBlock,
  headerNames,
  removeLower,
  setChecked,
  setHeader,
  setType,
} from './headers.js';
import { clearCookie, format, redirect, render, setCookie, startSse, streamOrFail } from './helpers.js';

export type { CookieOptions, DownloadOptions, FormatHandler, ResponseHost } from './api.js';
export { checkHeader } from './headers.js';
export type { HeaderValue };

/**
 * An outgoing response.
 *
 * @example
 * app.get('/hi', (req, res) => res.status(201).header('x-id', '7').json({ ok: true }));
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface below types the node:http members node-members.ts installs on the prototype
export class Response implements ResponseView {
  /** The status code to send (default 200). */
  statusCode = 200;
  /** True once the head has been handed to the engine. */
  headersSent = false;
  /** True once the response has ended (or the client went away). */
  finished = false;
  /** @internal the handlerTimeout's deadline in the app's ticks (unanswered.ts); -1: may stay open (stream, SSE) */
  _dl = 0;
  /** @internal the route the handlerTimeout names (set with `_dl`) */
  _rt: unknown = undefined;
  /** @internal */ readonly _id: number;
  /** @internal */ readonly _req: Request;
  /** @internal */ readonly _n: NativeServer;
  /** @internal */ readonly _host: ResponseHost;
  /** @internal */ _ctype: string | number = CT_NONE;
  /** @internal */ _headers: Map<string, HeaderEntry> | undefined;
  /** @internal */ _events: EventEmitter | undefined;
  /** @internal */ _locals: Record<string, unknown> | undefined;
  /** @internal performance.now() at the start when requests are logged, else 0 */
  readonly _t0: number;
  /**
   * @internal called once just before the head goes out (session cookies, a patched writeHead), with the body when
   * the response is sent whole; on the prototype (undefined) so responses that never set it carry no field for it.
   * Add to it with `addHeadHook` (node-members.ts), which keeps the hooks already there.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most head hooks return nothing
  declare _onHead: ((body?: string | Uint8Array) => string | Uint8Array | undefined | void) | undefined;
  /**
   * The reason phrase to send instead of the standard one (as node:http's `res.statusMessage`); characters a
   * status line cannot hold make the engine send the standard phrase.
   */
  declare statusMessage: string | undefined;
  /** @internal the app set `Connection: close` (the engine writes Connection itself) */
  declare _close: boolean | undefined;
  /** @internal the app set Content-Length: a streamed body is sent with it, and a HEAD answer states it */
  declare _length: number | undefined;
  /**
   * @internal the route's response serializer (its `response` schemas, compiled: serialize.ts), set by the route
   * before its handler runs; on the prototype (undefined) so other responses carry no field for it
   */
  declare _ser: ((status: number, value: unknown) => string) | undefined;
  /**
   * @internal The body whose entity tag is this response's ETag, not made yet (`_tagLater`): the engine adds it to the
   * head at the end, unless something reads the headers first (then it is made here). On the prototype (undefined).
   */
  declare _etagBody: string | Uint8Array | undefined;
  /** @internal with `_etagBody`: 1 weak, 2 strong (the engine's ETag bits, shifted up 16 in `end`'s status) */
  declare _etagBits: number;

  constructor(n: NativeServer, id: number, req: Request, host: ResponseHost) {
    this._n = n;
    this._id = id;
    this._req = req;
    this._host = host;
    this._t0 = host.logRequests ? performance.now() : 0;
  }

  /**
   * Values for templates rendered by this response (merged over `app.locals`, under `render`'s data).
   *
   * @example
   * app.use((req, res, next) => { res.locals.user = req.user; return next(); });
   */
  get locals(): Record<string, unknown> {
    if (this._locals === undefined) this._locals = {};
    return this._locals;
  }

  /** Sets the status code. */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) {
      throw new GaleError(ErrorCodes.INVALID_STATUS, `status must be an integer from 100 to 999, got ${code}`);
    }
    this.statusCode = code;
    return this;
  }

  /** Sets a header (replacing one of the same name). Content-Length and framing are the engine's. */
  header(name: string, value: HeaderValue): this {
    setHeader(this, name, value);
    return this;
  }

  /**
   * @internal header() for a name and value the caller has already validated at least as strictly (the Express
   * layer's setHeader checks them with node:http's rules first), with the name's lower case: one check per header.
   */
  _headerValid(name: string, lower: string, value: HeaderValue): this {
    setChecked(this, name, lower, value);
    return this;
  }

  /**
   * Sends `value` as JSON (with an ETag, and 304 when the request's If-None-Match matches). On a route with a
   * `response` schema for the status, through the serializer compiled from it (only the properties it names).
   *
   * @example
   * app.get('/user', (req, res) => res.json({ id: 1 }));
   */
  json(value: unknown): void {
    const ser = this._ser;
    const body = ser === undefined ? JSON.stringify(value) : ser(this.statusCode, value);
    this.sendBody(this._ctype === CT_NONE ? CT_JSON : this._ctype, body === undefined ? 'null' : body);
  }

  /**
   * Sends a string (text/plain), bytes (application/octet-stream), `html` markup (text/html) or any
   * other value as JSON. A type set with `type()`/`header()` wins. Bodies get an ETag (app option
   * `etag`) and the answer is 304 when the request's If-None-Match matches it.
   *
   * @example
   * app.get('/', (req, res) => res.send('hello'));
   */
  send(body?: unknown): void {
    const none = this._ctype === CT_NONE;
    if (body === undefined || body === null) this.finish(this._ctype, undefined);
    else if (typeof body === 'string') this.sendBody(none ? CT_TEXT : this._ctype, body);
    else if (body instanceof Uint8Array) this.sendBody(none ? CT_BYTES : this._ctype, body);
    else if (body instanceof ArrayBuffer) this.sendBody(none ? CT_BYTES : this._ctype, new Uint8Array(body));
    else if (body instanceof SafeHtml) this.sendBody(none ? CT_HTML : this._ctype, body.value);
    else this.json(body);
  }

  /**
   * Sends HTML (text/html; charset=utf-8 unless a type was set).
   *
   * @example
   * app.get('/', (req, res) => res.html('<h1>Hi</h1>'));
   */
  html(body: string | SafeHtml): void {
    this.sendBody(this._ctype === CT_NONE ? CT_HTML : this._ctype, typeof body === 'string' ? body : body.value);
  }

  /**
   * Sends the status code with its reason phrase as a text/plain body.
   *
   * @example
   * app.post('/jobs', async (req, res) => { queue.push(await req.json()); res.sendStatus(202); }); // "Accepted"
   */
  sendStatus(code: number): void {
    this.status(code);
    this.type('txt');
    this.sendBody(this._ctype, STATUS_CODES[code] ?? String(code));
  }

  /** Ends the response, with an optional last piece of body. */
  end(body?: string | Uint8Array): void {
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) badBody(body);
    // The client left: there is nothing to end (as on a destroyed Node response).
    if (this.finished && this._req._aborted) return;
    if (this.headersSent && !this.finished) {
      this.finished = true;
      this._host.forget(this._id);
      this._req._keep();
      if (!this._n.endStream(this._id, body)) {
        // The engine had already let go (the client left, or was cut off for not reading): the
        // body did not all arrive, so this is an abort, not a finish.
        this._req._aborted = true;
        this._req._abort?.abort(new Error('client disconnected'));
        this._events?.emit('close');
        if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, true);
        return;
      }
      this._events?.emit('finish');
      if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, false);
      return;
    }
    this.finish(this._ctype, body);
  }

  /**
   * Streams a chunk (the head goes out first, chunked on HTTP/1.1). Returns false when the client is
   * not keeping up: wait for the `'drain'` event before writing more.
   */
  write(chunk: string | Uint8Array): boolean {
    if (this.finished) {
      // The client left: writes are dropped (req.signal says why). `true`, so a loop waiting for
      // 'drain' after a false does not wait forever; it ends when its source does.
      if (this._req._aborted) return true;
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'write() after the response ended');
    }
    if (!this.headersSent) {
      if (this._onHead !== undefined) this._runOnHead();
      this.headersSent = true;
      this._host.track(this);
      this._n.writeHead(this._id, this.statusCode, this._ctype, this.headerLines(), this._meta());
    }
    return this._n.write(this._id, chunk);
  }

  /**
   * Abandons the response: what was already streamed is flushed, then the connection closes without
   * completing the body, so the client sees a truncated response instead of a complete one.
   */
  destroy(): void {
    if (this.finished) return;
    this.finished = true;
    this.headersSent = true;
    this._host.forget(this._id);
    this._req._keep();
    this._n.destroy(this._id);
    this._events?.emit('close');
    if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, true);
  }

  /** Listens for `'drain'`, `'close'` (client went away or response done) or `'finish'`. */
  on(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    if (this._events === undefined) this._events = new EventEmitter();
    this._events.on(event, listener);
    return this;
  }

  /** Like `on`, once. */
  once(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    if (this._events === undefined) this._events = new EventEmitter();
    this._events.once(event, listener);
    return this;
  }

  /** Removes a listener added with `on` or `once`. */
  off(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    this._events?.off(event, listener);
    return this;
  }

  /** @internal engine events */
  _emit(event: 'drain' | 'close'): void {
    this._events?.emit(event);
  }

  /** @internal the client went away */
  _aborted(): void {
    if (this.finished) return;
    this.finished = true;
    this._n.release(this._id);
    // A writer waiting for room will get none: let it go on (its writes are now dropped).
    this._events?.emit('drain');
    this._events?.emit('close');
    if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, true);
  }

  // ResponseHeaders: documented in api.ts, kept in headers.ts.
  set(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }
  setHeader(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }
  getHeader(name: string): HeaderValue | undefined {
    return this._getLower(name.toLowerCase());
  }
  /** @internal getHeader() for a name already in lower case (the Express layer keeps its names' lower case). */
  _getLower(lower: string): HeaderValue | undefined {
    return getLower(this, lower);
  }
  /**
   * The lower-case names of the headers set on this response (Content-Type included), as node:http's
   * `getHeaderNames()`.
   *
   * @example
   * res.header('X-Id', '7').type('json');
   * res.getHeaderNames(); // ['x-id', 'content-type']
   */
  getHeaderNames(): string[] {
    return headerNames(this);
  }
  removeHeader(name: string): this {
    return this._removeLower(name.toLowerCase());
  }
  /** @internal removeHeader() for a name already in lower case. */
  _removeLower(lower: string): this {
    removeLower(this, lower);
    return this;
  }
  append(name: string, value: HeaderValue): this {
    appendHeader(this, name, value);
    return this;
  }
  get(name: string): HeaderValue | undefined {
    return this.getHeader(name);
  }
  type(type: string): this {
    setType(this, type);
    return this;
  }
  contentType(type: string): this {
    return this.type(type);
  }
  location(url: string): this {
    return this.header('Location', encodeUrl(url));
  }
  vary(field: string | string[]): this {
    addVary(this, field);
    return this;
  }
  links(links: Record<string, string | string[]>): this {
    addLinks(this, links);
    return this;
  }
  attachment(filename?: string): this {
    attachment(this, filename);
    return this;
  }

  // ResponseHelpers: documented in api.ts, made in helpers.ts.
  redirect(url: string): void;
  redirect(status: number, url: string): void;
  redirect(a: number | string, b?: string): void {
    redirect(this, a, b);
  }
  cookie(name: string, value: unknown, options: CookieOptions = {}): this {
    setCookie(this, name, value, options);
    return this;
  }
  clearCookie(name: string, options: CookieOptions = {}): this {
    clearCookie(this, name, options);
    return this;
  }
  format(handlers: Record<string, FormatHandler>): unknown {
    return format(this, handlers);
  }
  stream(source: StreamSource): Promise<boolean> {
    return streamOrFail(this, source);
  }
  /** @internal stream() without the error answer: rejects with the source's error */
  _pipe(source: StreamSource): Promise<boolean> {
    this._dl = -1; // a stream may wait for its first chunk as long as it likes: no handlerTimeout
    return pump(this, source, (chunk) => {
      if (this._ctype === CT_NONE) this._ctype = typeof chunk === 'string' ? CT_TEXT : CT_BYTES;
    });
  }
  sse(options: SseOptions = {}): SseStream {
    this._dl = -1;
    return startSse(this, options);
  }
  render(name: string, data: Record<string, unknown> = {}): Promise<void> {
    return render(this, name, data);
  }

  // ResponseFiles: documented in api.ts, sent in file.ts.
  sendFile(path: string, options: { root?: string; dotfiles?: 'ignore' | 'allow' } = {}): void {
    sendFile(this, path, options);
  }
  download(path: string, filename?: string | DownloadOptions, options: DownloadOptions = {}): void {
    download(this, path, filename, options);
  }

  /** @internal the head's extra header lines, as the engine takes them */
  headerLines(): string | undefined {
    if (this._etagBody !== undefined) this._tagNow();
    return this._headers === undefined ? undefined : headerBlock(this._headers);
  }

  /**
   * @internal Sets the ETag to `body`'s entity tag (weak or strong) without making it yet: when `finish` sends exactly
   * this body, the engine computes it from the bytes it sends and adds the line (one conversion of the body, no tag
   * string in JS); a read of the headers (before or after the end), another end or a header set after it makes it
   * here, so every reader sees it as if it had been set.
   */
  _tagLater(body: string | Uint8Array, weak: boolean): void {
    this._etagBody = body;
    this._etagBits = weak ? 1 : 2;
  }

  /** @internal makes the ETag `_tagLater` left to the engine, now (something reads the headers, or another end) */
  _tagNow(): void {
    tagNow(this);
  }

  /** @internal what the reply rarely carries (reason phrase, Connection: close, declared length), if any */
  _meta(): ReplyMeta | undefined {
    if (this.statusMessage === undefined && !this._close) return this._length;
    return [this.statusMessage, this._close === true, this._length];
  }

  /** @internal runs the before-head hook once; returns the body to send (another when an onSend hook replaced it) */
  _runOnHead(body?: string | Uint8Array): string | Uint8Array | undefined {
    const hook = this._onHead as (body?: string | Uint8Array) => string | Uint8Array | undefined;
    this._onHead = undefined;
    return hook(body) ?? body;
  }

  /**
   * @internal runs the head hook for a whole body and returns the body to send: another when an onSend hook replaced
   * it (then tagged anew when the ETag was Gale's own). Apart from `finish`, which stays small for V8 to inline.
   */
  _hookedBody(body: string | Uint8Array | undefined, autoTag: boolean): string | Uint8Array | undefined {
    const sent = this._runOnHead(body);
    if (sent === body) return body;
    if (sent !== undefined && typeof sent !== 'string' && !(sent instanceof Uint8Array)) badBody(sent);
    if (autoTag && sent !== undefined) {
      this._tagLater(sent, this._etagBits === 1);
      this._tagNow();
    }
    return sent;
  }

  /**
   * @internal hands the whole response to the engine (send/json/html/end/redirect). `lines` (fetch handlers)
   * stands for headerLines(): pass it only when no header was set on this response and no hook is waiting.
   */
  finish(ctype: string | number, body: string | Uint8Array | undefined, lines?: string): void {
    if (this.finished || this.headersSent) {
      // The client left: there is no one to answer (as end() after an abort, and a destroyed Node response).
      if (this.finished && this._req._aborted) return;
      throw new GaleError(
        ErrorCodes.HEADERS_SENT,
        'cannot send a response: one was already sent (or streaming started) for this request',
      );
    }
    // Checked before the state changes, so a caller that catches the TypeError can still answer.
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) badBody(body);
    let status = this.statusCode;
    let tagged = false;
    const autoTag = this._etagBody !== undefined;
    if (autoTag) {
      // The engine tags the body it is given (the body stays, for a read of the headers after the end); a hook may
      // read or add headers, and another body needs its own tag.
      if (body === this._etagBody && this._onHead === undefined && lines === undefined) {
        status |= this._etagBits << 16;
        tagged = true;
      } else this._tagNow();
    }
    if (this._onHead !== undefined) body = this._hookedBody(body, autoTag);
    this.finished = true;
    this.headersSent = true;
    const req = this._req;
    // The engine keeps the request readable until the end of this loop turn (ReqPool::retire): nothing to copy.
    if (req._deferred) this._host.forget(this._id);
    if (this._t0 !== 0) primeRequestLog(req);
    // Code may read the request after this turn (a timer, an audit log): the engine's end returns a copy of the head
    // and peer in the same crossing, parsed only if such a read comes.
    const kept = this._n.end(
      this._id,
      status,
      ctype,
      lines ?? (tagged ? blockOf(this._headers) : this.headerLines()),
      body,
      this.statusMessage === undefined && this._close === undefined && this._length === undefined
        ? undefined
        : this._meta(),
      !req._ended && req._kept === undefined,
    );
    if (typeof kept === 'string') req._kept = kept;
    if (this._events !== undefined) {
      this._events.emit('finish');
      this._events.emit('close');
    }
    if (this._t0 !== 0) logRequestDone(req, this.statusCode, this._t0, false);
  }

  /** send/json/html: adds the ETag and answers 304 when the request already has this body. */
  private sendBody(ctype: string | number, body: string | Uint8Array): void {
    const mode = this._host.etag;
    if ((mode !== false || this._headers !== undefined) && !this.finished && !this.headersSent) {
      if (notModified(this, mode, body)) {
        this.statusCode = 304;
        this.finish(CT_NONE, undefined);
        return;
      }
    }
    // No content: no Content-Type either (the ETag of what would have been sent stays, as Express).
    if (this.statusCode === 204 || this.statusCode === 304) this.finish(CT_NONE, undefined);
    else this.finish(ctype, body);
  }
}

Response.prototype._onHead = undefined;
Response.prototype._ser = undefined;
Response.prototype._etagBody = undefined;
Response.prototype._etagBits = 0;
// node:http's members that Express middleware touches (writeHead for on-headers, removeListener, …; refusals).
defineResponseMembers(Response.prototype);

/** A body the engine cannot send: a TypeError naming what to pass instead. */
function badBody(body: unknown): never {
  const what = ArrayBuffer.isView(body) ? body.constructor.name : typeof body;
  throw new TypeError(
    `a response body must be a string, a Buffer or a Uint8Array, not ${what}: convert it first (e.g. Buffer.from(view.buffer, view.byteOffset, view.byteLength))`,
  );
}

// The node:http members node-members.ts installs on the prototype (defineResponseMembers, called above), typed here.
export interface Response {
  /**
   * node:http's `writeHead(status[, statusMessage][, headers])`: sets the status and headers the head will carry.
   * The head goes out with the body (`end()`, `send()`, the first `write()`); a middleware may wrap it (on-headers,
   * as morgan and response-time do) and the wrapper runs just before the head goes out.
   *
   * @example
   * app.get('/raw', (req, res) => {
   *   res.writeHead(201, { 'content-type': 'text/plain' });
   *   res.end('made');
   * });
   */
  writeHead(statusCode: number, headers?: Record<string, HeaderValue> | HeaderValue[]): this;
  writeHead(statusCode: number, statusMessage: string, headers?: Record<string, HeaderValue> | HeaderValue[]): this;
  /**
   * True once the response has ended (false when the client left first), as node:http's.
   *
   * @example
   * res.on('close', () => { if (!res.writableEnded) console.log('client left early'); });
   */
  readonly writableEnded: boolean;
  /**
   * The connection under this response (see `SocketView`).
   *
   * @example
   * app.get('/', (req, res) => res.socket.remoteAddress);
   */
  readonly socket: SocketView;
  /**
   * `off()` under its EventEmitter name.
   *
   * @example
   * const onClose = () => clearInterval(timer);
   * res.on('close', onClose);
   * res.removeListener('close', onClose);
   */
  removeListener(event: 'drain' | 'close' | 'finish', listener: () => void): this;
  /**
   * `on()` under its EventEmitter name.
   *
   * @example
   * res.addListener('finish', () => console.log('sent'));
   */
  addListener(event: 'drain' | 'close' | 'finish', listener: () => void): this;
}
