// Public entry of @gale-http/fast-ws: the fast-ws protocol (events with replies over one WebSocket, the fastWS
// wire format) on Gale: `fastWs()` for `app.ws` routes, the connection class, and the codec helpers.
/**
 * @gale-http/fast-ws: the fast-ws event/reply protocol on Gale's WebSockets. The browser and Node client is
 * `@gale-http/fast-ws/client`.
 *
 * @example
 * import { gale } from 'gale';
 * import { fastWs } from '@gale-http/fast-ws';
 * const app = gale();
 * app.ws('/fws', fastWs({ open: (client) => client.on('echo', (evt) => evt.reply(evt.data)) }));
 * await app.listen(3000);
 *
 * @module @gale-http/fast-ws
 */
export { eventId, serverEventFrame } from './codec.js';
export type { FastWsBehavior } from './route.js';
export { fastWs } from './route.js';
export type {
  FastWsConnectionOptions,
  FastWsEvent,
  FastWsHandlers,
  FastWsLifecycle,
  FastWsListener,
  RawSocket,
} from './server.js';
export { FastWsConnection, fastWsHandlers } from './server.js';
