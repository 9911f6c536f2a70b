// `app.fetch([prefix,] handler)` (a fetch handler mounted on a Gale app, behind its native routes and static files)
// and `toHandler()`, and the swap of the global Request/Response for the cheap ones, as @hono/node-server does.
// No App import: app.ts calls mountFetch, and `serve()` (serve.ts) builds an App on top of this.
import type { Request as GaleRequest } from '../request/request.js';
import type { Response as GaleResponse } from '../response/response.js';
import { joinPath } from '../router.js';
import { type Fetchable, type FetchErrorHandler, type FetchHandler, fetchRoute } from './handler.js';
import { FetchRequest } from './web-request.js';
import { WebResponse } from './web-response.js';

/** What mountFetch registers on: the app's `all` and `notFound` (App, without importing it). */
export interface MountTarget {
  all(
    path: string,
    schema: { readonly hidden: true },
    handler: (req: GaleRequest, res: GaleResponse) => unknown,
  ): unknown;
  notFound(handler: (req: GaleRequest, res: GaleResponse) => unknown): unknown;
}

/**
 * Replaces `globalThis.Response` with Gale's cheap Response (undici's is built only when its body is read as a
 * stream) and `globalThis.Request` with undici's plus two conveniences (it takes the requests fetch handlers get;
 * stream bodies get `duplex: 'half'`). `instanceof` keeps working for undici's own objects. `serve()` and
 * `app.fetch()` call it unless given `overrideGlobalObjects: false`; calling it twice does nothing.
 *
 * @example
 * import { installFetchGlobals } from 'gale';
 * installFetchGlobals(); // before building Responses in code that is not a fetch handler
 */
export function installFetchGlobals(): void {
  if (globalThis.Response !== (WebResponse as unknown)) {
    Object.defineProperty(globalThis, 'Response', { value: WebResponse, writable: true, configurable: true });
  }
  if (globalThis.Request !== (FetchRequest as unknown)) {
    Object.defineProperty(globalThis, 'Request', { value: FetchRequest, writable: true, configurable: true });
  }
}

/**
 * Options of `app.fetch(prefix, handler, options)`.
 *
 * @example
 * app.fetch('/api', hono, { stripPrefix: false, onError: (err) => new Response('api failed', { status: 502 }) });
 */
export interface FetchMountOptions {
  /**
   * Cut the mount prefix from the URL the handler sees (as `app.use(prefix, router)` and Hono's `mount` do).
   * Default true; false passes the full URL.
   */
  stripPrefix?: boolean;
  /** Answers errors the handler throws (its Response is sent); otherwise Gale's error handling answers. */
  onError?: FetchErrorHandler;
  /** Host for requests without a Host header (HTTP/1.0). Default `'localhost'`. */
  hostname?: string;
  /** Keep the global Request/Response (see installFetchGlobals). Default true (they are replaced). */
  overrideGlobalObjects?: boolean;
  /**
   * The `protocol://host[:port]` of the URLs the handler sees, instead of `http://` + the Host header (or the
   * X-Forwarded-* headers under `trustProxy`): a fixed origin (`'https://example.com'`), or a function of Gale's
   * request that computes one (throw an `HttpError(400)` to refuse a request whose headers make no origin).
   */
  origin?: string | ((req: GaleRequest) => string);
}

/** The handler function of a fetch handler or of an object with a fetch method (a Hono app), and its `this`. */
export function handlerOf(h: FetchHandler | Fetchable, what: string): [FetchHandler, unknown] {
  if (typeof h === 'function') return [h, undefined];
  if (typeof h === 'object' && h !== null && typeof (h as Fetchable).fetch === 'function') {
    // A Gale app has fetch() too (mounting a handler), but is not a fetch handler.
    if (typeof (h as { ws?: unknown }).ws === 'function' && typeof (h as { static?: unknown }).static === 'function') {
      throw new TypeError(`${what}: a Gale app cannot be served as a fetch handler; call its listen() instead`);
    }
    return [(h as Fetchable).fetch as FetchHandler, h];
  }
  throw new TypeError(`${what}: give a (request) => Response function or an object with a fetch method (a Hono app)`);
}

/** @internal `app.fetch(...)` (the method on App calls this). */
export function mountFetch(
  app: MountTarget,
  a: string | FetchHandler | Fetchable,
  b?: FetchHandler | Fetchable | FetchMountOptions,
  c?: FetchMountOptions,
): void {
  const prefixed = typeof a === 'string';
  const options = ((prefixed ? c : b) ?? {}) as FetchMountOptions;
  const [fn, self] = handlerOf((prefixed ? b : a) as FetchHandler | Fetchable, 'app.fetch()');
  if (options.overrideGlobalObjects !== false) installFetchGlobals();
  const base = { hostname: options.hostname ?? 'localhost', onError: options.onError, origin: options.origin };
  if (!prefixed) {
    // The fallback: what no route, static mount or fixed response took (after the app's middleware).
    app.notFound(fetchRoute(fn, self, { ...base, strip: 0 }));
    return;
  }
  if (!a.startsWith('/')) throw new TypeError(`app.fetch(): the prefix must start with '/', got ${JSON.stringify(a)}`);
  const prefix = joinPath('/', a);
  const strip = options.stripPrefix === false || prefix === '/' ? 0 : prefix.length;
  const route = fetchRoute(fn, self, { ...base, strip });
  // Not operations of the app's own: left out of app.openapi().
  app.all(prefix, { hidden: true }, route);
  app.all(joinPath(prefix, '*galeFetchPath'), { hidden: true }, route);
}

/**
 * A Gale route handler that answers with a fetch handler (or a Hono app), for routers and catch-all routes: the
 * handler sees the request's full URL (`stripPrefix` is not applied). `app.fetch(prefix, h)` is this on `prefix`
 * and every path below it.
 *
 * @example
 * import { gale, router, toHandler } from 'gale';
 * const pages = router().all('/', toHandler(hono)).all('/*path', toHandler(hono));
 * gale().use(pages);                           // routes and static mounts declared beside it still win
 */
export function toHandler(
  handler: FetchHandler | Fetchable,
  options: Omit<FetchMountOptions, 'stripPrefix'> = {},
): (req: GaleRequest, res: GaleResponse) => Promise<void> | undefined {
  const [fn, self] = handlerOf(handler, 'toHandler()');
  if (options.overrideGlobalObjects !== false) installFetchGlobals();
  return fetchRoute(fn, self, {
    strip: 0,
    hostname: options.hostname ?? 'localhost',
    onError: options.onError,
    origin: options.origin,
  });
}
