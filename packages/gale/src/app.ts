// The Gale application: a Router whose routes go straight into the native router, each with its
// middleware chain precomputed; settings, listen, in-process requests, close. The request path (dispatch, replies,
// errors) is app/dispatch.ts, listening app/listen.ts, pub/sub app/pubsub.ts; registration is app-routes.ts.
// Over 400 lines: it is the App class's public API in one place (about 25 methods and accessors: set, render, use,
// openapi, fetch, fixed, static, publish, listen, request, close, …), and over 200 of its lines are their doc comments
// and examples; the work behind them is already in app/dispatch.ts, app/listen.ts, app/pubsub.ts, app-routes.ts and
// in-process.ts.
import { Dispatcher } from './app/dispatch.js';
import { Listener } from './app/listen.js';
import { PubSub } from './app/pubsub.js';
import { Registrar, type Route, staticMount } from './app-routes.js';
import type { Handler, Middleware } from './chain.js';
import { ErrorCodes, GaleError } from './errors.js';
import type { Fetchable, FetchHandler } from './fetch/handler.js';
import { type FetchMountOptions, mountFetch } from './fetch/mount.js';
import { type HookLists, runCloseHooks } from './hooks.js';
import { InProcess } from './in-process.js';
import { configureLogging, consoleLogger, type Logger } from './logging.js';
import { fixedSecurityHeaders, security } from './middleware/security.js';
import { type NativeServer, native } from './native.js';
import { type OpenApiDocument, type OpenApiOptions, openApiDocument } from './openapi.js';
import { checkGaleOptions } from './option-rules.js';
import type {
  AddressInfo,
  FixedResponse,
  GaleOptions,
  ListenCallback,
  ListenOptions,
  ServerStats,
  StaticOptions,
} from './options.js';
import type { AnyParams } from './request/api.js';
import { compileTrust, type RequestConfig, requestConfig } from './request/config.js';
import type { Request } from './request/request.js';
import type { Response, ResponseHost } from './response/response.js';
import { RouteAnswers } from './route-answer.js';
import type {
  MountableRouter,
  MountedRoutes,
  Rebuild,
  RouteMethod,
  RouterKind,
  RoutesOf,
  StateFrom,
} from './route-types.js';
import { type Entry, Router, type Usable } from './router.js';
import { scaleHooks as hooks, type Relay } from './scale-hooks.js';
import type { TlsOptions } from './tls.js';
import { DEFAULT_HANDLER_TIMEOUT } from './unanswered.js';
import { type ViewEngine, Views } from './views.js';
import { WtHub } from './webtransport-route.js';
import type { PublishOptions, WsData } from './ws.js';
import { WsHub } from './ws-route.js';

/** App's `~kind`: an App with the given state and routes (see `Rebuild`). */
interface AppOf extends RouterKind {
  readonly type: App<this['S'], this['R']>;
}

/**
 * A Gale application. `S` is the state (`req.state`) its routes' requests carry: what the `derive()` middleware
 * given to `app.use` add, for the routes declared on the app `use` returns.
 *
 * @example
 * import { gale } from 'gale';
 * const app = gale();
 * app.use(async (req, res, next) => { const t = Date.now(); await next(); console.log(Date.now() - t); });
 * app.get('/hello/:name', (req) => `Hello ${req.params.name}`);
 * const { port } = await app.listen(3000);
 */
export class App<S extends object = object, R extends object = object> extends Router<S, R> {
  /** Types only: how route methods retype this app (never set at run time). */
  declare readonly '~kind'?: AppOf;
  private readonly n: NativeServer;
  private readonly routes: Route[] = [];
  /** The routes whose answer the engine keeps (`_answerRoute`). */
  private readonly answers: RouteAnswers;
  /** gale({ handlerTimeout }): how long a handler may leave its request unanswered (false: no limit). */
  private readonly handlerTimeout: number | false;
  private readonly caseSensitive: boolean;
  private readonly logger: Logger;
  private readonly views = new Views();
  /** What every Response of this app reads (made by the dispatcher, which answers its calls back). */
  private readonly host: ResponseHost;
  /** The request options every Request of this app reads (one shared object). */
  private readonly reqConfig: RequestConfig;
  /** The request path the engine calls into: dispatch, replies, errors, the engine's events (app/dispatch.ts). */
  private readonly dispatcher: Dispatcher;
  /** Turns entries into routes (and the notFound fallback) as they are added. */
  private readonly registrar: Registrar;
  private keepAliveMs: number;
  /** Where the app listens: the bound address, TLS and its reloads, a cluster primary's share (app/listen.ts). */
  private readonly listener: Listener;
  /**
   * The I/O backend the engine listens with (`listen({ io })`): `'uring'` or `'epoll'` (the readiness poller,
   * on every platform); undefined before `listen`.
   *
   * @example
   * await app.listen({ port: 0, io: 'uring' });
   * if (app.ioBackend !== 'uring') console.log('io_uring fell back to epoll (see the warning)');
   */
  get ioBackend(): 'uring' | 'epoll' | undefined {
    return this.listener.ioBackend;
  }
  private readonly hub: WsHub;
  /** Publishing, subscriber counts and topic-change listeners (app/pubsub.ts). */
  private readonly pubsub: PubSub;
  private closed: Promise<void> | undefined;
  /** `app.request()`'s in-memory connections. */
  private readonly inProcess: InProcess;

  constructor(options: GaleOptions = {}) {
    super();
    // Unknown names (a typo) and values of the wrong kind are refused here rather than ignored.
    checkGaleOptions(options, 'gale()');
    // What the engine is not given: development (the dispatcher reads it from options), logger, handlerTimeout.
    const { development: _development, logger, handlerTimeout, ...engine } = options;
    // In a gale.cluster() worker every app shares its port with the other workers (SO_REUSEPORT).
    if (engine.reusePort === undefined && hooks.reusePort) engine.reusePort = true;
    this.keepAliveMs = options.keepAliveTimeout ?? 65_000;
    this.handlerTimeout = handlerTimeout ?? DEFAULT_HANDLER_TIMEOUT;
    this.caseSensitive = options.caseSensitive ?? false;
    this.logger = logger ?? consoleLogger;
    if (options.views !== undefined) this.views.setDirs(options.views);
    if (options.viewEngine !== undefined) this.views.setDefaultEngine(options.viewEngine);
    this.reqConfig = requestConfig(options);
    // req.app, and what it answers for the setting Express middleware reads (express-rate-limit): the option.
    this.reqConfig.app = this;
    this.settings['trust proxy'] = options.trustProxy ?? false;
    this.hub = new WsHub(this.logger, this.reqConfig);
    // WebTransport sessions and streams (`app.webtransport`).
    const wt = new WtHub(this.logger);
    const { routes, hub, reqConfig, views } = this;
    const parts = { routes, hub, wt, reqConfig, views, handlerTimeout: this.handlerTimeout };
    const dispatcher = new Dispatcher(options, parts);
    this.dispatcher = dispatcher;
    this.host = dispatcher.host;
    this.n = native.createServer(engine, dispatcher.dispatch, dispatcher.onEvent, this.hub.onMessage);
    this.hub.n = this.n;
    wt.n = this.n;
    this.pubsub = new PubSub(this.n, this.hub);
    const closing = () => this.closed !== undefined;
    this.listener = new Listener(this, this.n, this.logger, engine.reusePort === true, closing, wt);
    this.inProcess = new InProcess(this.n, (method, target) => dispatcher.holding(method, target));
    this.answers = new RouteAnswers(this.n, this.routes);
    dispatcher.attach(this.n, this.inProcess, this.pubsub, this.answers);
    this.registrar = new Registrar(
      this,
      this.n,
      this.routes,
      this.caseSensitive,
      dispatcher.chainHost,
      () => dispatcher.notFoundHandler,
      this.hub,
      wt,
    );
    this.registrar.watchHooks(this);
    configureLogging(this.n, { logger: this.logger, custom: logger !== undefined, requests: this.host.logRequests });
    if (options.requestLogging === true && logger === undefined) {
      // Request lines go to the pino-style logger only; asking for them without one would print nothing.
      process.emitWarning('gale(): requestLogging: true has no effect without a logger (e.g. logger: pino())', {
        type: 'GaleWarning',
        code: 'GALE_REQUEST_LOGGING_NO_LOGGER',
      });
    }
    if (options.security !== undefined && options.security !== false) {
      const o = options.security === true ? {} : options.security;
      this.use(security(o));
      this.registrar.staticHeaders = fixedSecurityHeaders(o);
    }
    hooks.created?.(this);
  }

  /**
   * Registers a template engine for files ending in `.ext`, called as Express calls one:
   * `fn(path, data, callback)`.
   *
   * @example
   * import ejs from 'ejs';
   * app.engine('ejs', ejs.renderFile);
   */
  engine(ext: string, fn: ViewEngine): this {
    this.views.register(ext, fn);
    return this;
  }

  /**
   * Sets an application setting, as Express: `'views'` (directory or list), `'view engine'`
   * (extension for bare view names), `'view cache'` (cache view lookups; default in production),
   * `'etag'` (true/'weak', 'strong', false), `'trust proxy'` (as the `trustProxy` option). Other names are stored in
   * `app.settings`.
   *
   * @example
   * app.set('views', './templates').set('view engine', 'eta');
   */
  set(name: string, value: unknown): this {
    this.settings[name] = value;
    if (name === 'trust proxy') this.reqConfig.trust = compileTrust(value as GaleOptions['trustProxy']);
    else if (name === 'views') this.views.setDirs(value as string | string[]);
    else if (name === 'view engine') this.views.setDefaultEngine(String(value));
    else if (name === 'view cache') this.views.cache = Boolean(value);
    else if (name === 'etag') this.host.etag = value === false ? false : value === 'strong' ? 'strong' : 'weak';
    return this;
  }

  /** Values given to `set` (and `'trust proxy'`, from the `trustProxy` option). */
  readonly settings: Record<string, unknown> = Object.create(null);

  /**
   * With one argument that is not a path, a setting's value, as Express's `app.get(name)` (middleware such as
   * express-rate-limit reads `req.app.get('trust proxy')`); otherwise a GET route (see `RouteMethod`).
   *
   * @example
   * const app = gale({ trustProxy: 'loopback' });
   * app.get('trust proxy'); // 'loopback'
   * app.get('/users/:id', (req) => ({ id: req.params.id }));
   */
  declare get: ((setting: string) => unknown) & RouteMethod<this, S, R, 'get'>;

  /**
   * Values every rendered view sees (under `res.locals` and the data given to `render`).
   *
   * @example
   * app.locals.siteName = 'Gale';
   */
  get locals(): Record<string, unknown> {
    return this.views.locals;
  }

  /**
   * Renders a view to a string (without sending it); rejects on a missing view or template error.
   *
   * @example
   * const mail = await app.render('welcome-email', { name: 'Ada' });
   */
  render(name: string, data: Record<string, unknown> = {}): Promise<string> {
    return this.views.render(name, data);
  }

  /** @internal every entry added to the app is registered at once */
  override add(e: Entry): void {
    super.add(e);
    this.registrar.register(e, '/', [this.errorHandlers], [], [this]);
  }

  /**
   * Adds middleware (for every path, or under `path`), routers, static mounts or error middleware. Given
   * `derive()` middleware for every path, it returns the app typed with the state they add, so routes declared on
   * what it returns see `req.state` typed (it is the same app: routes declared after the `use` run them).
   *
   * @example
   * const authed = app.use(derive((req) => ({ user: req.get('x-user') ?? 'anonymous' })));
   * authed.get('/me', (req) => ({ user: req.state.user }));
   */
  override use<Pre extends string, X extends MountableRouter>(
    path: Pre,
    router: X,
  ): Rebuild<this, S, R & MountedRoutes<Pre, RoutesOf<X>>>;
  override use<M1 extends Middleware<AnyParams, S>>(m1: M1): App<S & StateFrom<M1>, R>;
  override use<M1 extends Middleware<AnyParams, S>, M2 extends Middleware<AnyParams, S & StateFrom<M1>>>(
    m1: M1,
    m2: M2,
  ): App<S & StateFrom<M1> & StateFrom<M2>, R>;
  override use(...fns: Middleware<AnyParams, S>[]): this;
  override use(path: string, ...fns: Middleware<AnyParams, S>[]): this;
  override use(...items: (string | Usable)[]): this;
  override use(...args: unknown[]): unknown {
    // Track which router owns an error-handler list, for scope lookups.
    for (const a of args) if (a instanceof Router) this.registrar.trackOwners(a);
    return super.use(...(args as (string | Usable)[]));
  }

  /**
   * The OpenAPI 3.1 document of the app's routes (and of the routers mounted on it): each path in OpenAPI's
   * `{param}` syntax (an optional group gives one path with and one without it), each operation with its params,
   * query, headers, body and responses described by the JSON Schema its route's schemas export (zod 4, arktype,
   * valibot through `toStandardJsonSchema`, plain JSON Schema / TypeBox), and its summary, tags and other docs; a
   * route without schemas is listed with its path params. WebSocket routes, static mounts, fixed responses and
   * fetch mounts are not operations and are left out, as are routes with `hidden: true`. Each operation lists the
   * responses the route really has: its response schemas, `default` (the handler's answer) when none is a success,
   * 400 when it validates input, 503 while a `handlerTimeout` applies. Built on every call, from the routes declared
   * by then: serve it from a handler that calls it, and routes added later are in it too.
   *
   * @example
   * app.get('/openapi.json', { hidden: true }, () => app.openapi({ info: { title: 'Users API', version: '1.0.0' } }));
   */
  openapi(options: OpenApiOptions): OpenApiDocument {
    return openApiDocument(this, options, this.handlerTimeout);
  }

  /**
   * Answers requests that match no route (after the middleware that applies to them). Without it
   * (and without middleware) the engine answers 404 itself.
   */
  notFound(handler: Handler): this {
    this.dispatcher.notFoundHandler = handler;
    this.registrar.refreshFallback();
    return this;
  }

  /**
   * Mounts a Web-standard fetch handler `(Request) → Response | Promise<Response>` (or anything with a `fetch`
   * method, such as a Hono app). Without a prefix it answers what no route, static mount or fixed response took
   * (it becomes the notFound handler, after the app's middleware); with one, every method under the prefix, which
   * is cut from the URL the handler sees unless `stripPrefix: false`. Native routes and static files still win; a
   * path a route has under another method gets the engine's 405. See docs/guides/fetch-and-hono.md.
   *
   * @example
   * app.get('/health', () => 'ok');                    // still answered by Gale
   * app.fetch('/hono', honoApp);                        // GET /hono/users → the Hono app sees /users
   * app.fetch((request) => new Response(`no route for ${new URL(request.url).pathname}`, { status: 404 }));
   */
  fetch(handler: FetchHandler | Fetchable, options?: FetchMountOptions): this;
  fetch(prefix: string, handler: FetchHandler | Fetchable, options?: FetchMountOptions): this;
  fetch(
    a: string | FetchHandler | Fetchable,
    b?: FetchHandler | Fetchable | FetchMountOptions,
    c?: FetchMountOptions,
  ): this {
    mountFetch(this, a, b, c);
    return this;
  }

  /**
   * Registers a response the engine answers by itself, without entering JavaScript.
   *
   * @example
   * app.fixed('GET', '/health', { body: 'ok' });
   */
  fixed(method: string, path: string, response: FixedResponse): this {
    this.registrar.fixed(method, path, response);
    return this;
  }

  /**
   * @internal @gale-http/express's compiled routes (its server.ts): keeps the reply `res` is about to give as the
   * native answer of the route registered with `all()` at `pattern`, for the requests its JavaScript would answer
   * alike (route-answer.ts), when that route calls its handler directly (no Gale middleware in front). Without `res`,
   * takes the answer back. `done` learns whether the answer was kept.
   */
  _answerRoute(pattern: string, req?: Request, res?: Response, done?: (kept: boolean, why?: string) => void): void {
    if (req === undefined || res === undefined || done === undefined) this.answers.drop(pattern);
    else this.answers.keep(pattern, req, res, done);
  }

  /**
   * Serves the files under `dir` at URL `prefix`, answered by the native engine (never entering JS):
   * ETag/Last-Modified/304, Range, precompressed `.br`/`.gz`, optional memory cache.
   *
   * @example
   * app.static('/assets', './public', { maxAge: 3_600_000, immutable: /\.[0-9a-f]{8}\./, cache: true });
   */
  static(prefix: string, dir: string, options: StaticOptions = {}): this {
    this.registrar.mountStatic(prefix, staticMount(dir, options, `app.static(${JSON.stringify(prefix)})`));
    return this;
  }

  /**
   * Sends a WebSocket message to every socket subscribed to `topic` (see `ws.subscribe`); returns how many
   * it reached. The engine builds the frame once (and compresses it once) for all of them. Several topics reach
   * each subscriber once; `except` leaves out the subscribers of other topics and `volatile` the sockets whose send
   * buffer is full, both decided in the engine (no JavaScript runs per socket).
   *
   * @example
   * setInterval(() => app.publish('ticks', JSON.stringify({ t: Date.now() })), 1000);
   * app.publish(['room:a', 'room:b'], 'hello', { except: ['muted'] });
   */
  publish(topic: string | readonly string[], data: WsData, options?: PublishOptions): number {
    return this.pubsub.publish(topic, data, options);
  }

  /**
   * Where `app.publish` and `ws.publish` hand a message on after the engine published it in this process (the
   * cross-process pub/sub of @gale-http/cluster's `pubsub()` sets it); undefined stops relaying.
   *
   * @example
   * app.setPublishRelay((topic, data) => console.log('published to', topic, String(data).length, 'bytes'));
   */
  setPublishRelay(relay: Relay | undefined): void {
    this.pubsub.setRelay(relay);
  }

  /** Sockets subscribed to `topic` right now. */
  subscribers(topic: string): number {
    return this.pubsub.subscribers(topic);
  }

  /** Starts accepting connections. Port 0 picks a free port; resolves to the bound address. */
  listen(port?: number, host?: string): Promise<AddressInfo>;
  /**
   * Starts accepting connections, with TLS when `tls` is given (HTTPS and WSS, terminated by the engine).
   *
   * @example
   * await app.listen({ port: 443, tls: { cert: './site.crt', key: './site.key', reloadOnSighup: true } });
   */
  listen(options: ListenOptions): Promise<AddressInfo>;
  /**
   * Node's shape: binds at once (so `app.address()` answers right after), then calls `cb` with no argument, or
   * with the error (EADDRINUSE, a bad option), and returns the app.
   *
   * @example
   * app.listen(3000, () => console.log('listening on', app.address()?.port));
   */
  listen(port: number, cb: ListenCallback): this;
  listen(port: number, host: string, cb: ListenCallback): this;
  listen(options: ListenOptions, cb: ListenCallback): this;
  listen(cb: ListenCallback): this;
  listen(...args: unknown[]): Promise<AddressInfo> | this {
    if (this._plugins.pending !== undefined) {
      // Plugins still loading (an async register()): listen once they have, or fail with the one that did not.
      const last = args[args.length - 1];
      const ready = this.ready();
      if (typeof last !== 'function') return ready.then(() => this.listen(...(args as [number])));
      ready.then(
        () => this.listen(...(args as [number, ListenCallback])),
        (err: Error) => (last as ListenCallback)(err),
      );
      return this;
    }
    const cb = typeof args[args.length - 1] === 'function' ? (args.pop() as ListenCallback) : undefined;
    const [portOrOptions, hostArg] = args as [number | ListenOptions | undefined, string | undefined];
    return this.listener.listen(portOrOptions, hostArg, cb) ?? this;
  }

  /**
   * The bound address while listening (as node:http's `server.address()`), else null.
   *
   * @example
   * await app.listen(0);
   * console.log(app.address()?.port);
   */
  address(): AddressInfo | null {
    return this.listener.bound ?? null;
  }

  /**
   * Loads new TLS certificates (or, without arguments, re-reads the files `listen({ tls })` was given): new
   * handshakes use them, established connections carry on with theirs. Throws saying what is wrong with a bad
   * certificate or key, and then the previous ones stay in use.
   *
   * @example
   * process.on('SIGUSR2', () => app.reloadTls({ cert: renewed.cert, key: renewed.key }));
   */
  reloadTls(options?: TlsOptions): void {
    this.listener.reloadTls(options);
  }

  /**
   * Answers a request in-process, without a socket: the request goes through the engine's HTTP/1.1 parser, the
   * router, static files, middleware, limits and error handling exactly as one from the network, and the
   * response comes back as a Web `Response` (streamed when the app streams it). Works whether or not the app
   * listens, alongside its sockets. `input` is a path (`'/users/1'`, on `http://localhost`), a URL or a Request;
   * `init` as for `fetch()`. Unlike `fetch()` it adds no default headers (only Host and the body's framing), does
   * not follow redirects and does not decompress; an `https:` URL makes `req.secure` true. The peer address is
   * `127.0.0.1` (port 0). HTTP/1.1 only: an `Upgrade` request (WebSocket, h2c) rejects with
   * `GALE_ERR_IN_PROCESS`, as does a request after `close()`, and a request made without `init.signal` that gets no
   * response head within 10 s (the error names the route whose handler holds it; pass a signal, e.g.
   * `AbortSignal.timeout(60_000)`, for one that may take longer). See docs/guides/testing.md.
   *
   * @example
   * import assert from 'node:assert/strict';
   * import { gale } from 'gale';
   *
   * const app = gale();
   * app.get('/users/:id', (req) => ({ id: req.params.id }));
   * const res = await app.request('/users/1');
   * assert.equal(res.status, 200);
   * assert.deepEqual(await res.json(), { id: '1' });
   */
  request(input: string | URL | globalThis.Request, init?: RequestInit): Promise<globalThis.Response> {
    if (this.closed !== undefined) {
      return Promise.reject(new GaleError(ErrorCodes.IN_PROCESS, 'app.request(): the app is closed'));
    }
    // Plugins still loading (an async register()): answer once their routes are there.
    if (this._plugins.pending !== undefined) return this.ready().then(() => this.request(input, init));
    return this.inProcess.request(input, init);
  }

  /**
   * Milliseconds an idle keep-alive connection stays open (the `keepAliveTimeout` option, default 65 000), also what
   * responses' `Keep-Alive: timeout=` line says. Setting it applies from now on, as node:http's
   * `server.keepAliveTimeout` does (behind a load balancer, make it longer than the balancer's idle timeout).
   *
   * @example
   * app.keepAliveTimeout = 75_000;
   */
  get keepAliveTimeout(): number {
    return this.keepAliveMs;
  }
  set keepAliveTimeout(ms: number) {
    if (!Number.isInteger(ms) || ms < 0 || ms > 0xffffffff) {
      throw new TypeError(`keepAliveTimeout must be a whole number of milliseconds (got ${String(ms)})`);
    }
    this.keepAliveMs = ms;
    this.n.setKeepAliveTimeout(ms);
  }

  /** Open connections right now (in-process requests in flight among them). */
  get connections(): number {
    return this.n.connections();
  }

  /**
   * Calls `listener(topic, true)` when a pub/sub topic gets its first subscriber in this process and
   * `listener(topic, false)` when it loses its last one (by `unsubscribe` or a socket closing); topics already
   * active are reported at once. For mirroring topics elsewhere (a Redis channel per active topic, say). Returns a
   * function that removes the listener; the engine stops reporting when none is left.
   *
   * @example
   * app.onTopicChange((topic, active) => (active ? redisSub.subscribe(topic) : redisSub.unsubscribe(topic)));
   */
  onTopicChange(listener: (topic: string, active: boolean) => void): () => void {
    return this.pubsub.onTopicChange(listener);
  }

  /**
   * What the engine holds now and counts since it started: connections (WebSockets among them), requests
   * in flight, request records kept for reuse, requests parsed, output waiting for slow clients, and whether
   * accepting is paused for want of file descriptors. Walks the connections once: call it for monitoring.
   *
   * @example
   * setInterval(() => console.log(app.stats()), 10_000).unref();
   */
  stats(): ServerStats {
    const [connections, websockets, requestsInFlight, requestRecords, requestsTotal, pendingOutput, acceptPaused] =
      this.n.stats();
    return { connections, websockets, requestsInFlight, requestRecords, requestsTotal, pendingOutput, acceptPaused };
  }

  /**
   * Stops accepting, lets in-flight requests finish (answered with `Connection: close`), closes idle keep-alive
   * connections, and after `timeout` ms (if given) closes whatever is left. An idle connection whose client has
   * been reusing it (keep-alive, two requests or more) stays open for `idleGrace` ms (default 100) first: the client
   * may be sending the next request that moment, and a request that comes is answered (with `Connection: close`)
   * instead of being lost, as a process manager's reload under load needs; 0 closes them at once. In a
   * node:cluster worker the primary stops sending this worker connections first.
   *
   * @example
   * process.on('SIGINT', () => void app.close({ timeout: 10_000 }).then(() => process.exit(0)));
   */
  close(options: { timeout?: number; idleGrace?: number } = {}): Promise<void> {
    if (this.closed) return this.closed;
    const closeHooks = hookListsOf(this);
    if (closeHooks.length > 0) {
      // onClose hooks run once the server has closed (in-flight requests answered), before close() resolves.
      this.closed = this.closeServer(options).then(() => runCloseHooks(closeHooks));
      return this.closed;
    }
    return this.closeServer(options);
  }

  private closeServer(options: { timeout?: number; idleGrace?: number }): Promise<void> {
    hooks.draining.add(this); // readiness (gale health) answers 503 from now on
    this.listener.stopReloads();
    if (!this.listener.listening && this.inProcess.size === 0) {
      this.closed = Promise.resolve();
      return this.closed;
    }
    this.closed = new Promise<void>((resolve) => {
      this.dispatcher.resolveClosed = resolve;
    });
    let timer: NodeJS.Timeout | undefined;
    if (options.timeout !== undefined) {
      timer = setTimeout(() => this.n.forceClose(), options.timeout);
      timer.unref();
    }
    this.listener.stop();
    this.dispatcher.waiting.stop();
    this.n.close(options.idleGrace ?? 100);
    // Event streams never end by themselves: end them so in-flight requests can finish.
    for (const stream of [...this.host.sse]) stream.close();
    return this.closed.finally(() => clearTimeout(timer));
  }
}

/** The hook lists of `r` and of the routers mounted on it (recursively), in the order they were mounted. */
function hookListsOf(r: Router, out: HookLists[] = [], seen = new Set<Router>()): HookLists[] {
  if (seen.has(r)) return out;
  seen.add(r);
  if (r._hooks !== undefined) out.push(r._hooks);
  for (const e of r.entries) if (e.kind === 'router') hookListsOf(e.router, out, seen);
  return out;
}

// `app.get` is typed by its `declare`d property (the route methods' overloads and the setting reader); this is it.
Object.defineProperty(App.prototype, 'get', {
  value: function get(this: App, path: string, ...fns: unknown[]): unknown {
    if (fns.length === 0 && !path.startsWith('/')) return this.settings[path];
    return this.route('GET', path, fns);
  },
  writable: true,
  configurable: true,
});
