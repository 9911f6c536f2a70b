// Namespaces (socket.io's Namespace and ParentNamespace): the sockets of one namespace, its middlewares (whose
// `next(err)` reaches the client as connect_error with err.data), its adapter, broadcasts, and the parent of
// dynamic namespaces (matched by a regex or a function) that creates children on first connection.
import { EventEmitter } from 'node:events';
import { Adapter } from './adapter.js';
import { BroadcastOperator, type RemoteSocket } from './broadcast.js';
import type { Client } from './client.js';
import type { Server } from './server.js';
import { Socket } from './socket.js';
import { type AnyArgs, type BroadcastOptions, type Packet, safely } from './types.js';

/**
 * A namespace middleware: `(socket, next)`; `next(err)` refuses the connection (connect_error).
 *
 * @example
 * io.use((socket, next) => (socket.handshake.auth.token ? next() : next(new Error('unauthorized'))));
 */
export type NamespaceMiddleware = (socket: Socket, next: (err?: Error & { data?: unknown }) => void) => void;

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
export class Namespace extends EventEmitter {
  readonly name: string;
  readonly server: Server;
  /** Connected sockets by id. */
  readonly sockets = new Map<string, Socket>();
  adapter!: Adapter;
  /** @internal sockets whose middlewares are still running */
  readonly _preConnectSockets = new Map<string, Socket>();
  /** @internal sockets with onAnyOutgoing listeners */
  readonly _outgoing = new Set<Socket>();
  /** @internal the next ack id */
  _ids = 0;
  /** @internal the engine topic of this namespace (rooms append '\x1f' + name) */
  readonly _topic: string;
  protected readonly fns: NamespaceMiddleware[] = [];

  constructor(server: Server, name: string) {
    super();
    this.server = server;
    this.name = name;
    this._topic = server._topicPrefix + name;
    this._initAdapter();
  }

  /** @internal */
  _initAdapter(): void {
    const Ctor = this.server.adapter() as new (nsp: Namespace) => Adapter;
    this.adapter = new Ctor(this);
    Promise.resolve(this.adapter.init()).catch((err: unknown) => {
      console.error(`gale/socket.io: the adapter of namespace ${this.name} failed to start`, err);
    });
  }

  /**
   * Adds a middleware run for each connecting socket, in order. `next(err)` refuses the connection: the client
   * gets connect_error with `err.message` and `err.data`.
   */
  use(fn: NamespaceMiddleware): this {
    this.fns.push(fn);
    return this;
  }

  private run(socket: Socket, done: (err?: Error & { data?: unknown }) => void): void {
    const fns = this.fns.slice();
    if (fns.length === 0) {
      done();
      return;
    }
    const step = (i: number): void => {
      let called = false;
      try {
        (fns[i] as NamespaceMiddleware)(socket, (err) => {
          if (called) return;
          called = true;
          if (err) done(err);
          else if (i + 1 >= fns.length) done();
          else step(i + 1);
        });
      } catch (err) {
        if (!called) {
          called = true;
          done(err instanceof Error ? err : new Error(String(err)));
        }
      }
    };
    step(0);
  }

  to(room: string | string[]): BroadcastOperator {
    return new BroadcastOperator(this.adapter).to(room);
  }
  in(room: string | string[]): BroadcastOperator {
    return new BroadcastOperator(this.adapter).in(room);
  }
  except(room: string | string[]): BroadcastOperator {
    return new BroadcastOperator(this.adapter).except(room);
  }

  /** @internal a client asks to join: create the socket (maybe recovered), run the middlewares, connect */
  async _add(client: Client, auth: Record<string, unknown>, fn: (socket: Socket) => void): Promise<void> {
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

  private async createSocket(client: Client, auth: Record<string, unknown>): Promise<Socket> {
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

  /** Emits to every socket of the namespace. */
  override emit(ev: string, ...args: AnyArgs): boolean {
    return new BroadcastOperator(this.adapter).emit(ev, ...args);
  }
  send(...args: AnyArgs): this {
    this.emit('message', ...args);
    return this;
  }
  write(...args: AnyArgs): this {
    this.emit('message', ...args);
    return this;
  }

  /**
   * Emits to the other servers of the cluster (their `io.on(ev)` listeners). With the in-memory adapter there
   * are none; an ack (a function last) is answered with an empty list.
   */
  serverSideEmit(ev: string, ...args: AnyArgs): boolean {
    if (RESERVED.has(ev)) throw new Error(`"${ev}" is a reserved event name`);
    this.adapter.serverSideEmit([ev, ...args]);
    return true;
  }

  /** serverSideEmit, resolving with the other servers' answers. */
  serverSideEmitWithAck(ev: string, ...args: AnyArgs): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      args.push((err: (Error & { responses?: unknown }) | null, responses: unknown[]) => {
        if (err) {
          err.responses = responses;
          reject(err);
        } else resolve(responses);
      });
      this.serverSideEmit(ev, ...args);
    });
  }

  /** @internal an event from another server */
  _onServerSideEmit(args: AnyArgs): void {
    emitLocal.apply(this, args as [string, ...AnyArgs]);
  }

  allSockets(): Promise<Set<string>> {
    return new BroadcastOperator(this.adapter).allSockets();
  }
  compress(compress: boolean): BroadcastOperator {
    return new BroadcastOperator(this.adapter).compress(compress);
  }
  get volatile(): BroadcastOperator {
    return new BroadcastOperator(this.adapter).volatile;
  }
  get local(): BroadcastOperator {
    return new BroadcastOperator(this.adapter).local;
  }
  timeout(ms: number): BroadcastOperator {
    return new BroadcastOperator(this.adapter).timeout(ms);
  }
  fetchSockets(): Promise<(Socket | RemoteSocket)[]> {
    return new BroadcastOperator(this.adapter).fetchSockets();
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

  constructor(server: Server) {
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

  override fetchSockets(): Promise<(Socket | RemoteSocket)[]> {
    throw new Error('fetchSockets() is not supported on parent namespaces');
  }
}

/** Broadcasts of a parent namespace go to each child. */
class ParentBroadcastAdapter extends Adapter {
  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    for (const nsp of (this.nsp as ParentNamespace).children) nsp.adapter.broadcast({ ...packet }, opts);
  }
}
