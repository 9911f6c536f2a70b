// Types shared by gale/socket.io's Engine.IO and Socket.IO layers: server options (socket.io 4's names and
// defaults), the handshake, broadcast options and sessions (socket.io-adapter's shapes). No runtime code but ids.
import { randomBytes } from 'node:crypto';
import type { CorsOptions, CorsOptionsDelegate } from 'cors';
import type { Request } from '../request.js';
import type { Response } from '../response.js';

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
 * A `(req, res, next)` middleware for Engine.IO's HTTP requests (`io.engine.use`).
 *
 * @example
 * io.engine.use((req, res, next) => (req.headers.cookie ? next() : next(new Error('no cookie'))));
 */
export type EngineMiddleware = (req: Request, res: Response, next: (err?: unknown) => void) => void;

/**
 * `cookie` option: the Engine.IO session id as a cookie on the handshake response.
 *
 * @example
 * const io = new Server(app, { cookie: { name: 'io', httpOnly: true, sameSite: 'strict' } });
 */
export interface EngineCookieOptions {
  name?: string;
  path?: string | false;
  httpOnly?: boolean;
  sameSite?: boolean | 'lax' | 'strict' | 'none';
  secure?: boolean;
  domain?: string;
  maxAge?: number;
  expires?: Date;
}

/**
 * Options of `new Server(app, options)`, with socket.io 4's names and defaults.
 *
 * @example
 * const io = new Server(app, { path: '/socket.io', pingInterval: 25_000, cors: { origin: 'https://app.example' }, maxHttpBufferSize: 1e6 });
 */
export interface ServerOptions {
  /** URL path of the Engine.IO endpoint. Default '/socket.io'. */
  path?: string;
  /** Keep a trailing slash on `path` (as socket.io: '/socket.io/'). Default true. */
  addTrailingSlash?: boolean;
  /** Transports clients may use. Default ['polling', 'websocket']. */
  transports?: ('polling' | 'websocket')[];
  /** Let polling clients upgrade to WebSocket. Default true. */
  allowUpgrades?: boolean;
  /** ms between server pings. Default 25 000. */
  pingInterval?: number;
  /** ms to wait for the pong before closing with 'ping timeout'. Default 20 000. */
  pingTimeout?: number;
  /** ms a started upgrade may take. Default 10 000. */
  upgradeTimeout?: number;
  /** Largest message (WebSocket) or POST body (polling) in bytes. Default 1e6. */
  maxHttpBufferSize?: number;
  /** Decide whether a handshake or upgrade is allowed: `callback(errMessage, success)`. */
  allowRequest?: (req: Request, callback: (err: string | null | undefined, success: boolean) => void) => void;
  /** Engine.IO v3 clients are refused (code 5), as socket.io does without `allowEIO3`; only false is supported. */
  allowEIO3?: false;
  /** CORS for the polling requests, as socket.io's `cors` option (the `cors` package's options). */
  cors?: CorsOptions | CorsOptionsDelegate<never> | boolean;
  /** Send the session id as a cookie on the handshake (true: name 'io', path '/', httpOnly, SameSite=Lax). */
  cookie?: boolean | EngineCookieOptions;
  /** gzip/deflate polling responses of at least `threshold` bytes (false: never). Default { threshold: 1024 }. */
  httpCompression?: boolean | { threshold?: number; level?: number };
  /** permessage-deflate on the WebSocket transport (the engine's shared compressor). Default false. */
  perMessageDeflate?: boolean;
  /** A message sent right after the open packet. */
  initialPacket?: string;
  /** ms a connection may stay without joining a namespace. Default 45 000. */
  connectTimeout?: number;
  /** The adapter class (rooms and broadcasts); default {@link Adapter}, or SessionAwareAdapter with recovery. */
  adapter?: AdapterConstructor;
  /** Connection state recovery (socket.io ≥ 4.6): missed packets and rooms restored after a short disconnection. */
  connectionStateRecovery?: { maxDisconnectionDuration?: number; skipMiddlewares?: boolean };
  /** Remove dynamic child namespaces once their last socket leaves. Default false. */
  cleanupEmptyChildNamespaces?: boolean;
  /** Serving the browser bundle is not supported (socket.io's default is true); accepted and ignored. */
  serveClient?: boolean;
  /** WebSocket: bytes buffered per socket above which sends are dropped (the engine's policy). Default 1 MiB. */
  maxBackpressure?: number;
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

/** @internal what an adapter is constructed with (a Namespace; typed loosely to avoid a cycle) */
// biome-ignore lint/suspicious/noExplicitAny: the namespace type lives in namespace.ts
export type AdapterConstructor = new (nsp: any) => any;

/**
 * Calls an application callback (listener, ack, middleware result) so that a throw is logged instead of escaping
 * into the engine or a timer: socket.io lets such errors crash the process; Gale keeps serving.
 */
export function safely(what: string, fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    console.error(`gale/socket.io: ${what} threw`, err);
  }
}

/** A random id as socket.io's base64id makes them: 15 random bytes, base64url (20 characters). */
export function randomId(): string {
  return randomBytes(15).toString('base64url');
}
