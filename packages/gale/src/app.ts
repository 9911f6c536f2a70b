// The Gale application: route registration into the native router, the dispatch entry the engine
// calls for every JS-routed request, return-value conversion, error answers, listen and close.
import { resolve } from 'node:path';
import { ErrorCodes, GaleError, HttpError } from './errors.js';
import { EV_ABORT, EV_CLOSED, EV_DRAIN, type NativeOptions, type NativeServer, native } from './native.js';
import { Request } from './request.js';
import { checkHeader, Response, type ResponseHost } from './response.js';

/** A route handler. Return a value instead of calling `res`: string → text, object → JSON, bytes, or a Web `Response`. */
export type Handler = (req: Request, res: Response) => unknown;

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
  /** Put error messages and stacks in 500 answers. Default: NODE_ENV === 'development'. */
  development?: boolean;
  /** Where handler errors are reported. Default: console. */
  logger?: { error(obj: unknown, msg?: string): void };
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

interface Route {
  handler: Handler;
  names: string[];
}

const MASK = 0xfffff;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ALL';

/**
 * A Gale application.
 *
 * @example
 * import { gale } from 'gale';
 * const app = gale();
 * app.get('/hello/:name', (req) => `Hello ${req.params.name}`);
 * const { port } = await app.listen(3000);
 */
export class App {
  private readonly n: NativeServer;
  private readonly routes: Route[] = [];
  private readonly live: (Response | undefined)[] = [];
  private readonly dev: boolean;
  private readonly logger: { error(obj: unknown, msg?: string): void };
  private readonly host: ResponseHost;
  private listening = false;
  private closed: Promise<void> | undefined;
  private resolveClosed: (() => void) | undefined;

  constructor(options: GaleOptions = {}) {
    const { development, logger, ...engine } = options;
    this.dev = development ?? process.env.NODE_ENV === 'development';
    this.logger = logger ?? { error: (obj, msg) => console.error(msg ?? 'gale:', obj) };
    const live = this.live;
    this.host = {
      forget: (id) => {
        live[id & MASK] = undefined;
      },
      track: (res) => {
        live[res._id & MASK] = res;
      },
    };
    this.n = native.createServer(engine as NativeOptions, this.dispatch, this.onEvent);
  }

  /** Registers a handler for GET (HEAD requests use it too, without a body). */
  get(path: string, handler: Handler): this {
    return this.add('GET', path, handler);
  }
  post(path: string, handler: Handler): this {
    return this.add('POST', path, handler);
  }
  put(path: string, handler: Handler): this {
    return this.add('PUT', path, handler);
  }
  patch(path: string, handler: Handler): this {
    return this.add('PATCH', path, handler);
  }
  delete(path: string, handler: Handler): this {
    return this.add('DELETE', path, handler);
  }
  head(path: string, handler: Handler): this {
    return this.add('HEAD', path, handler);
  }
  options(path: string, handler: Handler): this {
    return this.add('OPTIONS', path, handler);
  }
  /** Registers a handler for every method. */
  all(path: string, handler: Handler): this {
    return this.add('ALL', path, handler);
  }

  /**
   * Registers a response the engine answers by itself, without entering JavaScript.
   *
   * @example
   * app.fixed('GET', '/health', { body: 'ok' });
   */
  fixed(method: string, path: string, response: FixedResponse): this {
    const headers: string[] = [];
    let hasType = false;
    for (const [k, v] of Object.entries(response.headers ?? {})) {
      if (k.toLowerCase() === 'content-type') hasType = true;
      headers.push(k, v);
    }
    if (!hasType) {
      headers.push(
        'Content-Type',
        typeof response.body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      );
    }
    this.n.fixed(method.toUpperCase(), path, response.status ?? 200, headers, response.body);
    return this;
  }

  /**
   * Serves the files under `dir` at URL `prefix`, answered by the native engine (never entering JS):
   * ETag/Last-Modified/304, Range, precompressed `.br`/`.gz`, optional memory cache.
   *
   * @example
   * app.static('/assets', './public', { maxAge: 3_600_000, immutable: /\.[0-9a-f]{8}\./, cache: true });
   */
  static(prefix: string, dir: string, options: StaticOptions = {}): this {
    const cache = options.cache;
    const headers = Object.entries(options.headers ?? {})
      .map(([k, v]) => `${checkHeader(k, v)}: ${v}\r\n`)
      .join('');
    const index = options.index === false ? [] : options.index === undefined ? undefined : [options.index].flat();
    this.n.static(prefix, resolve(dir), {
      index,
      extensions: options.extensions,
      fallback: options.fallback,
      dotfiles: options.dotfiles,
      maxAge: options.maxAge === undefined ? undefined : Math.floor(options.maxAge / 1000),
      immutable: options.immutable?.source,
      cache: cache !== undefined && cache !== false,
      cacheFileMax: typeof cache === 'object' ? cache.maxFileSize : undefined,
      cacheMax: typeof cache === 'object' ? cache.maxSize : undefined,
      precompressed: options.precompressed,
      compress: options.compress,
      redirect: options.redirect,
      headers: headers || undefined,
    });
    return this;
  }

  private add(method: Method, path: string, handler: Handler): this {
    if (typeof handler !== 'function') throw new TypeError(`${method} ${path}: handler must be a function`);
    let names: string[];
    try {
      names = this.n.route(method, path, this.routes.length);
    } catch (err) {
      throw new GaleError(ErrorCodes.ROUTE_CONFLICT, (err as Error).message);
    }
    this.routes.push({ handler, names });
    return this;
  }

  /** Starts accepting connections. Port 0 picks a free port; resolves to the bound address. */
  async listen(port = 0, host = '0.0.0.0'): Promise<AddressInfo> {
    const [address, boundPort, family] = this.n.listen(host, port);
    this.listening = true;
    return { address, port: boundPort, family };
  }

  /** Open connections right now. */
  get connections(): number {
    return this.n.connections();
  }

  /**
   * Stops accepting, lets in-flight requests finish (answered with `Connection: close`), closes idle
   * keep-alive connections, and after `timeout` ms (if given) closes whatever is left.
   */
  close(options: { timeout?: number } = {}): Promise<void> {
    if (this.closed) return this.closed;
    if (!this.listening) {
      this.closed = Promise.resolve();
      return this.closed;
    }
    this.closed = new Promise<void>((resolve) => {
      this.resolveClosed = resolve;
    });
    let timer: NodeJS.Timeout | undefined;
    if (options.timeout !== undefined) {
      timer = setTimeout(() => this.n.forceClose(), options.timeout);
      timer.unref();
    }
    this.n.close();
    return this.closed.finally(() => clearTimeout(timer));
  }

  // The engine calls this synchronously for every request routed to JS; params arrive as arguments.
  // A function (not an arrow) so params past the third can be read from `arguments`.
  private readonly dispatch = function (
    this: App,
    id: number,
    routeId: number,
    p0?: string,
    p1?: string,
    p2?: string,
  ): void {
    const route = this.routes[routeId] as Route;
    let params: Record<string, string> | undefined;
    const names = route.names;
    if (names.length !== 0) {
      params = {};
      if (names.length <= 3) {
        params[names[0] as string] = p0 as string;
        if (names.length > 1) params[names[1] as string] = p1 as string;
        if (names.length > 2) params[names[2] as string] = p2 as string;
      } else {
        // biome-ignore lint/complexity/noArguments: params past the third arrive as extra arguments
        const args = arguments;
        for (let i = 0; i < names.length; i++) params[names[i] as string] = args[i + 2];
      }
    }
    const req = new Request(this.n, id, params);
    const res = new Response(this.n, id, req, this.host);
    let out: unknown;
    try {
      out = route.handler(req, res);
    } catch (err) {
      this.fail(err, req, res);
      return;
    }
    if (res.finished) return;
    if (
      out !== undefined &&
      typeof (out as PromiseLike<unknown>).then !== 'function' &&
      !(out instanceof globalThis.Response)
    ) {
      // A plain returned value: answer now, on the synchronous path (no snapshot, no tracking).
      try {
        res.send(out);
      } catch (err) {
        this.fail(err, req, res);
      }
      if (res.finished) return;
    }
    req._deferred = true;
    this.live[id & MASK] = res;
    if (out !== undefined) this.reply(out, req, res);
  }.bind(this);

  private readonly onEvent = (kind: number, id: number): void => {
    if (kind === EV_CLOSED) {
      this.resolveClosed?.();
      return;
    }
    const res = this.live[id & MASK];
    if (res === undefined || res._id !== id) {
      if (kind === EV_ABORT) this.n.release(id);
      return;
    }
    if (kind === EV_ABORT) {
      this.live[id & MASK] = undefined;
      res._req._aborted = true;
      res._aborted();
      res._req._abort?.abort(new Error('client disconnected'));
    } else if (kind === EV_DRAIN) {
      res._emit('drain');
    }
  };

  /** Turns a handler's return value (or what its promise resolves to) into the response. */
  private reply(out: unknown, req: Request, res: Response): void {
    if (typeof (out as PromiseLike<unknown>)?.then === 'function') {
      (out as PromiseLike<unknown>).then(
        (v) => {
          if (v !== undefined && !res.finished && !res.headersSent) this.reply(v, req, res);
        },
        (err) => this.fail(err, req, res),
      );
      return;
    }
    if (res.finished || res.headersSent) return;
    if (out instanceof globalThis.Response) {
      this.sendWebResponse(out, res).catch((err) => this.fail(err, req, res));
      return;
    }
    try {
      res.send(out);
    } catch (err) {
      this.fail(err, req, res);
    }
  }

  private async sendWebResponse(web: globalThis.Response, res: Response): Promise<void> {
    res.status(web.status);
    const cookies = web.headers.getSetCookie();
    for (const [k, v] of web.headers) if (k !== 'set-cookie') res.header(k, v);
    if (cookies.length > 0) res.header('set-cookie', cookies);
    const body = web.body === null ? undefined : new Uint8Array(await web.arrayBuffer());
    if (!res.finished) res.end(body);
  }

  /** Answers a thrown error: HttpError keeps its status; anything else is a logged 500. */
  private fail(err: unknown, req: Request, res: Response): void {
    const http = err instanceof HttpError ? err : undefined;
    const status = http?.status ?? 500;
    if (status >= 500) this.logger.error(err, `gale: ${status} while handling a request`);
    if (res.finished) return;
    if (res.headersSent) {
      // Mid-stream: the status is gone; cut the connection so the client sees a truncated body.
      res.destroy();
      return;
    }
    let body: string;
    if (http?.expose) body = http.message;
    else if (this.dev && err instanceof Error) body = `${err.stack ?? err.message}`;
    else body = status >= 500 ? 'Internal Server Error' : (http?.message ?? 'Error');
    res.removeHeader('content-type');
    res.status(status).header('content-type', 'text/plain; charset=utf-8');
    if (http) for (const [k, v] of Object.entries(http.headers)) res.header(k, v);
    res.send(body);
    void req;
  }
}

/**
 * Creates a Gale application.
 *
 * @example
 * const app = gale({ bodyLimit: 64 * 1024 });
 * app.get('/json', () => ({ hello: 'world' }));
 * await app.listen(3000);
 */
export function gale(options?: GaleOptions): App {
  return new App(options);
}
