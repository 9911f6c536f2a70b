// `fastWs(behaviour)`: a Gale WebSocket route that speaks the fast-ws protocol, for `app.ws(path, fastWs({ open }))`.
// Builds on fastWsHandlers (server.ts) and Gale's public WsBehavior: the subprotocol is required, limits and
// compression are the route's.
import type { WebSocket, WsBehavior } from 'gale';
import { type FastWsConnection, type FastWsConnectionOptions, fastWsHandlers } from './server.js';

/**
 * A fast-ws route: `open(client, ws)` registers event listeners on the protocol connection. The other fields are
 * Gale's WebSocket route options (limits, compression, `upgrade`).
 *
 * @example
 * import { gale } from 'gale';
 * import { fastWs } from '@gale-http/fast-ws';
 * const app = gale();
 * app.ws('/fws', fastWs({ open: (client) => client.on('echo', (evt) => evt.reply(evt.data)) }));
 */
export interface FastWsBehavior<D = unknown>
  extends Omit<WsBehavior<D>, 'open' | 'message' | 'protocols' | 'close' | 'protocol' | 'nativeAccept'> {
  /** The socket is open and greeted: register `client.on(event, …)` listeners here. */
  open?(client: FastWsConnection, ws: WebSocket<D>): unknown;
  /** The connection ended. */
  close?(ws: WebSocket<D>, code: number, reason: string): unknown;
  /** Value codec options (replicator). */
  fastWs?: FastWsConnectionOptions;
}

/**
 * Turns a fast-ws behaviour into the WebSocket behaviour `app.ws(path, …)` takes. Clients must offer the
 * `fast-ws` subprotocol (others get 400).
 *
 * @example
 * app.ws('/fws', fastWs({ maxPayloadLength: 64 * 1024, open: (client) => client.on('ping', (e) => e.reply('pong')) }));
 */
export function fastWs<D = unknown>(behavior: FastWsBehavior<D>): WsBehavior<D> {
  const { open, close, fastWs: options, ...rest } = behavior;
  const h = fastWsHandlers<WebSocket<D>>((conn, ws) => open?.(conn, ws), options);
  return {
    ...rest,
    protocols: (offered) => (offered.includes('fast-ws') ? 'fast-ws' : false),
    open: (ws) => h.open(ws),
    message: (ws, data, isBinary) => h.message(ws, data, isBinary),
    close: (ws, code, reason) => {
      h.close(ws, code, reason);
      return close?.(ws, code, reason);
    },
  };
}
