// app.listen(): a Gale app per listening server. Every simple route path of the Express app (and of
// the routers and sub-apps mounted at simple prefixes) becomes a native route for all methods; the
// engine's match picks a "plan" — the top router's layers that can match that path — so only those
// are walked, in Express's order. Everything else goes through the fallback route with the whole
// stack. The returned object stands in for http.Server (close, address, events).
import { EventEmitter } from 'node:events';
import {
  type App,
  type GaleOptions,
  type Request as GaleRequest,
  type Response as GaleResponse,
  gale,
  type ListenOptions,
} from 'gale';
import { constantHandler } from './compile.js';
import { bumpListeners } from './layer.js';
import { type Compat, mayMatch, nativePattern, type Seg } from './path.js';
import { generation, type Layer, type Next, type RouterFn, routerProto } from './router.js';
import type { ServerContext } from './socket.js';

/**
 * What a listening server uses of its Express app. application.ts's Application has all of it (its listen() hands
 * itself to listen() below, so TypeScript checks that they match) and this module does not import application.ts.
 */
export interface ListeningApp {
  /** @internal */ readonly _compat: Compat;
  /** @internal the options of express(): `server` holds the engine options of the servers listen() starts */
  readonly _options: { readonly server?: Omit<GaleOptions, 'caseSensitive' | 'strict'> };
  /** @internal the app's request class (each request gets its response as `req.res`) */
  readonly _Req: new (
    ...a: never[]
  ) => { res: object };
  /** @internal the app's response class */
  readonly _Res: new (
    ...a: never[]
  ) => object;
  enabled(setting: string): boolean;
  /** @internal see application.ts */
  _mayAnswerNatively(): boolean;
  handle(req: unknown, res: unknown, callback?: Next, layers?: readonly Layer[]): void;
}

/** The layers of the top router worth walking for requests the engine matched to one route. */
interface Plan {
  readonly segs: Seg[] | undefined;
  layers: readonly Layer[] | undefined;
  gen: number;
  /** The native route's pattern ('' for the fallback). */
  readonly pattern: string;
  /** Whether the engine may answer this path by itself (see `answerable`): NO, TRY (on the next GET) or KEPT. */
  answer: number;
}
const NO = 0;
const TRY = 1;
const KEPT = 2;

/**
 * Whether the engine may keep what this path's handler answers and send it by itself ("declarative responses", as
 * fulmine.js and ultimate-express call theirs): the path has no params, the layers of the app's router that can match
 * it are routes, and the only one a GET or HEAD takes has one handler, for GET, of constants (compile.ts); the app's
 * request and response are as the package made them. Then every GET or HEAD request the engine answers (HTTP/1.1, no
 * body, no If-None-Match or If-Modified-Since) would have run exactly that handler through exactly Express's code,
 * which reads nothing of the request but its method. Any change to a router or a setting takes the answer back at once.
 */
function answerable(app: ListeningApp, plan: Plan): boolean {
  const layers = plan.layers;
  if (plan.segs === undefined || plan.segs.includes(null) || layers === undefined) return false;
  let get: Layer | undefined;
  for (const layer of layers) {
    const route = layer.route;
    // Middleware runs for every method; a route for all methods or with its own HEAD handler takes GET or HEAD.
    if (route === undefined || route.methods._all || route.methods.head) return false;
    if (!route.methods.get) continue; // skipped by GET and HEAD requests, as Express's router does
    if (get !== undefined) return false;
    get = layer;
  }
  if (get === undefined || !get.end || get.route?.stack.length !== 1) return false;
  const only = get.route.stack[0] as { method: string | undefined; handle: (...a: never[]) => unknown };
  return only.method === 'get' && constantHandler(only.handle) && app._mayAnswerNatively();
}

type ListenCb = (err?: Error) => void;
/** Gale's listen options other than the address (TLS for @gale-http/express/nest's httpsOptions). */
export type MoreListenOptions = Omit<ListenOptions, 'port' | 'host'>;

function collect(router: { stack: Layer[] }, prefix: Seg[], out: Map<string, Seg[]>, depth: number): void {
  for (const layer of router.stack) {
    const segsList = layer.segs;
    if (segsList === undefined) continue;
    if (layer.route !== undefined) {
      for (const segs of segsList) {
        const full = prefix.concat(segs);
        out.set(nativePattern(full), full);
      }
    } else if (layer.sub !== undefined && depth < 16) {
      const sub = layer.sub();
      if (sub !== undefined) for (const segs of segsList) collect(sub, prefix.concat(segs), out, depth + 1);
    }
  }
}

/**
 * What `app.listen()` returns: the listening server, shaped like node:http's Server.
 *
 * @example
 * const server = app.listen(3000, () => console.log('listening on', server.address().port));
 * process.on('SIGTERM', () => server.close());
 */
export class ExpressServer extends EventEmitter {
  listening = false;
  private keepAliveMs = 5000;
  headersTimeout = 60000;
  requestTimeout = 300000;
  timeout = 0;
  maxHeadersCount: number | null = null;
  private readonly app: ListeningApp;
  private g: App | undefined;
  private addr: { address: string; port: number; family: string } | null = null;
  private readonly ctx: ServerContext;
  private readonly native = new Set<string>();
  private gen = -1;
  private readonly fallback: Plan = { segs: undefined, layers: undefined, gen: -1, pattern: '', answer: NO };
  /** The plans whose paths the engine answers by itself. */
  private readonly kept = new Set<Plan>();
  /** Takes back every native answer (a router or a setting changed): in bumpListeners while `kept` has any. */
  private readonly unkeep = (): void => {
    for (const plan of this.kept) {
      plan.answer = NO;
      this.g?._answerRoute(plan.pattern);
    }
    this.kept.clear();
    bumpListeners.delete(this.unkeep);
  };
  private closing: Promise<void> | undefined;

  constructor(app: ListeningApp) {
    super();
    this.app = app;
    this.ctx = { localAddress: '', localPort: 0, family: 'IPv4', server: this };
  }

  /** @internal `more`: listen options beside port and host (`tls`: the Nest adapter's httpsOptions, nest/tls.ts) */
  _listen(port: number, host: string | undefined, cb: ListenCb | undefined, more?: MoreListenOptions): this {
    const app = this.app;
    const server = app._options.server ?? {};
    let g: App;
    try {
      g = gale({
        bodyLimit: Number.MAX_SAFE_INTEGER,
        requestLogging: false,
        // node:http takes any Host value; Express apps (and Express's own tests) send e.g. `Host: http://x.com`.
        strictHost: false,
        // node:http's keep-alive timeout (5 s) and its Connection/Keep-Alive lines, unless the app set its own.
        keepAliveTimeout: this.keepAliveMs,
        // Express decodes params itself (its layer's decode_param): a malformed one is a URIError for the app's
        // error handler, not the engine's 400.
        decodeParams: false,
        // node:http has no limit on how long a handler may take to answer; express({ server: { handlerTimeout } })
        // sets one.
        handlerTimeout: false,
        ...server,
        caseSensitive: app.enabled('case sensitive routing'),
        strict: app.enabled('strict routing'),
      });
    } catch (err) {
      this.fail(err as Error, cb);
      return this;
    }
    this.g = g;
    this.register();
    g.notFound((req, res) => this.dispatch(req, res, this.fallback));
    // Bound at once, as node:http binds in listen(): address() answers right after app.listen() returns. In a
    // node:cluster worker the primary binds, and the address comes with 'listening', as on node:http.
    g.listen(more === undefined ? port : ({ ...more, port, host: host ?? '::' } as never), host ?? '::', (err) => {
      if (err !== undefined) {
        this.fail(err, cb);
        return;
      }
      this.bound(g);
      this.emit('listening');
      // node:http calls it with the server as `this` (a 'listening' listener).
      cb?.call(this);
    });
    this.bound(g);
    return this;
  }

  /** Takes the address the app is bound to, once it is. */
  private bound(g: App): void {
    const a = g.address();
    if (a === null || this.addr !== null) return;
    this.addr = a;
    this.ctx.localAddress = a.address;
    this.ctx.localPort = a.port;
    this.ctx.family = a.family;
    this.listening = true;
  }

  private fail(err: Error, cb: ListenCb | undefined): void {
    process.nextTick(() => {
      if (cb && this.app._compat === 5) cb(err);
      if (this.listenerCount('error') > 0 || !(cb && this.app._compat === 5)) this.emit('error', err);
    });
  }

  /** Registers a native route for every simple route path not registered yet. */
  private register(): void {
    this.gen = generation.n;
    const g = this.g;
    const router = (this.app as unknown as { _r?: RouterFn })._r;
    if (g === undefined || router === undefined) return;
    const found = new Map<string, Seg[]>();
    collect(router, [], found, 0);
    for (const [pattern, segs] of found) {
      if (this.native.has(pattern)) continue;
      this.native.add(pattern);
      const plan: Plan = { segs, layers: undefined, gen: -1, pattern, answer: NO };
      try {
        g.all(pattern, (req, res) => this.dispatch(req, res, plan));
      } catch {
        // The engine refused the pattern (e.g. a shape it cannot hold): the fallback serves it.
      }
    }
  }

  /** @internal one request, from the engine */
  private dispatch(greq: GaleRequest, gres: GaleResponse, plan: Plan): void {
    if (this.gen !== generation.n) this.register();
    let layers: readonly Layer[] | undefined;
    if (plan.segs !== undefined) {
      if (plan.gen !== generation.n) {
        const router = (this.app as unknown as { _r?: RouterFn })._r;
        const segs = plan.segs;
        plan.layers = router === undefined ? [] : router.stack.filter((l) => mayMatch(segs, l.segs, l.end));
        plan.gen = generation.n;
        plan.answer = answerable(this.app, plan) ? TRY : NO;
      }
      layers = plan.layers;
      if (plan.answer === TRY && greq.method === 'GET') this.keep(plan, greq, gres);
    }
    const app = this.app;
    const req = new app._Req(greq as never, this.ctx as never);
    const res = new app._Res(gres as never, req as never);
    req.res = res;
    try {
      app.handle(req, res, undefined, layers);
    } catch (err) {
      (routerProto.final as (a: unknown, b: unknown, c: unknown) => void)(req, res, err);
    }
  }

  /** Asks the Gale app to keep the answer this GET is about to get as the engine's answer for the path. */
  private keep(plan: Plan, greq: GaleRequest, gres: GaleResponse): void {
    const gen = generation.n;
    plan.answer = NO; // tried once per generation: a refusal stands until something changes
    this.g?._answerRoute(plan.pattern, greq, gres, (kept) => {
      if (!kept) return;
      if (gen !== generation.n || this.closing !== undefined) {
        // Something changed while the answer was made (the handler itself called app.set, say): not kept.
        this.g?._answerRoute(plan.pattern);
        return;
      }
      plan.answer = KEPT;
      this.kept.add(plan);
      bumpListeners.add(this.unkeep);
    });
  }

  /** @internal the paths the engine answers by itself (bench notes, tests) */
  get _nativeAnswers(): string[] {
    return [...this.kept].map((p) => p.pattern);
  }

  /** node:http's: how long an idle keep-alive connection stays open (5 000 ms); setting it applies from now on. */
  get keepAliveTimeout(): number {
    return this.keepAliveMs;
  }
  set keepAliveTimeout(ms: number) {
    this.keepAliveMs = ms;
    if (this.g !== undefined) this.g.keepAliveTimeout = ms;
  }

  address(): { address: string; port: number; family: string } | null {
    return this.addr;
  }

  /**
   * The Gale app that serves this server's connections (undefined before `listen()` bound it): what Socket.IO and
   * Engine.IO attach to, so their long-polling and WebSockets run on the engine beside the Express app.
   *
   * @example
   * const server = app.listen(3000);
   * const io = new Server(server); // @gale-http/socket.io: attaches to server.galeApp
   */
  get galeApp(): App | undefined {
    return this.g;
  }

  /**
   * Stops accepting (address() is null from now on); in-flight requests finish, idle connections close; then 'close'
   * and `cb`. As node:http's: `cb` gets ERR_SERVER_NOT_RUNNING when the server was not listening (never, or not
   * any more: a second close), once 'close' comes.
   */
  close(cb?: (err?: Error) => void): this {
    const g = this.g;
    const running = g !== undefined && this.listening && this.closing === undefined;
    if (cb) {
      if (running) this.once('close', () => cb());
      else
        this.once('close', () =>
          cb(Object.assign(new Error('Server is not running.'), { code: 'ERR_SERVER_NOT_RUNNING' })),
        );
    }
    if (running) {
      bumpListeners.delete(this.unkeep);
      this.addr = null;
      this.closing = g.close().then(() => {
        this.listening = false;
        this.emit('close');
      });
    } else if (this.closing === undefined || !this.listening) {
      // Not listening (or closed already): node emits 'close' again on the next tick.
      process.nextTick(() => this.emit('close'));
    }
    return this;
  }
  closeAllConnections(): void {
    void this.g?.close({ timeout: 0 });
  }
  closeIdleConnections(): void {}
  getConnections(cb: (err: Error | null, count: number) => void): this {
    process.nextTick(cb, null, this.g?.connections ?? 0);
    return this;
  }
  setTimeout(_ms?: number, cb?: () => void): this {
    if (cb) this.on('timeout', cb);
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** app.listen([port[, host[, backlog]]][, callback]) and app.listen({ port, host }[, callback]). */
export function listen(app: ListeningApp, args: unknown[], more?: MoreListenOptions): ExpressServer {
  const server = new ExpressServer(app);
  let cb: ListenCb | undefined;
  if (typeof args[args.length - 1] === 'function') cb = args.pop() as ListenCb;
  let port: unknown = args[0];
  let host: unknown = args[1];
  if (port !== null && typeof port === 'object') {
    const o = port as { port?: unknown; host?: unknown; path?: unknown };
    if (o.path !== undefined)
      throw new TypeError('@gale-http/express listens on TCP ports only (no pipe or socket path)');
    port = o.port;
    host = o.host;
  }
  if (typeof port === 'string' && !/^\d+$/.test(port)) {
    throw new TypeError(`@gale-http/express listens on TCP ports only: ${JSON.stringify(port)} is not a port number`);
  }
  const n = port === undefined || port === null ? 0 : Number(port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw Object.assign(new RangeError(`options.port should be >= 0 and < 65536. Received ${String(port)}.`), {
      code: 'ERR_SOCKET_BAD_PORT',
    });
  }
  return server._listen(n, typeof host === 'string' ? host : undefined, cb, more);
}
