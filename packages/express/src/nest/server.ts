// What GaleExpressAdapter gives Nest as its HTTP server (`app.getHttpServer()`): node:http's Server in shape, made
// before it listens, as http.createServer(app) is. Each listen() serves the Express app on the engine through
// ../server.ts (a new ExpressServer, so a Gale app, per listen); close() stops it gracefully. Supertest listens and
// closes the same server once per request (Nest's e2e tests), so it may listen again after a close. The WebSocket
// adapters (ws.ts, socket.io.ts) attach to the Gale app of every listen through `onGaleApp`.
import { EventEmitter } from 'node:events';
import { Server as TlsServer } from 'node:tls';
import type { App } from 'gale';
import { type ExpressServer, type ListeningApp, listen, type MoreListenOptions } from '../server.js';

/** node:http's error for closing a server that is not listening. */
function notRunning(): Error {
  return Object.assign(new Error('Server is not running.'), { code: 'ERR_SERVER_NOT_RUNNING' });
}

/** The events the engine never emits: whoever listens for them would wait forever, so they are refused. */
const NEVER: Record<string, string> = {
  upgrade:
    "Gale's engine answers WebSocket upgrades itself and emits no 'upgrade' event: for Nest gateways use GaleWsAdapter " +
    '(@gale-http/express/nest/ws) or GaleIoAdapter (@gale-http/express/nest/socket.io); for Socket.IO of your own, ' +
    "`new Server(app.getHttpServer())` from @gale-http/socket.io after app.listen(), or a route of galeApp's app.ws()",
  request:
    "Gale's engine hands requests to the Express app, not to 'request' listeners: add an Express middleware " +
    '(app.use()) instead; Socket.IO goes through GaleIoAdapter (@gale-http/express/nest/socket.io), or ' +
    '`new Server(app.getHttpServer())` from @gale-http/socket.io after app.listen()',
};

function refuse(event: string | symbol): void {
  const why = typeof event === 'string' && Object.hasOwn(NEVER, event) ? NEVER[event] : undefined;
  if (why !== undefined) {
    throw Object.assign(new Error(`@gale-http/express/nest: cannot listen for '${String(event)}': ${why}`), {
      code: 'GALE_NEST_UNSUPPORTED',
    });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: EventEmitter's listener type
type Listener = (...args: any[]) => void;

/**
 * Options of a GaleHttpServer, which GaleExpressAdapter fills from Nest's application options (`httpsOptions`,
 * `forceCloseConnections`).
 *
 * @example
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter(), { forceCloseConnections: true });
 */
export interface GaleHttpServerOptions {
  /** Listen options beside the address: `tls` from Nest's `httpsOptions`. */
  listen?: MoreListenOptions;
  /** Nest's `forceCloseConnections`: close() ends open connections at once instead of letting requests finish. */
  forceCloseConnections?: boolean;
}

/**
 * The HTTP server of a Nest app on GaleExpressAdapter (`app.getHttpServer()`): node:http's Server in shape (listen,
 * address, close, the 'listening', 'close' and 'error' events, keepAliveTimeout) with the app served on Gale's engine.
 * It can listen again after close(), as supertest makes it do. There are no 'connection', 'request' or 'upgrade'
 * events: the engine owns the sockets ('request' and 'upgrade' listeners are refused with an error saying what to do).
 *
 * @example
 * const server = app.getHttpServer(); // a Nest app made with new GaleExpressAdapter()
 * server.keepAliveTimeout = 61_000;
 * await app.listen(3000);
 * console.log(server.address()?.port, server.galeApp !== undefined);
 */
export class GaleHttpServer extends EventEmitter {
  /** A GaleHttpsServer is one too (its prototype chain goes through tls.Server's instead). */
  static override [Symbol.hasInstance](x: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: the class `instanceof` asks about (this one, or GaleHttpsServer)
    const ctor = this as unknown as { prototype: object };
    if (ctor !== GaleHttpServer) return Object.prototype.isPrototypeOf.call(ctor.prototype, x as object);
    return Object.prototype.isPrototypeOf.call(GaleHttpServer.prototype, x as object) || x instanceof GaleHttpsServer;
  }

  headersTimeout = 60000;
  requestTimeout = 300000;
  timeout = 0;
  maxHeadersCount: number | null = null;
  maxRequestsPerSocket = 0;
  /** Not enforced: the engine has its own limits (gale's `maxConnections` option, through express({ server })). */
  maxConnections = Number.POSITIVE_INFINITY;
  private readonly app: ListeningApp;
  private readonly options: GaleHttpServerOptions;
  private keepAliveMs = 5000;
  private current: ExpressServer | undefined;
  private readonly hooks = new Set<(galeApp: App) => void>();

  /** `app`: an app of @gale-http/express (its `express()`). */
  constructor(app: object, options: GaleHttpServerOptions = {}) {
    super();
    this.app = app as ListeningApp;
    this.options = options;
  }

  /**
   * Serves the app on the engine: `listen([port[, host[, backlog]]][, cb])` or `listen({ port, host }[, cb])`, TCP
   * only. Bound when it returns; `cb` is a 'listening' listener and errors (EADDRINUSE) are 'error' events, as with
   * node:http. Throws ERR_SERVER_ALREADY_LISTEN while it listens.
   */
  listen(...args: unknown[]): this {
    if (this.current?.address() != null) {
      throw Object.assign(new Error('Listen method has been called more than once without closing.'), {
        code: 'ERR_SERVER_ALREADY_LISTEN',
      });
    }
    if (typeof args[args.length - 1] === 'function') this.once('listening', args.pop() as () => void);
    const s = listen(this.app, args, this.options.listen);
    this.current = s;
    s.keepAliveTimeout = this.keepAliveMs;
    s.on('listening', () => this.emit('listening'));
    s.on('error', (err: Error) => this.emit('error', err));
    s.once('close', () => this.emit('close'));
    const g = s.galeApp;
    if (g !== undefined) for (const hook of this.hooks) hook(g);
    return this;
  }

  /** The bound address while listening, else null. */
  address(): { address: string; port: number; family: string } | null {
    return this.current?.address() ?? null;
  }

  /** Whether it is listening. */
  get listening(): boolean {
    return this.address() !== null;
  }

  /**
   * Stops accepting; in-flight requests finish (with `forceCloseConnections`, open connections end at once); then
   * 'close' and `cb`. `cb` gets ERR_SERVER_NOT_RUNNING when it was not listening, as with node:http.
   */
  close(cb?: (err?: Error) => void): this {
    const s = this.current;
    const running = s !== undefined && s.address() !== null;
    if (cb) this.once('close', () => (running ? cb() : cb(notRunning())));
    if (!running) {
      process.nextTick(() => this.emit('close'));
      return this;
    }
    if (this.options.forceCloseConnections) s.closeAllConnections();
    s.close();
    return this;
  }

  /**
   * The Gale app serving the current listen (undefined before listen()): what Socket.IO and Engine.IO attach to.
   *
   * @example
   * await app.listen(3000);
   * const io = new Server(app.getHttpServer()); // @gale-http/socket.io on the engine
   */
  get galeApp(): App | undefined {
    return this.current?.galeApp;
  }

  /** @internal calls `hook` with the Gale app of every listen from now on (and of the current one) */
  onGaleApp(hook: (galeApp: App) => void): () => void {
    this.hooks.add(hook);
    const g = this.listening ? this.galeApp : undefined;
    if (g !== undefined) hook(g);
    return () => this.hooks.delete(hook);
  }

  /** node:http's: how long an idle keep-alive connection stays open (5 000 ms); setting it applies at once. */
  get keepAliveTimeout(): number {
    return this.keepAliveMs;
  }
  set keepAliveTimeout(ms: number) {
    this.keepAliveMs = ms;
    if (this.current !== undefined) this.current.keepAliveTimeout = ms;
  }

  /** node's deprecated count of open connections (getConnections() is the callback form). */
  get connections(): number {
    return this.current?.galeApp?.connections ?? 0;
  }
  /** `await using server`: closes it. */
  [Symbol.asyncDispose](): Promise<void> {
    return new Promise((resolve) => this.close(() => resolve()));
  }
  closeAllConnections(): void {
    this.current?.closeAllConnections();
  }
  closeIdleConnections(): void {}
  getConnections(cb: (err: Error | null, count: number) => void): this {
    if (this.current === undefined) process.nextTick(cb, null, 0);
    else this.current.getConnections(cb);
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

  override on(event: string | symbol, listener: Listener): this {
    refuse(event);
    return super.on(event, listener);
  }
  override addListener(event: string | symbol, listener: Listener): this {
    refuse(event);
    return super.addListener(event, listener);
  }
  override once(event: string | symbol, listener: Listener): this {
    refuse(event);
    return super.once(event, listener);
  }
  override prependListener(event: string | symbol, listener: Listener): this {
    refuse(event);
    return super.prependListener(event, listener);
  }
  override prependOnceListener(event: string | symbol, listener: Listener): this {
    refuse(event);
    return super.prependOnceListener(event, listener);
  }
}

/**
 * The server of an app with Nest's `httpsOptions`: a GaleHttpServer whose listen() serves TLS on the engine, and which
 * is `instanceof tls.Server` as node:https's servers are: Nest's getUrl() and supertest tell HTTPS that way. (It has
 * GaleHttpServer's methods on a prototype whose parent is tls.Server's; tls.Server's own methods, such as
 * setSecureContext(), do nothing for the engine.)
 *
 * @example
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter(), { httpsOptions: { key, cert } });
 * console.log(app.getHttpServer() instanceof GaleHttpsServer); // true
 */
export class GaleHttpsServer extends GaleHttpServer {}
for (const key of Reflect.ownKeys(GaleHttpServer.prototype)) {
  if (key === 'constructor') continue;
  Object.defineProperty(
    GaleHttpsServer.prototype,
    key,
    Object.getOwnPropertyDescriptor(GaleHttpServer.prototype, key) as PropertyDescriptor,
  );
}
Object.setPrototypeOf(GaleHttpsServer.prototype, TlsServer.prototype);
