// Broadcast operators (socket.io's BroadcastOperator and RemoteSocket): immutable selections of rooms,
// excluded rooms and flags, ending in an emit (with or without acks) or a bulk operation on the selected
// sockets. The adapter does the work.
import { PacketType } from 'socket.io-parser';
import type { Adapter } from './adapter.js';
import type {
  AllButLast,
  DecorateAcknowledgements,
  DecorateAcknowledgementsWithMultipleResponses,
  DefaultEventsMap,
  EventNames,
  EventNamesWithError,
  EventParams,
  EventsMap,
  FirstNonErrorArg,
  Last,
} from './typed-events.js';
import { type AnyArgs, type BroadcastFlags, type Handshake, type Packet, RESERVED_EVENTS, safely } from './types.js';

/**
 * A selection of sockets: `io.to('room')`, `socket.broadcast`, `io.except('x')`, chained freely. `S` is the class of
 * this server's sockets, what `fetchSockets()` gives for them (Socket from io, a namespace or a socket).
 *
 * @example
 * io.to('room1').to('room2').except('muted').emit('news', text); // each socket once
 * const answers = await io.timeout(1000).emitWithAck('poll');    // one answer per socket
 */
// biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
export class BroadcastOperator<EmitEvents extends EventsMap = DefaultEventsMap, SocketData = any> {
  private readonly adapter: Adapter;
  private readonly rooms: Set<string>;
  private readonly exceptRooms: Set<string>;
  private readonly flags: BroadcastFlags;

  constructor(
    adapter: Adapter,
    rooms: Set<string> = new Set(),
    exceptRooms: Set<string> = new Set(),
    flags: BroadcastFlags = {},
  ) {
    this.adapter = adapter;
    this.rooms = rooms;
    this.exceptRooms = exceptRooms;
    this.flags = flags;
  }

  /** Adds rooms to target (a socket in several of them gets the event once). */
  to(room: string | string[]): BroadcastOperator<EmitEvents, SocketData> {
    const rooms = new Set(this.rooms);
    for (const r of Array.isArray(room) ? room : [room]) rooms.add(r);
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter, rooms, this.exceptRooms, this.flags);
  }
  /** The same as `to`. */
  in(room: string | string[]): BroadcastOperator<EmitEvents, SocketData> {
    return this.to(room);
  }
  /** Leaves out the members of these rooms. */
  except(room: string | string[]): BroadcastOperator<EmitEvents, SocketData> {
    const except = new Set(this.exceptRooms);
    for (const r of Array.isArray(room) ? room : [room]) except.add(r);
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter, this.rooms, except, this.flags);
  }
  compress(compress: boolean): BroadcastOperator<EmitEvents, SocketData> {
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter, this.rooms, this.exceptRooms, {
      ...this.flags,
      compress,
    });
  }
  /** The event may be dropped for clients that are not ready to receive it. */
  get volatile(): BroadcastOperator<EmitEvents, SocketData> {
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter, this.rooms, this.exceptRooms, {
      ...this.flags,
      volatile: true,
    });
  }
  /** Only this server's sockets (with a multi-server adapter). */
  get local(): BroadcastOperator<EmitEvents, SocketData> {
    return new BroadcastOperator<EmitEvents, SocketData>(this.adapter, this.rooms, this.exceptRooms, {
      ...this.flags,
      local: true,
    });
  }
  /** Acks of the next emit are collected for at most `ms`. */
  timeout(ms: number): BroadcastOperator<DecorateAcknowledgements<EmitEvents>, SocketData> {
    return new BroadcastOperator(this.adapter, this.rooms, this.exceptRooms, { ...this.flags, timeout: ms });
  }

  /**
   * Emits to the selected sockets. With a function last, it is called once with `(err, answers)`: err is set
   * when some client did not answer within `timeout(ms)`.
   */
  emit<Ev extends EventNames<EmitEvents>>(event: Ev, ...params: EventParams<EmitEvents, Ev>): boolean {
    const ev = event as string;
    const args = params as AnyArgs;
    if (RESERVED_EVENTS.has(ev)) throw new Error(`"${ev}" is a reserved event name`);
    const data: AnyArgs = [ev, ...args];
    const packet: Packet = { type: PacketType.EVENT, nsp: '', data };
    if (typeof data[data.length - 1] !== 'function') {
      this.adapter.broadcast(packet, { rooms: this.rooms, except: this.exceptRooms, flags: this.flags });
      return true;
    }
    const ack = data.pop() as (err: Error | null, responses: unknown) => void;
    let timedOut = false;
    const responses: unknown[] = [];
    const single = this.flags.expectSingleResponse === true;
    const timer = setTimeout(() => {
      timedOut = true;
      const id = packet.id;
      if (id !== undefined) for (const socket of this.adapter.nsp.sockets.values()) socket.acks.delete(id);
      safely('an ack callback', () => ack.call(this, new Error('operation has timed out'), single ? null : responses));
    }, this.flags.timeout);
    let expectedServers = -1;
    let servers = 0;
    let expectedClients = 0;
    const check = (): void => {
      if (!timedOut && expectedServers === servers && responses.length === expectedClients) {
        clearTimeout(timer);
        safely('an ack callback', () => ack.call(this, null, single ? responses[0] : responses));
      }
    };
    this.adapter.broadcastWithAck(
      packet,
      { rooms: this.rooms, except: this.exceptRooms, flags: this.flags },
      (clientCount) => {
        expectedClients += clientCount;
        servers++;
        check();
      },
      (response) => {
        responses.push(response);
        check();
      },
    );
    this.adapter.serverCount().then((n) => {
      expectedServers = n;
      check();
    });
    return true;
  }

  /** Emits and resolves with the answers (rejects on timeout, with `err.responses`). */
  emitWithAck<Ev extends EventNamesWithError<EmitEvents>>(
    event: Ev,
    ...params: AllButLast<EventParams<EmitEvents, Ev>>
  ): Promise<FirstNonErrorArg<Last<EventParams<EmitEvents, Ev>>>> {
    const args = params as AnyArgs;
    return new Promise((resolve, reject) => {
      args.push((err: (Error & { responses?: unknown }) | null, responses: unknown) => {
        if (err) {
          err.responses = responses;
          reject(err);
        } else resolve(responses as never);
      });
      (this as BroadcastOperator).emit(event as string, ...args);
    });
  }

  /** Ids of the selected sockets. */
  allSockets(): Promise<Set<string>> {
    return this.adapter.sockets(this.rooms);
  }

  /** The selected sockets (this server's as Socket objects, others' as RemoteSocket). */
  /** The selected sockets: this server's as Socket objects, other servers' as RemoteSocket (same members). */
  async fetchSockets(): Promise<RemoteSocket<EmitEvents, SocketData>[]> {
    const sockets = await this.adapter.fetchSockets({
      rooms: this.rooms,
      except: this.exceptRooms,
      flags: this.flags,
    });
    return sockets.map((s) =>
      typeof s === 'object' && s !== null && 'server' in s
        ? (s as unknown as RemoteSocket<EmitEvents, SocketData>)
        : new RemoteSocket<EmitEvents, SocketData>(this.adapter, s as RemoteDetails),
    );
  }

  /** Makes the selected sockets join `room`. */
  socketsJoin(room: string | string[]): void {
    this.adapter.addSockets(
      { rooms: this.rooms, except: this.exceptRooms, flags: this.flags },
      Array.isArray(room) ? room : [room],
    );
  }

  /** Makes the selected sockets leave `room`. */
  socketsLeave(room: string | string[]): void {
    this.adapter.delSockets(
      { rooms: this.rooms, except: this.exceptRooms, flags: this.flags },
      Array.isArray(room) ? room : [room],
    );
  }

  /** Disconnects the selected sockets (`close`: their whole connections). */
  disconnectSockets(close = false): void {
    this.adapter.disconnectSockets({ rooms: this.rooms, except: this.exceptRooms, flags: this.flags }, close);
  }
}

/**
 * What `to`, `in`, `except`, `compress`, `volatile` and `local` of a server, a namespace or a socket give: a broadcast
 * operator of its events, each acknowledgement getting every client's answer (one alias for the three, so that the
 * type of `emitter.volatile` on a `Server | Namespace` is one type, as in socket.io).
 */
export type Broadcast<EmitEvents extends EventsMap, SocketData> = BroadcastOperator<
  DecorateAcknowledgementsWithMultipleResponses<EmitEvents>,
  SocketData
>;

/**
 * What another server tells about one of its sockets.
 *
 * @example
 * const sockets = await io.in('room').fetchSockets();
 * for (const s of sockets) console.log(s.id, s.handshake.address, [...s.rooms]);
 */
export interface RemoteDetails {
  id: string;
  handshake: Handshake;
  rooms: string[];
  data: unknown;
}

/**
 * A socket on another server (from fetchSockets with a multi-server adapter).
 *
 * @example
 * for (const s of await io.fetchSockets()) if (s.data.user === 'ada') s.disconnect(true);
 */
// biome-ignore lint/suspicious/noExplicitAny: socket.io's default: the application's own data
export class RemoteSocket<EmitEvents extends EventsMap = DefaultEventsMap, SocketData = any> {
  readonly id: string;
  readonly handshake: Handshake;
  readonly rooms: Set<string>;
  readonly data: SocketData;
  private readonly operator: BroadcastOperator<EmitEvents, SocketData>;

  constructor(adapter: Adapter, details: RemoteDetails) {
    this.id = details.id;
    this.handshake = details.handshake;
    this.rooms = new Set(details.rooms);
    this.data = details.data as SocketData;
    this.operator = new BroadcastOperator(adapter, new Set([this.id]), new Set(), { expectSingleResponse: true });
  }
  timeout(ms: number): BroadcastOperator<DecorateAcknowledgements<EmitEvents>, SocketData> {
    return this.operator.timeout(ms);
  }
  emit<Ev extends EventNames<EmitEvents>>(ev: Ev, ...args: EventParams<EmitEvents, Ev>): boolean {
    return this.operator.emit(ev, ...args);
  }
  join(room: string | string[]): void {
    this.operator.socketsJoin(room);
  }
  leave(room: string | string[]): void {
    this.operator.socketsLeave(room);
  }
  disconnect(close = false): this {
    this.operator.disconnectSockets(close);
    return this;
  }
}
