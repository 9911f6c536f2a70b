// The request object handlers receive. Everything but params is fetched from the engine on first
// use and cached, so a handler that reads nothing costs nothing; it stays valid after `await`.
import { Readable } from 'node:stream';
import { ErrorCodes, HttpError } from './errors.js';
import type { NativeServer } from './native.js';

export type Headers = Record<string, string | string[] | undefined>;

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * An incoming request.
 *
 * @example
 * app.post('/echo/:name', async (req) => ({ name: req.params.name, body: await req.json() }));
 */
export class Request {
  /** Route params, percent-decoded. */
  readonly params: Record<string, string>;
  /** @internal */ _id: number;
  /** @internal */ _n: NativeServer;
  /** @internal set when the handler returned before answering: the head is copied before it ends */
  _deferred = false;
  /** @internal */ _ended = false;
  private _method: string | undefined;
  private _url: string | undefined;
  private _headers: Headers | undefined;
  private _query: Record<string, string | string[]> | undefined;
  private _body: Buffer | undefined;
  private _ip: string | undefined;
  private _version: number | undefined;
  /** @internal */ _abort: AbortController | undefined;
  /** @internal */ _aborted = false;

  constructor(n: NativeServer, id: number, params: Record<string, string> | undefined) {
    this._n = n;
    this._id = id;
    this.params = params ?? EMPTY_PARAMS;
  }

  /** Copies everything JS may still read before the engine lets go of the request. */
  _snapshot(): void {
    if (this._ended) return;
    void this.method;
    void this.url;
    void this.headers;
    void this.httpVersion;
    if (this._ip === undefined) this._ip = this._n.remote(this._id)?.[0] ?? '';
    this._ended = true;
  }

  private gone(what: string): never {
    throw new HttpError(500, `req.${what} was read after the response ended and was never read before`, {
      code: ErrorCodes.REQUEST_ENDED,
    });
  }

  /** The request method, e.g. `GET`. */
  get method(): string {
    if (this._method === undefined) {
      const m = this._n.method(this._id);
      if (m === undefined) this.gone('method');
      this._method = m;
    }
    return this._method;
  }

  /** The raw request target, query string included (`/a/b?x=1`). */
  get url(): string {
    if (this._url === undefined) {
      const u = this._n.url(this._id);
      if (u === undefined) this.gone('url');
      this._url = u;
    }
    return this._url;
  }

  /** The path without the query string. */
  get path(): string {
    const url = this.url;
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }

  /** `"1.1"` or `"1.0"`. */
  get httpVersion(): string {
    if (this._version === undefined) this._version = this._n.version(this._id) ?? 1;
    return this._version === 0 ? '1.0' : '1.1';
  }

  /** Query parameters; a key given several times maps to an array. */
  get query(): Record<string, string | string[]> {
    if (this._query === undefined) {
      const url = this.url;
      const q = url.indexOf('?');
      const out: Record<string, string | string[]> = Object.create(null);
      if (q !== -1) {
        for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
          const prev = out[k];
          out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
        }
      }
      this._query = out;
    }
    return this._query;
  }

  /** Headers with lower-case names; repeated headers are joined with ", " (set-cookie is an array). */
  get headers(): Headers {
    if (this._headers === undefined) {
      const flat = this._n.headers(this._id);
      if (flat === undefined) this.gone('headers');
      const h: Headers = Object.create(null);
      for (let i = 0; i < flat.length; i += 2) {
        const k = flat[i] as string;
        const v = flat[i + 1] as string;
        const prev = h[k];
        if (prev === undefined) h[k] = k === 'set-cookie' ? [v] : v;
        else if (Array.isArray(prev)) prev.push(v);
        else h[k] = `${prev}, ${v}`;
      }
      this._headers = h;
    }
    return this._headers;
  }

  /** One header by name, case-insensitive. */
  get(name: string): string | undefined {
    const v = this.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The client's address (no proxy headers are trusted). */
  get ip(): string {
    if (this._ip === undefined) this._ip = this._n.remote(this._id)?.[0] ?? '';
    return this._ip;
  }

  /** Aborts when the client disconnects before the response ends. */
  get signal(): AbortSignal {
    if (this._abort === undefined) {
      this._abort = new AbortController();
      if (this._aborted) this._abort.abort(new Error('client disconnected'));
    }
    return this._abort.signal;
  }

  /** True once the client has gone away. */
  get aborted(): boolean {
    return this._aborted;
  }

  private bytes(): Buffer {
    if (this._body === undefined) {
      const b = this._n.body(this._id);
      if (b === undefined) this.gone('body');
      this._body = b;
    }
    return this._body;
  }

  /** The body as UTF-8 text. The engine enforces `bodyLimit` (413) before the handler runs. */
  async text(): Promise<string> {
    return this.bytes().toString('utf8');
  }

  /** The body parsed as JSON; malformed JSON rejects with HttpError 400. */
  async json<T = unknown>(): Promise<T> {
    const text = this.bytes().toString('utf8');
    if (text.length === 0) {
      throw new HttpError(400, 'Request body is empty; send a JSON document', { code: ErrorCodes.INVALID_JSON });
    }
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new HttpError(400, `Request body is not valid JSON: ${(err as Error).message}`, {
        code: ErrorCodes.INVALID_JSON,
      });
    }
  }

  /** The body bytes as an ArrayBuffer. */
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  /** The body as a Node Readable stream. */
  stream(): Readable {
    return Readable.from([this.bytes()], { objectMode: false });
  }
}
