// Public entry of `@gale-http/engine.io`: a raw Engine.IO v4 server with engine.io 6's API (attach, listen, Server, Socket)
// on a Gale app. @gale-http/socket.io is built on it. Moves to the package @gale-http/engine.io in the package split.
/**
 * `@gale-http/engine.io`: a raw Engine.IO v4 server on a Gale app, with the `engine.io` package's API; the real
 * `engine.io-client` talks to it over HTTP long-polling and WebSocket.
 *
 * @example
 * import { gale } from 'gale';
 * import { attach } from '@gale-http/engine.io';
 *
 * const app = gale();
 * const engine = attach(app, { pingInterval: 10_000, cors: { origin: '*' } });
 * engine.on('connection', (socket) => {
 *   socket.send('hello');
 *   socket.on('message', (data) => socket.send(data));
 * });
 * await app.listen(3000);
 *
 * @module @gale-http/engine.io
 */
import type { Server as HttpServer } from 'node:http';
import * as parserModule from 'engine.io-parser';
import { App } from 'gale';
import { Polling } from './polling.js';
import { Server } from './server.js';
import type { AttachOptions, ServerOptions } from './types.js';
import { WsTransport } from './websocket.js';

export { Server } from './server.js';
export { Socket } from './socket.js';
export { Transport } from './transport.js';
export type {
  AttachOptions,
  EngineCookieOptions,
  EngineMiddleware,
  HttpRequest,
  HttpResponse,
  Message,
  SendOptions,
  ServerOptions,
  TransportName,
} from './types.js';
export { NodeWsTransport, WebSocketTransport } from './websocket.js';
export { WebTransportTransport } from './webtransport.js';
export { Polling, WsTransport };

/**
 * engine.io-parser, the packet and payload codec (engine.io exports it as `parser`).
 *
 * @example
 * parser.encodePacket({ type: 'message', data: 'hi' }, false, (encoded) => console.log(encoded)); // '4hi'
 */
export const parser: typeof parserModule = parserModule;

/**
 * The Engine.IO protocol revision this server speaks.
 *
 * @example
 * console.log(`Engine.IO v${protocol}`); // Engine.IO v4
 */
export const protocol = 4;

/**
 * The transport classes by name, as engine.io's `transports`.
 *
 * @example
 * engine.on('connection', (socket) => console.log(socket.transport instanceof transports.polling));
 */
export const transports = { polling: Polling, websocket: WsTransport } as const;

/**
 * Creates an Engine.IO server and attaches it to a Gale app or a node:http(s) server (engine.io's
 * `attach(httpServer, options)`).
 *
 * @example
 * const app = gale();
 * const engine = attach(app, { path: '/engine.io', pingTimeout: 5000 });
 * engine.on('connection', (socket) => socket.on('message', (data) => socket.send(data)));
 * await app.listen(3000);
 */
export function attach(app: App | HttpServer, options: AttachOptions & ServerOptions = {}): Server {
  const engine = new Server(options);
  engine.attach(app, options);
  return engine;
}

/**
 * Creates a Gale app that only serves Engine.IO (other requests get 501, as engine.io's), attaches a server to it
 * and listens on `port`; `engine.httpServer` is the app. `callback` runs once it listens. A failure to listen
 * (EADDRINUSE, …) is emitted as the server's 'error', or thrown when nothing listens for it, as node:http does.
 *
 * @example
 * const engine = listen(3000, { cors: { origin: '*' } }, () => console.log('listening'));
 * engine.on('connection', (socket) => socket.send('hi'));
 * // later: engine.close(); await engine.httpServer?.close();
 */
export function listen(
  port: number,
  options?: (AttachOptions & ServerOptions) | (() => void),
  callback?: () => void,
): Server {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  const app = new App();
  app.notFound((_req, res) => {
    res.status(501).send('Not Implemented');
  });
  const engine = attach(app, options);
  app.listen(port).then(
    () => callback?.(),
    (err: unknown) => {
      const error = new Error(
        `@gale-http/engine.io: cannot listen on port ${port}: ${(err as Error)?.message ?? err}`,
        {
          cause: err,
        },
      );
      if (engine.listenerCount('error') > 0) engine.emit('error', error);
      else
        process.nextTick(() => {
          throw error;
        });
    },
  );
  return engine;
}
