// Turns a Web-standard fetch handler `(Request) → Response | Promise<Response>` into a Gale handler: the request
// URL (protocol and host from the Host header, or X-Forwarded-* under trustProxy), the call, errors (onError,
// then Gale's error handling), and the answer (send.ts). Imports Gale's Request/Response as types only.
import { ErrorCodes, HttpError } from '../errors.js';
import type { Request as GaleRequest } from '../request/request.js';
import type { Response as GaleResponse } from '../response/response.js';
import { sendResponse } from './send.js';
import { webRequest } from './web-request.js';
import { GlobalResponse } from './web-response.js';

/**
 * What a fetch handler gets after the request (Hono sees it as `c.env`): Gale's own request and response, and the
 * client's address as Deno gives it.
 *
 * @example
 * app.fetch((request, info) => new Response(`from ${info.remoteAddr.hostname}, route ${info.req.path}`));
 */
export class FetchInfo {
  /** Gale's request (cookies, `ip` under trustProxy, `log`, …). */
  readonly req: GaleRequest;
  /** Gale's response; a handler that answers with it directly may return undefined. */
  readonly res: GaleResponse;

  constructor(req: GaleRequest, res: GaleResponse) {
    this.req = req;
    this.res = res;
  }

  /** The peer of the socket (a proxy's address behind one; see `req.ip` for trustProxy). */
  get remoteAddr(): { transport: 'tcp'; hostname: string; port: number } {
    const r = this.req._ended ? undefined : this.req._n.remote(this.req._id);
    return { transport: 'tcp', hostname: this.req.remoteAddress, port: r?.[1] ?? 0 };
  }
}

/**
 * A Web-standard request handler, as Bun.serve, Deno.serve and Hono's `app.fetch` take.
 *
 * @example
 * const handler: FetchHandler = (request) => Response.json({ url: request.url });
 * await serve({ fetch: handler, port: 3000 });
 */
export type FetchHandler = (request: Request, info: FetchInfo) => Response | Promise<Response>;

/**
 * Anything with a `fetch` method (a Hono app, `export default { fetch }` modules).
 *
 * @example
 * const hono = new Hono().get('/', (c) => c.text('hi')); // anything with fetch(request, info)
 * app.fetch('/hono', hono);
 */
export interface Fetchable {
  fetch(request: Request, info: FetchInfo): Response | Promise<Response>;
}

/**
 * Answers an error thrown by a fetch handler; its Response is sent.
 *
 * @example
 * await serve({ fetch: handler, onError: (err, request) => new Response(`failed: ${request.url}`, { status: 500 }) });
 */
export type FetchErrorHandler = (error: unknown, request: Request) => Response | Promise<Response>;

/** @internal how one mounted fetch handler behaves */
export interface FetchRouteOptions {
  /** Length of the mount prefix cut from the URL the handler sees (0: none). */
  strip: number;
  /** Host used when a request has no Host header (HTTP/1.0). */
  hostname: string;
  onError: FetchErrorHandler | undefined;
  /** `protocol://host[:port]` of every request URL instead of the Host header's (see FetchMountOptions.origin). */
  origin?: string | ((req: GaleRequest) => string);
}

const SIMPLE_HOST = /^[A-Za-z0-9._-]+(?::\d{1,5})?$/;
// Paths that `new URL()` would leave as they are (node-server uses the same test): no spaces, quotes, `<>`,
// backslashes or `%` sequences to normalize, and no `.`/`..` segments.
const SIMPLE_PATH = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

function badUrl(what: string): HttpError {
  return new HttpError(400, `Bad Request: ${what}`, { code: ErrorCodes.INVALID_PATH });
}

/** The absolute URL of `req` as a Web Request carries it. */
export function requestUrl(
  req: GaleRequest,
  strip: number,
  fallbackHost: string,
  origin?: string | ((req: GaleRequest) => string),
): string {
  let target = req.originalUrl;
  if (strip !== 0) {
    target = target.slice(strip);
    if (target === '' || target[0] === '?') target = `/${target}`;
  }
  if (origin !== undefined) return originUrl(typeof origin === 'string' ? origin : origin(req), target);
  let proto = 'http';
  let host: string | undefined;
  if (req._cfg.trust === undefined) {
    host = req._ended ? req.get('host') : req._n.header(req._id, 'host');
  } else {
    proto = req.protocol;
    host = req.host;
  }
  if (host === undefined || host === '') host = fallbackHost;
  if (target[0] !== '/') {
    // absolute-form (`GET http://example.com/x HTTP/1.1`) is kept as sent; `*` has no URL.
    if (!/^https?:\/\//i.test(target)) throw badUrl(`the request target ${JSON.stringify(target)} is not a URL path`);
    try {
      return new URL(target).href;
    } catch {
      throw badUrl(`the request target ${JSON.stringify(target)} is not a valid URL`);
    }
  }
  const url = `${proto}://${host}${target}`;
  if (SIMPLE_HOST.test(host) && SIMPLE_PATH.test(target) && !DOT_SEGMENT.test(target)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(`the Host header ${JSON.stringify(host)} and path do not make a valid URL`);
  }
  if (parsed.host.toLowerCase() !== host.toLowerCase() && !host.startsWith('[')) {
    throw badUrl(`the Host header ${JSON.stringify(host)} is not a valid host`);
  }
  return parsed.href;
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9._-]+(?::\d{1,5})?$/;

// `origin` + the request target: a simple origin and path are joined as they are; anything else goes through URL,
// which must keep the origin's scheme, host and port (a target cannot move the request to another host).
function originUrl(origin: string, target: string): string {
  if (target[0] !== '/') throw badUrl(`the request target ${JSON.stringify(target)} is not a URL path`);
  if (ORIGIN.test(origin) && SIMPLE_PATH.test(target) && !DOT_SEGMENT.test(target)) return origin + target;
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(origin + target);
    base = new URL(origin);
  } catch {
    throw badUrl(`the origin ${JSON.stringify(origin)} and path do not make a valid URL`);
  }
  if (parsed.origin !== base.origin || base.origin === 'null') {
    throw badUrl(`the origin ${JSON.stringify(origin)} is not a valid origin`);
  }
  return parsed.href;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

function notAResponse(v: unknown): TypeError {
  const what = v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'an object') : typeof v;
  return new TypeError(`a fetch handler must return a Response (or a promise of one); it returned ${what}`);
}

/**
 * A Gale handler that runs `fn` (called with `self` as `this`). It returns undefined when the answer went out at
 * once, else a promise; errors not taken by `onError` go to Gale's error handling (HttpError keeps its status,
 * anything else is a logged 500).
 */
export function fetchRoute(
  fn: FetchHandler,
  self: unknown,
  options: FetchRouteOptions,
): (req: GaleRequest, res: GaleResponse) => Promise<void> | undefined {
  const { strip, hostname, onError, origin } = options;
  return (req, res) => {
    let web: Request | undefined;
    let out: unknown;
    try {
      const method = req.method;
      web = webRequest(req, method, requestUrl(req, strip, hostname, origin));
      out = fn.call(self, web, new FetchInfo(req, res));
    } catch (err) {
      return recover(err, web, res, onError);
    }
    if (out instanceof GlobalResponse) return sendResponse(res, out, web.method === 'HEAD');
    return settle(out, web, res, onError);
  };
}

function settle(
  out: unknown,
  web: Request,
  res: GaleResponse,
  onError: FetchErrorHandler | undefined,
): Promise<void> | undefined {
  if (isThenable(out)) {
    return Promise.resolve(out).then(
      (v) => answer(v, web, res, onError),
      (err) => recover(err, web, res, onError),
    );
  }
  return answer(out, web, res, onError);
}

function answer(
  v: unknown,
  web: Request,
  res: GaleResponse,
  onError: FetchErrorHandler | undefined,
): Promise<void> | undefined {
  if (v instanceof GlobalResponse) return sendResponse(res, v, web.method === 'HEAD');
  // A handler that answered through info.res itself.
  if (v === undefined && res.headersSent) return undefined;
  return recover(notAResponse(v), web, res, onError);
}

function recover(
  err: unknown,
  web: Request | undefined,
  res: GaleResponse,
  onError: FetchErrorHandler | undefined,
): Promise<void> | undefined {
  if (onError === undefined || web === undefined || res.headersSent || res.finished) throw err;
  const out = onError(err, web);
  // onError's own failure (or a non-Response) goes to Gale's error handling, never back to onError.
  return settle(out, web, res, undefined);
}
