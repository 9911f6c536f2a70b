// Types of @gale-http/socket.io: server options but `adapter` (socket.io 4's names and defaults, over
// @gale-http/engine.io's), the handshake, broadcast options and sessions (socket.io-adapter's shapes). No runtime code
// but ids, `safely` and the reserved names.
import { randomBytes } from 'node:crypto';
import type { AttachOptions, ServerOptions as EngineServerOptions } from '@gale-http/engine.io';

export type { EngineCookieOptions, EngineMiddleware } from '@gale-http/engine.io';

// biome-ignore lint/suspicious/noExplicitAny: event arguments are whatever the application sends
export type AnyArgs = any[];
/**
 * An event listener: called with the event's arguments (and an ack function last when the sender asked for one).
 *
 * @example
 * const onChat: Listener = (text, ack) => ack?.('received');
 * socket.on('chat', onChat);
 */
export type Listener = (...args: AnyArgs) => void;
/**
 * The options of `new Server(app, options)` but `adapter` (whose type names the Namespace class, above this module;
 * server.ts's ServerOptions adds it): what the namespaces, sockets and adapters read of them (`server._opts`).
 */
export interface BaseServerOptions extends EngineServerOptions, AttachOptions {
  /** URL path of the Engine.IO endpoint. Default '/socket.io'. */
  path?: string;
  /** ms a connection may stay without joining a namespace. Default 45 000. */
  connectTimeout?: number;
  /** Connection state recovery (socket.io ≥ 4.6): missed packets and rooms restored after a short disconnection. */
  connectionStateRecovery?: { maxDisconnectionDuration?: number; skipMiddlewares?: boolean };
  /** Remove dynamic child namespaces once their last socket leaves. Default false. */
  cleanupEmptyChildNamespaces?: boolean;
  /** Serving the browser bundle is not supported (socket.io's default is true); accepted and ignored. */
  serveClient?: boolean;
}

/**
 * `socket.handshake`, as socket.io builds it.
 *
 * @example
 * io.on('connection', (socket) => console.log(socket.handshake.address, socket.handshake.auth, socket.handshake.query));
 */
export interface Handshake {
  /** The headers of the first request (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** When the socket was created, as `new Date() + ''`. */
  time: string;
  /** The client's address. */
  address: string;
  /** Whether the request had an Origin header. */
  xdomain: boolean;
  /** Whether the connection was HTTPS (as `req.secure`). */
  secure: boolean;
  /** When the socket was created, in ms since the epoch. */
  issued: number;
  /** The first request's URL (path and query). */
  url: string;
  /** The first request's query parameters. */
  query: Record<string, string>;
  /** The auth payload the client sent with its CONNECT packet. */
  // biome-ignore lint/suspicious/noExplicitAny: whatever the client sends
  auth: Record<string, any>;
}

/**
 * Why a socket disconnected, as socket.io names it.
 *
 * @example
 * socket.on('disconnect', (reason: DisconnectReason) => console.log(socket.id, reason)); // 'transport close', 'ping timeout', …
 */
export type DisconnectReason =
  | 'transport error'
  | 'transport close'
  | 'forced close'
  | 'ping timeout'
  | 'parse error'
  | 'server shutting down'
  | 'forced server close'
  | 'client namespace disconnect'
  | 'server namespace disconnect';

/**
 * A packet middleware: `([event, ...args], next)`; `next(err)` emits 'error' on the socket instead.
 *
 * @example
 * socket.use(([event, ...args], next) => (event === 'admin' && !socket.data.admin ? next(new Error('forbidden')) : next()));
 */
export type PacketMiddleware = (event: AnyArgs, next: (err?: Error) => void) => void;

/**
 * Flags of an emit or broadcast.
 *
 * @example
 * io.volatile.compress(false).emit('tick', Date.now()); // flags of this broadcast
 */
export interface BroadcastFlags {
  volatile?: boolean;
  compress?: boolean;
  local?: boolean;
  broadcast?: boolean;
  binary?: boolean;
  timeout?: number;
  expectSingleResponse?: boolean;
}

/**
 * Who a broadcast reaches: members of `rooms` (every socket when empty) not in any room of `except`.
 *
 * @example
 * io.of('/').adapter.broadcast(packet, { rooms: new Set(['room']), except: new Set([socket.id]) });
 */
export interface BroadcastOptions {
  rooms: Set<string>;
  except?: Set<string>;
  flags?: BroadcastFlags;
}

/**
 * A Socket.IO packet (socket.io-parser's shape).
 *
 * @example
 * io.of('/').adapter.broadcast({ type: 2, nsp: '/', data: ['news', { id: 1 }] }, { rooms: new Set(), except: new Set() });
 */
export interface Packet {
  type: number;
  nsp: string;
  // biome-ignore lint/suspicious/noExplicitAny: event arguments
  data?: any;
  id?: number;
  attachments?: number;
}

/**
 * What `persistSession` stores for connection state recovery.
 *
 * @example
 * class MyAdapter extends Adapter {
 *   override persistSession(session: SessionToPersist) {
 *     sessions.set(session.pid, session);
 *   }
 * }
 */
export interface SessionToPersist {
  sid: string;
  pid: string;
  rooms: string[];
  // biome-ignore lint/suspicious/noExplicitAny: socket.data
  data: any;
}

/**
 * A restored session: the stored one and the packets the client missed.
 *
 * @example
 * class MyAdapter extends Adapter {
 *   override async restoreSession(pid: string, offset: string): Promise<Session | null> {
 *     return sessions.get(pid) ?? null;
 *   }
 * }
 */
export interface Session extends SessionToPersist {
  missedPackets: unknown[][];
}

/** Options of a write to the Engine.IO session (client.ts's writeToEngine). */
export interface WriteOptions {
  volatile?: boolean;
  compress?: boolean;
  preEncoded?: boolean;
  /** A broadcast's WebSocket frame, precomputed for 'packetCreate' listeners (socket.io-adapter's). */
  wsPreEncodedFrame?: Buffer[];
}

/** Names a socket may not emit (they are the socket's own events); broadcasts refuse them too. */
export const RESERVED_EVENTS: ReadonlySet<string> = new Set([
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'newListener',
  'removeListener',
]);

/**
 * Calls an application callback (listener, ack, middleware result) so that a throw is logged instead of escaping
 * into the engine or a timer: socket.io lets such errors crash the process; Gale keeps serving.
 */
export function safely(what: string, fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    console.error(`@gale-http/socket.io: ${what} threw`, err);
  }
}

/**
 * Runs middleware `fns` on `arg` in order, each with a `next(err?)` that only its first call counts: `done()` after the
 * last, `done(err)` at the first error passed or thrown. Namespace middleware (per connecting socket) and socket
 * middleware (per incoming packet) both run this way, as socket.io runs them.
 */
export function runMiddleware<A>(
  fns: readonly ((arg: A, next: (err?: Error) => void) => unknown)[],
  arg: A,
  done: (err?: Error) => void,
): void {
  if (fns.length === 0) {
    done();
    return;
  }
  const step = (i: number): void => {
    let called = false;
    try {
      (fns[i] as (arg: A, next: (err?: Error) => void) => unknown)(arg, (err) => {
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

/** A random id as socket.io's base64id makes them: 15 random bytes, base64url (20 characters). */
export function randomId(): string {
  return randomBytes(15).toString('base64url');
}
