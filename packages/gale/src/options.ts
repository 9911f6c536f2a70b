// Option and result types of the public API (no runtime code).
// Over 400 lines: it is type declarations only, about 20 exported option and result types whose fields mostly carry a
// doc comment stating the default and the status or error they lead to; GaleOptions alone is ~150 lines for its ~35
// options.
import type { Logger } from './logger.js';

/**
 * Options for `gale()`. Defaults mirror Node's http server.
 *
 * @example
 * const app = gale({ bodyLimit: 10 << 20, trustProxy: 'loopback', cookieSecret: process.env.SECRET, logger: pino() });
 */
export interface GaleOptions {
  /** Largest request body in bytes; larger → 413 before the handler runs. Default 1 MiB. */
  bodyLimit?: number;
  /** Largest request head (request line + headers) in bytes → 431. Default 16384. */
  maxHeaderSize?: number;
  /** Most request headers → 431. Default 100. */
  maxHeaders?: number;
  /** Longest request-target in bytes → 414. Default 8192. */
  maxUriLength?: number;
  /**
   * Refuse (400) a Host header whose value is not `host[:port]` (RFC 9112 §3.2). Default true. `@gale-http/express` turns
   * it off, since node:http accepts any value and Express apps and their tests rely on that; a missing or repeated
   * Host header on HTTP/1.1 gets 400 either way.
   */
  strictHost?: boolean;
  /** Milliseconds for a request head to arrive → 408. Default 60000. */
  headersTimeout?: number;
  /** Milliseconds for a request body to arrive → 408. Default 300000. */
  requestTimeout?: number;
  /**
   * Milliseconds a handler may leave its request without an answer before Gale answers 503 (code
   * `GALE_HANDLER_TIMEOUT`) and logs the route, so that a forgotten `return` or a middleware that never calls `next()`
   * does not leave the client waiting forever. It counts from when the handler returned without answering and stops
   * once the head is sent: a stream, SSE or a slow download are not cut. Default 30000; `false` turns it off; a route
   * can set its own (`app.get(path, { handlerTimeout: 120_000 }, handler)`). `@gale-http/express` turns it off, as
   * node:http has none.
   */
  handlerTimeout?: number | false;
  /** Milliseconds an idle keep-alive connection stays open. Default 65000. */
  keepAliveTimeout?: number;
  /**
   * Responses that keep their connection open say so as node:http's do: `Connection: keep-alive` and
   * `Keep-Alive: timeout=<keepAliveTimeout in seconds>` (`timeout=65` by default; `@gale-http/express` uses node's 5 s).
   * Default true; false sends neither (an HTTP/1.1 connection is persistent without them).
   */
  keepAliveHeader?: boolean;
  /**
   * Route parameters in `req.params` are percent-decoded by the engine, and a malformed escape (`/users/%E0%A4%A`) is
   * answered 400 before any handler runs. Default true; false passes them as sent, for an app (or a layer, as
   * `@gale-http/express` does) that decodes them itself and wants its error handler to see the malformed ones.
   */
  decodeParams?: boolean;
  /**
   * Open connections above which new ones get a 503 and are closed. Default: the process's
   * open-file limit less 128 (so the server never runs out of descriptors for files it serves).
   */
  maxConnections?: number;
  /**
   * Milliseconds a connection may go without the client taking any of the output waiting for it
   * (a client that stopped reading); it is then closed and its unfinished responses aborted.
   * Default 60000; 0 turns it off.
   */
  sendTimeout?: number;
  /**
   * Bytes of unsent output above which another `res.write()` aborts the response and closes the
   * connection instead of buffering more: the handler ignores `write()` returning false and the
   * client is not reading. Default 16 MiB.
   */
  maxWriteBuffer?: number;
  /**
   * The server sits behind a load balancer that starts every connection with a PROXY protocol header
   * (HAProxy `send-proxy`/`send-proxy-v2`, nginx `proxy_protocol`): the header's client address becomes
   * `req.ip`/`ws.remoteAddress`. Connections without a valid header get 400. Off by default, and then a
   * connection that starts with a PROXY header gets 400 saying so (a client cannot forge its address).
   */
  proxyProtocol?: boolean;
  /**
   * Compress response bodies in the engine for clients that accept it (`Accept-Encoding`): brotli (quality 4) or
   * gzip (level 6), with `Vary: Accept-Encoding`, for whole bodies from `send`/`json`/`end`/returned values of at
   * least `threshold` bytes (default 1024) and a compressible type (text, JSON, JavaScript, XML, SVG…), as the
   * `compression` middleware does. Left alone: HEAD answers, statuses other than 2xx, 204 and 206, bodies the app
   * encoded itself (`Content-Encoding`), `Cache-Control: no-transform`, event streams, streamed bodies, and a body
   * that would not get smaller. A strong ETag becomes weak. Static files have their own (`app.static`'s `compress`
   * and precompressed siblings). Off by default.
   *
   * @example
   * const app = gale({ compression: { threshold: 2048, brotli: true, gzip: true } });
   */
  compression?: boolean | CompressionOptions;
  /**
   * Listen with `SO_REUSEPORT` (Linux), so several processes can each listen on the same port and the kernel
   * spreads connections among them (`gale.cluster` does this for its workers).
   */
  reusePort?: boolean;
  /** Match static path segments case-sensitively. Default false (as Express). */
  caseSensitive?: boolean;
  /** Treat `/a/` and `/a` as different paths. Default false (as Express). */
  strict?: boolean;
  /**
   * How `req.query` is parsed: `'simple'` (default: URLSearchParams, repeated keys become arrays),
   * `'extended'` (qs: `a[b]=1` → `{ a: { b: '1' } }`), qs options, or your own function.
   */
  query?: 'simple' | 'extended' | QueryOptions | ((search: string) => Record<string, unknown>);
  /** `req.json()` and JSON bodies of `req.parseBody()`. */
  json?: JsonOptions;
  /** `req.form()` and urlencoded bodies of `req.parseBody()`. */
  urlencoded?: UrlencodedOptions;
  /** `req.text()` and text bodies of `req.parseBody()`. */
  text?: TextOptions;
  /** Secret(s) for `req.signedCookies` (the first signs, all verify: rotate by prepending). */
  cookieSecret?: string | string[];
  /**
   * Which proxies to believe for X-Forwarded-For/-Host/-Proto (as Express's `trust proxy`): `true` (all),
   * a hop count, addresses/CIDRs/`'loopback'`/`'linklocal'`/`'uniquelocal'` (array or comma list), or
   * `(addr, hop) => boolean`. Default: none — `req.ip` is the socket address and the headers are ignored.
   */
  trustProxy?: boolean | number | string | string[] | ((addr: string, hop: number) => boolean);
  /** Body readers answer 411 when the request has no Content-Length (e.g. chunked). Default false. */
  requireLength?: boolean;
  /** Dot-separated parts of the host name that are the domain, for `req.subdomains`. Default 2. */
  subdomainOffset?: number;
  /** Put error messages and stacks in 500 answers. Default: NODE_ENV === 'development'. */
  development?: boolean;
  /**
   * A pino-compatible logger (`info`/`warn`/`error`, and `child` for per-request loggers): 5xx errors
   * are logged with the request id, `req.log` is a child bound to `reqId`, and one line per request
   * is logged unless `requestLogging` is false. Default: errors to the console, no request lines.
   */
  logger?: Logger;
  /** Log method, url, status and duration of each request at `info` (needs `logger`). Default true. */
  requestLogging?: boolean;
  /**
   * ETags for bodies sent with `send`/`json`/`html` (304 when If-None-Match matches): `'weak'` (also
   * `true`), `'strong'`, or `false` (default: hashing every body is not free; Express's default is 'weak').
   */
  etag?: boolean | 'weak' | 'strong';
  /**
   * How the answers Gale makes itself for errors (404, 405, 413, 415, 400 from a bad body or a failed validation,
   * 431, an uncaught `HttpError`, 500) are written: `'negotiate'` (the default) sends an RFC 9457 problem document
   * (`application/problem+json` with `type`, `title`, `status`, `detail` and Gale's stable `code`) to a client whose
   * `Accept` prefers JSON and plain text to any other; `'text'` always plain text; `'problem'` always the document.
   *
   * @example
   * const api = gale({ errorFormat: 'problem' });
   * // GET /nope → 404 {"type":"about:blank","title":"Not Found","status":404,"code":"GALE_ERR_NOT_FOUND"}
   */
  errorFormat?: 'negotiate' | 'text' | 'problem';
  /** Directory (or directories, searched in order) of the templates `res.render` finds. Default `./views`. */
  views?: string | string[];
  /** Extension of views named without one, e.g. `'eta'` (as Express's `view engine`). */
  viewEngine?: string;
  /**
   * Security headers on every response: `true` sends the set helmet 8 sends by default, an object configures them
   * with helmet's options (see `security()`). They go on static files and fixed responses too. Default: off.
   */
  security?: boolean | SecurityOptions;
}

/**
 * Options for `app.fixed()`.
 *
 * @example
 * app.fixed('GET', '/health', { status: 200, headers: { 'cache-control': 'no-store' }, body: 'ok' });
 */
export interface FixedResponse {
  status?: number;
  headers?: Record<string, string>;
  body: string | Uint8Array;
}

/**
 * Options for `app.static()` and `serveStatic()`. Checked when the mount is made: an unknown name (a typo, or one of
 * serve-static's) or a wrong type throws a TypeError saying what to write; `compress` without `cache` warns
 * (`GALE_STATIC_OPTION_UNUSED`, docs/errors.md).
 *
 * @example
 * app.static('/assets', './public', { cache: true, compress: true, maxAge: 3_600_000, immutable: /\.[0-9a-f]{8}\./ });
 */
export interface StaticOptions {
  /** Files served for a directory, in order. Default `['index.html']`; `false` for none. */
  index?: string | string[] | false;
  /** Extensions tried when a path has no file: `['html']` serves `/about` from `about.html`. */
  extensions?: string[];
  /** A file (relative to the directory) served with 200 for paths that match nothing: SPA fallback. */
  fallback?: string;
  /** Paths with a segment starting with '.': 'ignore' (404, default), 'deny' (403) or 'allow'. */
  dotfiles?: 'ignore' | 'deny' | 'allow';
  /** `Cache-Control: public, max-age` in milliseconds, as Express. */
  maxAge?: number;
  /** Files whose path matches get `Cache-Control: public, max-age=31536000, immutable` (hashed assets). */
  immutable?: RegExp;
  /** Keep files in memory (checked against the disk at most once a second). Default false. */
  cache?: boolean | { maxFileSize?: number; maxSize?: number };
  /** Serve `.br`/`.gz` siblings to clients that accept them. Default true. */
  precompressed?: boolean;
  /** Compress compressible types on the fly (cached with `cache`). Default false. */
  compress?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Redirect a directory without its trailing slash to the slash form. Default true. */
  redirect?: boolean;
  /**
   * Send a weak ETag and answer If-None-Match/If-Match against it. Default true. `false`, as serve-static's: no
   * ETag, and listed tags never match (`*` still does).
   */
  etag?: boolean;
  /** Send Last-Modified and honour If-Modified-Since/If-Unmodified-Since. Default true, as serve-static's. */
  lastModified?: boolean;
  /** Send `Accept-Ranges: bytes` and answer Range requests (206/416). Default true; `false` sends whole files. */
  acceptRanges?: boolean;
}

/**
 * The address `listen` bound.
 *
 * @example
 * const { address, port, family }: AddressInfo = await app.listen(0);
 */
export interface AddressInfo {
  address: string;
  port: number;
  family: string;
}

/**
 * The callback of `app.listen(port, cb)`: no argument once listening, or the error that stopped it.
 *
 * @example
 * app.listen(3000, (err) => {
 *   if (err) throw err; // EADDRINUSE, say
 *   console.log('listening on', app.address()?.port);
 * });
 */
export type ListenCallback = (err?: Error) => void;

/**
 * The options form of `app.listen`.
 *
 * @example
 * await app.listen({ port: 8443, host: '127.0.0.1', tls: { cert: './cert.pem', key: './key.pem' } });
 */
export interface ListenOptions {
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind. Default `0.0.0.0` (all IPv4 interfaces). */
  host?: string;
  /** Serve HTTPS/WSS with these certificates (see `TlsOptions`). */
  tls?: import('./tls.js').TlsOptions;
  /**
   * Serve HTTP/2 as well as HTTP/1.1 (see `Http2Options`): with `tls`, ALPN offers `h2` first; without it,
   * clients that start with the HTTP/2 preface (h2c with prior knowledge) get HTTP/2. Default false.
   */
  http2?: boolean | import('./tls.js').Http2Options;
  /**
   * Serve HTTP/3 as well (see `Http3Options`): QUIC on UDP at the same address and port, with the `tls`
   * certificates (required). Default false.
   */
  http3?: boolean | import('./tls.js').Http3Options;
  /**
   * The engine's I/O backend on Linux: `'uring'` (io_uring: multishot accept and receive, batched sends, one
   * system call per loop turn for every socket), `'epoll'` (the readiness poller), or `'auto'` (the default:
   * epoll for now). When io_uring cannot be used (a kernel before 6.0, `kernel.io_uring_disabled`, a container's
   * seccomp profile), `'uring'` listens with epoll and logs one warning saying why. Without the option, the
   * `GALE_IO` environment variable chooses. Other platforms always use their readiness poller.
   *
   * @example
   * await app.listen({ port: 3000, io: 'uring' });
   * console.log(app.ioBackend); // 'uring', or 'epoll' after a logged fallback
   */
  io?: IoBackend;
  /**
   * In a node:cluster worker (pm2's cluster mode, `cluster.fork()`), listen on a socket of the worker's own instead
   * of taking connections from the primary, as node's `listen({ exclusive: true })`. Without it a worker shares the
   * primary's socket as node:http workers do (see docs/guides/scaling-out.md).
   */
  exclusive?: boolean;
}

/** The engine's I/O backend (`listen({ io })`). */
export type IoBackend = 'auto' | 'uring' | 'epoll';

/**
 * Byte counts: a number, or a string like `'100kb'`, `'1mb'`.
 *
 * @example
 * const app = gale({ json: { limit: '100kb' }, text: { limit: 64 * 1024 } });
 */
export type ByteSize = number | string;

/**
 * The extended query parser's limits (qs).
 *
 * @example
 * const app = gale({ query: { parser: 'extended', depth: 3, parameterLimit: 100 } });
 */
export interface QueryOptions {
  /** `'extended'` (qs, default here) or `'simple'`. */
  parser?: 'simple' | 'extended';
  /** Deepest nesting of `a[b][c]`; deeper keys stay literal. Default 5. */
  depth?: number;
  /** Most parameters parsed; the rest are ignored. Default 1000. */
  parameterLimit?: number;
  /** Highest array index kept as an array (`a[25]=x` becomes an object key above it). Default 20. */
  arrayLimit?: number;
}

/**
 * Options for JSON bodies (`gale({ json })` or per call: `req.json({ limit })`).
 *
 * @example
 * const app = gale({ json: { limit: '1mb', strict: false, strictType: true } });
 * app.post('/raw', async (req) => req.json({ limit: '10kb' })); // per call
 */
export interface JsonOptions {
  /** Only objects and arrays at the top level (as body-parser). Default true. */
  strict?: boolean;
  /** Passed to `JSON.parse`. */
  reviver?: (this: unknown, key: string, value: unknown) => unknown;
  /** Largest JSON body (after decompression) → 413. Default: `bodyLimit`. */
  limit?: ByteSize;
  /** Reject a Content-Type that is not JSON (`application/json` or a `+json` suffix) with 415. Default false. */
  strictType?: boolean;
}

/**
 * Options for urlencoded bodies (`gale({ urlencoded })` or `req.form({ … })`).
 *
 * @example
 * const app = gale({ urlencoded: { extended: true, depth: 5, parameterLimit: 200 } });
 */
export interface UrlencodedOptions {
  /** Parse `a[b]=1` into nested objects and arrays (qs). Default false (flat keys, as Express 5). */
  extended?: boolean;
  /** Deepest nesting when `extended`; deeper → 413. Default 32. */
  depth?: number;
  /** Most parameters → 413. Default 1000. */
  parameterLimit?: number;
  /** Largest form body → 413. Default: `bodyLimit`. */
  limit?: ByteSize;
}

/**
 * Options for text bodies (`gale({ text })` or `req.text({ … })`).
 *
 * @example
 * const app = gale({ text: { limit: '256kb', defaultCharset: 'iso-8859-1' } });
 */
export interface TextOptions {
  /** Largest text body → 413. Default: `bodyLimit`. */
  limit?: ByteSize;
  /** Charset when the Content-Type names none. Default `'utf-8'`. */
  defaultCharset?: string;
}

/**
 * `app.stats()`: what the engine holds now, and counters since it started.
 *
 * @example
 * setInterval(() => {
 *   const { connections, requestsInFlight, pendingOutput } = app.stats();
 *   console.log({ connections, requestsInFlight, pendingOutput });
 * }, 10_000).unref();
 */
export interface ServerStats {
  /** Open connections, WebSockets included. */
  connections: number;
  /** Connections upgraded to WebSocket. */
  websockets: number;
  /** Requests parsed and not yet answered and sent (or, after the client left, not yet let go by JS). */
  requestsInFlight: number;
  /** Request records allocated: in use or pooled for reuse (the high-water mark of requestsInFlight). */
  requestRecords: number;
  /** Requests parsed since the server was created. */
  requestsTotal: number;
  /** Response bytes accepted but not yet taken by the kernel, over all connections. */
  pendingOutput: number;
  /** Accepting is paused because the process ran out of file descriptors (EMFILE); it resumes by itself. */
  acceptPaused: boolean;
}

/**
 * Settings of `compression` (dynamic response compression in the engine).
 *
 * @example
 * const app = gale({ compression: { threshold: 2048, brotliQuality: 5, gzip: false } });
 */
export interface CompressionOptions {
  /** Bodies smaller than this many bytes are sent as they are. Default 1024. */
  threshold?: number;
  /** Offer brotli. Default true. */
  brotli?: boolean;
  /** Offer gzip. Default true. */
  gzip?: boolean;
  /** Brotli quality 0–11. Default 4 (fast, and still smaller than gzip on text). */
  brotliQuality?: number;
  /**
   * Gzip level 0–9 (libdeflate's). Default 6. On a few KB of JSON, level 1 took ~13 µs and 6 ~26 µs here, against
   * ~70 µs for brotli quality 4 at about level 6's size: for small dynamic answers, `brotli: false` with a gzip
   * level is the cheaper choice.
   */
  gzipLevel?: number;
}

/**
 * A CSP directive value: strings, or functions of the request and response (e.g. a nonce).
 *
 * @example
 * app.use(security({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", (req, res) => `'nonce-${res.locals.nonce}'`] } } }));
 */
export type CspDirectiveValue = Iterable<string | ((req: CspRequest, res: CspResponse) => string)>;

/** What a CSP directive function may read of the request (Gale's Request has all of it). */
export interface CspRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly path: string;
  readonly method: string;
}

/** What a CSP directive function may read of the response (Gale's Response has it): `res.locals.nonce`, say. */
export interface CspResponse {
  readonly locals: Record<string, unknown>;
}

/**
 * Content-Security-Policy options (as helmet's).
 *
 * @example
 * const app = gale({ security: { contentSecurityPolicy: { useDefaults: true, directives: { imgSrc: ["'self'", 'data:'] } } } });
 */
export interface CspOptions {
  /** Start from the default directives (below). Default true. */
  useDefaults?: boolean;
  /** Directives by name (camelCase or dashed); `null` removes a default one. */
  directives?: Record<string, CspDirectiveValue | string | null>;
  /** Send `Content-Security-Policy-Report-Only` instead. */
  reportOnly?: boolean;
}

/**
 * Options of `security()` / `gale({ security })`: each header can be turned off with `false` or configured as in
 * helmet 8 (the same names; helmet's legacy aliases `hsts`, `noSniff`, `frameguard`, `dnsPrefetchControl`,
 * `ieNoOpen`, `permittedCrossDomainPolicies`, `hidePoweredBy`, `xssFilter` work too).
 *
 * @example
 * const app = gale({ security: { strictTransportSecurity: { maxAge: 63072000, preload: true }, xFrameOptions: { action: 'deny' } } });
 */
export interface SecurityOptions {
  contentSecurityPolicy?: boolean | CspOptions;
  /** Off by default (as helmet): `true` sends `require-corp`. */
  crossOriginEmbedderPolicy?: boolean | { policy?: 'require-corp' | 'credentialless' | 'unsafe-none' };
  crossOriginOpenerPolicy?:
    | boolean
    | { policy?: 'same-origin' | 'same-origin-allow-popups' | 'noopener-allow-popups' | 'unsafe-none' };
  crossOriginResourcePolicy?: boolean | { policy?: 'same-origin' | 'same-site' | 'cross-origin' };
  originAgentCluster?: boolean;
  referrerPolicy?: boolean | { policy?: string | string[] };
  strictTransportSecurity?: boolean | { maxAge?: number; includeSubDomains?: boolean; preload?: boolean };
  xContentTypeOptions?: boolean;
  xDnsPrefetchControl?: boolean | { allow?: boolean };
  xDownloadOptions?: boolean;
  xFrameOptions?: boolean | { action?: 'deny' | 'sameorigin' | 'DENY' | 'SAMEORIGIN' };
  xPermittedCrossDomainPolicies?: boolean | { permittedPolicies?: 'none' | 'master-only' | 'by-content-type' | 'all' };
  /** Remove X-Powered-By (Gale never sends one; kept for helmet compatibility). */
  xPoweredBy?: boolean;
  xXssProtection?: boolean;
  hsts?: SecurityOptions['strictTransportSecurity'];
  noSniff?: boolean;
  frameguard?: SecurityOptions['xFrameOptions'];
  dnsPrefetchControl?: SecurityOptions['xDnsPrefetchControl'];
  ieNoOpen?: boolean;
  permittedCrossDomainPolicies?: SecurityOptions['xPermittedCrossDomainPolicies'];
  hidePoweredBy?: boolean;
  xssFilter?: boolean;
}

/**
 * A header value: a string, a number, or a list (sent as several lines).
 *
 * @example
 * res.header('x-count', 3).header('link', ['</a>; rel="preload"', '</b>; rel="preload"']);
 */
export type HeaderValue = string | number | readonly string[];
