// Express's router, ported (router 2 for Express 5, lib/router for Express 4): layers in declaration
// order, `next('route')`, `next('router')`, error layers, `param` callbacks, mergeParams, automatic
// OPTIONS answers. The top router of an app walks a per-native-route "plan" (its stack without the
// layers that provably cannot match) instead of its whole stack. No Gale imports (runs on any req/res).
// Over 400 lines: it ports router 2's index.js and Express 4's lib/router/index.js in one file, the Router prototype
// methods and the per-request walk (RouterFrame, Express's `next` closure) with each major's differing branches side by
// side, plus the exported handler and router types with examples; Layer and Route are already in layer.ts.

import {
  bump,
  callErrorHandler,
  callHandler,
  Layer,
  METHOD_NAMES,
  type Next,
  Route,
  type RouterReq,
  type RouterRes,
} from './layer.js';
import { mergeParams, type ParamCalled, processParams } from './params.js';
import { type Compat, type Match, type PathArg, pathnameOf } from './path.js';

export {
  callErrorHandler,
  callHandler,
  generation,
  type Handler,
  Layer,
  METHOD_NAMES,
  type Next,
  Route,
  type RouterReq,
  type RouterRes,
} from './layer.js';

type Fn = (...args: unknown[]) => unknown;

/**
 * A request handler's `req` (Express's properties, plus whatever middleware adds).
 *
 * @example
 * app.get('/me', (req: Request, res: Response) => res.json({ ip: req.ip, user: req.user }));
 */
// biome-ignore lint/suspicious/noExplicitAny: middleware adds arbitrary properties (req.user, req.session, …)
export type Req = import('./request.js').ExpressRequest & { [key: string]: any };
/**
 * A request handler's `res`.
 *
 * @example
 * const notFound = (req: Request, res: Response) => res.status(404).json({ missing: req.originalUrl });
 */
// biome-ignore lint/suspicious/noExplicitAny: as Req
export type Res = import('./response.js').ExpressResponse & { [key: string]: any };
/**
 * `(req, res, next) => …`, as Express calls it.
 *
 * @example
 * const timing: RequestHandler = (req, res, next) => {
 *   const t = Date.now();
 *   res.on('finish', () => console.log(req.method, req.url, Date.now() - t));
 *   next();
 * };
 * app.use(timing);
 */
export type RequestHandler = (req: Req, res: Res, next: Next) => unknown;
/**
 * `(err, req, res, next) => …`: an error handler (four parameters).
 *
 * @example
 * const onError: ErrorRequestHandler = (err, req, res, next) => res.status(err.status ?? 500).send(err.message);
 * app.use(onError);
 */
// biome-ignore lint/suspicious/noExplicitAny: errors are whatever was thrown
export type ErrorRequestHandler = (err: any, req: Req, res: Res, next: Next) => unknown;
/** Handlers as the routing methods take them (arrays are flattened). */
export type HandlerArg = RequestHandler | ErrorRequestHandler | readonly HandlerArg[];

/** The routing methods shared by routers and apps (typed handlers first, then anything callable). */
export interface RoutingMethods<T> {
  get(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  get(path: PathArg, ...handlers: unknown[]): T;
  post(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  post(path: PathArg, ...handlers: unknown[]): T;
  put(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  put(path: PathArg, ...handlers: unknown[]): T;
  patch(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  patch(path: PathArg, ...handlers: unknown[]): T;
  delete(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  delete(path: PathArg, ...handlers: unknown[]): T;
  head(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  head(path: PathArg, ...handlers: unknown[]): T;
  options(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  options(path: PathArg, ...handlers: unknown[]): T;
  all(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): T;
  all(path: PathArg, ...handlers: unknown[]): T;
}

/**
 * A router: callable as middleware, with Express's methods.
 *
 * @example
 * const users = express.Router({ mergeParams: true });
 * users.get('/:id', (req, res) => res.json({ id: req.params.id }));
 * app.use('/users', users);
 */
export interface RouterFn extends RoutingMethods<RouterFn> {
  (req: unknown, res: unknown, next: Next): void;
  stack: Layer[];
  params: Record<string, Fn[]>;
  caseSensitive: boolean | undefined;
  strict: boolean | undefined;
  mergeParams: boolean | undefined;
  compat: Compat;
  /** Express 4's param transformers (`router.param(fn)`). */
  _params: Fn[];
  handle(req: unknown, res: unknown, out: Next | undefined, layers?: readonly Layer[]): void;
  use(...handlers: (RequestHandler | readonly RequestHandler[])[]): RouterFn;
  use(path: PathArg, ...handlers: (RequestHandler | readonly RequestHandler[])[]): RouterFn;
  use(...args: unknown[]): RouterFn;
  route(path: PathArg): Route;
  param(name: string | Fn, fn?: Fn): RouterFn;
}

/**
 * Options of `express.Router(options)`: as Express's (`caseSensitive`, `strict`, `mergeParams`, all false by default).
 *
 * @example
 * const r = express.Router({ caseSensitive: true, strict: true, mergeParams: true });
 */
export interface RouterOptions {
  caseSensitive?: boolean;
  strict?: boolean;
  mergeParams?: boolean;
}

/** What the top router calls when it runs out of layers and no callback was given (finalhandler). */
export type FinalFn = (req: unknown, res: unknown, err: unknown) => void;

/** The shared methods of every router (routers are functions whose prototype is this). */
export const routerProto = Object.create(Function.prototype) as RouterFn & { final?: FinalFn };

export function createRouter(compat: Compat, options: RouterOptions = {}): RouterFn {
  const router = function router(req: unknown, res: unknown, next: Next): void {
    (router as RouterFn).handle(req, res, next);
  } as RouterFn;
  Object.setPrototypeOf(router, routerProto);
  router.caseSensitive = options.caseSensitive;
  router.mergeParams = options.mergeParams;
  router.params = {};
  router._params = [];
  router.strict = options.strict;
  router.stack = [];
  router.compat = compat;
  return router;
}

routerProto.param = function param(this: RouterFn, name: string | Fn, fn?: Fn): RouterFn {
  if (this.compat === 4) {
    if (typeof name === 'function') {
      this._params.push(name);
      return this;
    }
    let n = name;
    if (n[0] === ':') n = n.slice(1);
    let f: unknown = fn;
    for (const p of this._params) {
      const ret = p(n, f);
      if (ret) f = ret;
    }
    if (typeof f !== 'function') throw new Error(`invalid param() call for ${n}, got ${f}`);
    if (this.params[n] === undefined) this.params[n] = [];
    this.params[n].push(f as Fn);
    bump();
    return this;
  }
  if (!name) throw new TypeError('argument name is required');
  if (typeof name !== 'string') throw new TypeError('argument name must be a string');
  if (!fn) throw new TypeError('argument fn is required');
  if (typeof fn !== 'function') throw new TypeError('argument fn must be a function');
  if (this.params[name] === undefined) this.params[name] = [];
  this.params[name].push(fn);
  bump();
  return this;
};

/** Splits `use`'s arguments like Express: an optional path (or path array) first, then functions. */
export function useArgs(args: unknown[]): { path: PathArg; fns: unknown[] } {
  let offset = 0;
  let path: PathArg = '/';
  const first = args[0];
  if (typeof first !== 'function') {
    let arg: unknown = first;
    while (Array.isArray(arg) && arg.length !== 0) arg = arg[0];
    if (typeof arg !== 'function') {
      offset = 1;
      path = first as PathArg;
    }
  }
  return { path, fns: args.slice(offset).flat(Number.POSITIVE_INFINITY) };
}

function gettype(obj: unknown): string {
  const type = typeof obj;
  if (type !== 'object') return type;
  return Object.prototype.toString.call(obj).replace(/^\[object (\S+)\]$/, '$1');
}

routerProto.use = function use(this: RouterFn, ...args: unknown[]): RouterFn {
  const { path, fns } = useArgs(args);
  if (fns.length === 0) {
    throw new TypeError(
      this.compat === 4 ? 'Router.use() requires a middleware function' : 'argument handler is required',
    );
  }
  for (const fn of fns) {
    if (typeof fn !== 'function') {
      throw new TypeError(
        this.compat === 4
          ? `Router.use() requires a middleware function but got a ${gettype(fn)}`
          : 'argument handler must be a function',
      );
    }
    const layer = new Layer(
      path,
      { sensitive: Boolean(this.caseSensitive), strict: false, end: false },
      fn as Fn,
      this.compat,
    );
    const sub = fn as Partial<RouterFn>;
    if (Array.isArray(sub.stack) && typeof sub.handle === 'function') layer.sub = () => sub as RouterFn;
    this.stack.push(layer);
  }
  bump();
  return this;
};

routerProto.route = function route(this: RouterFn, path: PathArg): Route {
  const r = new Route(path, this.compat);
  const layer = new Layer(
    path,
    { sensitive: Boolean(this.caseSensitive), strict: Boolean(this.strict), end: true },
    function handle(req: unknown, res: unknown, next: unknown) {
      r.dispatch(req as RouterReq, res, next as Next);
    },
    this.compat,
  );
  layer.route = r;
  this.stack.push(layer);
  bump();
  return r;
};

for (const m of [...METHOD_NAMES, 'all']) {
  (routerProto as unknown as Record<string, unknown>)[m] = function (this: RouterFn, path: PathArg, ...fns: unknown[]) {
    const r = this.route(path) as unknown as Record<string, (...a: unknown[]) => unknown>;
    (r[m] as (...a: unknown[]) => unknown).apply(r, fns);
    return this;
  };
}

routerProto.handle = function handle(
  this: RouterFn,
  req: unknown,
  res: unknown,
  out: Next | undefined,
  layers?: readonly Layer[],
): void {
  if (out === undefined && routerProto.final === undefined) throw new TypeError('argument callback is required');
  new RouterFrame(this, layers ?? this.stack, req as RouterReq, res as RouterRes, out).step(undefined);
};

/** The part of the URL before the path, for absolute-form targets (`http://host/path`). */
function getProtohost(url: string): string | undefined {
  if (typeof url !== 'string' || url.length === 0 || url[0] === '/') return undefined;
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdnIndex = url.slice(0, pathLength).indexOf('://');
  return fqdnIndex !== -1 ? url.slice(0, url.indexOf('/', 3 + fqdnIndex)) : undefined;
}

/** One router's walk over its layers for one request (Express's `next` closure state). */
class RouterFrame {
  private idx = 0;
  private removed = '';
  private slashAdded = false;
  private sync = 0;
  private paramcalled: Record<string, ParamCalled> | undefined;
  private methods: string[] | undefined;
  private readonly protohost: string;
  private readonly parentParams: Record<string, string>;
  private readonly parentUrl: string;
  private readonly parentNext: Next | undefined;
  readonly next: Next;

  /** The URL a plan (a pruned stack) was chosen for; undefined when walking the whole stack. */
  private planUrl: string | undefined;

  constructor(
    private readonly router: RouterFn,
    private stack: readonly Layer[],
    private readonly req: RouterReq,
    private readonly res: RouterRes,
    private readonly out: Next | undefined,
  ) {
    this.protohost = getProtohost(req.url) || '';
    if (stack !== router.stack) this.planUrl = req.url;
    this.parentParams = req.params;
    this.parentUrl = req.baseUrl || '';
    this.parentNext = req.next;
    this.next = (err) => this.step(err);
    req.next = this.next;
    if (req.method === 'OPTIONS') this.methods = [];
    req.baseUrl = this.parentUrl;
    req.originalUrl = req.originalUrl || req.url;
  }

  /** Restores what this router changed on req, then leaves it (automatic OPTIONS answer first). */
  done(err: unknown): void {
    const req = this.req;
    req.baseUrl = this.parentUrl;
    req.next = this.parentNext;
    req.params = this.parentParams;
    const methods = this.methods;
    if (methods !== undefined && !err && methods.length !== 0) {
      try {
        sendOptions(this.res, methods, this.router.compat);
      } catch (e) {
        this.leave(e);
      }
      return;
    }
    this.leave(err);
  }

  private leave(err: unknown): void {
    if (this.out !== undefined) this.out(err);
    else (routerProto.final as FinalFn)(this.req, this.res, err);
  }

  step(err: unknown): void {
    const req = this.req;
    let layerError = err === 'route' ? null : err;
    if (this.slashAdded) {
      if (this.router.compat === 4) req.url = req.url.slice(1);
      else {
        const pathIsRoot = req.url === '/' || req.url.startsWith('/?');
        if (pathIsRoot || (this.removed.endsWith('/') && req.url[0] === '/')) req.url = req.url.slice(1);
      }
      this.slashAdded = false;
    }
    if (this.removed.length !== 0) {
      req.baseUrl = this.parentUrl;
      req.url = this.protohost + this.removed + req.url.slice(this.protohost.length);
      this.removed = '';
    }
    if (layerError === 'router') {
      setImmediate(doneLater, this, null);
      return;
    }
    // A plan holds only the layers that can match the URL the request arrived with: once middleware
    // rewrites req.url, the walk goes on over the whole stack, from the same layer.
    if (this.planUrl !== undefined && req.url !== this.planUrl) {
      const full = this.router.stack;
      this.idx = this.idx === 0 ? 0 : full.indexOf(this.stack[this.idx - 1] as Layer) + 1;
      this.stack = full;
      this.planUrl = undefined;
    }
    const stack = this.stack;
    if (this.idx >= stack.length) {
      setImmediate(doneLater, this, layerError);
      return;
    }
    if (++this.sync > 100) {
      setImmediate(this.next, err);
      return;
    }
    const path = pathnameOf(req.url);
    if (path == null) {
      this.done(layerError);
      return;
    }
    let layer: Layer | undefined;
    let match: Match | false = false;
    let route: Route | undefined;
    while (match === false && this.idx < stack.length) {
      layer = stack[this.idx++] as Layer;
      route = layer.route;
      try {
        match = layer.match(path);
      } catch (e) {
        layerError = layerError || e;
        match = false;
      }
      if (match === false || route === undefined) continue;
      if (layerError) {
        match = false;
        continue;
      }
      const method = req.method;
      const hasMethod = route._handlesMethod(method);
      if (!hasMethod && method === 'OPTIONS' && this.methods !== undefined) {
        for (const m of route._methods()) {
          if (this.router.compat === 5 || this.methods.indexOf(m) === -1) this.methods.push(m);
        }
      }
      if (!hasMethod && method !== 'HEAD') match = false;
    }
    if (match === false || layer === undefined) {
      this.done(layerError);
      return;
    }
    if (route !== undefined) req.route = route;
    req.params = this.router.mergeParams ? mergeParams(match.params, this.parentParams) : match.params;
    const keys = hasAny(this.router.params) ? Object.keys(match.params) : NO_KEYS;
    if (keys.length === 0 || !hasParamCallbacks(this.router.params, keys)) {
      this.proceed(layer, layerError, match.path, path, route);
    } else {
      const l = layer;
      const lp = match.path;
      const r = route;
      if (this.paramcalled === undefined) this.paramcalled = {};
      processParams(this.router.params, this.paramcalled, req, this.res, keys, (e) => {
        if (e) this.step(layerError || e);
        else this.proceed(l, layerError, lp, path, r);
        this.sync = 0;
      });
      return;
    }
    this.sync = 0;
  }

  private proceed(layer: Layer, layerError: unknown, layerPath: string, path: string, route: Route | undefined): void {
    if (route !== undefined) {
      callHandler(layer.handle, this.req, this.res, this.next);
      return;
    }
    this.trimPrefix(layer, layerError, layerPath, path);
  }

  private trimPrefix(layer: Layer, layerError: unknown, layerPath: string, path: string): void {
    const req = this.req;
    if (layerPath.length !== 0) {
      if (layerPath !== path.slice(0, layerPath.length)) {
        this.step(layerError);
        return;
      }
      const c = path[layerPath.length];
      if (c && c !== '/' && (this.router.compat === 5 || c !== '.')) {
        this.step(layerError);
        return;
      }
      this.removed = layerPath;
      const ph = this.protohost;
      req.url = ph + req.url.slice(ph.length + layerPath.length);
      if (!ph && req.url[0] !== '/') {
        req.url = `/${req.url}`;
        this.slashAdded = true;
      }
      req.baseUrl = this.parentUrl + (layerPath[layerPath.length - 1] === '/' ? layerPath.slice(0, -1) : layerPath);
    }
    if (layerError) callErrorHandler(layer.handle, layerError, req, this.res, this.next);
    else callHandler(layer.handle, req, this.res, this.next);
  }
}

function doneLater(frame: RouterFrame, err: unknown): void {
  frame.done(err);
}

const NO_KEYS: string[] = [];

function hasAny(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function hasParamCallbacks(params: Record<string, Fn[]>, keys: string[]): boolean {
  for (const k of keys) if (params[k] !== undefined) return true;
  return false;
}

/** The automatic answer to OPTIONS when no route handles it: the Allow list (as each Express major). */
function sendOptions(res: RouterRes, methods: string[], compat: Compat): void {
  if (compat === 4) {
    const body = methods.join(',');
    res.set('Allow', body);
    res.send(body);
    return;
  }
  const unique = Object.create(null) as Record<string, boolean>;
  for (const m of methods) unique[m] = true;
  const allow = Object.keys(unique).sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}
