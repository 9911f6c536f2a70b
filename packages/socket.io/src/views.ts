// The shapes the adapters and broadcast operators work on: what they use of a namespace, of its server and of a
// connected socket. namespace.ts's Namespace, server.ts's Server and socket.ts's Socket implement them (TypeScript
// checks that they match), so no module below those classes imports them. Types only.
import type { Socket as EioSocket } from '@gale-http/engine.io';
import type { App } from 'gale';
import type { Encoder } from 'socket.io-parser';
import type { AnyArgs, BaseServerOptions, Handshake, Packet, WriteOptions } from './types.js';

/**
 * What the modules below the Server use of it: `adapter.nsp.server`, `socket.server`.
 *
 * @example
 * class MyAdapter extends Adapter {
 *   override init() {
 *     console.log('recovery on:', Boolean(this.nsp.server._opts.connectionStateRecovery));
 *   }
 * }
 */
export interface ServerView {
  /** The encoder of every packet of this server (socket.io-parser's). */
  readonly encoder: Encoder;
  /** @internal the app the engine routes are on (broadcasts publish through it) */
  readonly _app: App | undefined;
  /** @internal the server's options */
  readonly _opts: BaseServerOptions;
}

/**
 * A connected socket as an adapter reaches it (`adapter.nsp.sockets`, `adapter.apply`); socket.ts's Socket.
 *
 * @example
 * class MyAdapter extends Adapter {
 *   override addSockets(opts: BroadcastOptions, rooms: string[]) {
 *     this.apply(opts, (socket) => socket.join(rooms));
 *   }
 * }
 */
export interface AdapterSocket {
  /** The socket's id (also a room it is in). */
  readonly id: string;
  readonly handshake: Handshake;
  /** The rooms it is in (its own id included). */
  readonly rooms: Set<string>;
  /** The application's data of this socket. */
  readonly data: unknown;
  /** The Engine.IO connection (its transport tells whether the engine's pub/sub reaches the socket). */
  readonly conn: EioSocket;
  /** The connection's writer, for packets already encoded. */
  readonly client: { writeToEngine(encoded: (string | Buffer)[], opts: WriteOptions): void };
  /** @internal pending acks by packet id */
  readonly acks: Map<number, (...args: AnyArgs) => void>;
  join(rooms: string | string[]): void | Promise<void>;
  leave(room: string): void | Promise<void>;
  disconnect(close?: boolean): this;
  /** @internal calls its onAnyOutgoing listeners */
  notifyOutgoingListeners(packet: Packet): void;
}

/**
 * A namespace as its adapter sees it (`adapter.nsp`); namespace.ts's Namespace.
 *
 * @example
 * class MyAdapter extends Adapter {
 *   override serverCount() {
 *     console.log(this.nsp.name, this.nsp.sockets.size);
 *     return Promise.resolve(1);
 *   }
 * }
 */
export interface AdapterNamespace {
  readonly name: string;
  readonly server: ServerView;
  /** Connected sockets by id. */
  readonly sockets: ReadonlyMap<string, AdapterSocket>;
  /** @internal the engine topic of the namespace (rooms append '\x1f' + name) */
  readonly _topic: string;
  /** @internal sockets with onAnyOutgoing listeners */
  readonly _outgoing: ReadonlySet<AdapterSocket>;
  /** @internal the next ack id */
  _ids: number;
  /** @internal an event from another server (multi-server adapters deliver with it) */
  _onServerSideEmit(args: AnyArgs): void;
}
