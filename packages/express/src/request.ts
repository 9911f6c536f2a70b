// The `req` of the Express layer: Express's request API over a Gale Request, shaped like Node's
// IncomingMessage. Everything is read from Gale on first use; the Readable state (for
// req.on('data'), req.pipe, for-await) is created only when the body is touched as a stream.
// Uses only gale's public exports (../index.js) and npm packages.
// Over 400 lines: `req` is one object carrying two APIs middleware read from it, node:http's IncomingMessage members
// (url, headers, rawHeaders, socket, readable, _read, … about 20) and Express 5's lib/request.js (get, accepts*, range,
// is, query, protocol, ip, hostname, fresh, xhr, … about 20), which share the per-request caches read from Gale on
// first use.
import querystring from 'node:querystring';
import { Readable } from 'node:stream';
import accepts from 'accepts';
import fresh from 'fresh';
import type { Request as GaleRequest } from 'gale';
import proxyaddr from 'proxy-addr';
import qs from 'qs';
import parseRange from 'range-parser';
import typeis from 'type-is';
import type { Next, Route } from './layer.js';
import { lazyReadable } from './lazy-readable.js';
import { pathnameOf } from './path.js';
import { type ServerContext, type SocketOwner, SocketView } from './socket.js';

type Headers = Record<string, string | string[] | undefined>;
type Settings = { get(name: string): unknown };
type QueryFn = (str: string, opts?: unknown) => unknown;

/** The query parser Express 4 uses when none is set (its `query` middleware's default: qs). */
export const EXTENDED_QUERY: QueryFn = (str) => qs.parse(str, { allowPrototypes: true });
export const SIMPLE_QUERY: QueryFn = (str) => querystring.parse(str);

/** @internal `_qurl` of a query that was assigned or parsed once (Express 4) */
export const QUERY_SET = '\0set';

/** The response side as the request needs it (fresh, abort forwarding). */
interface ResLike {
  statusCode: number;
  get(name: string): unknown;
  _watch(): void;
}

// Declared as IncomingMessage and exported as ExpressRequest: V8 names an object by its class in messages such as
// "Cannot set property query of #<IncomingMessage> which has only a getter", which apps print and Express's say.
/**
 * A request as Express middleware sees it.
 *
 * @example
 * app.get('/users/:id', (req, res) => res.json({ id: req.params.id, q: req.query, ip: req.ip }));
 */
class IncomingMessage {
  /** @internal the Gale request underneath */
  _g: GaleRequest;
  /** @internal */ _ctx: ServerContext;
  /** @internal */ _url: string | undefined = undefined;
  /** @internal */ _ourl: string | undefined = undefined;
  /** @internal */ _method: string | undefined = undefined;
  /** @internal */ _hdrs: Headers | undefined = undefined;
  /** @internal */ _raw: string[] | undefined = undefined;
  /** @internal */ _q: unknown = undefined;
  /** @internal */ _qurl: string | undefined = undefined;
  /** @internal */ _qfn: unknown = undefined;
  /** @internal Express 4: the query parser of the app that received the request */
  _qp4: QueryFn | undefined = undefined;
  /** @internal */ _sock: SocketView | undefined = undefined;
  /** @internal the body stream reached its end */
  _complete = false;
  /** @internal */ _reader: ReadableStreamDefaultReader<Uint8Array> | undefined = undefined;
  /** @internal Readable's state, present once the body is used as a stream */
  declare _readableState: unknown;
  params: Record<string, string> = undefined as unknown as Record<string, string>;
  baseUrl = '';
  next: Next | undefined = undefined;
  route: Route | undefined = undefined;
  res: ResLike & object;
  body: unknown = undefined;
  /** Set by the app for the current app (prototype) */
  declare readonly app: Settings;

  constructor(g: GaleRequest, ctx: ServerContext, res?: ResLike & object) {
    this._g = g;
    this._ctx = ctx;
    this.res = res as ResLike & object;
  }

  // ---- IncomingMessage ----------------------------------------------------------------------

  /** The request target; middleware may rewrite it (routing follows). */
  get url(): string {
    if (this._url === undefined) this._url = this.originalUrl;
    return this._url;
  }
  set url(v: string) {
    this._url = v;
  }
  get originalUrl(): string {
    if (this._ourl === undefined) this._ourl = this._g.originalUrl;
    return this._ourl;
  }
  set originalUrl(v: string) {
    this._ourl = v;
  }
  get method(): string {
    if (this._method === undefined) this._method = this._g.method;
    return this._method;
  }
  set method(v: string) {
    this._method = v;
  }
  /** Request headers, lower-case names (a plain object, as Node's). */
  get headers(): Headers {
    if (this._hdrs === undefined) {
      const h = this._g.headers;
      Object.setPrototypeOf(h, Object.prototype);
      this._hdrs = h;
    }
    return this._hdrs;
  }
  set headers(v: Headers) {
    this._hdrs = v;
  }
  /** Names and values as the client sent them, in arrival order, names in its case (node:http's `rawHeaders`). */
  get rawHeaders(): string[] {
    if (this._raw === undefined) this._raw = this._g.rawHeaders;
    return this._raw;
  }
  set rawHeaders(v: string[]) {
    this._raw = v;
  }
  /** Every header as the list of its values (node:http's `headersDistinct`). */
  get headersDistinct(): Record<string, string[] | undefined> {
    return this._g.headersDistinct;
  }
  get httpVersion(): string {
    return this._g.httpVersion;
  }
  get httpVersionMajor(): number {
    return this._g.httpVersion === '2.0' ? 2 : 1;
  }
  get httpVersionMinor(): number {
    return this._g.httpVersion === '1.1' ? 1 : 0;
  }
  get trailers(): Record<string, string> {
    return {};
  }
  get rawTrailers(): string[] {
    return [];
  }
  get upgrade(): boolean {
    return false;
  }
  get aborted(): boolean {
    return this._g.aborted;
  }
  /** True once the whole body was read (or there is none). */
  get complete(): boolean {
    return this._complete || !hasBody(this);
  }
  set complete(v: boolean) {
    this._complete = v;
  }
  get socket(): SocketView {
    if (this._sock === undefined) {
      const res = this.res as unknown as SocketOwnerRes;
      const sock = new SocketView(this._ctx, new Owner(this._g, res));
      sock._httpMessage = res;
      if (this._g.aborted || res?._destroyed) sock._gone = true;
      this._sock = sock;
    }
    return this._sock;
  }
  get connection(): SocketView {
    return this.socket;
  }
  setTimeout(_ms: number, cb?: () => void): this {
    if (cb) this.socket.setTimeout(_ms, cb);
    return this;
  }
  /** Readable until the body has been read (a request without a body reads as ended). */
  get readable(): boolean {
    const s = this._readableState as
      | { readable?: boolean; destroyed: boolean; errorEmitted: boolean; endEmitted: boolean }
      | undefined;
    if (s === undefined) return !this._g.aborted && hasBody(this);
    return s.readable !== false && !s.destroyed && !s.errorEmitted && !s.endEmitted;
  }
  set readable(v: boolean) {
    this._stream();
    (this._readableState as { readable: boolean }).readable = v;
  }

  /** @internal turns this object into a Readable of the body, on first use */
  _stream(): void {
    if (this._readableState === undefined) {
      (Readable as unknown as (this: unknown, o: object) => void).call(this, {});
      this.res?._watch();
    }
  }

  /** @internal Readable's pull: the next piece of the body from Gale */
  _read(): void {
    if (this._reader === undefined) this._reader = this._g.webStream().getReader();
    this._reader.read().then(
      (r) => {
        const self = this as unknown as Readable;
        if (r.done) {
          this._complete = true;
          self.push(null);
        } else self.push(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength));
      },
      (err) => (this as unknown as Readable).destroy(err),
    );
  }

  /** @internal the client went away: 'aborted' and 'close', as Node's IncomingMessage */
  _aborted(): void {
    const self = this as unknown as Readable;
    if (this._readableState !== undefined) {
      self.emit('aborted');
      if (!this._complete) {
        const err = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
        self.destroy(err);
      } else self.emit('close');
    }
    this._sock?._closed();
  }

  // ---- Express ------------------------------------------------------------------------------

  /** A request header (Referer and Referrer are interchangeable). */
  get(name: string): string | string[] | undefined {
    if (!name) throw new TypeError('name argument is required to req.get');
    if (typeof name !== 'string') throw new TypeError('name must be a string to req.get');
    const lc = name.toLowerCase();
    const h = this.headers;
    if (lc === 'referer' || lc === 'referrer') return h.referrer || h.referer;
    return h[lc];
  }
  /** The same function as `get` (`req.header === req.get`, as in Express). */
  declare header: (name: string) => string | string[] | undefined;
  /** Aborts when the client goes away before the response ended (node:http's `req.signal`, Node ≥ 26). */
  get signal(): AbortSignal {
    return this._g.signal;
  }
  accepts(...args: unknown[]): unknown {
    const a = accepts(this as never);
    return (a.types as (...x: unknown[]) => unknown).apply(a, args);
  }
  acceptsEncodings(...args: unknown[]): unknown {
    const a = accepts(this as never);
    return (a.encodings as (...x: unknown[]) => unknown).apply(a, args);
  }
  acceptsCharsets(...args: unknown[]): unknown {
    const a = accepts(this as never);
    return (a.charsets as (...x: unknown[]) => unknown).apply(a, args);
  }
  acceptsLanguages(...args: unknown[]): unknown {
    const a = accepts(this as never);
    return (a.languages as (...x: unknown[]) => unknown).apply(a, args);
  }
  range(size: number, options?: parseRange.Options): parseRange.Ranges | parseRange.Result | undefined {
    const range = this.get('Range');
    if (!range) return undefined;
    return parseRange(size, String(range), options);
  }
  is(...args: unknown[]): string | false | null {
    const arr = (Array.isArray(args[0]) ? args[0] : args) as string[];
    return typeis(this as never, arr);
  }

  /** The parsed query string (the app's `query parser`); cached until req.url changes. */
  get query(): Record<string, unknown> {
    const fn = this.app.get('query parser fn') as QueryFn | undefined;
    const url = this.url;
    if (this._qurl === QUERY_SET || (this._qurl === url && this._qfn === fn)) return this._q as Record<string, unknown>;
    let q: unknown;
    if (!fn) q = Object.create(null);
    else {
      const i = url.indexOf('?');
      q = fn(i === -1 ? '' : url.slice(i + 1));
    }
    this._q = q;
    this._qurl = url;
    this._qfn = fn;
    return q as Record<string, unknown>;
  }
  // No setter: Express 5's req.query is a getter alone, so assigning it throws in strict code, as there
  // (express-mongo-sanitize's "Cannot set property query of #<IncomingMessage> which has only a getter").

  get protocol(): string {
    // As Express: the socket's `encrypted` (which an app may set), without making the socket view just for this.
    const proto = (this._sock !== undefined ? this._sock.encrypted : this._g.protocol === 'https') ? 'https' : 'http';
    const trust = this.app.get('trust proxy fn') as (a: string, i: number) => boolean;
    if (!trust(this._g.remoteAddress, 0)) return proto;
    const header = String(this.get('X-Forwarded-Proto') || proto);
    const index = header.indexOf(',');
    return index !== -1 ? header.slice(0, index).trim() : header.trim();
  }
  get secure(): boolean {
    return this.protocol === 'https';
  }
  get ip(): string | undefined {
    const trust = this.app.get('trust proxy fn') as (a: string, i: number) => boolean;
    return proxyaddr(forwardedView(this), trust);
  }
  get ips(): string[] {
    const trust = this.app.get('trust proxy fn') as (a: string, i: number) => boolean;
    const addrs = proxyaddr.all(forwardedView(this), trust);
    addrs.reverse().pop();
    return addrs;
  }
  get subdomains(): string[] {
    const hostname = this.hostname;
    if (!hostname) return [];
    const offset = this.app.get('subdomain offset') as number;
    const subdomains = !isIP(hostname) ? hostname.split('.').reverse() : [hostname];
    return subdomains.slice(offset);
  }
  get path(): string {
    return pathnameOf(this.url) as string;
  }
  /** Express 5: Host (or X-Forwarded-Host from a trusted proxy), port included. */
  get host(): string | undefined {
    return hostHeader(this);
  }
  get hostname(): string | undefined {
    const host = hostHeader(this);
    if (!host) return undefined;
    const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
    const index = host.indexOf(':', offset);
    return index !== -1 ? host.slice(0, index) : host;
  }
  get fresh(): boolean {
    const method = this.method;
    const res = this.res;
    const status = res.statusCode;
    if ('GET' !== method && 'HEAD' !== method && ('QUERY' !== method || this._compat4)) return false;
    if ((status >= 200 && status < 300) || 304 === status) {
      // Neither conditional header (the usual request): not fresh, as `fresh` answers, without copying every header.
      if (this._hdrs === undefined && this._g._lacks?.('if-none-match', 'if-modified-since') === true) return false;
      return fresh(this.headers as fresh.Headers, {
        etag: res.get('ETag') as string | undefined,
        'last-modified': res.get('Last-Modified') as string | undefined,
      });
    }
    return false;
  }
  get stale(): boolean {
    return !this.fresh;
  }
  get xhr(): boolean {
    const val = String(this.get('X-Requested-With') || '');
    return val.toLowerCase() === 'xmlhttprequest';
  }
  /** @internal */
  get _compat4(): boolean {
    return false;
  }
}

interface SocketOwnerRes {
  destroy(): void;
  _watch(): void;
  _destroyed?: boolean;
}

/** Connects a socket view to its request and response (made only with the view). */
class Owner implements SocketOwner {
  constructor(
    private readonly g: GaleRequest,
    private readonly res: SocketOwnerRes | undefined,
  ) {}
  remote(): string {
    return this.g.remoteAddress;
  }
  secure(): boolean {
    return this.g.protocol === 'https';
  }
  remotePort(): number | undefined {
    return this.g.remotePort;
  }
  local(): { address: string; port: number; family: string } | undefined {
    return this.g.local;
  }
  destroy(): void {
    this.res?.destroy();
  }
  watch(): void {
    this.res?._watch();
  }
}

function isIP(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || s.includes(':');
}

/**
 * Whether the request declares a body, as node:http and type-is's `hasBody` see it: `Content-Length: 0` counts (the
 * body parsers then read it and give `{}` / `''` / an empty Buffer, as on Express); no framing header reads as ended.
 */
function hasBody(req: IncomingMessage): boolean {
  const h = req.headers;
  return h['transfer-encoding'] !== undefined || h['content-length'] !== undefined;
}

function hostHeader(req: IncomingMessage): string | undefined {
  const trust = req.app.get('trust proxy fn') as (a: string, i: number) => boolean;
  let val = req.get('X-Forwarded-Host') as string | undefined;
  if (!val || !trust(req._g.remoteAddress, 0)) val = req.get('Host') as string | undefined;
  else if (val.indexOf(',') !== -1) val = val.slice(0, val.indexOf(',')).trimEnd();
  return val || undefined;
}

/** What proxy-addr reads, without making the socket view. */
function forwardedView(req: IncomingMessage): never {
  const remoteAddress = req._sock?.remoteAddress ?? req._g.remoteAddress;
  return { headers: req.headers, socket: { remoteAddress }, connection: { remoteAddress } } as never;
}

export { IncomingMessage as ExpressRequest };

lazyReadable(IncomingMessage.prototype);

IncomingMessage.prototype.header = IncomingMessage.prototype.get;
