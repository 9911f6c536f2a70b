// Layers and routes of the Express layer's router (Express's Layer and Route, ported): how one handler
// is called (throws and rejected promises go to next), and a route's dispatch over its per-method
// handlers. No Gale imports.
import { METHODS } from 'node:http';
import { type Compat, compileMatcher, type Match, type PathArg, type Seg, simplePaths } from './path.js';

/**
 * Calls the next layer; `'route'` skips the rest of a route, `'router'` leaves the router.
 *
 * @example
 * app.get('/user/:id', (req, res, next) => (req.params.id === '0' ? next('route') : next()), (req, res) => res.send('user'));
 */
export type Next = (err?: unknown) => void;
/** A middleware or route handler, as Express calls it. */
export type Handler = (req: never, res: never, next: Next) => unknown;
type Fn = (...args: unknown[]) => unknown;

/** The request fields the router reads and writes. */
export interface RouterReq {
  url: string;
  method: string;
  baseUrl: string;
  originalUrl: string;
  params: Record<string, string>;
  next: Next | undefined;
  route: Route | undefined;
}
/** The response methods the automatic OPTIONS answer uses. */
export interface RouterRes {
  setHeader(name: string, value: string | number): unknown;
  end(body?: string): unknown;
  set(name: string, value: string): unknown;
  send(body: string): unknown;
}

/** Every change to any router (and every app.set) bumps this, so cached plans and native routes get refreshed. */
export const generation = { n: 0 };
/** Called at once on every bump: listening servers take back the native answers of their routes (server.ts). */
export const bumpListeners = new Set<() => void>();
export const bump = (): void => {
  generation.n++;
  if (bumpListeners.size !== 0) for (const f of bumpListeners) f();
};

export const METHOD_NAMES: readonly string[] = METHODS.map((m) => m.toLowerCase());

/** Each known method's lower case, so routing does not lower-case (and allocate) the method twice per request. */
const LOWER_METHOD: Readonly<Record<string, string>> = Object.assign(
  Object.create(null),
  Object.fromEntries(METHODS.map((m) => [m, m.toLowerCase()])),
);

/** `method.toLowerCase()`, from the table for the methods node:http knows. */
export function lowerMethod(method: string): string {
  return LOWER_METHOD[method] ?? method.toLowerCase();
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as PromiseLike<unknown>).then === 'function';
}

/** Layer.handleRequest: a four-argument function is skipped; throws and rejections go to next. */
export function callHandler(fn: Fn, req: unknown, res: unknown, next: Next): void {
  if (fn.length > 3) {
    next();
    return;
  }
  try {
    const ret = fn(req, res, next);
    if (isThenable(ret)) ret.then(undefined, (e: unknown) => next(e || new Error('Rejected promise')));
  } catch (err) {
    next(err);
  }
}

/** Layer.handleError: only four-argument functions handle errors. */
export function callErrorHandler(fn: Fn, err: unknown, req: unknown, res: unknown, next: Next): void {
  if (fn.length !== 4) {
    next(err);
    return;
  }
  try {
    const ret = fn(err, req, res, next);
    if (isThenable(ret)) ret.then(undefined, (e: unknown) => next(e || new Error('Rejected promise')));
  } catch (e) {
    next(e);
  }
}

/** An entry of a router's stack: middleware (`use`) or a route. */
export class Layer {
  readonly handle: Fn;
  readonly name: string;
  route: Route | undefined = undefined;
  readonly match: (path: string) => Match | false;
  /** The path as simple segment lists (for native routes and plans), or undefined. */
  readonly segs: Seg[][] | undefined;
  readonly end: boolean;
  /** A mounted router or app's router, so its routes can be registered natively. */
  sub: (() => { stack: Layer[] } | undefined) | undefined = undefined;
  readonly rawPath: PathArg;

  constructor(path: PathArg, opts: { sensitive: boolean; strict: boolean; end: boolean }, fn: Fn, compat: Compat) {
    this.handle = fn;
    this.name = fn.name || '<anonymous>';
    this.rawPath = path;
    this.match = compileMatcher(path, opts, compat);
    this.segs = simplePaths(path);
    this.end = opts.end;
  }
}

/** A handler in a route's stack. */
interface MethodLayer {
  handle: Fn;
  method: string | undefined;
  name: string;
}

/**
 * A route: handlers per method for one path (`router.route(path).get(…).post(…)`).
 *
 * @example
 * app.route('/book').get((req, res) => res.send('get')).post((req, res) => res.send('add'));
 */
export class Route {
  readonly path: PathArg;
  readonly stack: MethodLayer[] = [];
  readonly methods: Record<string, boolean>;
  readonly compat: Compat;

  constructor(path: PathArg, compat: Compat) {
    this.path = path;
    this.compat = compat;
    this.methods = compat === 5 ? Object.create(null) : {};
  }

  _handlesMethod(method: string): boolean {
    if (this.methods._all) return true;
    let name = typeof method === 'string' ? lowerMethod(method) : method;
    if (name === 'head' && !this.methods.head) name = 'get';
    return Boolean(this.methods[name]);
  }

  /** Express 4's name. */
  _handles_method(method: string): boolean {
    return this._handlesMethod(method);
  }

  /** The methods for an automatic OPTIONS answer (Express 5: `_methods`, Express 4: `_options`). */
  _methods(includeAll = false): string[] {
    const out: string[] = [];
    for (const m of Object.keys(this.methods)) {
      if (m === '_all') {
        if (includeAll || this.compat === 4) out.push(this.compat === 4 ? '_ALL' : '*');
      } else out.push(m.toUpperCase());
    }
    if (this.methods.get && !this.methods.head) out.push('HEAD');
    return out;
  }

  _options(): string[] {
    return this._methods();
  }

  dispatch(req: RouterReq, res: unknown, done: Next): void {
    const stack = this.stack;
    if (stack.length === 0) {
      done();
      return;
    }
    let method = typeof req.method === 'string' ? lowerMethod(req.method) : req.method;
    if (method === 'head' && !this.methods.head) method = 'get';
    req.route = this;
    // One handler for this method (the usual case): its `next` can be the router's own, since
    // next('route'), next('router'), next(err) and next() then mean the same thing at both levels.
    if (stack.length === 1) {
      const only = stack[0] as MethodLayer;
      if (only.method === undefined || only.method === method) callHandler(only.handle, req, res, done);
      else done();
      return;
    }
    new RouteFrame(stack, method, req, res, done).step(undefined);
  }

  all(...handlers: unknown[]): this {
    return this.add(undefined, handlers);
  }

  /** @internal */
  add(method: string | undefined, handlers: unknown[]): this {
    const callbacks = handlers.flat(Number.POSITIVE_INFINITY);
    if (callbacks.length === 0) throw new TypeError('argument handler is required');
    for (const fn of callbacks) {
      if (typeof fn !== 'function') {
        throw new TypeError(
          this.compat === 4
            ? `Route.${method ?? 'all'}() requires a callback function but got a ${Object.prototype.toString.call(fn)}`
            : 'argument handler must be a function',
        );
      }
      this.stack.push({ handle: fn as Fn, method, name: (fn as Fn).name || '<anonymous>' });
      this.methods[method ?? '_all'] = true;
    }
    bump();
    return this;
  }
}
for (const m of METHOD_NAMES) {
  (Route.prototype as unknown as Record<string, unknown>)[m] = function (this: Route, ...handlers: unknown[]) {
    return this.add(m, handlers);
  };
}

class RouteFrame {
  private idx = 0;
  private sync = 0;
  readonly next: Next;
  constructor(
    private readonly stack: readonly MethodLayer[],
    private readonly method: string,
    private readonly req: RouterReq,
    private readonly res: unknown,
    private readonly done: Next,
  ) {
    this.next = (err) => this.step(err);
  }

  step(err: unknown): void {
    if (err && err === 'route') {
      this.done();
      return;
    }
    if (err && err === 'router') {
      this.done(err);
      return;
    }
    if (this.idx >= this.stack.length) {
      this.done(err);
      return;
    }
    if (++this.sync > 100) {
      setImmediate(this.next, err);
      return;
    }
    let layer: MethodLayer | undefined;
    let match = false;
    while (!match && this.idx < this.stack.length) {
      layer = this.stack[this.idx++] as MethodLayer;
      match = layer.method === undefined || layer.method === this.method;
    }
    if (!match || layer === undefined) {
      this.done(err);
      return;
    }
    if (err) callErrorHandler(layer.handle, err, this.req, this.res, this.next);
    else callHandler(layer.handle, this.req, this.res, this.next);
    this.sync = 0;
  }
}
