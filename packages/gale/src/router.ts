// Routers: ordered lists of middleware (`use`), routes and error handlers, mountable at a prefix and
// nestable. The app flattens them into native routes with a chain precomputed per route. The route methods' types
// (params from the path, state, schemas) are in route-types.ts; their one implementation is `route`.
// Over 400 lines: most of it is the Router class's documented public API (use's six overloads, addHook, register,
// ready, decorate, decorateRequest/Reply, onError and the nine route methods get … all and ws), each with a doc comment
// and an example; the logic behind them is in plugins.ts, hooks.ts and app-routes.ts.
import type { ErrorHandler, Handler, Middleware, NodeMiddleware } from './chain.js';
import { ErrorCodes, GaleError } from './errors.js';
import { HookLists, type HookMap, type HookName } from './hooks.js';
import { movedError } from './moved.js';
import { refusalOf } from './node-refusals.js';
import { checkWsBehavior } from './option-rules.js';
import { type PluginState, pluginsReady, registerPlugin } from './plugins.js';
import type { AnyParams } from './request/api.js';
import { checkRouteSchema } from './route-schema.js';
import type {
  MountableRouter,
  MountedRoutes,
  Rebuild,
  RouteMethod,
  RouterKind,
  RouteSchema,
  RoutesOf,
  StateFrom,
  WsRouteMethod,
} from './route-types.js';
import { type DeclaredAt, declaredAt } from './unanswered.js';
import type { WebTransportBehavior } from './webtransport-route.js';
import type { WsBehavior, WsConnectionHandler } from './ws-route.js';

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
export type Usable = Middleware | NodeMiddleware | ErrorHandler4 | Router | StaticMount;
/** An Express-style error middleware (four parameters) given to `use`. */
export type ErrorHandler4 = (err: unknown, req: never, res: never, next: never) => unknown;

/** @internal */
export type Entry =
  | { kind: 'use'; seq: number; prefix: string; fn: Middleware }
  | {
      kind: 'route';
      seq: number;
      /** CONNECT only for a WebTransport route. */
      method: Method | 'CONNECT';
      path: string;
      fns: Middleware[];
      handler: Handler;
      /** The route's schemas and API docs (`app.get(path, schema, …)`). */
      schema?: RouteSchema;
      /** A WebSocket route: the handler is replaced by the upgrade step when registered. */
      ws?: { behavior: WsBehavior; onOpen?: WsConnectionHandler };
      /** A WebTransport route (a CONNECT route): the handler is replaced by the accept step when registered. */
      wt?: { behavior: WebTransportBehavior };
      /** Where the app declared it (`file:line:column`), for the messages about a handler that never answers. */
      at?: DeclaredAt;
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

/** Router's `~kind`: a Router with the given state and routes (see `Rebuild`). */
interface RouterOf extends RouterKind {
  readonly type: Router<this['S'], this['R']>;
}

/**
 * A group of routes and middleware, mounted with `app.use(prefix, router)`. Routers nest. `S` is the state its
 * routes' requests carry (`req.state`): what the `derive()` middleware given to `use` add, for the routes declared
 * after them on the router `use` returns.
 *
 * @example
 * const api = router();
 * api.use(async (req, res, next) => { await next(); });
 * api.get('/users/:id', (req) => ({ id: req.params.id }));
 * app.use('/api', api);
 */
export class Router<S extends object = object, R extends object = object> {
  /** Types only: how route methods retype this router (never set at run time). */
  declare readonly '~kind'?: RouterOf;
  /** Types only: the routes declared through this type, for `gale/client` (never set at run time). */
  declare readonly '~routes'?: R;
  /** @internal */ readonly entries: Entry[] = [];
  /** @internal */ readonly errorHandlers: ErrorHandler[] = [];
  /** @internal called when an entry is added after mounting, so apps register it too */
  readonly _listeners: ((e: Entry) => void)[] = [];
  /** @internal this router's hooks and request/response decorations (none: undefined) */
  _hooks: HookLists | undefined;
  /** @internal called when a hook or decoration is added, so apps rebuild the routes it applies to */
  readonly _hookListeners: (() => void)[] = [];
  /** @internal the plugins registered here still loading */
  readonly _plugins: PluginState = { pending: undefined };
  /** @internal what `decorate` added, which the routers of plugins registered here see too */
  readonly _decorations = new Map<string, unknown>();

  /**
   * Adds middleware (for every path, or under `path`), routers, static mounts or error middleware. Given
   * `derive()` middleware for every path, it returns this router typed with the state they add, so routes declared
   * on what it returns see `req.state` typed (it is the same router: routes declared after the `use` run them).
   *
   * @example
   * const api = router().use(derive((req) => ({ user: req.get('x-user') ?? 'anonymous' })));
   * api.get('/me', (req) => ({ user: req.state.user }));
   */
  use<Pre extends string, X extends MountableRouter>(
    path: Pre,
    router: X,
  ): Rebuild<this, S, R & MountedRoutes<Pre, RoutesOf<X>>>;
  use<M1 extends Middleware<AnyParams, S>>(m1: M1): Router<S & StateFrom<M1>, R>;
  use<M1 extends Middleware<AnyParams, S>, M2 extends Middleware<AnyParams, S & StateFrom<M1>>>(
    m1: M1,
    m2: M2,
  ): Router<S & StateFrom<M1> & StateFrom<M2>, R>;
  use(...fns: Middleware<AnyParams, S>[]): this;
  use(path: string, ...fns: Middleware<AnyParams, S>[]): this;
  use(...items: (string | Usable)[]): this;
  use(...args: unknown[]): unknown {
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
      } else if (typeof a === 'function') {
        const refused = refusalOf(a);
        if (refused !== undefined) throw refused;
        e = { kind: 'use', seq: nextSeq(), prefix, fn: a as Middleware };
      } else throw new GaleError(ErrorCodes.INVALID_MIDDLEWARE, `use(): ${typeof a} is not a middleware or router`);
      this.add(e);
    }
    return this;
  }

  /**
   * Adds a lifecycle hook (Fastify's: see `HookMap` for each one and when it runs) for this router's routes — every
   * route of the app for the app's hooks, a plugin's own routes for the hooks added in it — whenever they were
   * declared. Routes no hook applies to run exactly as without hooks.
   *
   * @example
   * app.addHook('onRequest', (req, res) => {
   *   if (req.get('x-api-key') !== process.env.API_KEY) res.status(401).json({ error: 'no key' });
   * });
   * app.addHook('onResponse', (req, res) => console.log(req.method, req.url, res.statusCode));
   */
  addHook<K extends HookName>(name: K, hook: HookMap<S>[K]): this {
    this._hooks ??= new HookLists();
    this._hooks.add(name, hook as (...args: never[]) => unknown);
    this._hooksChanged();
    return this;
  }

  /**
   * Registers a plugin (see `Plugin`): it runs with a router of its own mounted at `prefix`, so that the routes,
   * middleware, hooks and decorations it adds stay inside it, unless it does not encapsulate (`definePlugin(…,
   * { encapsulate: false })`, or fastify-plugin's mark), when it runs with this router. The options other than
   * `prefix` are the plugin's. An async plugin is awaited before the app listens (and by `ready()`). A plugin that
   * returns its router with routes chained on it (`(api) => api.get(…).post(…)`) gives those routes, under the
   * prefix, to the type this returns, for `gale/client`.
   *
   * @example
   * app.register(async (users, options) => {
   *   users.addHook('preHandler', (req) => void req.log.info('users route'));
   *   users.get('/', () => options.list);
   * }, { prefix: '/users', list: ['ada', 'alan'] });
   */
  register<O extends object = Record<string, unknown>, Ret = unknown, Pre extends string = '/'>(
    plugin: (instance: Router<S>, options: O) => Ret,
    options?: O & { prefix?: Pre },
  ): Rebuild<this, S, R & MountedRoutes<Pre, RoutesOf<Awaited<Ret>>>> {
    registerPlugin<Router>(
      this as Router,
      this._plugins,
      plugin,
      options as Record<string, unknown> | undefined,
      () => {
        const child = new Router();
        for (const [name, value] of this._decorations) child.decorate(name, value);
        return child;
      },
      (prefix, child) => {
        this.use(prefix, child);
      },
      (child) => (child._plugins.pending === undefined ? undefined : pluginsReady(child._plugins)),
    );
    return this as Rebuild<this, S, R & MountedRoutes<Pre, RoutesOf<Awaited<Ret>>>>;
  }

  /**
   * Resolves once every plugin registered here (and what those registered) has loaded; rejects with the first that
   * failed. `listen()` and `app.request()` wait for it themselves.
   *
   * @example
   * app.register(async (instance) => instance.get('/late', () => 'loaded'));
   * await app.ready();
   */
  ready(): Promise<void> {
    return pluginsReady(this._plugins);
  }

  /**
   * Adds a property to this router (the app, or a plugin's router), which the routers of plugins registered on it
   * afterwards have too; a name already taken is refused. Returns this router typed with it.
   *
   * @example
   * const withDb = app.decorate('db', new Map<string, string>());
   * withDb.db.set('a', '1');
   */
  decorate<K extends string, V>(name: K, value: V): this & { readonly [k in K]: V } {
    if (typeof name !== 'string' || name === '') throw new TypeError('decorate(): the name must be a non-empty string');
    if (name in this) {
      throw new TypeError(`decorate('${name}'): this router already has a property ${name}`);
    }
    Object.defineProperty(this, name, { value, enumerable: true, writable: true, configurable: true });
    this._decorations.set(name, value);
    return this as this & { readonly [k in K]: V };
  }

  /**
   * Whether this router has the decoration `name` (its own, or one it got from the router it was registered on).
   *
   * @example
   * if (!app.hasDecorator('db')) app.decorate('db', new Map());
   */
  hasDecorator(name: string): boolean {
    return this._decorations.has(name);
  }

  /**
   * Gives every request of this router's routes the property `name`, set to `value` as each request starts (before
   * onRequest hooks): a primitive, `null`, or a function (a method, `this` being the request). An object would be
   * one object shared by all requests, so it is refused: decorate with `null` and set it in a hook. Type it by
   * adding it to Request: `declare module 'gale' { interface Request { user: User | null } }`.
   *
   * @example
   * app.decorateRequest('user', null);
   * app.addHook('onRequest', (req) => {
   *   (req as unknown as { user: string | null }).user = req.get('x-user') ?? null;
   * });
   */
  decorateRequest(name: string, value: unknown): this {
    this._decorateEach('decorateRequest', name, value).request.push([name, value]);
    this._hooksChanged();
    return this;
  }

  /**
   * Gives every response of this router's routes the property `name` (as `decorateRequest` does for requests).
   *
   * @example
   * app.decorateReply('startedAt', 0);
   */
  decorateReply(name: string, value: unknown): this {
    this._decorateEach('decorateReply', name, value).reply.push([name, value]);
    this._hooksChanged();
    return this;
  }

  /** @internal checks a per-request decoration and returns the lists it goes in (telling the app after) */
  private _decorateEach(where: string, name: string, value: unknown): HookLists {
    if (typeof name !== 'string' || name === '') throw new TypeError(`${where}(): the name must be a non-empty string`);
    if (typeof value === 'object' && value !== null) {
      throw new TypeError(
        `${where}('${name}', an object): every request would share that one object; decorate with null and set ` +
          'a fresh value in an onRequest hook',
      );
    }
    this._hooks ??= new HookLists();
    return this._hooks;
  }

  /** @internal tells the apps this router is mounted on to rebuild its routes with its hooks */
  private _hooksChanged(): void {
    for (const l of this._hookListeners) l();
  }

  /** Handles errors from this router's middleware and routes (innermost router first, then the app). */
  onError(handler: ErrorHandler): this {
    if (typeof handler !== 'function') throw new TypeError('onError(): handler must be a function');
    this.errorHandlers.push(handler);
    return this;
  }

  /**
   * A GET route: the path (Express 4/5 syntax; its params are typed from the literal), optionally a `RouteSchema`,
   * middleware, then the handler (see `RouteMethod` for the types).
   *
   * @example
   * app.get('/users/:id', (req) => ({ id: req.params.id }));
   */
  declare get: RouteMethod<this, S, R, 'get'>;
  /**
   * A POST route (see `get`).
   *
   * @example
   * app.post('/users', { body: User }, (req) => ({ created: req.body.name }));
   */
  declare post: RouteMethod<this, S, R, 'post'>;
  /**
   * A PUT route (see `get`).
   *
   * @example
   * app.put('/users/:id', async (req) => ({ id: req.params.id, saved: await req.json() }));
   */
  declare put: RouteMethod<this, S, R, 'put'>;
  /**
   * A PATCH route (see `get`).
   *
   * @example
   * app.patch('/users/:id', async (req) => ({ id: req.params.id, changes: await req.json() }));
   */
  declare patch: RouteMethod<this, S, R, 'patch'>;
  /**
   * A DELETE route (see `get`).
   *
   * @example
   * app.delete('/users/:id', (req, res) => res.status(204).end());
   */
  declare delete: RouteMethod<this, S, R, 'delete'>;
  /**
   * A HEAD route (GET routes answer HEAD requests too; see `get`).
   *
   * @example
   * app.head('/files/*path', (req, res) => res.header('x-path', req.params.path).end());
   */
  declare head: RouteMethod<this, S, R, 'head'>;
  /**
   * An OPTIONS route (see `get`).
   *
   * @example
   * app.options('/upload', (req, res) => res.header('allow', 'POST, OPTIONS').end());
   */
  declare options: RouteMethod<this, S, R, 'options'>;
  /**
   * A route for every method (see `get`).
   *
   * @example
   * app.all('/legacy/*rest', (req, res) => res.redirect(301, `/v2/${req.params.rest}`));
   */
  declare all: RouteMethod<this, S, R, 'all'>;

  /**
   * A WebSocket route: upgrade requests to `path` run the middleware given before the behaviour (auth,
   * cookies), then `behavior.upgrade`, then open the socket. The last argument is a behaviour object or an
   * express-ws style `(ws, req) => …` function; both see the path's params and the middleware's state.
   *
   * @example
   * app.ws('/echo', { message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });
   * app.ws('/legacy', requireUser, (ws, req) => ws.on('message', (m) => ws.send(m)));
   */
  declare ws: WsRouteMethod<this, S>;

  /**
   * A WebTransport route on the HTTP/3 listener (`listen({ tls, http3: true })`): a session's extended CONNECT to
   * `path` runs the middleware given before the behaviour (auth, cookies), then `behavior.upgrade`, then opens the
   * session. Chromium and aioquic speak the draft Gale answers (draft-02's settings and header).
   *
   * @example
   * app.webtransport('/echo', {
   *   datagram: (session, data) => session.sendDatagram(data),
   *   stream: (session, stream) => stream.pipe(stream as WebTransportBidiStream),
   * });
   */
  declare webtransport: <D = unknown>(
    path: string,
    ...handlers: [...Middleware<AnyParams, S>[], WebTransportBehavior<D, AnyParams, S>]
  ) => this;

  /** @internal the implementation of every route method: `fns` may start with the route's schema object */
  route(method: Method, path: string, fns: unknown[]): this {
    let schema: RouteSchema | undefined;
    if (typeof fns[0] === 'object' && fns[0] !== null) {
      schema = checkRouteSchema(fns[0], `${method} ${path}`);
      fns = fns.slice(1);
    }
    if (fns.length === 0) throw new TypeError(`${method} ${path}: give a handler`);
    for (const f of fns) {
      if (typeof f !== 'function') throw new TypeError(`${method} ${path}: handlers and middleware must be functions`);
      const refused = refusalOf(f);
      if (refused !== undefined) throw refused;
    }
    const handler = fns[fns.length - 1] as Handler;
    const mws = fns.slice(0, -1) as Middleware[];
    this.add({ kind: 'route', seq: nextSeq(), method, path, fns: mws, handler, schema, at: declaredAt() });
    return this;
  }

  /** @internal */
  add(e: Entry): void {
    this.entries.push(e);
    for (const l of this._listeners) l(e);
  }
}

/** The route methods and the method each one registers. */
const ROUTE_METHODS: readonly (readonly [string, Method])[] = [
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
  ['head', 'HEAD'],
  ['options', 'OPTIONS'],
  ['all', 'ALL'],
];

// The route methods are typed by `declare`d properties (a call-signature interface each: one list of overloads for
// all eight); their implementations sit on the prototype, as class methods would.
for (const [name, method] of ROUTE_METHODS) {
  Object.defineProperty(Router.prototype, name, {
    value: function (this: Router, path: string, ...fns: unknown[]) {
      return this.route(method, path, fns);
    },
    writable: true,
    configurable: true,
  });
}
Object.defineProperty(Router.prototype, 'ws', { value: wsRoute, writable: true, configurable: true });
Object.defineProperty(Router.prototype, 'webtransport', { value: wtRoute, writable: true, configurable: true });

const WT_HANDLERS = new Set(['upgrade', 'open', 'stream', 'datagram', 'draining', 'close']);

/** `webtransport(path, …middleware, behaviour)`: a CONNECT route whose handler the app replaces with the accept step. */
function wtRoute(this: Router, path: string, ...fns: unknown[]): Router {
  const last = fns.pop();
  if (last === undefined || typeof last !== 'object' || last === null) {
    throw new TypeError(`webtransport(${path}): give a behaviour object ({ open, stream, datagram, close, … })`);
  }
  for (const [k, v] of Object.entries(last)) {
    if (!WT_HANDLERS.has(k))
      throw new TypeError(`webtransport(${path}): unknown behaviour field '${k}' (${[...WT_HANDLERS].join(', ')})`);
    if (typeof v !== 'function') throw new TypeError(`webtransport(${path}): ${k} must be a function`);
  }
  for (const f of fns) {
    if (typeof f !== 'function') throw new TypeError(`webtransport(${path}): middleware must be functions`);
  }
  const handler: Handler = () => undefined;
  const wt = { behavior: last as WebTransportBehavior };
  this.add({ kind: 'route', seq: nextSeq(), method: 'CONNECT', path, fns: fns as Middleware[], handler, wt });
  return this;
}

/** `ws(path, …middleware, behaviour)`: a GET route whose handler the app replaces with the upgrade step. */
function wsRoute(this: Router, path: string, ...fns: unknown[]): Router {
  const last = fns.pop();
  if (last === undefined || (typeof last !== 'function' && typeof last !== 'object') || last === null) {
    throw new TypeError(`ws(${path}): give a behaviour object or a (ws, req) => … handler`);
  }
  for (const f of fns) {
    if (typeof f !== 'function') throw new TypeError(`ws(${path}): middleware must be functions`);
  }
  if ((last as { protocol?: unknown }).protocol === 'fast-ws') {
    throw movedError(
      `ws(${path}, { protocol: 'fast-ws' })`,
      '@gale-http/fast-ws',
      "app.ws(path, fastWs({ open: (client) => … })) with import { fastWs } from '@gale-http/fast-ws'",
    );
  }
  if (typeof last === 'object') checkWsBehavior(last, path);
  const ws =
    typeof last === 'function'
      ? { behavior: {}, onOpen: last as WsConnectionHandler }
      : { behavior: last as WsBehavior };
  const handler: Handler = () => undefined;
  this.add({ kind: 'route', seq: nextSeq(), method: 'GET', path, fns: fns as Middleware[], handler, ws });
  return this;
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
