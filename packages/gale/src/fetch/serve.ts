// `serve({ fetch, port })` / `serve(honoApp)` (as Bun.serve and Deno.serve): a Gale app of its own whose every
// request goes to the fetch handler. Mounting a handler on an existing app is mount.ts (which app.ts uses).
import { App } from '../app.js';
import { ErrorCodes, GaleError } from '../errors.js';
import { checkGaleOptions } from '../option-rules.js';
import type { AddressInfo, GaleOptions } from '../options.js';
import { fn as aFunction, bool } from '../options-check.js';
import type { Fetchable, FetchErrorHandler, FetchHandler } from './handler.js';
import { fetchRoute } from './handler.js';
import { handlerOf, installFetchGlobals } from './mount.js';

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
  /** Answers a request in-process, without a socket: `app.request()`. */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
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
  checkGaleOptions(options, 'serve()', {
    fetch: aFunction,
    port: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'a port number'),
    hostname: (v) => (typeof v === 'string' ? undefined : 'a string'),
    signal: (v) => (v instanceof AbortSignal ? undefined : 'an AbortSignal'),
    onError: aFunction,
    onListen: aFunction,
    overrideGlobalObjects: bool,
  });
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
    request: (input, init) => app.request(input, init),
  };
  signal?.addEventListener('abort', () => void app.close(), { once: true });
  onListen?.(addr);
  return server;
}
