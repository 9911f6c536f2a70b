// The Socket.IO server (socket.io's Server) on a Gale app or a node:http(s) server: options, the Engine.IO server it
// attaches, the browser bundle, namespaces (static and dynamic), and the default namespace's API (io.on('connection'),
// io.emit, io.to, …).
// Over 400 lines: it is socket.io's Server class, whose API callers expect on one object: 35 public methods and getters
// (attach, of, close, and the default namespace's broadcast and EventEmitter methods it forwards, on/addListener/once
// each with a 13-line typed signature), plus the exported option and attach-target types with their docs.

import type { Server as HttpServer } from 'node:http';
import { type Socket as EioSocket, Server as EngineServer } from '@gale-http/engine.io';
import { App } from 'gale';
import { Encoder } from 'socket.io-parser';
import { Adapter } from './adapter.js';
import type { Broadcast, BroadcastOperator, RemoteSocket } from './broadcast.js';
import { Client, type ClientServer } from './client.js';
import { serveClientOnApp, serveClientOnNodeServer } from './client-bundle.js';
import {
  type AdapterConstructor,
  Namespace,
  type NamespaceMiddleware,
  type NamespaceReservedEventsMap,
  ParentNamespace,
} from './namespace.js';
import { SessionAwareAdapter } from './session-adapter.js';
import type { Socket } from './socket.js';
import type {
  AllButLast,
  DecorateAcknowledgements,
  DecorateAcknowledgementsWithMultipleResponses,
  DecorateAcknowledgementsWithTimeoutAndMultipleResponses,
  DefaultEventsMap,
  EventNames,
  EventNamesWithAck,
  EventNamesWithoutAck,
  EventParams,
  EventsMap,
  FirstNonErrorArg,
  Last,
  ReservedOrUserEventNames,
  ReservedOrUserListener,
} from './typed-events.js';
import type { BaseServerOptions, Listener } from './types.js';

/**
 * The events the server emits itself (socket.io's ServerReservedEventsMap): its default namespace's, and
 * `new_namespace`.
 *
 * @example
 * import type { DefaultEventsMap } from '@gale-http/socket.io';
 * type Reserved = ServerReservedEventsMap<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, unknown>;
 * const onNamespace: Reserved['new_namespace'] = (nsp) => console.log('new namespace', nsp.name);
 * io.on('new_namespace', onNamespace);
 */
export interface ServerReservedEventsMap<
  ListenEvents extends EventsMap,
  EmitEvents extends EventsMap,
  ServerSideEvents extends EventsMap,
  SocketData,
> extends NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData> {
  new_namespace: (namespace: Namespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData>) => void;
}

/**
 * Options of `new Server(app, options)`, with socket.io 4's names and defaults: the Engine.IO server's options
 * (@gale-http/engine.io's ServerOptions and AttachOptions, `path` defaulting to '/socket.io' here) and Socket.IO's own.
 *
 * @example
 * const io = new Server(app, { path: '/socket.io', pingInterval: 25_000, cors: { origin: 'https://app.example' }, maxHttpBufferSize: 1e6 });
 */
export interface ServerOptions extends BaseServerOptions {
  /**
   * The adapter (rooms and broadcasts): a class constructed with each namespace, or a function that makes the
   * adapter of a namespace; default {@link Adapter}, or SessionAwareAdapter with recovery.
   */
  adapter?: AdapterConstructor;
}

type ServerEvents<L extends EventsMap, E extends EventsMap, S extends EventsMap, D> = ServerReservedEventsMap<
  L,
  E,
  S,
  D
>;

/**
 * `io.of(fn)`: decides whether a namespace name is allowed (`next(null, true)`) as a dynamic namespace.
 *
 * @example
 * io.of((name, auth, next) => next(null, name.startsWith('/tenant-')));
 */
export type NamespaceMatcher = (
  name: string,
  auth: Record<string, unknown>,
  next: (err: Error | null, allow: boolean) => void,
) => void;

/**
 * What a server whose connections a Gale app serves looks like (the server `@gale-http/express`'s `listen()`
 * returns): Socket.IO attaches to `galeApp`, and `io.close()` closes the server.
 *
 * @example
 * const io = new Server(expressApp.listen(3000));
 */
export interface GaleExpressServer {
  readonly galeApp: App | undefined;
  address(): unknown;
  close(cb?: (err?: Error) => void): unknown;
}

/**
 * What `new Server(…)` and `io.attach(…)` take: a Gale app, a node:http or node:https server, the server
 * `@gale-http/express`'s `listen()` returns, or a port (a number, or a string of digits).
 *
 * @example
 * const io = new Server(httpServer); // or new Server(app), new Server(3000)
 */
export type AttachTarget = App | HttpServer | GaleExpressServer | number | string;

/** What a server is attached to once `attach()` has run (`io.httpServer`): a port becomes an app of its own. */
type AttachedTo = App | HttpServer | GaleExpressServer;

let serverCount = 0;

/**
 * A Socket.IO 4 server that `socket.io-client` (Engine.IO v4, Socket.IO v5) talks to. On a Gale app (or a port,
 * which gets an app of its own): long-polling and WebSocket on the engine, rooms on the engine's pub/sub. On a
 * node:http or node:https server (`new Server(httpServer)`, as most socket.io apps start): Engine.IO on that server's
 * request and upgrade events and WebSockets through the `ws` library, as socket.io does, the server's other requests
 * left to its own listeners.
 *
 * @example
 * import { gale } from 'gale';
 * import { Server } from '@gale-http/socket.io';
 *
 * const app = gale();
 * const io = new Server(app, { cors: { origin: 'https://example.com' } });
 * io.use((socket, next) => (socket.handshake.auth.token ? next() : next(new Error('unauthorized'))));
 * io.on('connection', (socket) => {
 *   socket.on('join', (room) => socket.join(room));
 *   socket.on('say', (room, text, ack) => {
 *     socket.to(room).emit('said', socket.id, text);
 *     ack('delivered');
 *   });
 * });
 * await app.listen(3000);
 */
export class Server<
  ListenEvents extends EventsMap = DefaultEventsMap,
  EmitEvents extends EventsMap = ListenEvents,
  ServerSideEvents extends EventsMap = DefaultEventsMap,
  // biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
  SocketData = any,
> implements ClientServer
{
  /** The default namespace ('/'). */
  readonly sockets: Namespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData>;
  /** The Engine.IO server: `io.engine.on('connection_error', …)`, `io.engine.use(…)`, `clientsCount`. */
  readonly engine: EngineServer;
  /** @internal */
  readonly encoder = new Encoder();
  /** @internal */
  readonly _nsps = new Map<string, Namespace>();
  /** @internal the app the engine routes are on (none on a node:http server) */
  _app: App | undefined;
  /**
   * What Socket.IO is attached to, as socket.io's `httpServer`: the Gale app (the one a port got), or the
   * node:http server. `io.httpServer.address()` is where it listens. Typed as socket.io types it, always there:
   * it is undefined until `attach()` (or a constructor given what to attach to), and again after `close()`.
   */
  httpServer!: App | HttpServer | GaleExpressServer;
  /** @internal prefix of this server's engine topics (several servers may share an app) */
  readonly _topicPrefix: string;
  /** @internal */
  _connectTimeout: number;
  private readonly opts: ServerOptions;
  private readonly parentNsps = new Map<NamespaceMatcher, ParentNamespace>();
  private readonly parentNamespacesFromRegExp = new Map<RegExp, ParentNamespace>();
  private _path: string;
  private _adapter: AdapterConstructor;

  /**
   * `new Server(app, options)`, `new Server(httpServer, options)`, `new Server(port, options)`, or
   * `new Server(options)` and then `attach(…)`.
   */
  constructor(app?: AttachTarget | ServerOptions, opts: ServerOptions = {}) {
    if (app !== undefined && typeof app === 'object' && !(app instanceof App) && !isServerLike(app)) {
      opts = app as ServerOptions;
      app = undefined;
    }
    if (opts.allowEIO3) throw new Error('@gale-http/socket.io: allowEIO3 is not supported (Engine.IO v3 clients)');
    this.opts = opts;
    this._topicPrefix = `sio${serverCount++}\x1f`;
    this._path = (opts.path ?? '/socket.io').replace(/\/$/, '');
    this._connectTimeout = opts.connectTimeout ?? 45_000;
    if (opts.connectionStateRecovery) {
      opts.connectionStateRecovery = {
        maxDisconnectionDuration: 2 * 60 * 1000,
        skipMiddlewares: true,
        ...opts.connectionStateRecovery,
      };
    }
    this._adapter = opts.adapter ?? (opts.connectionStateRecovery ? SessionAwareAdapter : Adapter);
    this.engine = new EngineServer(opts);
    this.engine.on('connection', (conn: EioSocket) => new Client(this, conn));
    this.sockets = this.of('/');
    if (app !== undefined) this.attach(app as AttachTarget);
  }

  /** The Engine.IO server (socket.io's name for `engine`). */
  get eio(): EngineServer {
    return this.engine;
  }

  /** @internal the options (socket.io code reads them as `server._opts`) */
  get _opts(): ServerOptions {
    return this.opts;
  }

  /** Engine.IO path (without the trailing slash). */
  path(): string {
    return this._path;
  }

  /** Sets or gets the time a connection may stay without joining a namespace. */
  connectTimeout(v?: number): number | this {
    if (v === undefined) return this._connectTimeout;
    this._connectTimeout = v;
    return this;
  }

  /** Sets or gets the adapter class; setting it re-creates every namespace's adapter. */
  adapter(): AdapterConstructor;
  adapter(v: AdapterConstructor): this;
  adapter(v?: AdapterConstructor): AdapterConstructor | this {
    if (v === undefined) return this._adapter;
    this._adapter = v;
    for (const nsp of this._nsps.values()) nsp._initAdapter();
    return this;
  }

  /**
   * Serves Socket.IO on a Gale app (its routes; middleware the app declares before this call applies to them, as
   * to any route), on a node:http or node:https server (its request and upgrade events, as socket.io does), or on a
   * new app listening on `port` (bound before this returns; 404 for other paths). `opts` add to the constructor's
   * (which win where both set an option, as in socket.io). After `close()` it may be attached again.
   *
   * @example
   * const io = new Server({ pingTimeout: 10_000 });
   * io.attach(httpServer, { pingInterval: 20_000 });
   */
  attach(target: AttachTarget, opts: ServerOptions = {}): this {
    if (typeof target === 'function') {
      throw new Error(
        'You are trying to attach socket.io to an express request handler function. Please pass a http.Server ' +
          'instance (or a Gale app).',
      );
    }
    if (this.httpServer !== undefined)
      throw new Error('@gale-http/socket.io: this server is already attached (close() it first)');
    if (typeof target === 'string' && target !== '' && !Number.isNaN(Number(target))) target = Number(target);
    const merged = { ...opts, ...this.opts };
    Object.assign(this.opts, merged);
    this.engine.configure(merged);
    let app: App | undefined;
    if (typeof target === 'number') {
      app = new App();
      app.notFound((_req, res) => {
        res.status(404).end();
      });
      // Bound now, as socket.io's server is, so `io.httpServer.address()` answers at once; a failure is thrown.
      app.listen(target, (err?: Error) => {
        if (err !== undefined) console.error(`@gale-http/socket.io: cannot listen on port ${target}:`, err);
      });
    } else app = galeAppOf(target);
    if (app === undefined && !isServerLike(target))
      throw new TypeError(`@gale-http/socket.io: cannot attach to ${String(target)}`);
    const o = this.opts;
    const attach = {
      path: this._path,
      addTrailingSlash: o.addTrailingSlash,
      destroyUpgrade: o.destroyUpgrade,
      destroyUpgradeTimeout: o.destroyUpgradeTimeout,
    };
    if (app !== undefined) {
      this._app = app;
      this.httpServer = typeof target === 'number' ? app : (target as AttachedTo);
      if (this.opts.serveClient !== false) serveClientOnApp(app, this._path, this.opts);
      this.engine.attach(app, attach);
    } else {
      const server = target as HttpServer;
      this.httpServer = server;
      this.engine.attach(server, attach);
      if (this.opts.serveClient !== false) serveClientOnNodeServer(server, this._path, this.opts);
    }
    return this;
  }

  /** The same as `attach`. */
  listen(target: AttachTarget, opts: ServerOptions = {}): this {
    return this.attach(target, opts);
  }

  /**
   * A namespace by name (created on first use), or a parent of dynamic namespaces for a RegExp or a function.
   *
   * @example
   * io.of('/admin').use(requireAdmin).on('connection', onAdmin);
   * io.of(/^\/team-\w+$/).on('connection', (socket) => socket.emit('team', socket.nsp.name));
   */
  of(
    name: string | RegExp | NamespaceMatcher,
    fn?: (socket: Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>) => void,
  ): Namespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData> {
    return this.namespace(name, fn as ((socket: Socket) => void) | undefined) as never;
  }

  private namespace(name: string | RegExp | NamespaceMatcher, fn?: (socket: Socket) => void): Namespace {
    if (typeof name === 'function' || name instanceof RegExp) {
      if (name instanceof RegExp && (name.global || name.sticky)) {
        throw new Error('stateful regular expressions are not supported');
      }
      const parent = new ParentNamespace(this);
      if (typeof name === 'function') this.parentNsps.set(name, parent);
      else {
        const re = name;
        this.parentNsps.set((nsp, _auth, next) => next(null, re.test(nsp)), parent);
        this.parentNamespacesFromRegExp.set(re, parent);
      }
      if (fn) parent.on('connect', fn);
      return parent;
    }
    if (name[0] !== '/') name = `/${name}`;
    let nsp = this._nsps.get(name);
    if (nsp === undefined) {
      for (const [re, parent] of this.parentNamespacesFromRegExp) {
        if (re.test(name)) return parent.createChild(name);
      }
      nsp = new Namespace(this, name);
      this._nsps.set(name, nsp);
      if (name !== '/') this.sockets._emitLocal('new_namespace', nsp);
    }
    if (fn) nsp.on('connect', fn);
    return nsp;
  }

  /** @internal a client asks for an unknown namespace: try the dynamic matchers in order */
  _checkNamespace(name: string, auth: Record<string, unknown>, fn: (nsp: Namespace | false) => void): void {
    if (this.parentNsps.size === 0) {
      fn(false);
      return;
    }
    const keys = this.parentNsps.keys();
    const next = (): void => {
      const it = keys.next();
      if (it.done) {
        fn(false);
        return;
      }
      const matcher = it.value;
      matcher(name, auth, (err, allow) => {
        if (err || !allow) {
          next();
          return;
        }
        const existing = this._nsps.get(name);
        if (existing !== undefined) fn(existing);
        else fn((this.parentNsps.get(matcher) as ParentNamespace).createChild(name));
      });
    };
    next();
  }

  /**
   * Disconnects every socket ('server shutting down'), closes the sessions, and closes what it is attached to (as
   * socket.io closes its HTTP server): the app (`app.close()`, which lets in-flight requests finish) or the node:http
   * server. `fn` gets node's ERR_SERVER_NOT_RUNNING error when that was not listening; the promise resolves anyway.
   * On a node:http server, requests that still arrive on keep-alive connections after that are answered with
   * `Connection: close` (and WebSocket upgrades with 503), so a client reconnecting through them cannot hold the
   * close — and the process — open.
   *
   * @example
   * process.on('SIGTERM', () => io.close((err) => process.exit(err ? 1 : 0)));
   */
  async close(fn?: (err?: Error) => void): Promise<void> {
    await Promise.allSettled(
      [...this._nsps.values()].map(async (nsp) => {
        for (const socket of [...nsp.sockets.values()]) socket._onclose('server shutting down');
        await nsp.adapter.close();
      }),
    );
    this.engine.close();
    const target: AttachedTo | undefined = this.httpServer;
    (this as { httpServer: AttachedTo | undefined }).httpServer = undefined; // detached (the type says attached)
    this._app = undefined;
    this.engine.detach();
    if (target === undefined) {
      fn?.();
      return;
    }
    const err = await closeServer(target);
    fn?.(err);
  }

  /** Adds a middleware to the default namespace. */
  use(fn: NamespaceMiddleware<Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>>): this {
    this.sockets.use(fn);
    return this;
  }
  to(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.sockets.to(room);
  }
  in(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.sockets.in(room);
  }
  except(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.sockets.except(room);
  }
  /** Emits to every socket of the default namespace (an event with an acknowledgement needs `timeout()` first). */
  emit<Ev extends EventNamesWithoutAck<EmitEvents>>(ev: Ev, ...args: EventParams<EmitEvents, Ev>): boolean {
    return this.sockets.emit(ev, ...args);
  }
  /** Emits a 'message' event to every socket of the default namespace (typed by the `message` event of `EmitEvents`). */
  send(...args: EventParams<EmitEvents, 'message'>): this {
    this.sockets.send(...args);
    return this;
  }
  /** The same as `send`. */
  write(...args: EventParams<EmitEvents, 'message'>): this {
    this.sockets.send(...args);
    return this;
  }
  serverSideEmit<Ev extends EventNames<ServerSideEvents>>(
    ev: Ev,
    ...args: EventParams<DecorateAcknowledgementsWithTimeoutAndMultipleResponses<ServerSideEvents>, Ev>
  ): boolean {
    return this.sockets.serverSideEmit(ev, ...args);
  }
  serverSideEmitWithAck<Ev extends EventNamesWithAck<ServerSideEvents>>(
    ev: Ev,
    ...args: AllButLast<EventParams<ServerSideEvents, Ev>>
  ): Promise<FirstNonErrorArg<Last<EventParams<ServerSideEvents, Ev>>>[]> {
    return this.sockets.serverSideEmitWithAck(ev, ...args);
  }
  allSockets(): Promise<Set<string>> {
    return this.sockets.allSockets();
  }
  compress(compress: boolean): Broadcast<EmitEvents, SocketData> {
    return this.sockets.compress(compress);
  }
  get volatile(): Broadcast<EmitEvents, SocketData> {
    return this.sockets.volatile;
  }
  get local(): Broadcast<EmitEvents, SocketData> {
    return this.sockets.local;
  }
  timeout(
    ms: number,
  ): BroadcastOperator<
    DecorateAcknowledgements<DecorateAcknowledgementsWithMultipleResponses<EmitEvents>>,
    SocketData
  > {
    return this.sockets.timeout(ms);
  }
  fetchSockets(): Promise<RemoteSocket<EmitEvents, SocketData>[]> {
    return this.sockets.fetchSockets();
  }
  socketsJoin(room: string | string[]): void {
    this.sockets.socketsJoin(room);
  }
  socketsLeave(room: string | string[]): void {
    this.sockets.socketsLeave(room);
  }
  disconnectSockets(close = false): void {
    this.sockets.disconnectSockets(close);
  }

  // The EventEmitter methods act on the default namespace, as in socket.io ('connection', 'new_namespace', …).
  /**
   * Listens for `connection` (a typed socket), `connect`, `new_namespace`, or an event from another server (typed by
   * `ServerSideEvents`).
   *
   * @example
   * io.on('connection', (socket) => socket.emit('hello'));
   */
  on<
    Ev extends ReservedOrUserEventNames<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
    listener: ReservedOrUserListener<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents,
      Ev
    >,
  ): this {
    this.untyped.on(ev as string, listener as Listener);
    return this;
  }
  addListener<
    Ev extends ReservedOrUserEventNames<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
    listener: ReservedOrUserListener<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents,
      Ev
    >,
  ): this {
    return this.on(ev, listener);
  }
  once<
    Ev extends ReservedOrUserEventNames<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
    listener: ReservedOrUserListener<
      ServerEvents<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents,
      Ev
    >,
  ): this {
    this.untyped.once(ev as string, listener as Listener);
    return this;
  }
  off(ev: string, listener: Listener): this {
    this.sockets.off(ev, listener);
    return this;
  }
  removeListener(ev: string, listener: Listener): this {
    return this.off(ev, listener);
  }
  removeAllListeners(ev?: string): this {
    this.sockets.removeAllListeners(ev);
    return this;
  }
  prependListener(ev: string, listener: Listener): this {
    this.sockets.prependListener(ev, listener);
    return this;
  }
  listeners(ev: string): Listener[] {
    return this.untyped.listeners(ev) as Listener[];
  }

  /** The default namespace without its event types, for the string-named calls above. */
  private get untyped(): Namespace {
    return this.sockets as never;
  }
  listenerCount(ev: string): number {
    return this.sockets.listenerCount(ev);
  }
}

/**
 * The Gale app behind what Socket.IO is attached to: the app itself, or the app serving the server that
 * @gale-http/express's `app.listen()` returns (its `galeApp`), so Engine.IO runs on the engine there.
 */
function galeAppOf(target: unknown): App | undefined {
  if (target instanceof App) return target;
  const g = (target as { galeApp?: unknown } | null)?.galeApp;
  return g instanceof App ? g : undefined;
}

/** Whether `x` is a node:http(s) server (or a Gale app): something to attach to, not options. */
function isServerLike(x: unknown): boolean {
  const s = x as { listen?: unknown; address?: unknown } | null;
  return (
    galeAppOf(x) !== undefined ||
    (typeof s === 'object' && s !== null && typeof s.listen === 'function' && typeof s.address === 'function')
  );
}

/** Closes an app or a node:http server; resolves node's ERR_SERVER_NOT_RUNNING error when it was not listening. */
function closeServer(target: AttachedTo): Promise<Error | undefined> {
  if (target instanceof App) {
    if (target.address() === null) return Promise.resolve(notRunning());
    return target.close().then(() => undefined);
  }
  return new Promise((resolve) => target.close((err?: Error) => resolve(err)));
}

/** node:http's error for closing a server that is not listening. */
function notRunning(): Error {
  return Object.assign(new Error('Server is not running.'), { code: 'ERR_SERVER_NOT_RUNNING' });
}
