// The request object handlers receive. Everything but params is fetched from the engine on first
// use and cached, so a handler that reads nothing costs nothing; it stays valid after `await`.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import accepts from 'accepts';
import cookie from 'cookie';
import signature from 'cookie-signature';
import fresh from 'fresh';
import proxyaddr from 'proxy-addr';
import typeis from 'type-is';
import { charsetOf, decodeText, inflate, isJsonType, mediaType, parseJson, parseUrlencoded, tooLarge } from './body.js';
import { BodySource } from './body-source.js';
import { ErrorCodes, HttpError } from './errors.js';
import { type MultipartOptions, type MultipartPart, parseMultipart } from './multipart.js';
import type { NativeServer } from './native.js';
import type { JsonOptions, TextOptions, UrlencodedOptions } from './options.js';
import {
  DEFAULT_REQUEST_CONFIG,
  type JsonConfig,
  parseBytes,
  type Query,
  type RequestConfig,
  type UrlencodedConfig,
} from './request-config.js';
import type { Response } from './response.js';

export type Headers = Record<string, string | string[] | undefined>;

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** What the request helpers computed, made on first use of any of them (one allocation, not one per field). */
interface Lazy {
  cookies?: Record<string, string>;
  signed?: Record<string, string | false>;
  ip?: string;
  ips?: string[];
  host?: string | null;
  protocol?: string;
  negotiator?: accepts.Accepts;
  body?: Promise<unknown>;
}

function headerText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

function unsupportedType(reader: string, wants: string, contentType: string | undefined): HttpError {
  return new HttpError(
    415,
    `${reader} reads ${wants} bodies; this request's Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}`,
    { code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE },
  );
}

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
  /** @internal mount point of the middleware or handler running now */
  _base = '';
  private _method: string | undefined;
  private _url: string | undefined;
  private _headers: Headers | undefined;
  private _query: Query | undefined;
  private _source: BodySource | undefined;
  private _ip: string | undefined;
  private _version: number | undefined;
  /** @internal */ _abort: AbortController | undefined;
  /** @internal */ _aborted = false;
  /** @internal the app's request options (shared by all its requests) */
  _cfg: RequestConfig;
  /** @internal this request's response (for `fresh`) */
  _res: Response | undefined;
  private _x: Lazy | undefined;

  constructor(
    n: NativeServer,
    id: number,
    params: Record<string, string> | undefined,
    cfg: RequestConfig = DEFAULT_REQUEST_CONFIG,
  ) {
    this._n = n;
    this._id = id;
    this.params = params ?? EMPTY_PARAMS;
    this._cfg = cfg;
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

  /** The request target as received, query included (`/api/users/7?x=1`), whatever the mount point. */
  get originalUrl(): string {
    if (this._url === undefined) {
      const u = this._n.url(this._id);
      if (u === undefined) this.gone('url');
      this._url = u;
    }
    return this._url;
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

  /** `"1.1"` or `"1.0"`. */
  get httpVersion(): string {
    if (this._version === undefined) this._version = this._n.version(this._id) ?? 1;
    return this._version === 0 ? '1.0' : '1.1';
  }

  /**
   * Query parameters, parsed by the app's `query` option: `'simple'` (default; a key given several
   * times maps to an array) or `'extended'` (qs: nested objects and arrays).
   *
   * @example
   * // gale({ query: 'extended' }), GET /search?filter[tag]=a&filter[tag]=b&page=2
   * app.get('/search', (req) => req.query); // { filter: { tag: ['a', 'b'] }, page: '2' }
   */
  get query(): Query {
    if (this._query === undefined) {
      const url = this.url;
      const q = url.indexOf('?');
      this._query = q === -1 ? (Object.create(null) as Query) : this._cfg.query(url.slice(q + 1));
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

  /** The socket's peer address: the client, or the nearest proxy. Never taken from a header. */
  get remoteAddress(): string {
    if (this._ip === undefined) this._ip = this._n.remote(this._id)?.[0] ?? '';
    return this._ip;
  }

  /**
   * The client's address. Without the `trustProxy` option it is the socket address and
   * X-Forwarded-For is ignored (a client cannot forge it); with it, the left-most address of the
   * X-Forwarded-For chain that is reached through trusted proxies only (as Express).
   *
   * @example
   * // gale({ trustProxy: 'loopback' }); a local proxy sent X-Forwarded-For: 203.0.113.7
   * app.get('/whoami', (req) => ({ ip: req.ip, ips: req.ips })); // { ip: '203.0.113.7', ips: ['203.0.113.7'] }
   */
  get ip(): string {
    const trust = this._cfg.trust;
    if (trust === undefined) return this.remoteAddress;
    const x = this.lazy();
    if (x.ip === undefined) x.ip = proxyaddr(this.forwardedFrom(), trust);
    return x.ip;
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
    if (this._source === undefined) this._source = new BodySource(this._n, this._id);
    return this._source;
  }

  private bytes(): Promise<Buffer> {
    return this._bodySource().all();
  }

  // -------------------------------------------------------------------------------------------
  // request helpers (all computed on first use)

  private lazy(): Lazy {
    if (this._x === undefined) this._x = {};
    return this._x;
  }

  /** The request as proxy-addr, accepts and type-is read it. */
  private forwardedFrom(): IncomingMessage {
    return { headers: this.headers, socket: { remoteAddress: this.remoteAddress } } as unknown as IncomingMessage;
  }

  /**
   * With `trustProxy`, the addresses of X-Forwarded-For that were reached through trusted proxies,
   * client first (as Express); `[]` when no proxy is trusted.
   *
   * @example
   * // gale({ trustProxy: true }), X-Forwarded-For: 203.0.113.7, 10.0.0.2
   * req.ips; // ['203.0.113.7', '10.0.0.2']
   */
  get ips(): string[] {
    const trust = this._cfg.trust;
    if (trust === undefined) return [];
    const x = this.lazy();
    if (x.ips === undefined) {
      const all = proxyaddr.all(this.forwardedFrom(), trust);
      all.reverse();
      all.pop();
      x.ips = all;
    }
    return x.ips;
  }

  /**
   * The Host header (with port), or X-Forwarded-Host when the socket's peer is a trusted proxy.
   *
   * @example
   * req.host; // 'example.com:8080'
   */
  get host(): string | undefined {
    const x = this.lazy();
    if (x.host === undefined) {
      const trust = this._cfg.trust;
      let val = trust === undefined ? undefined : this.get('x-forwarded-host');
      if (!val || !trust?.(this.remoteAddress, 0)) val = this.get('host');
      else if (val.indexOf(',') !== -1) val = val.slice(0, val.indexOf(',')).trimEnd();
      x.host = val || null;
    }
    return x.host ?? undefined;
  }

  /**
   * `host` without the port (IPv6 literals keep their brackets).
   *
   * @example
   * app.get('/', (req) => req.hostname); // 'example.com'
   */
  get hostname(): string | undefined {
    const host = this.host;
    if (host === undefined) return undefined;
    const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
    const colon = host.indexOf(':', offset);
    return colon === -1 ? host : host.slice(0, colon);
  }

  /**
   * `'http'`, or the first X-Forwarded-Proto value when the socket's peer is a trusted proxy.
   *
   * @example
   * if (req.protocol !== 'https') res.status(308).header('location', `https://${req.host}${req.originalUrl}`).end();
   */
  get protocol(): string {
    const trust = this._cfg.trust;
    if (trust === undefined) return 'http';
    const x = this.lazy();
    if (x.protocol === undefined) {
      let proto = 'http';
      if (trust(this.remoteAddress, 0)) {
        const h = this.get('x-forwarded-proto') || proto;
        const comma = h.indexOf(',');
        proto = (comma === -1 ? h : h.slice(0, comma)).trim();
      }
      x.protocol = proto;
    }
    return x.protocol;
  }

  /** `protocol === 'https'`. */
  get secure(): boolean {
    return this.protocol === 'https';
  }

  /**
   * The parts of `hostname` before the domain, nearest first (the domain is the last
   * `subdomainOffset` parts, default 2): `tobi.ferrets.example.com` → `['ferrets', 'tobi']`.
   *
   * @example
   * const tenant = req.subdomains[0];
   */
  get subdomains(): string[] {
    const hostname = this.hostname;
    if (!hostname) return [];
    const parts = isIP(hostname) === 0 ? hostname.split('.').reverse() : [hostname];
    return parts.slice(this._cfg.subdomainOffset);
  }

  private cookieJar(): Lazy {
    const x = this.lazy();
    if (x.cookies === undefined) {
      const header = this.get('cookie');
      const cookies: Record<string, string> = header ? cookie.parse(header) : {};
      const signed: Record<string, string | false> = Object.create(null);
      const secrets = this._cfg.secrets;
      if (secrets.length > 0) {
        for (const name of Object.keys(cookies)) {
          const value = cookies[name] as string;
          if (!value.startsWith('s:')) continue;
          let plain: string | false = false;
          for (const secret of secrets) {
            plain = signature.unsign(value.slice(2), secret);
            if (plain !== false) break;
          }
          signed[name] = plain;
          delete cookies[name];
        }
      }
      x.cookies = cookies;
      x.signed = signed;
    }
    return x;
  }

  /**
   * The Cookie header as name → value (values percent-decoded). With `cookieSecret`, signed cookies
   * (`s:` values) are in `signedCookies` instead (as cookie-parser).
   *
   * @example
   * app.get('/', (req) => `theme: ${req.cookies.theme ?? 'light'}`);
   */
  get cookies(): Record<string, string> {
    return this.cookieJar().cookies as Record<string, string>;
  }

  /**
   * Signed cookies verified against `cookieSecret` (any of its secrets): the value, or `false` when
   * the signature does not match (tampered). Empty without `cookieSecret`.
   *
   * @example
   * // gale({ cookieSecret: process.env.COOKIE_SECRET })
   * const user = req.signedCookies.user; // string, false (tampered) or undefined
   */
  get signedCookies(): Record<string, string | false> {
    return this.cookieJar().signed as Record<string, string | false>;
  }

  private negotiator(): accepts.Accepts {
    const x = this.lazy();
    if (x.negotiator === undefined) x.negotiator = accepts(this.forwardedFrom());
    return x.negotiator;
  }

  /**
   * The best of `types` for the Accept header (extensions like `'json'` or MIME types), or false;
   * without arguments, the accepted types in preference order.
   *
   * @example
   * switch (req.accepts('json', 'html')) { case 'json': return data; case 'html': return res.html(page); default: throw new HttpError(406); }
   */
  accepts(): string[];
  accepts(types: string[]): string | false;
  accepts(...types: string[]): string | false;
  accepts(...types: (string | string[])[]): string[] | string | false {
    const a = this.negotiator();
    return types.length === 0 ? a.types() : a.types(types.flat());
  }

  /**
   * The best of `encodings` for Accept-Encoding, or false; without arguments, all accepted ones.
   *
   * @example
   * const gzip = req.acceptsEncodings('br', 'gzip') ;
   */
  acceptsEncodings(): string[];
  acceptsEncodings(encodings: string[]): string | false;
  acceptsEncodings(...encodings: string[]): string | false;
  acceptsEncodings(...encodings: (string | string[])[]): string[] | string | false {
    const a = this.negotiator();
    return encodings.length === 0 ? a.encodings() : a.encodings(encodings.flat());
  }

  /**
   * The best of `charsets` for Accept-Charset, or false; without arguments, all accepted ones.
   *
   * @example
   * req.acceptsCharsets('utf-8'); // 'utf-8' or false
   */
  acceptsCharsets(): string[];
  acceptsCharsets(charsets: string[]): string | false;
  acceptsCharsets(...charsets: string[]): string | false;
  acceptsCharsets(...charsets: (string | string[])[]): string[] | string | false {
    const a = this.negotiator();
    return charsets.length === 0 ? a.charsets() : a.charsets(charsets.flat());
  }

  /**
   * The best of `languages` for Accept-Language, or false; without arguments, all accepted ones.
   *
   * @example
   * const lang = req.acceptsLanguages('en', 'fr', 'de') || 'en';
   */
  acceptsLanguages(): string[];
  acceptsLanguages(languages: string[]): string | false;
  acceptsLanguages(...languages: string[]): string | false;
  acceptsLanguages(...languages: (string | string[])[]): string[] | string | false {
    const a = this.negotiator();
    return languages.length === 0 ? a.languages() : a.languages(languages.flat());
  }

  /**
   * Whether the Content-Type matches one of `types` (`'json'`, `'text/*'`, `'+json'`, …): the
   * matching type, false, or null when the request has no body (as Express's `req.is`).
   *
   * @example
   * if (req.is('json')) body = await req.json();
   */
  is(types: string[]): string | false | null;
  is(...types: string[]): string | false | null;
  is(...types: (string | string[])[]): string | false | null {
    return typeis(this.forwardedFrom(), types.flat());
  }

  /**
   * True when the client's cached copy is still good: a GET/HEAD whose If-None-Match /
   * If-Modified-Since match the ETag / Last-Modified set on the response, with a 2xx or 304 status.
   *
   * @example
   * res.header('etag', etag);
   * if (req.fresh) return res.status(304).end();
   */
  get fresh(): boolean {
    const res = this._res;
    if (res === undefined) return false;
    const method = this.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const status = res.statusCode;
    if ((status < 200 || status >= 300) && status !== 304) return false;
    return fresh(this.headers as fresh.Headers, {
      etag: headerText(res.getHeader('etag')),
      'last-modified': headerText(res.getHeader('last-modified')),
    });
  }

  /** `!fresh`. */
  get stale(): boolean {
    return !this.fresh;
  }

  // -------------------------------------------------------------------------------------------
  // body readers: every one goes through readBody(), which goes through _bodySource()

  private contentLength(): number | undefined {
    const v = this.get('content-length');
    return v === undefined ? undefined : Number(v);
  }

  /** True when the request has a body (Content-Length or Transfer-Encoding), as type-is decides. */
  private get hasBody(): boolean {
    return this.get('transfer-encoding') !== undefined || this.get('content-length') !== undefined;
  }

  /**
   * Returns the Content-Length, or throws HttpError 411 (`GALE_ERR_LENGTH_REQUIRED`) when the
   * request has none (a chunked body, or no body). The `requireLength` option does this for every
   * body reader.
   *
   * @example
   * app.put('/upload', async (req) => { const size = req.requireLength(); … });
   */
  requireLength(): number {
    const len = this.contentLength();
    if (len === undefined) {
      throw new HttpError(411, 'This endpoint needs a Content-Length header; send the body with a known length', {
        code: ErrorCodes.LENGTH_REQUIRED,
      });
    }
    return len;
  }

  /**
   * The bytes for a parsing reader: Content-Length rules, then the body, decompressed per
   * Content-Encoding, at most `limit` bytes (413 naming `limitName` otherwise).
   */
  private async readBody(limit: number, limitName: string): Promise<Buffer> {
    const len = this._cfg.requireLength ? this.requireLength() : this.contentLength();
    const identity = this.get('content-encoding') === undefined;
    if (identity && len !== undefined && len > limit) {
      throw tooLarge(`Request body is ${len} bytes, larger than the ${limitName} option (${limit} bytes)`);
    }
    const raw = await this._bodySource().all();
    const body = identity ? raw : inflate(raw, this.get('content-encoding'), limit, limitName);
    if (body.length > limit) {
      throw tooLarge(`Request body is ${body.length} bytes, larger than the ${limitName} option (${limit} bytes)`);
    }
    return body;
  }

  private jsonConfig(options: JsonOptions | undefined): JsonConfig {
    const d = this._cfg.json;
    if (options === undefined) return d;
    return {
      strict: options.strict ?? d.strict,
      reviver: options.reviver ?? d.reviver,
      limit: parseBytes(options.limit, d.limit, 'json.limit'),
      strictType: options.strictType ?? d.strictType,
    };
  }

  private urlencodedConfig(options: UrlencodedOptions | undefined): UrlencodedConfig {
    const d = this._cfg.urlencoded;
    if (options === undefined) return d;
    return {
      extended: options.extended ?? d.extended,
      depth: options.depth ?? d.depth,
      parameterLimit: options.parameterLimit ?? d.parameterLimit,
      limit: parseBytes(options.limit, d.limit, 'urlencoded.limit'),
    };
  }

  /**
   * The body as text, decoded with the Content-Type's charset (utf-8 by default; iso-8859-1,
   * utf-16le and other WHATWG encodings; an unknown charset → 415). Over `text.limit` → 413.
   *
   * @example
   * app.post('/notes', async (req) => ({ length: (await req.text()).length }));
   */
  async text(options?: TextOptions): Promise<string> {
    const d = this._cfg.text;
    const limit = parseBytes(options?.limit, d.limit, 'text.limit');
    const charset = charsetOf(this.get('content-type')) ?? (options?.defaultCharset ?? d.defaultCharset).toLowerCase();
    return decodeText(await this.readBody(limit, 'text.limit'), charset);
  }

  /**
   * The body parsed as JSON. Malformed JSON → 400 saying what was expected and where; with
   * `json.strict` (default) only an object or array; over `json.limit` → 413; with
   * `json.strictType`, a non-JSON Content-Type → 415.
   *
   * @example
   * app.post('/users', async (req) => { const user = await req.json<{ name: string }>(); return { hello: user.name }; });
   */
  async json<T = unknown>(options?: JsonOptions): Promise<T> {
    return (await this.readJson(this.jsonConfig(options), false)) as T;
  }

  private async readJson(o: JsonConfig, emptyIsObject: boolean): Promise<unknown> {
    const ct = this.get('content-type');
    if (o.strictType && !isJsonType(mediaType(ct))) {
      throw unsupportedType('req.json() (json.strictType)', 'application/json', ct);
    }
    const charset = charsetOf(ct) ?? 'utf-8';
    if (!charset.startsWith('utf')) {
      throw new HttpError(415, `Unsupported charset "${charset}" for JSON; send utf-8`, {
        code: ErrorCodes.UNSUPPORTED_CHARSET,
      });
    }
    const text = decodeText(await this.readBody(o.limit, 'json.limit'), charset);
    if (text.length === 0) {
      if (emptyIsObject) return {};
      throw new HttpError(400, 'Request body is empty; send a JSON document', { code: ErrorCodes.INVALID_JSON });
    }
    return parseJson(text, o);
  }

  /**
   * An application/x-www-form-urlencoded body as an object (qs): flat keys by default, nested with
   * `urlencoded.extended`. Another Content-Type → 415; a malformed `%` escape or invalid UTF-8 → 400
   * with its position; more than `parameterLimit` parameters or deeper than `depth` → 413.
   *
   * @example
   * app.post('/login', async (req) => { const { user, password } = await req.form<{ user: string; password: string }>(); … });
   */
  async form<T = Record<string, unknown>>(options?: UrlencodedOptions): Promise<T> {
    return (await this.readForm(this.urlencodedConfig(options))) as T;
  }

  private async readForm(o: UrlencodedConfig): Promise<unknown> {
    const ct = this.get('content-type');
    if (mediaType(ct) !== 'application/x-www-form-urlencoded') {
      throw unsupportedType('req.form()', 'application/x-www-form-urlencoded', ct);
    }
    const cs = charsetOf(ct) ?? 'utf-8';
    const charset =
      cs === 'utf-8' || cs === 'utf8' ? 'utf-8' : cs === 'iso-8859-1' || cs === 'latin1' ? 'iso-8859-1' : '';
    if (charset === '') {
      throw new HttpError(415, `Unsupported charset "${cs}" for a form; send utf-8 or iso-8859-1`, {
        code: ErrorCodes.UNSUPPORTED_CHARSET,
      });
    }
    const body = await this.readBody(o.limit, 'urlencoded.limit');
    return parseUrlencoded(body.toString(charset === 'utf-8' ? 'utf8' : 'latin1'), o, charset);
  }

  /**
   * The body parsed by its Content-Type, as body-parser would (one promise, cached): JSON →
   * value (an empty body → `{}`), urlencoded → object (empty → `{}`), `text/*` → string, any other
   * type → Buffer; no body at all (neither Content-Length nor Transfer-Encoding) or no Content-Type
   * → undefined.
   * Errors and limits are those of `json()`, `form()` and `text()` (except `json.strictType`).
   *
   * @example
   * app.use(async (req, res, next) => { console.log(await req.parseBody()); await next(); });
   */
  parseBody(): Promise<unknown> {
    const x = this.lazy();
    if (x.body === undefined) x.body = this.readParsedBody();
    return x.body;
  }

  private async readParsedBody(): Promise<unknown> {
    if (!this.hasBody) return undefined;
    const type = mediaType(this.get('content-type'));
    if (type === '') return undefined;
    if (isJsonType(type)) return this.readJson({ ...this._cfg.json, strictType: false }, true);
    if (type === 'application/x-www-form-urlencoded') return this.readForm(this._cfg.urlencoded);
    if (type.startsWith('text/')) return this.text();
    return this.readBody(this._cfg.bodyLimit, 'bodyLimit');
  }

  /**
   * A multipart/form-data body, part by part as it arrives: fields (`kind: 'field'`) and files
   * (`kind: 'file'`, in memory as `buffer`, or written to `dest` as `path`). Another Content-Type →
   * 415, a malformed body → 400, over a limit (`fileSize`, `files`, `fields`, `parts`, `fieldSize`,
   * `total`) → 413 naming it. With a callback, resolves once every part was handled.
   *
   * @example
   * for await (const part of req.multipart({ dest: '/tmp/uploads', limits: { fileSize: 10_000_000, files: 3 } })) {
   *   if (part.kind === 'file') console.log(part.filename, part.size, part.path);
   *   else console.log(part.name, '=', part.value);
   * }
   * // or: await req.multipart({}, async (part) => { … });
   */
  multipart(options?: MultipartOptions): AsyncGenerator<MultipartPart, void, undefined>;
  multipart(options: MultipartOptions | undefined, onPart: (part: MultipartPart) => unknown): Promise<void>;
  multipart(
    options?: MultipartOptions,
    onPart?: (part: MultipartPart) => unknown,
  ): AsyncGenerator<MultipartPart, void, undefined> | Promise<void> {
    const parts = this.readMultipart(options);
    if (onPart === undefined) return parts;
    return (async () => {
      for await (const part of parts) await onPart(part);
    })();
  }

  private async *readMultipart(options: MultipartOptions = {}): AsyncGenerator<MultipartPart, void, undefined> {
    const len = this._cfg.requireLength ? this.requireLength() : this.contentLength();
    yield* parseMultipart(this.get('content-type'), () => this._bodySource().iterate(), len, options);
  }

  /** The body bytes as an ArrayBuffer. */
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  /** The body as a Node Readable stream. */
  stream(): Readable {
    return this._bodySource().readable();
  }

  /** The body as a Web ReadableStream. */
  webStream(): ReadableStream<Uint8Array> {
    return this._bodySource().webStream();
  }
}
