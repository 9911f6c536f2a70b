// The request object handlers receive. Everything but params is fetched from the engine on first
// use and cached, so a handler that reads nothing costs nothing; it stays valid after `await`.
// Core getters here (the head's reads in head.ts); helpers and body readers are documented in api.ts.
// Over 400 lines: Request is one class whose ~55 getters and methods share its per-request cache fields (_method, _url,
// _headers, _query, _ip, _kept, …) filled from the engine on first use; its helpers and body readers are already
// one-line delegations to helpers.ts and body.ts, and the typed interface of the node:http members must merge with the
// class here.
import type { Readable } from 'node:stream';
import { BodySource } from '../body-source.js';
import type { Logger } from '../logger.js';
import { requestId, requestLogger } from '../logging.js';
import type { MultipartOptions, MultipartPart } from '../multipart.js';
import type { KeptHead, KeptRequest, NativeServer } from '../native.js';
import { defineRequestMembers } from '../node-members.js';
import type { SocketView } from '../node-socket.js';
import { NullObject } from '../null-object.js';
import type { JsonOptions, TextOptions, UrlencodedOptions } from '../options.js';
import type {
  AnyParams,
  BodyOf,
  ChunksOptions,
  Headers,
  HeadersOf,
  Lazy,
  QueryOf,
  RequestApp,
  RequestInput,
  RequestView,
  ResponseOfRequest,
} from './api.js';
import {
  eachPart,
  parseBodyOnce,
  readArrayBuffer,
  readForm,
  readJsonBody,
  readMultipart,
  readText,
  requireLength,
  urlencodedConfig,
} from './body.js';
import { DEFAULT_REQUEST_CONFIG, type ParsedQuery, type RequestConfig } from './config.js';
import {
  distinctOf,
  fillLost,
  headersOf,
  keep,
  lacks,
  rawHeadersOf,
  readRemote,
  restoreKept,
  snapshot,
} from './head.js';
import {
  clientIp,
  cookieJar,
  forwardedIps,
  hostnameOf,
  hostOf,
  isFresh,
  isType,
  negotiator,
  protocolOf,
  signedCookiesOf,
  subdomainsOf,
} from './helpers.js';

const EMPTY_PARAMS: AnyParams = Object.freeze({}) as AnyParams;

/** The engine's flag (handler.rs): the request has neither If-None-Match nor If-Modified-Since. */
const NO_VALIDATORS = 8;

/** The methods the engine passes as a code with each request (handler.rs's method_code): index 0 means "ask". */
const METHOD_CODES: readonly (string | undefined)[] = [
  undefined,
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
];

/**
 * An incoming request. `P` types `req.params` (inferred from the route's path, or its params schema's output), `S`
 * types `req.state` (what `derive()` middleware before the handler added), `I` the validated `query`, `headers` and
 * `body` of a route with schemas; a handler given to `app.get(path, …)` gets all three from the route.
 *
 * @example
 * app.post('/echo/:name', async (req) => ({ name: req.params.name, body: await req.json() }));
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface below types the node:http members node-members.ts installs on the prototype
export class Request<P extends object = AnyParams, S extends object = object, I extends RequestInput = RequestInput>
  implements RequestView
{
  /**
   * Route params, percent-decoded: `string` each, `undefined` for an optional one the path left out; a route with a
   * params schema has its output here.
   */
  readonly params: P;
  /** @internal */ _id: number;
  /** @internal */ _n: NativeServer;
  /** @internal set when the handler returned before answering: the head is copied before it ends */
  _deferred = false;
  /** @internal */ _ended = false;
  /** @internal mount point of the middleware or handler running now */
  _base = '';
  /** @internal read from the engine on first use, like the head fields below (head.ts fills them from a kept copy) */
  _method: string | undefined;
  /** @internal */ _url: string | undefined;
  /** @internal */ _headers: Headers | undefined;
  private _rawHeaders: string[] | undefined;
  private _distinct: Record<string, string[] | undefined> | undefined;
  private _query: ParsedQuery | undefined;
  private _source: BodySource | undefined;
  /** @internal */ _ip: string | undefined;
  /** @internal */ _rport: number | undefined;
  /** @internal */ _tls: boolean | undefined;
  /** @internal */ _version: number | undefined;
  /** @internal the engine said the request has neither If-None-Match nor If-Modified-Since */
  _noValidators: boolean;
  /**
   * @internal What `_keep` (or the response's end, in the same crossing) copied — head, HTTP minor version, peer —
   * while no read has needed it.
   */
  _kept: KeptHead | undefined;
  /** @internal */ _abort: AbortController | undefined;
  /** @internal */ _aborted = false;
  /** @internal the app's request options (shared by all its requests) */
  _cfg: RequestConfig;
  /** @internal this request's response (for `fresh`) */
  _res: ResponseOfRequest | undefined;
  private _x: Lazy | undefined;
  /** @internal what `derive()` middleware added (req.state), once anything did: undefined on the prototype */
  declare _state: S | undefined;
  /** @internal the per-request logger, once made (logging.ts) */
  declare _log: Logger | undefined;
  /** @internal the request id, once known (logging.ts) */
  declare _reqId: string | undefined;

  constructor(
    n: NativeServer,
    id: number,
    params: Record<string, string> | undefined,
    cfg: RequestConfig = DEFAULT_REQUEST_CONFIG,
    flags = 0,
  ) {
    this._n = n;
    this._id = id;
    this.params = (params ?? EMPTY_PARAMS) as P;
    this._cfg = cfg;
    // What the engine passes with the request (crates/gale-node/src/handler.rs): the common methods as a code, and
    // whether it has no validators to check an ETag against.
    this._method = METHOD_CODES[flags & 7];
    this._noValidators = (flags & NO_VALIDATORS) !== 0;
  }

  /**
   * @internal True when the request certainly has neither If-None-Match nor If-Modified-Since: the engine said so and
   * the app cannot have added one (its headers object was never made). False when unsure.
   */
  _lacksValidators(): boolean {
    return this._noValidators && this._headers === undefined;
  }

  /**
   * Per-request state: what the `derive()` middleware that ran before this handler returned, typed for the handlers
   * after them (`S`). An object of its own for each request, made on first use.
   *
   * @example
   * const auth = derive((req) => ({ user: req.get('x-user') ?? 'anonymous' }));
   * app.get('/me', auth, (req) => ({ user: req.state.user }));
   */
  get state(): S {
    let s = this._state;
    if (s === undefined) {
      s = {} as S;
      this._state = s;
    }
    return s;
  }

  /** @internal a route schema's output for `query`, or for `headers` (laid over them) */
  _validated(part: 'query' | 'headers', value: unknown): void {
    if (part === 'query') this._query = value as ParsedQuery;
    else this._headers = Object.assign(new NullObject<Headers>(), this.headers, value);
  }

  /**
   * A logger for this request: a child of the app's `logger` bound to `reqId` (the request's valid
   * `X-Request-Id`, else a random UUID), created on first use. Without a `logger` option it logs to
   * the console.
   *
   * @example
   * app.get('/orders/:id', (req) => {
   *   req.log.info({ order: req.params.id }, 'loading order');
   *   return { id: req.params.id };
   * });
   */
  get log(): Logger {
    return requestLogger(this);
  }

  /**
   * This request's id: its `X-Request-Id` header when present and valid (up to 128 of
   * `A-Z a-z 0-9 _ . : @ / + = -`), else a random UUID. Created on first use.
   *
   * @example
   * app.get('/', (req, res) => res.header('x-request-id', req.id).send('ok'));
   */
  get id(): string {
    return requestId(this);
  }

  /** Copies everything JS may still read before the engine lets go of the request. */
  _snapshot(): void {
    snapshot(this);
  }

  /** @internal a cheap `_snapshot` for reads that may go on after the response (head.ts `keep`) */
  _keep(): void {
    keep(this);
  }

  /** @internal true when neither header is present, false when unsure (head.ts `lacks`) */
  _lacks(a: string, b: string): boolean {
    return lacks(this, a, b);
  }

  /**
   * @internal Fills every field a snapshot holds from what the engine kept of a WebSocket's upgrade request
   * (`wsRequest`), for a request object made after the engine let go of the record.
   */
  _restore(parts: KeptRequest): void {
    restoreKept(this, parts);
  }

  /** The request method, e.g. `GET`. */
  get method(): string {
    if (this._method === undefined) {
      const m = this._n.method(this._id);
      if (m === undefined) fillLost(this, 'method');
      else this._method = m;
    }
    return this._method as string;
  }

  /** The request target as received, query included (`/api/users/7?x=1`), whatever the mount point. */
  get originalUrl(): string {
    if (this._url === undefined) {
      const u = this._n.url(this._id);
      if (u === undefined) fillLost(this, 'url');
      else this._url = u;
    }
    return this._url as string;
  }

  /**
   * The request target relative to where the current middleware or router is mounted (as Express):
   * inside `app.use('/api', …)`, a request for `/api/users?x=1` has url `/users?x=1`.
   */
  get url(): string {
    const full = this.originalUrl;
    const base = this._base;
    if (base === '') return full;
    const rest = full.slice(base.length);
    return rest === '' || rest[0] === '?' ? `/${rest}` : rest;
  }

  /** The path part of `url` (no query string), relative to the mount point. */
  get path(): string {
    const url = this.url;
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }

  /** The mount point of the current middleware or router (`''` at the app's root). */
  get baseUrl(): string {
    return this._base;
  }

  /** @internal the full path, for prefix checks that must not depend on the current mount */
  get _fullPath(): string {
    const url = this.originalUrl;
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }

  /**
   * The address and port the connection arrived on (the server's end), e.g. `{ address: '127.0.0.1', port: 3000,
   * family: 'IPv4' }`; undefined once the connection is gone.
   */
  get local(): { address: string; port: number; family: string } | undefined {
    const l = this._n.local(this._id);
    return l === undefined ? undefined : { address: l[0], port: l[1], family: l[2] };
  }

  /** `"1.1"`, `"1.0"`, `"2.0"` for a request over HTTP/2, or `"3.0"` over HTTP/3. */
  get httpVersion(): string {
    if (this._version === undefined) {
      const v = this._n.version(this._id);
      if (v === undefined) fillLost(this, 'httpVersion');
      else this._version = v;
    }
    const v = this._version;
    return v === 0 ? '1.0' : v === 2 ? '2.0' : v === 3 ? '3.0' : '1.1';
  }

  /**
   * Query parameters, parsed by the app's `query` option: `'simple'` (default; a key given several
   * times maps to an array) or `'extended'` (qs: nested objects and arrays). Typed as the query schema's output on a
   * route with one, else `Query` (`SimpleQuery`, or `ParsedQuery` once the app declares `query: 'extended'` in
   * `Register`).
   *
   * @example
   * // gale({ query: 'extended' }), GET /search?filter[tag]=a&filter[tag]=b&page=2
   * app.get('/search', (req) => req.query); // { filter: { tag: ['a', 'b'] }, page: '2' }
   */
  get query(): QueryOf<I> {
    if (this._query === undefined) {
      const url = this.url;
      const q = url.indexOf('?');
      this._query = q === -1 ? new NullObject<ParsedQuery>() : this._cfg.query(url.slice(q + 1));
    }
    return this._query as QueryOf<I>;
  }

  /**
   * Headers with lower-case names; repeated headers are joined with ", " (set-cookie is an array). On a route with a
   * headers schema, its output is laid over them.
   */
  get headers(): HeadersOf<I> {
    if (this._headers === undefined) {
      const flat = this._n.headers(this._id);
      if (flat === undefined) fillLost(this, 'headers');
      else this._headers = headersOf(flat);
    }
    return this._headers as HeadersOf<I>;
  }

  /**
   * The header lines as the client sent them, `[name, value, name, value, …]`: names in the client's case, repeats
   * not joined (node:http's `rawHeaders`).
   *
   * @example
   * app.get('/raw', (req) => req.rawHeaders); // ['Host', 'example.com', 'Accept', '*\/*', …]
   */
  get rawHeaders(): string[] {
    if (this._rawHeaders === undefined) this._rawHeaders = rawHeadersOf(this);
    return this._rawHeaders;
  }

  /**
   * Every header as the list of its values, lower-case names, nothing joined or dropped (node:http's
   * `headersDistinct`): `req.headersDistinct['x-tag']` is `['a', 'b']` for two X-Tag lines.
   *
   * @example
   * app.get('/tags', (req) => req.headersDistinct['x-tag'] ?? []);
   */
  get headersDistinct(): Record<string, string[] | undefined> {
    if (this._distinct === undefined) this._distinct = distinctOf(this.rawHeaders);
    return this._distinct;
  }

  /** One header by name, case-insensitive. */
  get(name: string): string | undefined {
    const v = (this.headers as Headers)[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The socket's peer address: the client, or the nearest proxy. Never taken from a header. */
  get remoteAddress(): string {
    if (this._ip === undefined) readRemote(this);
    return this._ip as string;
  }

  /** The socket's peer port (undefined once the connection is gone and it was never read). */
  get remotePort(): number | undefined {
    if (this._ip === undefined) readRemote(this);
    return this._rport;
  }

  /** @internal the connection is TLS (HTTPS/WSS served by the engine) */
  get _secureConn(): boolean {
    if (this._ip === undefined) readRemote(this);
    return this._tls === true;
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

  /** @internal the one place the body is read from the engine (whole, or streamed as it arrives) */
  _bodySource(): BodySource {
    if (this._source === undefined) this._source = new BodySource(this._n, this._id, this._cfg.owed);
    return this._source;
  }

  /** @internal the helpers' cache (helpers.ts, parseBody) */
  lazy(): Lazy {
    if (this._x === undefined) this._x = {};
    return this._x;
  }

  // RequestHelpers: documented in api.ts, computed in helpers.ts.
  get ip(): string {
    const trust = this._cfg.trust;
    if (trust === undefined) return this.remoteAddress;
    return clientIp(this, trust);
  }
  get ips(): string[] {
    const trust = this._cfg.trust;
    if (trust === undefined) return [];
    return forwardedIps(this, trust);
  }
  get host(): string | undefined {
    return hostOf(this);
  }
  get hostname(): string | undefined {
    return hostnameOf(this);
  }
  get protocol(): string {
    const trust = this._cfg.trust;
    if (trust === undefined) return this._secureConn ? 'https' : 'http';
    return protocolOf(this, trust);
  }
  get secure(): boolean {
    return this.protocol === 'https';
  }
  get subdomains(): string[] {
    return subdomainsOf(this);
  }
  get cookies(): Record<string, string> {
    return cookieJar(this).cookies as Record<string, string>;
  }
  get signedCookies(): Record<string, string | false> {
    return signedCookiesOf(this);
  }
  accepts(): string[];
  accepts(types: string[]): string | false;
  accepts(...types: string[]): string | false;
  accepts(...types: (string | string[])[]): string[] | string | false {
    const a = negotiator(this);
    return types.length === 0 ? a.types() : a.types(types.flat());
  }
  acceptsEncodings(): string[];
  acceptsEncodings(encodings: string[]): string | false;
  acceptsEncodings(...encodings: string[]): string | false;
  acceptsEncodings(...encodings: (string | string[])[]): string[] | string | false {
    const a = negotiator(this);
    return encodings.length === 0 ? a.encodings() : a.encodings(encodings.flat());
  }
  acceptsCharsets(): string[];
  acceptsCharsets(charsets: string[]): string | false;
  acceptsCharsets(...charsets: string[]): string | false;
  acceptsCharsets(...charsets: (string | string[])[]): string[] | string | false {
    const a = negotiator(this);
    return charsets.length === 0 ? a.charsets() : a.charsets(charsets.flat());
  }
  acceptsLanguages(): string[];
  acceptsLanguages(languages: string[]): string | false;
  acceptsLanguages(...languages: string[]): string | false;
  acceptsLanguages(...languages: (string | string[])[]): string[] | string | false {
    const a = negotiator(this);
    return languages.length === 0 ? a.languages() : a.languages(languages.flat());
  }
  is(types: string[]): string | false | null;
  is(...types: string[]): string | false | null;
  is(...types: (string | string[])[]): string | false | null {
    return isType(this, types.flat());
  }
  get fresh(): boolean {
    return isFresh(this);
  }
  get stale(): boolean {
    return !this.fresh;
  }

  // RequestBodyReaders: documented in api.ts, read in body.ts.
  requireLength(): number {
    return requireLength(this);
  }
  text(options?: TextOptions): Promise<string> {
    return readText(this, options);
  }
  json<T = unknown>(options?: JsonOptions): Promise<T> {
    return readJsonBody(this, options) as Promise<T>;
  }
  async form<T = Record<string, unknown>>(options?: UrlencodedOptions): Promise<T> {
    return (await readForm(this, urlencodedConfig(this, options))) as T;
  }
  parseBody(): Promise<unknown> {
    return parseBodyOnce(this);
  }
  multipart(options?: MultipartOptions): AsyncGenerator<MultipartPart, void, undefined>;
  multipart(options: MultipartOptions | undefined, onPart: (part: MultipartPart) => unknown): Promise<void>;
  multipart(
    options?: MultipartOptions,
    onPart?: (part: MultipartPart) => unknown,
  ): AsyncGenerator<MultipartPart, void, undefined> | Promise<void> {
    return onPart === undefined ? readMultipart(this, options) : eachPart(this, options, onPart);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return readArrayBuffer(this);
  }
  chunks(options?: ChunksOptions): AsyncGenerator<Buffer, void, undefined> {
    return this._bodySource().iterate(options?.transient === true);
  }
  stream(): Readable {
    return this._bodySource().readable();
  }
  webStream(): ReadableStream<Uint8Array> {
    return this._bodySource().webStream();
  }
}

// node:http's members that Express middleware touches (req.app, req.socket, …; refusals for the rest).
defineRequestMembers(Request.prototype);

Request.prototype._state = undefined;

// The node:http members node-members.ts installs on the prototype (defineRequestMembers, called above), typed here.
// A merged declaration repeats the class's type parameters, used or not.
export interface Request<
  // biome-ignore lint/correctness/noUnusedVariables: repeated from the class
  P extends object = AnyParams,
  // biome-ignore lint/correctness/noUnusedVariables: repeated from the class
  S extends object = object,
  I extends RequestInput = RequestInput,
> {
  /**
   * The request body: on a route with a body schema, the schema's output (typed); elsewhere what a middleware
   * assigned (`req.body = await req.parseBody()`), and reading it before anything did throws GALE_ERR_NODE_MIDDLEWARE.
   *
   * @example
   * app.use(async (req, res, next) => {
   *   req.body = await req.parseBody();
   *   await next();
   * });
   */
  body: BodyOf<I>;
  /**
   * The app this request came to (as Express's `req.app`), for middleware that reads its settings.
   *
   * @example
   * app.use((req, res, next) => (req.app?.get('trust proxy') === false ? next() : next()));
   */
  readonly app: RequestApp | undefined;
  /**
   * The major HTTP version as a number, as node:http's (1, or 2 over HTTP/2).
   *
   * @example
   * app.get('/', (req) => `HTTP/${req.httpVersionMajor}.${req.httpVersionMinor}`);
   */
  readonly httpVersionMajor: number;
  /**
   * The minor HTTP version as a number (1 for HTTP/1.1, 0 for HTTP/1.0 and HTTP/2).
   *
   * @example
   * app.get('/', (req) => (req.httpVersionMinor === 0 ? 'old client' : 'ok'));
   */
  readonly httpVersionMinor: number;
  /**
   * The connection's addresses and its `'close'` (see `SocketView`); a new view on every read.
   *
   * @example
   * app.get('/', (req) => req.socket.remotePort);
   */
  readonly socket: SocketView;
  /**
   * `req.socket` under its old node:http name.
   *
   * @example
   * app.get('/', (req) => req.connection.remoteAddress);
   */
  readonly connection: SocketView;
}
