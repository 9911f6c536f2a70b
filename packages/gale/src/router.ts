// Routers: ordered lists of middleware (`use`), routes and error handlers, mountable at a prefix and
// nestable. The app flattens them into native routes with a chain precomputed per route.
import type { ErrorHandler, Handler, Middleware } from './chain.js';
import { ErrorCodes, GaleError } from './errors.js';
import { type FastWsBehavior, fromFastWs, type WsBehavior, type WsConnectionHandler } from './ws-route.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ALL';

/**
 * `serveStatic(dir)` result: a static mount the engine answers, usable with `use(prefix, …)`.
 *
 * @example
 * app.use('/assets', serveStatic('./public', { cache: true })); // a StaticMount
 */
export interface StaticMount {
  readonly kind: 'gale.static';
  readonly dir: string;
  readonly options: object;
}

/** What `use` accepts besides paths. */
export type Usable = Middleware | ErrorHandler4 | Router | StaticMount;
/** An Express-style error middleware (four parameters) given to `use`. */
export type ErrorHandler4 = (err: unknown, req: never, res: never, next: never) => unknown;

/** @internal */
export type Entry =
  | { kind: 'use'; seq: number; prefix: string; fn: Middleware }
  | {
      kind: 'route';
      seq: number;
      method: Method;
      path: string;
      fns: Middleware[];
      handler: Handler;
      /** A WebSocket route: the handler is replaced by the upgrade step when registered. */
      ws?: { behavior: WsBehavior; onOpen?: WsConnectionHandler };
    }
  | { kind: 'router'; seq: number; prefix: string; router: Router }
  | { kind: 'static'; seq: number; prefix: string; mount: StaticMount };

let seqCounter = 0;
/** @internal global registration order, so flattening keeps the order things were declared in */
export function nextSeq(): number {
  return ++seqCounter;
}

/** Joins two path prefixes: ('/api', '/users') → '/api/users'; '' and '/' mean "no prefix". */
export function joinPath(a: string, b: string): string {
  const left = a === '/' ? '' : a.replace(/\/+$/, '');
  if (b === '' || b === '/') return left === '' ? '/' : left;
  return left + (b.startsWith('/') ? b : `/${b}`);
}

function isStaticMount(v: unknown): v is StaticMount {
  return typeof v === 'object' && v !== null && (v as StaticMount).kind === 'gale.static';
}

/**
 * A group of routes and middleware, mounted with `app.use(prefix, router)`. Routers nest.
 *
 * @example
 * const api = router();
 * api.use(async (req, res, next) => { await next(); });
 * api.get('/users/:id', (req) => ({ id: req.params.id }));
 * app.use('/api', api);
 */
export class Router {
  /** @internal */ readonly entries: Entry[] = [];
  /** @internal */ readonly errorHandlers: ErrorHandler[] = [];
  /** @internal called when an entry is added after mounting, so apps register it too */
  readonly _listeners: ((e: Entry) => void)[] = [];

  /** Adds middleware (for every path, or under `path`), routers, static mounts or error middleware. */
  use(...fns: Middleware[]): this;
  use(path: string, ...fns: Middleware[]): this;
  use(...items: (string | Usable)[]): this;
  use(...args: (string | Usable)[]): this {
    let prefix = '/';
    if (typeof args[0] === 'string') prefix = args.shift() as string;
    if (!prefix.startsWith('/')) throw new TypeError(`use(): path must start with '/', got ${JSON.stringify(prefix)}`);
    if (args.length === 0) throw new TypeError('use(): give at least one middleware, router or static mount');
    for (const a of args) {
      let e: Entry;
      if (a instanceof Router) e = { kind: 'router', seq: nextSeq(), prefix, router: a };
      else if (isStaticMount(a)) e = { kind: 'static', seq: nextSeq(), prefix, mount: a };
      else if (typeof a === 'function' && a.length === 4) {
        this.onError(a as unknown as ErrorHandler);
        continue;
      } else if (typeof a === 'function') e = { kind: 'use', seq: nextSeq(), prefix, fn: a as Middleware };
      else throw new GaleError(ErrorCodes.INVALID_MIDDLEWARE, `use(): ${typeof a} is not a middleware or router`);
      this.add(e);
    }
    return this;
  }

  /** Handles errors from this router's middleware and routes (innermost router first, then the app). */
  onError(handler: ErrorHandler): this {
    if (typeof handler !== 'function') throw new TypeError('onError(): handler must be a function');
    this.errorHandlers.push(handler);
    return this;
  }

  get(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('GET', path, fns);
  }
  post(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('POST', path, fns);
  }
  put(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('PUT', path, fns);
  }
  patch(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('PATCH', path, fns);
  }
  delete(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('DELETE', path, fns);
  }
  head(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('HEAD', path, fns);
  }
  options(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('OPTIONS', path, fns);
  }
  /** A route for every method. */
  all(path: string, ...fns: [...Middleware[], Handler]): this {
    return this.route('ALL', path, fns);
  }

  /**
   * A WebSocket route: upgrade requests to `path` run the middleware given before the behaviour (auth,
   * cookies), then `behavior.upgrade`, then open the socket. The last argument is a behaviour object or an
   * express-ws style `(ws, req) => …` function.
   *
   * @example
   * app.ws('/echo', { message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });
   * app.ws('/legacy', requireUser, (ws, req) => ws.on('message', (m) => ws.send(m)));
   */
  ws<D = unknown>(path: string, behavior: WsBehavior<D> | FastWsBehavior<D>): this;
  ws(path: string, ...fns: [...Middleware[], WsBehavior | FastWsBehavior | WsConnectionHandler]): this;
  ws(path: string, ...fns: unknown[]): this {
    const last = fns.pop();
    if (last === undefined || (typeof last !== 'function' && typeof last !== 'object') || last === null) {
      throw new TypeError(`ws(${path}): give a behaviour object or a (ws, req) => … handler`);
    }
    for (const f of fns) {
      if (typeof f !== 'function') throw new TypeError(`ws(${path}): middleware must be functions`);
    }
    const ws =
      typeof last === 'function'
        ? { behavior: {}, onOpen: last as WsConnectionHandler }
        : (last as FastWsBehavior).protocol === 'fast-ws'
          ? { behavior: fromFastWs(last as FastWsBehavior) }
          : { behavior: last as WsBehavior };
    const handler: Handler = () => undefined;
    this.add({ kind: 'route', seq: nextSeq(), method: 'GET', path, fns: fns as Middleware[], handler, ws });
    return this;
  }

  /** @internal */
  route(method: Method, path: string, fns: unknown[]): this {
    if (fns.length === 0) throw new TypeError(`${method} ${path}: give a handler`);
    for (const f of fns) {
      if (typeof f !== 'function') throw new TypeError(`${method} ${path}: handlers and middleware must be functions`);
    }
    const handler = fns[fns.length - 1] as Handler;
    const mws = fns.slice(0, -1) as Middleware[];
    this.add({ kind: 'route', seq: nextSeq(), method, path, fns: mws, handler });
    return this;
  }

  /** @internal */
  add(e: Entry): void {
    this.entries.push(e);
    for (const l of this._listeners) l(e);
  }
}

/**
 * Creates a router.
 *
 * @example
 * const api = router();
 * api.get('/users/:id', (req) => ({ id: req.params.id }));
 * app.use('/api', api);
 */
export function router(): Router {
  return new Router();
}
