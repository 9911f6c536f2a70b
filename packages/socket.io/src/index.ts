// Public entry of `@gale-http/socket.io`: a Socket.IO 4 server (Engine.IO v4 / Socket.IO v5) on a Gale app.
/**
 * `@gale-http/socket.io`: a Socket.IO 4 server on a Gale app; the real `socket.io-client` talks to it.
 *
 * @example
 * import { gale } from 'gale';
 * import { Server } from '@gale-http/socket.io';
 * const app = gale();
 * const io = new Server(app);
 * io.on('connection', (socket) => socket.on('ping', (ack) => ack('pong')));
 * await app.listen(3000);
 *
 * @module @gale-http/socket.io
 */

export type { Server as EngineServer, Socket as EioSocket } from '@gale-http/engine.io';
export { Adapter } from './adapter.js';
export type { RemoteDetails } from './broadcast.js';
export { BroadcastOperator, RemoteSocket } from './broadcast.js';
export type { Client, ClientServer } from './client.js';
export type {
  AdapterConstructor,
  AdapterLike,
  NamespaceMiddleware,
  NamespaceReservedEventsMap,
  NamespaceServer,
} from './namespace.js';
export { Namespace, ParentNamespace } from './namespace.js';
export type { RedisAdapterOptions } from './redis-adapter.js';
export { createRedisAdapter, RedisAdapter } from './redis-adapter.js';
export type {
  AttachTarget,
  GaleExpressServer,
  NamespaceMatcher,
  ServerOptions,
  ServerReservedEventsMap,
} from './server.js';
export { Server } from './server.js';
export { SessionAwareAdapter } from './session-adapter.js';
export type { SocketClient, SocketNamespace } from './socket.js';
export { Socket } from './socket.js';
export type {
  AllButLast,
  DecorateAcknowledgements,
  DecorateAcknowledgementsWithMultipleResponses,
  DecorateAcknowledgementsWithTimeoutAndMultipleResponses,
  DefaultEventsMap,
  Event,
  EventNames,
  EventNamesWithAck,
  EventNamesWithError,
  EventNamesWithoutAck,
  EventParams,
  EventsMap,
  ExtendedError,
  FirstNonErrorArg,
  Last,
  RemoveAcknowledgements,
  ReservedOrUserEventNames,
  ReservedOrUserListener,
  SocketReservedEventsMap,
} from './typed-events.js';
export type {
  BroadcastFlags,
  BroadcastOptions,
  DisconnectReason,
  EngineCookieOptions,
  EngineMiddleware,
  Handshake,
  Listener,
  Packet,
  PacketMiddleware,
  Session,
  SessionToPersist,
} from './types.js';
export type { AdapterNamespace, AdapterSocket, ServerView } from './views.js';
