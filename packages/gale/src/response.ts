// The response object handlers receive. A whole reply goes to the engine in one native call; a
// streamed reply sends its head on the first write() and reports backpressure like a Node stream.
import { EventEmitter } from 'node:events';
import { isAbsolute, resolve as resolvePath, sep } from 'node:path';
import { ErrorCodes, GaleError, HttpError } from './errors.js';
import { CT_BYTES, CT_HTML, CT_JSON, CT_NONE, CT_TEXT, type NativeServer } from './native.js';
import type { Request } from './request.js';

export type HeaderValue = string | number | readonly string[];

// RFC 9110 token and field-value checks: a value with CR/LF would split the response.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const BAD_VALUE = /[\0-\x08\x0a-\x1f\x7f]/;
/** Headers the engine writes itself from the body it is given. */
const ENGINE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'date']);

/** Validates a header name and value, returning the name (throws GaleError otherwise). */
export function checkHeader(name: string, value: string): string {
  if (!TOKEN.test(name)) throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
  if (BAD_VALUE.test(value)) {
    throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
  }
  return name;
}

/** Hooks the app gives every response (keeps this file free of app imports). */
export interface ResponseHost {
  /** Called when a deferred response finishes or aborts, to forget it. */
  forget(id: number): void;
  /** Called when a streamed response must be tracked for drain/abort events. */
  track(res: Response): void;
}

/**
 * An outgoing response.
 *
 * @example
 * app.get('/hi', (req, res) => res.status(201).header('x-id', '7').json({ ok: true }));
 */
export class Response {
  /** The status code to send (default 200). */
  statusCode = 200;
  /** True once the head has been handed to the engine. */
  headersSent = false;
  /** True once the response has ended (or the client went away). */
  finished = false;
  /** @internal */ readonly _id: number;
  /** @internal */ readonly _req: Request;
  private readonly _n: NativeServer;
  private readonly _host: ResponseHost;
  private _ctype: string | number = CT_NONE;
  private _headers: Map<string, [string, HeaderValue]> | undefined;
  private _events: EventEmitter | undefined;

  constructor(n: NativeServer, id: number, req: Request, host: ResponseHost) {
    this._n = n;
    this._id = id;
    this._req = req;
    this._host = host;
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
    if (this.headersSent) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, `cannot set header "${name}": the response head was already sent`);
    }
    if (!TOKEN.test(name))
      throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
    const values = typeof value === 'object' ? value : [String(value)];
    for (const v of values) {
      if (BAD_VALUE.test(v)) {
        throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
      }
    }
    const lower = name.toLowerCase();
    if (lower === 'content-type') {
      this._ctype = String(values[0]);
      return this;
    }
    if (ENGINE_HEADERS.has(lower)) return this;
    if (this._headers === undefined) this._headers = new Map();
    this._headers.set(lower, [name, value]);
    return this;
  }

  /** Alias of `header`, as in Express. */
  set(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  /** Alias of `header`, as in node:http. */
  setHeader(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  /** A header set on this response, by name. */
  getHeader(name: string): HeaderValue | undefined {
    const lower = name.toLowerCase();
    if (lower === 'content-type') return this._ctype === CT_NONE ? undefined : contentTypeName(this._ctype);
    return this._headers?.get(lower)?.[1];
  }

  /** Removes a header set on this response. */
  removeHeader(name: string): this {
    const lower = name.toLowerCase();
    if (lower === 'content-type') this._ctype = CT_NONE;
    else this._headers?.delete(lower);
    return this;
  }

  /** Sends `value` as JSON. */
  json(value: unknown): void {
    const body = JSON.stringify(value);
    this.finish(this._ctype === CT_NONE ? CT_JSON : this._ctype, body === undefined ? 'null' : body);
  }

  /** Sends a string (text/plain), bytes (application/octet-stream) or any other value as JSON. */
  send(body?: unknown): void {
    const none = this._ctype === CT_NONE;
    if (body === undefined || body === null) this.finish(this._ctype, undefined);
    else if (typeof body === 'string') this.finish(none ? CT_TEXT : this._ctype, body);
    else if (body instanceof Uint8Array) this.finish(none ? CT_BYTES : this._ctype, body);
    else if (body instanceof ArrayBuffer) this.finish(none ? CT_BYTES : this._ctype, new Uint8Array(body));
    else this.json(body);
  }

  /** Sends HTML. */
  html(body: string): void {
    this.finish(this._ctype === CT_NONE ? CT_HTML : this._ctype, body);
  }

  /**
   * Sends a file from disk through the engine's static path (validators, 304, Range, precompressed
   * siblings). `path` must be absolute unless `root` is given; paths with dot-segments under `root`
   * and dotfiles are refused with 404. Headers set on `res` are sent too.
   *
   * @example
   * app.get('/report', (req, res) => res.sendFile('report.pdf', { root: '/srv/files' }));
   */
  sendFile(path: string, options: { root?: string; dotfiles?: 'ignore' | 'allow' } = {}): void {
    let full = path;
    // Dotfile checks cover what the caller did not choose: the part below root, or the file name.
    let checked: string[];
    if (options.root !== undefined) {
      const root = resolvePath(options.root);
      full = resolvePath(root, path.replace(/^\/+/, ''));
      if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) {
        throw new HttpError(404, 'Not Found');
      }
      checked = full.slice(root.length).split(sep);
    } else if (!isAbsolute(path)) {
      throw new GaleError(ErrorCodes.INVALID_PATH, `sendFile needs an absolute path or a root option, got ${path}`);
    } else {
      checked = [full.slice(full.lastIndexOf(sep) + 1)];
    }
    if (options.dotfiles !== 'allow' && checked.some((seg) => seg.startsWith('.') && seg.length > 1)) {
      throw new HttpError(404, 'Not Found');
    }
    if (this.finished || this.headersSent) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot send a file: a response was already sent');
    }
    const lines = this.headerLines();
    const code = this._n.sendFile(this._id, full, lines);
    if (code === 404) throw new HttpError(404, 'Not Found');
    this.finished = true;
    this.headersSent = true;
    if (this._req._deferred) {
      this._req._snapshot();
      this._host.forget(this._id);
    }
    this._events?.emit('finish');
  }

  /** Ends the response, with an optional last piece of body. */
  end(body?: string | Uint8Array): void {
    if (this.headersSent && !this.finished) {
      this.finished = true;
      this._req._snapshot();
      this._host.forget(this._id);
      this._n.endStream(this._id, body);
      this._events?.emit('finish');
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
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'write() after the response ended');
    }
    if (!this.headersSent) {
      this.headersSent = true;
      this._host.track(this);
      this._n.writeHead(this._id, this.statusCode, this._ctype, this.headerLines());
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
    this._req._snapshot();
    this._host.forget(this._id);
    this._n.destroy(this._id);
    this._events?.emit('close');
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

  /** @internal engine events */
  _emit(event: 'drain' | 'close'): void {
    this._events?.emit(event);
  }

  /** @internal the client went away */
  _aborted(): void {
    if (this.finished) return;
    this.finished = true;
    this._req._snapshot();
    this._n.release(this._id);
    this._events?.emit('close');
  }

  private headerLines(): string | undefined {
    if (this._headers === undefined) return undefined;
    let out = '';
    for (const [name, value] of this._headers.values()) {
      if (typeof value === 'object') for (const v of value) out += `${name}: ${v}\r\n`;
      else out += `${name}: ${value}\r\n`;
    }
    return out;
  }

  private finish(ctype: string | number, body: string | Uint8Array | undefined): void {
    if (this.finished || this.headersSent) {
      throw new GaleError(
        ErrorCodes.HEADERS_SENT,
        'cannot send a response: one was already sent (or streaming started) for this request',
      );
    }
    this.finished = true;
    this.headersSent = true;
    const req = this._req;
    if (req._deferred) {
      req._snapshot();
      this._host.forget(this._id);
    }
    this._n.end(this._id, this.statusCode, ctype, this.headerLines(), body);
    if (this._events !== undefined) {
      this._events.emit('finish');
      this._events.emit('close');
    }
  }
}

function contentTypeName(ct: string | number): string {
  if (typeof ct === 'string') return ct;
  return ['', 'application/json', 'text/plain; charset=utf-8', 'application/octet-stream', 'text/html; charset=utf-8'][
    ct
  ] as string;
}
