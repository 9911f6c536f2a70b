// A Socket.IO socket (socket.io's Socket): one client's connection to one namespace. Events both ways, acks
// with timeouts, rooms, broadcast operators, middlewares for incoming packets, disconnect reasons, and the
// session that connection state recovery persists. Packets go out through client.ts; rooms live in the adapter.
// Over 400 lines: it is socket.io's Socket class, about 40 members (emit/emitWithAck with their ack timers, rooms,
// broadcast flags, packet handlers, typed on/once/listeners) sharing the pending acks, the next emit's flags and the
// middleware list, plus the SocketNamespace and SocketClient interfaces that keep namespace.ts and client.ts out of its
// imports.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Socket as EioSocket, HttpRequest } from '@gale-http/engine.io';
import { PacketType } from 'socket.io-parser';
import type { Adapter } from './adapter.js';
import { type Broadcast, BroadcastOperator } from './broadcast.js';
import { CatchAllListeners } from './catch-all.js';
import type {
  AllButLast,
  DecorateAcknowledgements,
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
  SocketReservedEventsMap,
} from './typed-events.js';
import {
  type AnyArgs,
  type BroadcastFlags,
  type DisconnectReason,
  type Handshake,
  type Listener,
  type Packet,
  type PacketMiddleware,
  RESERVED_EVENTS,
  randomId,
  runMiddleware,
  type Session,
  safely,
  type WriteOptions,
} from './types.js';
import type { AdapterNamespace, AdapterSocket, ServerView } from './views.js';

/** Reasons after which the session is kept for connection state recovery (socket.io's list). */
const RECOVERABLE = new Set([
  'transport error',
  'transport close',
  'forced close',
  'ping timeout',
  'server shutting down',
  'forced server close',
]);

/**
 * A socket's namespace (`socket.nsp`): what the socket uses of it, and its name, sockets, adapter and broadcasts.
 * namespace.ts's Namespace implements it (namespace.ts imports this module, not the other way round).
 *
 * @example
 * io.on('connection', (socket) => {
 *   socket.nsp.to('lobby').emit('joined', socket.id, socket.nsp.name);
 * });
 */
export interface SocketNamespace<
  ListenEvents extends EventsMap = DefaultEventsMap,
  EmitEvents extends EventsMap = ListenEvents,
  ServerSideEvents extends EventsMap = DefaultEventsMap,
  // biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
  SocketData = any,
> extends AdapterNamespace {
  readonly adapter: Adapter;
  readonly sockets: ReadonlyMap<string, Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>>;
  /** @internal sockets with onAnyOutgoing listeners (a socket adds and removes itself) */
  readonly _outgoing: Set<Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>>;
  /** @internal the socket left the namespace */
  _remove(socket: Socket<ListenEvents, EmitEvents, ServerSideEvents, SocketData>): void;
  /** Emits to every socket of the namespace (an event with an acknowledgement needs `timeout()` first). */
  emit<Ev extends EventNamesWithoutAck<EmitEvents>>(ev: Ev, ...args: EventParams<EmitEvents, Ev>): boolean;
  to(room: string | string[]): Broadcast<EmitEvents, SocketData>;
  in(room: string | string[]): Broadcast<EmitEvents, SocketData>;
  except(room: string | string[]): Broadcast<EmitEvents, SocketData>;
}

/**
 * A socket's Engine.IO connection, shared by the namespaces it joined (`socket.client`). client.ts's Client
 * implements it.
 *
 * @example
 * io.on('connection', (socket) => console.log(socket.client.id, socket.client.conn.transport.name));
 */
export interface SocketClient {
  /** The Engine.IO session id. */
  readonly id: string;
  readonly conn: EioSocket;
  /** The request that opened the connection. */
  readonly request: HttpRequest;
  /** Writes already-encoded packets (a string, then binary attachments) to the session. */
  writeToEngine(encoded: (string | Buffer)[], opts: WriteOptions): void;
  /** @internal encodes and writes a packet */
  _packet(packet: Packet, opts?: WriteOptions): void;
  /** @internal the socket left its namespace */
  _remove(socket: Socket): void;
  /** @internal disconnects every namespace, then closes the connection */
  _disconnect(): void;
}

const emitLocal = EventEmitter.prototype.emit;
const on = EventEmitter.prototype.on;
const once = EventEmitter.prototype.once;
const listenersOf = EventEmitter.prototype.listeners;

/**
 * One client connected to one namespace. The type parameters are socket.io's: the events the client sends, the
 * events the server emits, the events between servers, and the type of `socket.data`.
 *
 * @example
 * io.on('connection', (socket) => {
 *   socket.join('lobby');
 *   socket.on('chat', (text, ack) => {
 *     socket.to('lobby').emit('chat', socket.data.user, text);
 *     ack?.('ok');
 *   });
 *   socket.on('disconnect', (reason) => console.log(socket.id, 'left:', reason));
 * });
 */
export class Socket<
    ListenEvents extends EventsMap = DefaultEventsMap,
    EmitEvents extends EventsMap = ListenEvents,
    ServerSideEvents extends EventsMap = DefaultEventsMap,
    // biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
    SocketData = any,
  >
  extends CatchAllListeners
  implements AdapterSocket
{
  readonly nsp: SocketNamespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData>;
  readonly client: SocketClient;
  readonly server: ServerView;
  readonly adapter: Adapter;
  /** This socket's id (also a room it is in). Not the Engine.IO session id. */
  readonly id: string;
  /** The private session id used by connection state recovery (only with that option). */
  readonly pid: string | undefined;
  /** True when this socket is a recovered session (connection state recovery). */
  readonly recovered: boolean = false;
  readonly handshake: Handshake;
  /** Free-form data of this socket (returned by fetchSockets, kept across recovery). */
  data: SocketData = {} as SocketData;
  connected = false;
  /** @internal pending acks by packet id */
  readonly acks = new Map<number, (...args: AnyArgs) => void>();
  private readonly fns: PacketMiddleware[] = [];
  private flags: BroadcastFlags = {};

  /** @internal */
  constructor(
    nsp: SocketNamespace<ListenEvents, EmitEvents, ServerSideEvents, SocketData>,
    client: SocketClient,
    auth: Record<string, unknown>,
    previous?: Session,
  ) {
    super();
    this.nsp = nsp;
    this.client = client;
    this.server = nsp.server;
    this.adapter = nsp.adapter;
    if (previous !== undefined) {
      this.id = previous.sid;
      this.pid = previous.pid;
      for (const room of previous.rooms) this.join(room);
      this.data = previous.data;
      for (const data of previous.missedPackets) this.packet({ type: PacketType.EVENT, nsp: '', data });
      this.recovered = true;
    } else {
      this.id = randomId(); // never the Engine.IO id: that one is a secret of the connection
      if (this.server._opts.connectionStateRecovery) this.pid = randomId();
    }
    this.handshake = this.buildHandshake(auth);
    // An 'error' without listeners must not throw (socket.io does the same).
    this.on('error', () => {});
  }

  private buildHandshake(auth: Record<string, unknown>): Handshake {
    const req = this.request as HttpRequest | undefined;
    // No request (an Engine.IO connection that never had one, as socket.io's WebTransport sessions): a secure,
    // header-less handshake, as socket.io builds it.
    const headers = req?.headers ?? {};
    const url = req === undefined ? '' : 'originalUrl' in req ? req.originalUrl : (req.url ?? '/');
    const at = url.indexOf('?');
    return {
      headers,
      time: `${new Date()}`,
      address: this.conn.remoteAddress,
      xdomain: headers.origin !== undefined,
      secure: req === undefined || ('secure' in req ? req.secure : isTls(req)),
      issued: Date.now(),
      url,
      query: at === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1))),
      auth,
    };
  }

  /**
   * The request that opened the connection: Gale's Request on a Gale app, node's IncomingMessage on a node:http
   * server (socket.io's `socket.request`).
   */
  get request(): HttpRequest {
    return this.client.request;
  }

  /** The Engine.IO connection (transport, upgrade events, readyState). */
  get conn(): EioSocket {
    return this.client.conn;
  }

  get disconnected(): boolean {
    return !this.connected;
  }

  /** The rooms this socket is in (its own id included). */
  get rooms(): Set<string> {
    return this.adapter.socketRooms(this.id) ?? new Set();
  }

  /**
   * Sends an event to this client. A function as last argument is an ack the client calls; with
   * `timeout(ms)` it is called with an error first when the client does not answer in time.
   *
   * @example
   * socket.emit('hello', 'world', { n: 1 }, Buffer.from([1, 2]));
   * socket.timeout(1000).emit('ping', (err, answer) => {});
   */
  override emit<Ev extends EventNames<EmitEvents>>(event: Ev, ...params: EventParams<EmitEvents, Ev>): boolean {
    const ev = event as string;
    const args = params as AnyArgs;
    if (RESERVED_EVENTS.has(ev)) throw new Error(`"${ev}" is a reserved event name`);
    const data: AnyArgs = [ev, ...args];
    const packet: Packet = { type: PacketType.EVENT, nsp: '', data };
    if (typeof data[data.length - 1] === 'function') {
      const id = this.nsp._ids++;
      this.registerAckCallback(id, data.pop());
      packet.id = id;
    }
    const flags = this.flags;
    this.flags = {};
    if (this.server._opts.connectionStateRecovery) {
      // Through the adapter, so that the packet is stored (and gets its offset) for recovery.
      this.adapter.broadcast(packet, { rooms: new Set([this.id]), except: new Set(), flags });
    } else {
      this.notifyOutgoingListeners(packet);
      this.packet(packet, flags);
    }
    return true;
  }

  /**
   * Emits and resolves with the client's ack (rejects on timeout when `timeout(ms)` was used).
   *
   * @example
   * const answer = await socket.timeout(2000).emitWithAck('question', 42);
   */
  emitWithAck<Ev extends EventNamesWithAck<EmitEvents>>(
    event: Ev,
    ...params: AllButLast<EventParams<EmitEvents, Ev>>
  ): Promise<FirstNonErrorArg<Last<EventParams<EmitEvents, Ev>>>> {
    const ev = event as string;
    const args = params as AnyArgs;
    const withErr = this.flags.timeout !== undefined;
    return new Promise((resolve, reject) => {
      args.push((arg1: unknown, arg2: unknown) => {
        if (!withErr) resolve(arg1 as never);
        else if (arg1) reject(arg1);
        else resolve(arg2 as never);
      });
      this.untyped.emit(ev, ...args);
    });
  }

  private registerAckCallback(id: number, ack: (...args: AnyArgs) => void): void {
    const timeout = this.flags.timeout;
    if (timeout === undefined) {
      this.acks.set(id, ack);
      return;
    }
    const timer = setTimeout(() => {
      this.acks.delete(id);
      safely('an ack callback', () => ack.call(this, new Error('operation has timed out')));
    }, timeout);
    this.acks.set(id, (...args: AnyArgs) => {
      clearTimeout(timer);
      safely('an ack callback', () => ack.apply(this, [null, ...args]));
    });
  }

  /** Targets a room: sends to its members except this socket. */
  to(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.newBroadcastOperator().to(room);
  }
  /** The same as `to`. */
  in(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.newBroadcastOperator().in(room);
  }
  /** Excludes a room's members (and this socket) from the broadcast. */
  except(room: string | string[]): Broadcast<EmitEvents, SocketData> {
    return this.newBroadcastOperator().except(room);
  }

  /** Emits a 'message' event (typed by the `message` event of `EmitEvents`). */
  send(...args: EventParams<EmitEvents, 'message'>): this {
    this.untyped.emit('message', ...(args as AnyArgs));
    return this;
  }
  /** The same as `send`. */
  write(...args: EventParams<EmitEvents, 'message'>): this {
    this.untyped.emit('message', ...(args as AnyArgs));
    return this;
  }

  /** @internal writes a packet of this namespace to the client */
  packet(packet: Packet, opts: { volatile?: boolean; compress?: boolean; preEncoded?: boolean } = {}): void {
    packet.nsp = this.nsp.name;
    this.client._packet(packet, { volatile: opts.volatile, compress: opts.compress !== false });
  }

  /** Joins one or more rooms. */
  join(rooms: string | string[]): void | Promise<void> {
    return this.adapter.addAll(this.id, new Set(Array.isArray(rooms) ? rooms : [rooms]));
  }

  /** Leaves a room. */
  leave(room: string): void | Promise<void> {
    return this.adapter.del(this.id, room);
  }

  private leaveAll(): void {
    this.adapter.delAll(this.id);
  }

  /** @internal the namespace accepted the socket: join its own room, send CONNECT */
  _onconnect(): void {
    this.connected = true;
    this.join(this.id);
    this.packet({ type: PacketType.CONNECT, nsp: '', data: { sid: this.id, pid: this.pid } });
  }

  /** @internal a packet for this socket from the client */
  _onpacket(packet: Packet, binary = false): void {
    switch (packet.type) {
      case PacketType.EVENT:
      case PacketType.BINARY_EVENT:
        this.onevent(packet, binary);
        return;
      case PacketType.ACK:
      case PacketType.BINARY_ACK:
        this.onack(packet);
        return;
      case PacketType.DISCONNECT:
        this._onclose('client namespace disconnect');
        return;
    }
  }

  private onevent(packet: Packet, binary: boolean): void {
    const args: AnyArgs = packet.data ?? [];
    if (packet.id != null) args.push(this.ack(packet.id));
    this.notifyAny(args);
    this.dispatch(args, binary);
  }

  /** The ack function given to a listener: sends the ACK once. */
  private ack(id: number): (...args: AnyArgs) => void {
    let sent = false;
    return (...args: AnyArgs) => {
      if (sent) return;
      sent = true;
      this.packet({ id, type: PacketType.ACK, nsp: '', data: args });
    };
  }

  private onack(packet: Packet): void {
    const id = packet.id as number;
    const ack = this.acks.get(id);
    if (typeof ack !== 'function') return;
    this.acks.delete(id);
    safely('an ack callback', () => ack.apply(this, packet.data ?? []));
  }

  /** @internal an error in the connection (a bad packet) or a rejected packet */
  _onerror(err: unknown): void {
    safely("an 'error' listener", () => emitLocal.call(this, 'error', err));
  }

  /** @internal the socket left its namespace for `reason` */
  _onclose(reason: DisconnectReason | string, description?: unknown): this {
    if (!this.connected) return this;
    safely("a 'disconnecting' listener", () => emitLocal.call(this, 'disconnecting', reason, description));
    if (this.server._opts.connectionStateRecovery && RECOVERABLE.has(reason)) {
      this.adapter.persistSession({ sid: this.id, pid: this.pid as string, rooms: [...this.rooms], data: this.data });
    }
    this._cleanup();
    this.client._remove(this);
    this.connected = false;
    safely("a 'disconnect' listener", () => emitLocal.call(this, 'disconnect', reason, description));
    return this;
  }

  /** @internal */
  _cleanup(): void {
    this.leaveAll();
    this.nsp._remove(this);
    this.join = () => {};
  }

  /** @internal refuses the connection with a CONNECT_ERROR */
  _error(err: unknown): void {
    this.packet({ type: PacketType.CONNECT_ERROR, nsp: '', data: err });
  }

  /**
   * Disconnects this socket from its namespace (the client sees 'io server disconnect'); with `close`, closes
   * the whole connection (every namespace).
   */
  disconnect(close = false): this {
    if (!this.connected) return this;
    if (close) {
      this.client._disconnect();
    } else {
      this.packet({ type: PacketType.DISCONNECT, nsp: '' });
      this._onclose('server namespace disconnect');
    }
    return this;
  }

  /** Sets compression for the next emit. */
  compress(compress: boolean): this {
    this.flags.compress = compress;
    return this;
  }

  /** The next emit may be dropped if the client is not ready to receive it. */
  get volatile(): this {
    this.flags.volatile = true;
    return this;
  }

  /** A broadcast to every other socket of the namespace. */
  get broadcast(): Broadcast<EmitEvents, SocketData> {
    return this.newBroadcastOperator();
  }

  /** A broadcast to this server's sockets only (with a multi-server adapter). */
  get local(): Broadcast<EmitEvents, SocketData> {
    return this.newBroadcastOperator().local;
  }

  /** The ack of the next emit gets an error after `ms` without an answer. */
  timeout(ms: number): Socket<ListenEvents, DecorateAcknowledgements<EmitEvents>, ServerSideEvents, SocketData> {
    this.flags.timeout = ms;
    return this as never;
  }

  /**
   * Listens for an event from the client (typed by `ListenEvents`), or for `disconnect`, `disconnecting`, `error`.
   *
   * @example
   * socket.on('chat', (text: string) => socket.broadcast.emit('chat', text));
   */
  override on<Ev extends ReservedOrUserEventNames<SocketReservedEventsMap, ListenEvents>>(
    ev: Ev,
    listener: ReservedOrUserListener<SocketReservedEventsMap, ListenEvents, Ev>,
  ): this {
    return on.call(this, ev, listener as Listener) as this;
  }

  /** Like `on`, for one event. */
  override once<Ev extends ReservedOrUserEventNames<SocketReservedEventsMap, ListenEvents>>(
    ev: Ev,
    listener: ReservedOrUserListener<SocketReservedEventsMap, ListenEvents, Ev>,
  ): this {
    return once.call(this, ev, listener as Listener) as this;
  }

  /** The listeners of an event. */
  override listeners<Ev extends ReservedOrUserEventNames<SocketReservedEventsMap, ListenEvents>>(
    ev: Ev,
  ): ReservedOrUserListener<SocketReservedEventsMap, ListenEvents, Ev>[] {
    return listenersOf.call(this, ev) as never;
  }

  /** This socket without its event types, for the module's own string-named emits. */
  private get untyped(): Socket {
    return this as never;
  }

  private dispatch(event: AnyArgs, binary: boolean): void {
    if (this.fns.length === 0) {
      // As in socket.io, listeners run a tick later (one tick for all), so an event that a DISCONNECT read with it
      // follows is dropped: for every packet of a long-polling POST, and for binary events (several WebSocket
      // messages each). A text event over WebSocket runs at once: a tick per batch of them measured 6-8 % more
      // server CPU per delivery on sio-broadcast (the broadcasts no longer shared the batch's writes).
      if (binary || this.client.conn.transport.name === 'polling') later(this, event);
      else this._emitEvent(event);
      return;
    }
    this.run(event, (err) => {
      process.nextTick(() => {
        if (err) this._onerror(err);
        else this._emitEvent(event);
      });
    });
  }

  /** @internal runs the listeners of `event`, unless the socket disconnected meanwhile */
  _emitEvent(event: AnyArgs): void {
    if (!this.connected) return;
    try {
      emitLocal.apply(this, event as [string, ...AnyArgs]);
    } catch (err) {
      // socket.io lets this crash the process (it throws from a nextTick); Gale logs it and keeps serving.
      console.error(`@gale-http/socket.io: a listener for "${String(event[0])}" threw`, err);
    }
  }

  /**
   * Adds a middleware for incoming packets.
   *
   * @example
   * socket.use(([event, ...args], next) => (event === 'admin' && !socket.data.admin ? next(new Error('no')) : next()));
   */
  use(fn: PacketMiddleware): this {
    this.fns.push(fn);
    return this;
  }

  private run(event: AnyArgs, done: (err?: Error) => void): void {
    runMiddleware(this.fns.slice(), event, done);
  }

  /** @internal the namespace tracks sockets with outgoing listeners (broadcasts notify them) */
  protected override outgoingWatched(watched: boolean): void {
    if (watched) this.nsp._outgoing.add(this);
    else this.nsp._outgoing.delete(this);
  }

  private newBroadcastOperator(): Broadcast<EmitEvents, SocketData> {
    const flags = this.flags;
    this.flags = {};
    return new BroadcastOperator(this.adapter, new Set(), new Set([this.id]), flags);
  }
}

/** Whether a node:http request came over TLS. */
function isTls(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean } | null)?.encrypted === true;
}

/**
 * Events of long-polling POSTs waiting for the rest of their POST: socket.io emits each from a process.nextTick of its
 * own, so an event followed in the same POST by something that ends the socket (a DISCONNECT packet) is dropped. Here
 * one tick serves every event of the turn, in arrival order.
 */
const laterSockets: Socket[] = [];
const laterEvents: AnyArgs[] = [];
let laterScheduled = false;

function later(socket: Socket, event: AnyArgs): void {
  laterSockets.push(socket);
  laterEvents.push(event);
  if (!laterScheduled) {
    laterScheduled = true;
    process.nextTick(runLater);
  }
}

function runLater(): void {
  // Listeners may emit more events (they go to a later tick's batch, after these).
  const n = laterSockets.length;
  for (let i = 0; i < n; i++) (laterSockets[i] as Socket)._emitEvent(laterEvents[i] as AnyArgs);
  laterSockets.splice(0, n);
  laterEvents.splice(0, n);
  laterScheduled = laterSockets.length > 0;
  if (laterScheduled) process.nextTick(runLater);
}
