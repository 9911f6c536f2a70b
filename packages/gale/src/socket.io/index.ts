// Public entry of `gale/socket.io`: a Socket.IO 4 server (Engine.IO v4 / Socket.IO v5) on a Gale app.
/**
 * `gale/socket.io`: a Socket.IO 4 server on a Gale app; the real `socket.io-client` talks to it.
 *
 * @example
 * import { gale } from 'gale';
 * import { Server } from 'gale/socket.io';
 * const app = gale();
 * const io = new Server(app);
 * io.on('connection', (socket) => socket.on('ping', (ack) => ack('pong')));
 * await app.listen(3000);
 *
 * @module gale/socket.io
 */
export { Adapter } from './adapter.js';
export type { RemoteDetails } from './broadcast.js';
export { BroadcastOperator, RemoteSocket } from './broadcast.js';
export type { Client } from './client.js';
export type { EngineServer } from './eio/server.js';
export type { EioSocket } from './eio/socket.js';
export type { NamespaceMiddleware } from './namespace.js';
export { Namespace, ParentNamespace } from './namespace.js';
export type { RedisAdapterOptions } from './redis-adapter.js';
export { createRedisAdapter, RedisAdapter } from './redis-adapter.js';
export type { NamespaceMatcher } from './server.js';
export { Server } from './server.js';
export { SessionAwareAdapter } from './session-adapter.js';
export type { DisconnectReason, PacketMiddleware } from './socket.js';
export { Socket } from './socket.js';
export type {
  BroadcastFlags,
  BroadcastOptions,
  EngineCookieOptions,
  EngineMiddleware,
  Handshake,
  Listener,
  Packet,
  ServerOptions,
  Session,
  SessionToPersist,
} from './types.js';
