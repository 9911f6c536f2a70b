// Option and result types of the public API (no runtime code).
import type { Logger } from './logging.js';

/** Options for `gale()`. Defaults mirror Node's http server. */
export interface GaleOptions {
  /** Largest request body in bytes; larger → 413 before the handler runs. Default 1 MiB. */
  bodyLimit?: number;
  /** Largest request head (request line + headers) in bytes → 431. Default 16384. */
  maxHeaderSize?: number;
  /** Most request headers → 431. Default 100. */
  maxHeaders?: number;
  /** Longest request-target in bytes → 414. Default 8192. */
  maxUriLength?: number;
  /** Milliseconds for a request head to arrive → 408. Default 60000. */
  headersTimeout?: number;
  /** Milliseconds for a request body to arrive → 408. Default 300000. */
  requestTimeout?: number;
  /** Milliseconds an idle keep-alive connection stays open. Default 65000. */
  keepAliveTimeout?: number;
  /** Match static path segments case-sensitively. Default false (as Express). */
  caseSensitive?: boolean;
  /** Treat `/a/` and `/a` as different paths. Default false (as Express). */
  strict?: boolean;
  /** Secret(s) for `req.signedCookies` (the first signs, all verify: rotate by prepending). */
  cookieSecret?: string | string[];
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
   * ETags for bodies sent with `send`/`json`/`html` (304 when If-None-Match matches): `'weak'`
   * (default, also `true`), `'strong'`, or `false`.
   */
  etag?: boolean | 'weak' | 'strong';
  /** Directory (or directories, searched in order) of the templates `res.render` finds. Default `./views`. */
  views?: string | string[];
  /** Extension of views named without one, e.g. `'eta'` (as Express's `view engine`). */
  viewEngine?: string;
}

/** Options for `app.fixed()`. */
export interface FixedResponse {
  status?: number;
  headers?: Record<string, string>;
  body: string | Uint8Array;
}

/** Options for `app.static()`. */
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
}

/** The address `listen` bound. */
export interface AddressInfo {
  address: string;
  port: number;
  family: string;
}
