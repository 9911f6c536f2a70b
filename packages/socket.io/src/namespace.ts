// Namespaces (socket.io's Namespace and ParentNamespace): the sockets of one namespace, its middlewares (whose
// `next(err)` reaches the client as connect_error with err.data), its adapter, broadcasts, and the parent of
// dynamic namespaces (matched by a regex or a function) that creates children on first connection.
// Over 400 lines: it ports socket.io's lib/namespace.ts and lib/parent-namespace.ts together (ParentNamespace uses the
// protected middleware list): the Namespace class's ~30 members, several with socket.io's multi-line generic event
// typings, plus the exported middleware, adapter and reserved-events types with examples.
import { EventEmitter } from 'node:events';
import { Adapter } from './adapter.js';
import { type Broadcast, BroadcastOperator, type RemoteSocket } from './broadcast.js';
import { Socket, type SocketClient, type SocketNamespace } from './socket.js';
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
import { type AnyArgs, type BroadcastOptions, type Packet, runMiddleware, safely } from './types.js';
import type { ServerView } from './views.js';

/**
 * A namespace middleware: `(socket, next)`; `next(err)` refuses the connection (connect_error).
 *
 * @example
 * io.use((socket, next) => (socket.handshake.auth.token ? next() : next(new Error('unauthorized'))));
 */
export type NamespaceMiddleware<S = Socket> = (socket: S, next: (err?: Error & { data?: unknown }) => void) => void;

/**
 * The events a namespace emits itself (socket.io's NamespaceReservedEventsMap), with its sockets' types.
 *
 * @example
 * type Events = { welcome: (name: string) => void };
 * const onConnect: NamespaceReservedEventsMap<Events, Events, Events, { user: string }>['connection'] = (socket) =>
 *   socket.emit('welcome', socket.data.user);
 * io.of('/chat').on('connection', onConnect);
 */
export interface NamespaceReservedEventsMap<
  ListenEvents extends EventsMap,
  EmitEvents extends EventsMap,
  ServerSideEvents extends EventsMap,
  SocketData,
> {
  connect: (socket: Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>) => void;
  connection: (socket: Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>) => void;
}

/**
 * What an adapter class or factory makes: the members of socket.io-adapter's Adapter that the namespace, its sockets
 * and its broadcasts use. {@link Adapter} and its subclasses have them (socket.io-adapter's Adapter too).
 *
 * @example
 * const makeAdapter = (nsp: Namespace): AdapterLike => new Adapter(nsp);
 */
export type AdapterLike = Pick<
  Adapter,
  | 'nsp'
  | 'rooms'
  | 'sids'
  | 'init'
  | 'close'
  | 'serverCount'
  | 'addAll'
  | 'del'
  | 'delAll'
  | 'broadcast'
  | 'broadcastWithAck'
  | 'sockets'
  | 'socketRooms'
  | 'fetchSockets'
  | 'addSockets'
  | 'delSockets'
  | 'disconnectSockets'
  | 'serverSideEmit'
  | 'persistSession'
  | 'restoreSession'
>;

/**
 * The `adapter` option (and `io.adapter(v)`), as socket.io's: an adapter class, constructed with each namespace, or a
 * function that makes the adapter of a namespace.
 *
 * @example
 * const io = new Server(app, { adapter: Adapter });
 * io.adapter((nsp) => new MyAdapter(nsp, { verbose: true }));
 */
export type AdapterConstructor = (new (nsp: Namespace) => AdapterLike) | ((nsp: Namespace) => AdapterLike);

const on = EventEmitter.prototype.on;
const once = EventEmitter.prototype.once;
const listenersOf = EventEmitter.prototype.listeners;

/**
 * What a namespace uses of its Server (`nsp.server`): the adapter class, the options, the other namespaces.
 * server.ts's Server implements it (server.ts imports this module, not the other way round).
 *
 * @example
 * io.of('/chat').server.of('/news').emit('hello'); // the same as io.of('/news').emit('hello')
 */
export interface NamespaceServer extends ServerView {
  /** The default namespace ('/'). */
  readonly sockets: Namespace;
  /** @internal namespaces by name */
  readonly _nsps: Map<string, Namespace>;
  /** @internal prefix of this server's engine topics */
  readonly _topicPrefix: string;
  /** The adapter class of its namespaces. */
  adapter(): AdapterConstructor;
  /** A namespace by name (created on first use). */
  of(name: string): Namespace;
}

/** Events a namespace emits itself; emitting them to clients is refused. */
const RESERVED = new Set(['connect', 'connection', 'new_namespace']);
const emitLocal = EventEmitter.prototype.emit;

/**
 * A namespace: `io.of('/chat')`. Emits 'connection' (and 'connect') with each new socket.
 *
 * @example
 * const chat = io.of('/chat');
 * chat.use((socket, next) => (socket.handshake.auth.token ? next() : next(new Error('no token'))));
 * chat.on('connection', (socket) => socket.join('general'));
 * chat.to('general').emit('notice', 'hello');
 */
export class Namespace<
    ListenEvents extends EventsMap = DefaultEventsMap,
    EmitEvents extends EventsMap = ListenEvents,
    ServerSideEvents extends EventsMap = DefaultEventsMap,
    // biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
    SocketData = any,
  >
  extends EventEmitter
  implements SocketNamespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData>
{
  readonly name: string;
  readonly server: NamespaceServer;
  /** Connected sockets by id. */
  readonly sockets = new Map<string, Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>>();
  adapter!: Adapter;
  /** Sockets whose middlewares are still running (private, as in socket.io). */
  private readonly _preConnectSockets = new Map<string, Socket>();
  /** @internal sockets with onAnyOutgoing listeners */
  readonly _outgoing = new Set<Socket>();
  /** @internal the next ack id */
  _ids = 0;
  /** @internal the engine topic of this namespace (rooms append '\x1f' + name) */
  readonly _topic: string;
  protected readonly fns: NamespaceMiddleware[] = [];

  constructor(server: NamespaceServer, name: string) {
    super();
    this.server = server;
    this.name = name;
    this._topic = server._topicPrefix + name;
    this._initAdapter();
  }

  /** @internal (re)creates the adapter: `new` on a class (or a plain function), a call of an arrow function */
  _initAdapter(): void {
    const make = this.server.adapter();
    this.adapter = (isConstructor(make) ? new make(this) : make(this)) as Adapter;
    Promise.resolve(this.adapter.init()).catch((err: unknown) => {
      console.error(`@gale-http/socket.io: the adapter of namespace ${this.name} failed to start`, err);
    });
  }

  /**
   * Adds a middleware run for each connecting socket, in order. `next(err)` refuses the connection: the client
   * gets connect_error with `err.message` and `err.data`.
   */
  use(fn: NamespaceMiddleware<Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>>): this {
    this.fns.push(fn as NamespaceMiddleware);
    return this;
  }

  private run(socket: Socket, done: (err?: Error & { data?: unknown }) => void): void {
    runMiddleware(this.fns.slice(), socket, done);
  }

  to(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().to(room);
  }
  in(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().in(room);
  }
  except(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().except(room);
  }

  private broadcast(): Broadcast<EmitEvents, SocketData> {
    return new BroadcastOperator(this.adapter);
  }

  /** @internal a client asks to join: create the socket (maybe recovered), run the middlewares, connect */
  async _add(client: SocketClient, auth: Record<string, unknown>, fn: (socket: Socket) => void): Promise<void> {
    const socket = await this.createSocket(client, auth);
    this._preConnectSockets.set(socket.id, socket);
    if (
      this.server._opts.connectionStateRecovery?.skipMiddlewares &&
      socket.recovered &&
      client.conn.readyState === 'open'
    ) {
      this.doConnect(socket, fn);
      return;
    }
    this.run(socket, (err) => {
      process.nextTick(() => {
        if (client.conn.readyState !== 'open') {
          socket._cleanup();
          return;
        }
        if (err) {
          socket._cleanup();
          socket._error({ message: err.message, data: err.data });
          return;
        }
        this.doConnect(socket, fn);
      });
    });
  }

  private async createSocket(client: SocketClient, auth: Record<string, unknown>): Promise<Socket> {
    const pid = auth.pid;
    const offset = auth.offset;
    if (this.server._opts.connectionStateRecovery && typeof pid === 'string' && typeof offset === 'string') {
      let session = null;
      try {
        session = await this.adapter.restoreSession(pid, offset);
      } catch {}
      if (session) return new Socket(this, client, auth, session);
    }
    return new Socket(this, client, auth);
  }

  private doConnect(socket: Socket, fn: (socket: Socket) => void): void {
    this._preConnectSockets.delete(socket.id);
    this.sockets.set(socket.id, socket);
    // The socket's own setup (its room, the CONNECT packet) runs before the application's listeners.
    socket._onconnect();
    fn(socket);
    safely("a 'connect' listener", () => emitLocal.call(this, 'connect', socket));
    safely("a 'connection' listener", () => emitLocal.call(this, 'connection', socket));
  }

  /** @internal */
  _remove(socket: Socket): void {
    if (!this.sockets.delete(socket.id)) this._preConnectSockets.delete(socket.id);
    this._outgoing.delete(socket);
  }

  /** @internal emits a namespace event locally (connection, new_namespace, server-side events) */
  _emitLocal(ev: string, ...args: AnyArgs): boolean {
    return emitLocal.call(this, ev, ...args);
  }

  /** Emits to every socket of the namespace (an event with an acknowledgement needs `timeout()` first). */
  override emit<Ev extends EventNamesWithoutAck<EmitEvents>>(event: Ev, ...args: EventParams<EmitEvents, Ev>): boolean {
    return new BroadcastOperator(this.adapter).emit(event as string, ...(args as AnyArgs));
  }
  /** Emits a 'message' event to every socket of the namespace (typed by the `message` event of `EmitEvents`). */
  send(...args: EventParams<EmitEvents, 'message'>): this {
    new BroadcastOperator(this.adapter).emit('message', ...(args as AnyArgs));
    return this;
  }
  /** The same as `send`. */
  write(...args: EventParams<EmitEvents, 'message'>): this {
    new BroadcastOperator(this.adapter).emit('message', ...(args as AnyArgs));
    return this;
  }

  /**
   * Emits to the other servers of the cluster (their `io.on(ev)` listeners). With the in-memory adapter there
   * are none; an ack (a function last) is answered with an empty list.
   */
  serverSideEmit<Ev extends EventNames<ServerSideEvents>>(
    event: Ev,
    ...params: EventParams<DecorateAcknowledgementsWithTimeoutAndMultipleResponses<ServerSideEvents>, Ev>
  ): boolean {
    const ev = event as string;
    const args = params as AnyArgs;
    if (RESERVED.has(ev)) throw new Error(`"${ev}" is a reserved event name`);
    this.adapter.serverSideEmit([ev, ...args]);
    return true;
  }

  /** serverSideEmit, resolving with the other servers' answers. */
  serverSideEmitWithAck<Ev extends EventNamesWithAck<ServerSideEvents>>(
    event: Ev,
    ...params: AllButLast<EventParams<ServerSideEvents, Ev>>
  ): Promise<FirstNonErrorArg<Last<EventParams<ServerSideEvents, Ev>>>[]> {
    const ev = event as string;
    const args = params as AnyArgs;
    return new Promise((resolve, reject) => {
      args.push((err: (Error & { responses?: unknown }) | null, responses: unknown[]) => {
        if (err) {
          err.responses = responses;
          reject(err);
        } else resolve(responses as never);
      });
      (this as Namespace).serverSideEmit(ev, ...args);
    });
  }

  /** @internal an event from another server */
  _onServerSideEmit(args: AnyArgs): void {
    emitLocal.apply(this, args as [string, ...AnyArgs]);
  }

  allSockets(): Promise<Set<string>> {
    return new BroadcastOperator(this.adapter).allSockets();
  }
  compress(compress: boolean): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().compress(compress);
  }
  get volatile(): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().volatile;
  }
  get local(): Broadcast<EmitEvents, SocketData> {
    return this.broadcast().local;
  }
  timeout(
    ms: number,
  ): BroadcastOperator<
    DecorateAcknowledgements<DecorateAcknowledgementsWithMultipleResponses<EmitEvents>>,
    SocketData
  > {
    return this.broadcast().timeout(ms);
  }
  fetchSockets(): Promise<RemoteSocket<EmitEvents, SocketData>[]> {
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter).fetchSockets();
  }

  /**
   * Listens for `connection` (a typed socket), `connect`, or an event from another server (typed by
   * `ServerSideEvents`).
   *
   * @example
   * io.of('/chat').on('connection', (socket) => socket.join('general'));
   */
  override on<
    Ev extends ReservedOrUserEventNames<
      NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
    listener: ReservedOrUserListener<
      NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents,
      Ev
    >,
  ): this {
    return on.call(this, ev, listener as (...a: AnyArgs) => void) as this;
  }

  /** Like `on`, for one event. */
  override once<
    Ev extends ReservedOrUserEventNames<
      NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
    listener: ReservedOrUserListener<
      NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents,
      Ev
    >,
  ): this {
    return once.call(this, ev, listener as (...a: AnyArgs) => void) as this;
  }

  /** The listeners of an event. */
  override listeners<
    Ev extends ReservedOrUserEventNames<
      NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
      ServerSideEvents
    >,
  >(
    ev: Ev,
  ): ReservedOrUserListener<
    NamespaceReservedEventsMap<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
    ServerSideEvents,
    Ev
  >[] {
    return listenersOf.call(this, ev) as never;
  }
  socketsJoin(room: string | string[]): void {
    new BroadcastOperator(this.adapter).socketsJoin(room);
  }
  socketsLeave(room: string | string[]): void {
    new BroadcastOperator(this.adapter).socketsLeave(room);
  }
  disconnectSockets(close = false): void {
    new BroadcastOperator(this.adapter).disconnectSockets(close);
  }
}

/**
 * Whether an adapter option is constructed with `new` (a class, or a plain function, as socket.io does) rather than
 * called (an arrow function or a method, which `new` refuses). Reflect.construct checks `newTarget` without calling it.
 */
function isConstructor(make: AdapterConstructor): make is new (nsp: Namespace) => AdapterLike {
  try {
    Reflect.construct(Object, [], make);
    return true;
  } catch {
    return false;
  }
}

let parentCount = 0;

/**
 * The parent of dynamic namespaces (`io.of(/^\/room-\d+$/)` or `io.of((name, auth, next) => …)`): its listeners
 * and middlewares are copied to each child created when a client first connects to a matching name.
 *
 * @example
 * const games = io.of(/^\/game-\d+$/); // a ParentNamespace: its listeners and middleware reach each game-N
 * games.on('connection', (socket) => socket.emit('welcome', socket.nsp.name));
 */
export class ParentNamespace extends Namespace {
  readonly children = new Set<Namespace>();

  constructor(server: NamespaceServer) {
    super(server, `/_${parentCount++}`);
  }

  override _initAdapter(): void {
    this.adapter = new ParentBroadcastAdapter(this);
  }

  /** Emits to every child namespace. */
  override emit(ev: string, ...args: AnyArgs): boolean {
    for (const nsp of this.children) nsp.emit(ev, ...args);
    return true;
  }

  /** @internal */
  createChild(name: string): Namespace {
    const nsp = new Namespace(this.server, name);
    for (const fn of this.fns) nsp.use(fn);
    for (const l of this.listeners('connect')) nsp.on('connect', l as (...a: AnyArgs) => void);
    for (const l of this.listeners('connection')) nsp.on('connection', l as (...a: AnyArgs) => void);
    this.children.add(nsp);
    if (this.server._opts.cleanupEmptyChildNamespaces) {
      const remove = nsp._remove.bind(nsp);
      nsp._remove = (socket: Socket) => {
        remove(socket);
        if (nsp.sockets.size === 0) {
          nsp.adapter.close();
          this.server._nsps.delete(nsp.name);
          this.children.delete(nsp);
        }
      };
    }
    this.server._nsps.set(name, nsp);
    this.server.sockets._emitLocal('new_namespace', nsp);
    return nsp;
  }

  override fetchSockets(): Promise<RemoteSocket[]> {
    throw new Error('fetchSockets() is not supported on parent namespaces');
  }
}

/** Broadcasts of a parent namespace go to each child. */
class ParentBroadcastAdapter extends Adapter {
  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    for (const nsp of (this.nsp as ParentNamespace).children) nsp.adapter.broadcast({ ...packet }, opts);
  }
}
