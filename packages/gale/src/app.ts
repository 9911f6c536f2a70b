// The Gale application: a Router whose routes go straight into the native router, each with its
// middleware chain precomputed; the dispatch entry the engine calls; replies, errors, listen, close.
// Registration (flattening routers into routes, static mounts) is in app-routes.ts.
import { Listener } from './app/listen.js';
import { Registrar, type Route, staticMount } from './app-routes.js';
import { type ChainHost, type Handler, handleScopedError, type Middleware } from './chain.js';
import { ErrorCodes, GaleError, HttpError, ValidationError } from './errors.js';
import type { Fetchable, FetchHandler } from './fetch/handler.js';
import { type FetchMountOptions, mountFetch } from './fetch/mount.js';
import { sendResponse } from './fetch/send.js';
import { GlobalResponse } from './fetch/web-response.js';
import { type HookLists, runCloseHooks } from './hooks.js';
import { InProcess } from './in-process.js';
import { configureLogging, consoleLogger, type Logger, requestLogger } from './logging.js';
import { fixedSecurityHeaders, security } from './middleware/security.js';
import {
  EV_ABORT,
  EV_BODY,
  EV_CLOSED,
  EV_DRAIN,
  EV_PIPE,
  EV_TOPIC,
  EV_WS_CLOSE,
  EV_WS_DRAIN,
  type NativeOptions,
  type NativeServer,
  native,
} from './native.js';
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
import { type ErrorFormat, problemDocument, wantsProblem } from './problem.js';
import type { AnyParams } from './request/api.js';
import { compileTrust, type RequestConfig, requestConfig } from './request/config.js';
import { Request } from './request/request.js';
import { Response, type ResponseHost } from './response/response.js';
import { captureAnswer } from './route-answer.js';
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
import { isStreamSource } from './stream.js';
import type { TlsOptions } from './tls.js';
import { runHandler, TracedResponse, traceError, traceRequest, tracingOn } from './tracing.js';
import {
  DEFAULT_HANDLER_TIMEOUT,
  GRACE_MS,
  HandlerTimer,
  placeOf,
  routeName,
  unansweredWarning,
} from './unanswered.js';
import { type ViewEngine, Views } from './views.js';
import type { PublishOptions, WsData } from './ws.js';
import { WsHub } from './ws-route.js';

const MASK = 0xfffff;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

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
  /** The patterns whose routes have a native answer (`_answerRoute`). */
  private readonly answers = new Set<string>();
  private readonly live: (Response | undefined)[] = [];
  private readonly dev: boolean;
  /** gale({ handlerTimeout }): how long a handler may leave its request unanswered (false: no limit). */
  private readonly handlerTimeout: number | false;
  /** The requests the handlerTimeout watches (unanswered.ts). */
  private readonly waiting: HandlerTimer<Response>;
  /** How Gale's own error answers are written (gale({ errorFormat })). */
  private readonly errorFormat: ErrorFormat;
  private readonly caseSensitive: boolean;
  private readonly logger: Logger;
  private readonly views = new Views();
  private readonly host: ResponseHost;
  /** The request options every Request of this app reads (one shared object). */
  private readonly reqConfig: RequestConfig;
  private readonly chainHost: ChainHost;
  private notFoundHandler: Handler | undefined;
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
  private closed: Promise<void> | undefined;
  private readonly topicListeners = new Set<(topic: string, active: boolean) => void>();
  private resolveClosed: (() => void) | undefined;
  /** `app.request()`'s in-memory connections. */
  private readonly inProcess: InProcess;

  constructor(options: GaleOptions = {}) {
    super();
    // Unknown names (a typo) and values of the wrong kind are refused here rather than ignored.
    checkGaleOptions(options, 'gale()');
    const { development, logger, handlerTimeout, ...engine } = options;
    // In a gale.cluster() worker every app shares its port with the other workers (SO_REUSEPORT).
    if (engine.reusePort === undefined && hooks.reusePort) engine.reusePort = true;
    this.keepAliveMs = options.keepAliveTimeout ?? 65_000;
    this.dev = development ?? process.env.NODE_ENV === 'development';
    this.handlerTimeout = handlerTimeout ?? DEFAULT_HANDLER_TIMEOUT;
    this.waiting = new HandlerTimer(this.live, (res) => this.timedOut(res, res._rt as Route));
    this.errorFormat = options.errorFormat ?? 'negotiate';
    this.caseSensitive = options.caseSensitive ?? false;
    this.logger = logger ?? consoleLogger;
    if (options.views !== undefined) this.views.setDirs(options.views);
    if (options.viewEngine !== undefined) this.views.setDefaultEngine(options.viewEngine);
    const live = this.live;
    this.reqConfig = requestConfig(options);
    // req.app, and what it answers for the setting Express middleware reads (express-rate-limit): the option.
    this.reqConfig.app = this;
    this.settings['trust proxy'] = options.trustProxy ?? false;
    this.host = {
      forget: (id) => {
        live[id & MASK] = undefined;
      },
      // Only Gale's own responses reach these hooks: the views are the classes.
      track: (res) => {
        live[res._id & MASK] = res as Response;
      },
      fail: (err, req, res) => this.fail(err, req as Request, res as Response),
      // Off unless asked for: hashing every body costs the hot path (Express's default is 'weak').
      etag: options.etag === true || options.etag === 'weak' ? 'weak' : options.etag === 'strong' ? 'strong' : false,
      cookieSecret: options.cookieSecret,
      views: this.views,
      logRequests: logger !== undefined && options.requestLogging !== false,
      sse: new Set(),
    };
    this.chainHost = {
      reply: (out, req, res) => this.reply(out, req, res),
      fail: (err, req, res) => this.fail(err, req, res),
      notFound: (req, res) => {
        if (this.notFoundHandler === undefined) this.answerError(req, res, 404, 'Not Found');
        else
          this.reply(
            this.notFoundHandler(req, res, () => Promise.resolve()),
            req,
            res,
          );
      },
    };
    this.hub = new WsHub(this.logger, this.reqConfig);
    this.n = native.createServer(engine as NativeOptions, this.dispatch, this.onEvent, this.hub.onMessage);
    this.hub.n = this.n;
    this.listener = new Listener(this, this.n, this.logger, engine.reusePort === true, () => this.closed !== undefined);
    this.inProcess = new InProcess(this.n, (method, target) => this.holding(method, target));
    this.registrar = new Registrar(
      this,
      this.n,
      this.routes,
      this.caseSensitive,
      this.chainHost,
      () => this.notFoundHandler,
      this.hub,
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
    this.notFoundHandler = handler;
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
    const headers: string[] = [];
    let hasType = false;
    for (const [k, v] of Object.entries({ ...this.registrar.staticHeaders, ...response.headers })) {
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
   * @internal @gale-http/express's compiled routes (its server.ts): keeps the reply `res` is about to give as the
   * native answer of the route registered with `all()` at `pattern`, for the requests its JavaScript would answer
   * alike (route-answer.ts), when that route calls its handler directly (no Gale middleware in front). Without `res`,
   * takes the answer back. `done` learns whether the answer was kept.
   */
  _answerRoute(pattern: string, req?: Request, res?: Response, done?: (kept: boolean, why?: string) => void): void {
    if (req === undefined || res === undefined || done === undefined) {
      if (this.answers.delete(pattern)) this.n.routeAnswer(pattern);
      return;
    }
    const route = this.routes.find((r) => r.pattern === pattern);
    if (route === undefined || !route.direct) {
      done(false, 'the route has Gale middleware');
      return;
    }
    captureAnswer(this.n, pattern, req, res, (kept, why) => {
      if (kept) this.answers.add(pattern);
      done(kept, why);
    });
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
    const body =
      typeof data === 'string' || data instanceof Uint8Array
        ? data
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const binary = options?.binary ?? typeof body !== 'string';
    const compress = options?.compress ?? true;
    const n = this.n.wsPublish(topic, body, binary, compress, undefined, options?.except, options?.volatile);
    // Cross-process pub/sub (gale.pubsub, cluster workers): local subscribers first, then the other processes.
    const relay = this.hub.relay;
    if (relay !== undefined && options?.local !== true)
      relay(topic, body, binary, compress, options?.except, options?.volatile);
    return n;
  }

  /**
   * Where `app.publish` and `ws.publish` hand a message on after the engine published it in this process (the
   * cross-process pub/sub of @gale-http/cluster's `pubsub()` sets it); undefined stops relaying.
   *
   * @example
   * app.setPublishRelay((topic, data) => console.log('published to', topic, String(data).length, 'bytes'));
   */
  setPublishRelay(relay: Relay | undefined): void {
    this.hub.relay = relay;
  }

  /** Sockets subscribed to `topic` right now. */
  subscribers(topic: string): number {
    return this.n.wsSubscribers(topic);
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
    if (this.listener.viaPrimary(portOrOptions)) {
      const bound = this.listener.bindViaPrimary(portOrOptions, hostArg);
      if (cb === undefined) return bound;
      bound.then(
        () => cb(),
        (err: Error) => cb(err),
      );
      return this;
    }
    if (cb === undefined) {
      try {
        return Promise.resolve(this.listener.bind(portOrOptions, hostArg));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    try {
      this.listener.bind(portOrOptions, hostArg);
      process.nextTick(cb);
    } catch (err) {
      process.nextTick(cb, err as Error);
    }
    return this;
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
    this.topicListeners.add(listener);
    if (this.topicListeners.size === 1) this.n.wsWatchTopics(true);
    return () => {
      if (this.topicListeners.delete(listener) && this.topicListeners.size === 0) this.n.wsWatchTopics(false);
    };
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
      this.resolveClosed = resolve;
    });
    let timer: NodeJS.Timeout | undefined;
    if (options.timeout !== undefined) {
      timer = setTimeout(() => this.n.forceClose(), options.timeout);
      timer.unref();
    }
    this.listener.stop();
    this.waiting.stop();
    this.n.close(options.idleGrace ?? 100);
    // Event streams never end by themselves: end them so in-flight requests can finish.
    for (const stream of [...this.host.sse]) stream.close();
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
    // The low 24 bits are the route; the top byte what the engine tells of the request (request.ts's RequestFlags).
    const route = this.routes[routeId & 0xffffff] as Route;
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
    const req = new Request(this.n, id, params, this.reqConfig, routeId >>> 24);
    if (route.base !== '') req._base = route.base;
    if (tracingOn()) {
      // Traced requests run JavaScript: routes answered natively go back to it.
      if (this.answers.size !== 0) for (const p of this.answers) this._answerRoute(p);
      if (this.hub.acceptsNatively) this.hub.revokeNative();
      const traced = new TracedResponse(this.n, id, req, this.host, route.pattern);
      req._res = traced;
      traceRequest(traced, this.handle, this, route);
      return;
    }
    const res = new Response(this.n, id, req, this.host);
    req._res = res;
    this.handle(route, req, res, false);
  }.bind(this);

  /**
   * Runs a request through its route and answers what the route returned. `traced` (a traced request: `res` is a
   * TracedResponse) calls the route through gale.handler's trace (tracing.ts).
   */
  private handle(route: Route, req: Request, res: Response, traced: boolean): void {
    let out: unknown;
    try {
      out = traced ? runHandler(route.run, route, res as TracedResponse) : route.run(req, res);
    } catch (err) {
      this.failScoped(err, req, res, route);
      return;
    }
    if (res.finished) return;
    if (
      route.direct &&
      out !== undefined &&
      !isThenable(out) &&
      !(out instanceof GlobalResponse) &&
      !isStreamSource(out)
    ) {
      // A plain returned value: answer now, on the synchronous path (no snapshot, no tracking).
      try {
        res.send(out);
      } catch (err) {
        this.failScoped(err, req, res, route);
      }
      if (res.finished) return;
    }
    req._deferred = true;
    this.live[res._id & MASK] = res;
    res._rt = route;
    const limit = route.timeout ?? this.handlerTimeout;
    if (limit !== false) this.waiting.watch(res, limit);
    if (this.dev) this.watchSettled(out, req, res, route);
    if (route.direct && out !== undefined) {
      if (out instanceof Promise) {
        // The usual async handler: one reaction for both outcomes (no Promise.resolve wrapper, no second .then).
        out.then(
          (v: unknown) => {
            // finished without a head: the client left meanwhile (nothing to answer, nothing to log).
            if (v !== undefined && !res.headersSent && !res.finished) this.settle(v, req, res, route);
          },
          (err: unknown) => this.failScoped(err, req, res, route),
        );
      } else this.settle(out, req, res, route);
    }
  }

  /**
   * Development mode: once the handler (or the route's chain) settled, a response that still has no head a moment
   * later is reported with the route and where it was declared (a callback answering within GRACE_MS is not).
   */
  private watchSettled(out: unknown, req: Request, res: Response, route: Route): void {
    const check = () => {
      if (res.headersSent || res.finished || res._dl < 0) return;
      const t = setTimeout(() => {
        if (res.headersSent || res.finished || res._dl < 0) return;
        requestLogger(req).warn(unansweredWarning(req.method, req.originalUrl, route.pattern, route.at));
      }, GRACE_MS);
      t.unref();
    };
    if (isThenable(out)) out.then(check, () => {});
    else check();
  }

  /** Which route holds an in-process request that has no answer yet (app.request()'s timeout error says it). */
  private holding(method: string, target: string): string | undefined {
    for (const res of this.live) {
      if (res === undefined || res.headersSent || res.finished || res._rt === undefined) continue;
      const req = res._req;
      if (req.method !== method || req.originalUrl !== target || req.remotePort !== 0) continue;
      const route = res._rt as Route;
      return `${routeName(route.pattern, route.at)} has not answered it`;
    }
    return undefined;
  }

  /** The handlerTimeout ran out for a request whose handler never started an answer: a log line, and 503. */
  private timedOut(res: Response, route: Route): void {
    const req = res._req;
    const ms = route.timeout ?? this.handlerTimeout;
    requestLogger(req).error(
      { route: route.pattern, handlerTimeout: ms, at: placeOf(route.at) },
      `gale: ${req.method} ${req.originalUrl}: ${routeName(route.pattern, route.at)} did not answer within handlerTimeout (${ms} ms); answered 503`,
    );
    const detail = `The server did not answer within ${ms} ms (handlerTimeout)`;
    this.answerError(req, res, 503, detail, ErrorCodes.HANDLER_TIMEOUT);
  }

  /** Answers with a direct handler's (resolved) return value; its errors take the route's scoped path. */
  private settle(out: unknown, req: Request, res: Response, route: Route): void {
    try {
      const sent = this.reply(out, req, res);
      if (sent !== undefined) sent.then(undefined, (err) => this.failScoped(err, req, res, route));
    } catch (err) {
      this.failScoped(err, req, res, route);
    }
  }

  private failScoped(err: unknown, req: Request, res: Response, route: Route): void {
    handleScopedError(err, req, res, route.scopes, this.chainHost);
  }

  private readonly onEvent = (kind: number, id: number, code?: number, reason?: string): void => {
    if (kind === EV_CLOSED) {
      this.resolveClosed?.();
      return;
    }
    if (kind === EV_WS_CLOSE) {
      this.hub.closed(id, code as number, reason as string);
      return;
    }
    if (kind === EV_WS_DRAIN) {
      this.hub.drained(id);
      return;
    }
    if (kind === EV_TOPIC) {
      for (const l of this.topicListeners) l(reason as string, id === 1);
      return;
    }
    if (kind === EV_PIPE) {
      this.inProcess.wake(id);
      return;
    }
    const res = this.live[id & MASK];
    if (res === undefined || res._id !== id) {
      if (kind === EV_ABORT) this.n.release(id);
      return;
    }
    if (kind === EV_ABORT) {
      this.live[id & MASK] = undefined;
      // Copied before the engine lets go: code still running for this request (a middleware's fs callback, as send's
      // stat) reads its fields after the client left, and a throwing getter there would be an uncaught exception.
      res._req._snapshot();
      res._req._aborted = true;
      res._aborted();
      res._req._abort?.abort(new Error('client disconnected'));
      res._req._bodySource().wake();
    } else if (kind === EV_DRAIN) {
      res._emit('drain');
    } else if (kind === EV_BODY) {
      res._req._bodySource().wake();
    }
  };

  /** Turns a handler's return value (or what its promise resolves to) into the response. */
  private reply(out: unknown, req: Request, res: Response): Promise<void> | undefined {
    if (isThenable(out)) {
      return Promise.resolve(out).then((v) => {
        if (v !== undefined && !res.headersSent) return this.reply(v, req, res);
      });
    }
    if (res.headersSent || res.finished) return undefined;
    if (out instanceof GlobalResponse) {
      const sent = sendResponse(res, out, req.method === 'HEAD');
      return sent === undefined ? undefined : sent.then(() => undefined);
    }
    // A returned Readable / ReadableStream / async iterable is streamed; its errors take the scoped path.
    if (isStreamSource(out)) return res._pipe(out).then(() => undefined);
    res.send(out);
    return undefined;
  }

  /** Answers an error no handler took: HttpError keeps its status; anything else is a logged 500. */
  private fail(err: unknown, req: Request, res: Response): void {
    traceError(res, err);
    const http = err instanceof HttpError ? err : undefined;
    const status = http?.status ?? 500;
    // req.log carries the request id when the app has a logger.
    if (status >= 500) requestLogger(req).error(err, `gale: ${status} while handling a request`);
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
    if (http instanceof ValidationError) {
      // RFC 9457: the problem document names every failing field (whatever errorFormat says: it is the answer).
      res.status(status).header('content-type', 'application/problem+json');
      res.end(JSON.stringify(http.problem));
      return;
    }
    this.answerError(req, res, status, body, http?.code, http?.headers);
  }

  /**
   * Writes an error answer Gale makes itself: plain text, or the RFC 9457 problem document (errorFormat, the
   * request's Accept); `code` defaults to the status's stable code. Not send(): error answers get no ETag.
   */
  private answerError(
    req: Request,
    res: Response,
    status: number,
    detail: string,
    code?: string,
    headers?: Record<string, string>,
  ): void {
    res.status(status);
    if (headers) for (const [k, v] of Object.entries(headers)) res.header(k, v);
    if (wantsProblem(this.errorFormat, req.get('accept'))) {
      res.header('content-type', 'application/problem+json');
      res.end(JSON.stringify(problemDocument(status, detail, code)));
    } else {
      res.header('content-type', 'text/plain; charset=utf-8');
      res.end(detail);
    }
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
