// The shape of Request that the modules below it work on (helpers, body readers, node members, logging): its
// documented helpers and body readers, and the core members they read. request.ts's Request implements all of it
// (TypeScript checks that it matches), so none of them imports request.ts. Types only.
// Over 400 lines: it is types only, the documentation of Request's 16 helpers (RequestHelpers) and 10 body readers
// (RequestBodyReaders) with their doc comments and examples, kept apart from request.ts so that the modules computing
// them (helpers.ts, body.ts, …) need not import it.
import type { Readable } from 'node:stream';
import type { BodySource } from '../body-source.js';
import type { Logger } from '../logger.js';
import type { MultipartOptions, MultipartPart } from '../multipart.js';
import type { NativeServer } from '../native.js';
import type { HeaderValue, JsonOptions, TextOptions, UrlencodedOptions } from '../options.js';
import type { Query, RequestConfig } from './config.js';

/**
 * Request headers by lower-case name, as Node's `IncomingHttpHeaders`.
 *
 * @example
 * app.get('/', (req) => {
 *   const h: Headers = req.headers; // lower-case names; repeated ones joined (set-cookie as an array)
 *   return h['user-agent'];
 * });
 */
export type Headers = Record<string, string | string[] | undefined>;

/**
 * The params of a route whose path is not a literal, and of a middleware that does not know its route.
 *
 * @example
 * const logParams: Middleware<AnyParams> = (req, res, next) => {
 *   console.log(Object.keys(req.params));
 *   return next();
 * };
 */
export type AnyParams = Record<string, string>;

/**
 * A request's typed inputs besides params and state: the output types of its route's `query`, `headers` and `body`
 * schemas (see `RouteSchema`). Only the parts the route has schemas for are present.
 *
 * @example
 * const create: Handler<AnyParams, object, { body: { name: string } }> = (req) => ({ created: req.body.name });
 */
export interface RequestInput {
  readonly query?: unknown;
  readonly headers?: unknown;
  readonly body?: unknown;
}

/**
 * The type of `req.query`: the query schema's output, else the parsed query string.
 *
 * @example
 * type Q = QueryOf<{ query: { page: number } }>; // { page: number }
 */
export type QueryOf<I> = I extends { readonly query: infer Q } ? Q : Query;
/**
 * The type of `req.headers`: the headers schema's output laid over the headers (so every header is still there).
 *
 * @example
 * type H = HeadersOf<{ headers: { 'x-api-key': string } }>; // x-api-key: string, other headers as Headers
 */
export type HeadersOf<I> = I extends { readonly headers: infer H } ? H & Headers : Headers;
/**
 * The type of `req.body`: the body schema's output, else whatever a middleware assigned (`unknown`).
 *
 * @example
 * type B = BodyOf<{ body: { name: string } }>; // { name: string }
 */
export type BodyOf<I> = I extends { readonly body: infer B } ? B : unknown;

/** @internal what the request helpers computed, made on first use of any of them (one allocation, not one per field) */
export interface Lazy {
  cookies?: Record<string, string>;
  signed?: Record<string, string | false>;
  /** a signed cookie came and no secret is set (its name): reading signedCookies throws */
  unverifiable?: string;
  ip?: string;
  ips?: string[];
  host?: string | null;
  protocol?: string;
  /** the request's `accepts` negotiator (helpers.ts; typed there, so no @types here) */
  negotiator?: unknown;
  body?: Promise<unknown>;
}

/**
 * The helpers of Request, documented here. Request implements them in request.ts, calling the
 * functions below.
 *
 * @example
 * app.get('/', (req) => ({ ip: req.ip, wantsJson: req.accepts(['html', 'json']) === 'json', ua: req.get('user-agent') }));
 */
export interface RequestHelpers {
  /**
   * The client's address. Without the `trustProxy` option it is the socket address and
   * X-Forwarded-For is ignored (a client cannot forge it); with it, the left-most address of the
   * X-Forwarded-For chain that is reached through trusted proxies only (as Express).
   *
   * @example
   * // gale({ trustProxy: 'loopback' }); a local proxy sent X-Forwarded-For: 203.0.113.7
   * app.get('/whoami', (req) => ({ ip: req.ip, ips: req.ips })); // { ip: '203.0.113.7', ips: ['203.0.113.7'] }
   */
  readonly ip: string;

  /**
   * With `trustProxy`, the addresses of X-Forwarded-For that were reached through trusted proxies,
   * client first (as Express); `[]` when no proxy is trusted.
   *
   * @example
   * // gale({ trustProxy: true }), X-Forwarded-For: 203.0.113.7, 10.0.0.2
   * req.ips; // ['203.0.113.7', '10.0.0.2']
   */
  readonly ips: string[];

  /**
   * The Host header (with port), or X-Forwarded-Host when the socket's peer is a trusted proxy.
   *
   * @example
   * req.host; // 'example.com:8080'
   */
  readonly host: string | undefined;

  /**
   * `host` without the port (IPv6 literals keep their brackets).
   *
   * @example
   * app.get('/', (req) => req.hostname); // 'example.com'
   */
  readonly hostname: string | undefined;

  /**
   * `'http'`, or the first X-Forwarded-Proto value when the socket's peer is a trusted proxy.
   *
   * @example
   * if (req.protocol !== 'https') res.status(308).header('location', `https://${req.host}${req.originalUrl}`).end();
   */
  readonly protocol: string;

  /** `protocol === 'https'`. */
  readonly secure: boolean;

  /**
   * The parts of `hostname` before the domain, nearest first (the domain is the last
   * `subdomainOffset` parts, default 2): `tobi.ferrets.example.com` → `['ferrets', 'tobi']`.
   *
   * @example
   * const tenant = req.subdomains[0];
   */
  readonly subdomains: string[];

  /**
   * The Cookie header as name → value (values percent-decoded). With `cookieSecret`, signed cookies
   * (`s:` values) are in `signedCookies` instead (as cookie-parser).
   *
   * @example
   * app.get('/', (req) => `theme: ${req.cookies.theme ?? 'light'}`);
   */
  readonly cookies: Record<string, string>;

  /**
   * Signed cookies verified against `cookieSecret` (any of its secrets): the value, or `false` when
   * the signature does not match (tampered). Empty without `cookieSecret`.
   *
   * @example
   * // gale({ cookieSecret: process.env.COOKIE_SECRET })
   * const user = req.signedCookies.user; // string, false (tampered) or undefined
   */
  readonly signedCookies: Record<string, string | false>;

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

  /**
   * The best of `encodings` for Accept-Encoding, or false; without arguments, all accepted ones.
   *
   * @example
   * const gzip = req.acceptsEncodings('br', 'gzip') ;
   */
  acceptsEncodings(): string[];
  acceptsEncodings(encodings: string[]): string | false;
  acceptsEncodings(...encodings: string[]): string | false;

  /**
   * The best of `charsets` for Accept-Charset, or false; without arguments, all accepted ones.
   *
   * @example
   * req.acceptsCharsets('utf-8'); // 'utf-8' or false
   */
  acceptsCharsets(): string[];
  acceptsCharsets(charsets: string[]): string | false;
  acceptsCharsets(...charsets: string[]): string | false;

  /**
   * The best of `languages` for Accept-Language, or false; without arguments, all accepted ones.
   *
   * @example
   * const lang = req.acceptsLanguages('en', 'fr', 'de') || 'en';
   */
  acceptsLanguages(): string[];
  acceptsLanguages(languages: string[]): string | false;
  acceptsLanguages(...languages: string[]): string | false;

  /**
   * Whether the Content-Type matches one of `types` (`'json'`, `'text/*'`, `'+json'`, …): the
   * matching type, false, or null when the request has no body (as Express's `req.is`).
   *
   * @example
   * if (req.is('json')) body = await req.json();
   */
  is(types: string[]): string | false | null;
  is(...types: string[]): string | false | null;

  /**
   * True when the client's cached copy is still good: a GET/HEAD whose If-None-Match /
   * If-Modified-Since match the ETag / Last-Modified set on the response, with a 2xx or 304 status.
   *
   * @example
   * res.header('etag', etag);
   * if (req.fresh) return res.status(304).end();
   */
  readonly fresh: boolean;

  /** `!fresh`. */
  readonly stale: boolean;
}

/**
 * The body readers of Request, documented here. Request implements them in request.ts, calling the
 * functions below.
 *
 * @example
 * app.post('/echo', async (req) => ({ got: await req.json() }));
 * app.post('/raw', async (req) => `${(await req.arrayBuffer()).byteLength} bytes`);
 */
export interface RequestBodyReaders {
  /**
   * Returns the Content-Length, or throws HttpError 411 (`GALE_ERR_LENGTH_REQUIRED`) when the
   * request has none (a chunked body, or no body). The `requireLength` option does this for every
   * body reader.
   *
   * @example
   * app.put('/upload', async (req) => { const size = req.requireLength(); … });
   */
  requireLength(): number;

  /**
   * The body as text, decoded with the Content-Type's charset (utf-8 by default; iso-8859-1,
   * utf-16le and other WHATWG encodings; an unknown charset → 415). Over `text.limit` → 413.
   *
   * @example
   * app.post('/notes', async (req) => ({ length: (await req.text()).length }));
   */
  text(options?: TextOptions): Promise<string>;

  /**
   * The body parsed as JSON. Malformed JSON → 400 saying what was expected and where; with
   * `json.strict` (default) only an object or array; over `json.limit` → 413; with
   * `json.strictType`, a non-JSON Content-Type → 415.
   *
   * @example
   * app.post('/users', async (req) => { const user = await req.json<{ name: string }>(); return { hello: user.name }; });
   */
  json<T = unknown>(options?: JsonOptions): Promise<T>;

  /**
   * An application/x-www-form-urlencoded body as an object (qs): flat keys by default, nested with
   * `urlencoded.extended`. Another Content-Type → 415; a malformed `%` escape or invalid UTF-8 → 400
   * with its position; more than `parameterLimit` parameters or deeper than `depth` → 413.
   *
   * @example
   * app.post('/login', async (req) => { const { user, password } = await req.form<{ user: string; password: string }>(); … });
   */
  form<T = Record<string, unknown>>(options?: UrlencodedOptions): Promise<T>;

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
  parseBody(): Promise<unknown>;

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

  /** The body bytes as an ArrayBuffer. */
  arrayBuffer(): Promise<ArrayBuffer>;

  /**
   * The body as Buffers, piece by piece as it arrives (the engine pauses the socket while 256 KiB wait unread, so a
   * slow reader slows the client). Once per request, like `stream()`. With `{ transient: true }` each chunk is yours
   * only until you ask for the next one or leave the loop: Gale frees it then (it reads as empty), which spares V8
   * the full collections a large upload of kept chunks starts. Count, hash or write a chunk before moving on; copy
   * what you keep.
   *
   * @example
   * app.post('/upload', async (req) => {
   *   const hash = createHash('sha256');
   *   let size = 0;
   *   for await (const chunk of req.chunks({ transient: true })) {
   *     hash.update(chunk);
   *     size += chunk.length;
   *   }
   *   return { size, sha256: hash.digest('hex') };
   * });
   */
  chunks(options?: ChunksOptions): AsyncGenerator<Buffer, void, undefined>;

  /** The body as a Node Readable stream. */
  stream(): Readable;

  /** The body as a Web ReadableStream. */
  webStream(): ReadableStream<Uint8Array>;
}

/**
 * Options of `req.chunks()`.
 *
 * @example
 * for await (const chunk of req.chunks({ transient: true })) size += chunk.length;
 */
export interface ChunksOptions {
  /** Free each chunk when the next one is asked for (or the loop ends); default false: every chunk is yours to keep. */
  transient?: boolean;
}

/** What the response helpers of a request read of its response (`req.fresh` reads its status and validators). */
export interface ResponseOfRequest {
  readonly statusCode: number;
  readonly finished: boolean;
  getHeader(name: string): HeaderValue | undefined;
  destroy(): void;
}

/**
 * What `req.app` gives (Gale's App): its settings, as Express middleware reads them (`req.app.get('trust proxy')`).
 *
 * @example
 * app.use((req, res, next) => (req.app?.get('trust proxy') === false ? next() : next()));
 */
export interface RequestApp {
  get(setting: string): unknown;
}

/**
 * A request as the modules below Request see it: the documented helpers and body readers, and the core members
 * they read. Gale's Request implements it, so a helper written against it takes Gale's `req`.
 *
 * @example
 * const clientOf = (req: RequestView) => `${req.method} from ${req.ip}`;
 * app.get('/', (req) => clientOf(req));
 */
export interface RequestView extends RequestHelpers, RequestBodyReaders {
  readonly params: object;
  readonly method: string;
  readonly originalUrl: string;
  readonly url: string;
  readonly path: string;
  readonly httpVersion: string;
  readonly query: unknown;
  readonly headers: Headers;
  readonly remoteAddress: string;
  readonly remotePort: number | undefined;
  readonly local: { address: string; port: number; family: string } | undefined;
  readonly signal: AbortSignal;
  readonly aborted: boolean;
  readonly log: Logger;
  readonly id: string;
  get(name: string): string | undefined;
  /** @internal */ _id: number;
  /** @internal */ _n: NativeServer;
  /** @internal */ _ended: boolean;
  /** @internal */ _deferred: boolean;
  /** @internal */ _aborted: boolean;
  /** @internal */ _abort: AbortController | undefined;
  /** @internal */ _cfg: RequestConfig;
  /** @internal */ _res: ResponseOfRequest | undefined;
  /** @internal */ _log: Logger | undefined;
  /** @internal */ _reqId: string | undefined;
  /** @internal */ readonly _secureConn: boolean;
  /** @internal */ _snapshot(): void;
  /** @internal */ _keep(): void;
  /** @internal */ _lacks(a: string, b: string): boolean;
  /** @internal */ _lacksValidators(): boolean;
  /** @internal */ _bodySource(): BodySource;
  /** @internal */ lazy(): Lazy;
}
