// `serve({ fetch, port })` / `serve(honoApp)` (as Bun.serve and Deno.serve) and `app.fetch([prefix,] handler)`
// (a fetch handler mounted on a Gale app, behind its native routes and static files). Also swaps the global
// Request/Response for the cheap ones, as @hono/node-server does. app.ts imports this file and this file uses
// App only inside functions, so the import cycle is harmless.
import { App } from '../app.js';
import { ErrorCodes, GaleError } from '../errors.js';
import type { AddressInfo, GaleOptions } from '../options.js';
import type { Request as GaleRequest } from '../request.js';
import type { Response as GaleResponse } from '../response.js';
import { joinPath } from '../router.js';
import { type Fetchable, type FetchErrorHandler, type FetchHandler, fetchRoute } from './handler.js';
import { FetchRequest } from './web-request.js';
import { WebResponse } from './web-response.js';

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

function handlerOf(h: FetchHandler | Fetchable, what: string): [FetchHandler, unknown] {
  if (typeof h === 'function') return [h, undefined];
  if (typeof h === 'object' && h !== null && typeof (h as Fetchable).fetch === 'function') {
    if (h instanceof App) {
      throw new TypeError(`${what}: a Gale app cannot be served as a fetch handler; call its listen() instead`);
    }
    return [(h as Fetchable).fetch as FetchHandler, h];
  }
  throw new TypeError(`${what}: give a (request) => Response function or an object with a fetch method (a Hono app)`);
}

/** @internal `app.fetch(...)` (the method on App calls this). */
export function mountFetch(
  app: App,
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
  app.all(prefix, route);
  app.all(joinPath(prefix, '*galeFetchPath'), route);
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

/**
 * Options of `serve()`: the fetch handler, where to listen, and any `gale()` option (bodyLimit, trustProxy, …).
 *
 * @example
 * const server = await serve({ fetch: (req) => new Response('hi'), port: 0, hostname: '127.0.0.1', bodyLimit: 8 << 20 });
 */
export interface ServeOptions extends GaleOptions {
  /** The handler (or pass an object with a `fetch` method as the first argument of serve). */
  fetch: FetchHandler;
  /** Port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Address to bind. Default `'0.0.0.0'`. */
  hostname?: string;
  /** Aborting it closes the server (gracefully, as `close()`). */
  signal?: AbortSignal;
  /** Answers errors the handler throws; its Response is sent. Without it: HttpError's status, else a logged 500. */
  onError?: FetchErrorHandler;
  /** Called once listening, with the bound address. */
  onListen?: (address: AddressInfo) => void;
  /** Keep the global Request/Response (see installFetchGlobals). Default true (they are replaced). */
  overrideGlobalObjects?: boolean;
}

/**
 * A running fetch server.
 *
 * @example
 * const server = await serve(hono, { port: 3000 });
 * console.log(server.url);
 * process.on('SIGTERM', () => server.close({ timeout: 10_000 }));
 */
export interface FetchServer {
  /** The bound port. */
  readonly port: number;
  /** The bound address, e.g. `'127.0.0.1'`. */
  readonly hostname: string;
  /** `http://hostname:port/`. */
  readonly url: URL;
  /** The Gale app underneath (add native routes, static files, WebSockets). */
  readonly app: App;
  /** Stops accepting and lets in-flight requests finish (force-closing after `timeout` ms if given). */
  close(options?: { timeout?: number }): Promise<void>;
}

function isPlainObject(v: object): boolean {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/**
 * Serves a Web-standard fetch handler on Gale's engine, like Bun.serve and Deno.serve: `serve({ fetch, port })`, or
 * `serve(app, options)` for anything with a `fetch` method (a Hono app). Resolves once listening.
 *
 * @example
 * import { serve } from 'gale';
 * import { Hono } from 'hono';
 * const hono = new Hono().get('/', (c) => c.json({ hello: 'world' }));
 * const server = await serve(hono, { port: 3000 });
 * // or: await serve({ fetch: (req) => Response.json({ path: new URL(req.url).pathname }), port: 3000 });
 * process.on('SIGTERM', () => server.close({ timeout: 10_000 }));
 */
export async function serve(
  input: ServeOptions | Fetchable,
  more: Partial<Omit<ServeOptions, 'fetch'>> = {},
): Promise<FetchServer> {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError('serve(): give { fetch, port } or an object with a fetch method (a Hono app)');
  }
  // A plain object is the options (Bun's `export default { port, fetch }` too); anything else (a Hono app) only
  // lends its fetch method, so its own fields are never read as options.
  const options: Partial<ServeOptions> = isPlainObject(input) ? { ...(input as ServeOptions), ...more } : { ...more };
  const [fn, self] = handlerOf(isPlainObject(input) ? (input as ServeOptions).fetch : (input as Fetchable), 'serve()');
  const { fetch: _f, port, hostname, signal, onError, onListen, overrideGlobalObjects, ...galeOptions } = options;
  if (overrideGlobalObjects !== false) installFetchGlobals();
  const app = new App(galeOptions);
  app.notFound(fetchRoute(fn, self, { strip: 0, hostname: 'localhost', onError }));
  if (signal?.aborted) throw new GaleError(ErrorCodes.NOT_LISTENING, 'serve(): the signal was already aborted');
  const addr = await app.listen(port ?? 3000, hostname ?? '0.0.0.0');
  const server: FetchServer = {
    port: addr.port,
    hostname: addr.address,
    url: new URL(`http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}/`),
    app,
    close: (o) => app.close(o),
  };
  signal?.addEventListener('abort', () => void app.close(), { once: true });
  onListen?.(addr);
  return server;
}
