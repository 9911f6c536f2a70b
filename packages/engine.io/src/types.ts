// The options of @gale-http/engine.io's Server and attach(), with engine.io 6's names and defaults, the middleware and
// cookie shapes, and what a session needs and sends. Types only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CorsOptions, CorsOptionsDelegate } from 'cors';
import type { Request, Response } from 'gale';
import type { Transport } from './transport.js';

/**
 * The transports a session may use.
 *
 * @example
 * const only: TransportName[] = ['websocket'];
 * attach(app, { transports: only });
 */
export type TransportName = 'polling' | 'websocket' | 'webtransport';

/**
 * The request of an Engine.IO handshake or HTTP request as middlewares, `allowRequest`, 'connection_error' and
 * `socket.request` see it: Gale's Request on a Gale app, node's IncomingMessage on a node:http server. Both have
 * `headers`, `url` and `method`.
 *
 * @example
 * engine.on('connection', (socket) => console.log(socket.request.headers['user-agent']));
 */
export type HttpRequest = Request | IncomingMessage;

/**
 * The response an engine middleware gets: Gale's Response on a Gale app, node's ServerResponse on a node:http server.
 *
 * @example
 * engine.use((req, res, next) => { res.setHeader('x-realtime', '1'); next(); });
 */
export type HttpResponse = Response | ServerResponse;

/**
 * A `(req, res, next)` middleware for Engine.IO's HTTP requests (`engine.use`); `next(err)` refuses the request
 * (400, code 3). Written for Gale's Request and Response or for node's (express-session, helmet …): the server gives
 * it the kind it runs on.
 *
 * @example
 * engine.use((req, res, next) => (req.headers.cookie ? next() : next(new Error('no cookie'))));
 */
export type EngineMiddleware = {
  // A method's parameters are bivariant: a middleware typed for either kind of request is accepted.
  bivariant(req: HttpRequest, res: HttpResponse, next: (err?: unknown) => void): void | Promise<void>;
}['bivariant'];

/**
 * `cookie` option: the Engine.IO session id as a cookie on the handshake response.
 *
 * @example
 * const engine = new Server({ cookie: { name: 'io', httpOnly: true, sameSite: 'strict' } });
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
 * Options of `new Server(options)` (and of `attach`/`listen`), with engine.io 6's names and defaults.
 *
 * @example
 * const engine = new Server({ pingInterval: 25_000, pingTimeout: 20_000, maxHttpBufferSize: 1e6, cors: { origin: '*' } });
 */
export interface ServerOptions {
  /** ms between server pings. Default 25 000. */
  pingInterval?: number;
  /** ms to wait for the pong before closing with 'ping timeout'. Default 20 000. */
  pingTimeout?: number;
  /** ms a started upgrade may take. Default 10 000. */
  upgradeTimeout?: number;
  /** Largest message (WebSocket) or POST body (polling) in bytes; a bigger one ends the session. Default 1e6. */
  maxHttpBufferSize?: number;
  /** ms a polling POST body may take to arrive; a slower one gets 408 and ends the session. Default 30 000. */
  httpRequestBodyTimeout?: number;
  /** Accepted and ignored: the engine reads request bodies itself, not as a list of chunks. */
  maxBufferedChunks?: number;
  /**
   * Decides whether a handshake is allowed: `callback(errMessage, success)`. It gets Gale's Request on a Gale app,
   * node's IncomingMessage on a node:http server.
   */
  allowRequest?: {
    bivariant(req: HttpRequest, callback: (err: string | null | undefined, success: boolean) => void): void;
  }['bivariant'];
  /** Transports clients may use. Default ['polling', 'websocket'] ('webtransport' is not offered). */
  transports?: TransportName[];
  /** Let polling clients upgrade to WebSocket. Default true. */
  allowUpgrades?: boolean;
  /** permessage-deflate on the WebSocket transport (the engine's shared compressor; an object counts as true). */
  perMessageDeflate?: boolean | Record<string, unknown>;
  /** gzip/deflate polling responses of at least `threshold` bytes (false: never). Default { threshold: 1024 }. */
  httpCompression?: boolean | { threshold?: number; level?: number };
  /**
   * On a node:http server, the WebSocket server class to upgrade with instead of the `ws` library's (engine.io's
   * option, e.g. eiows); on a Gale app the engine serves the WebSockets and this is ignored.
   */
  wsEngine?: unknown;
  /** A message sent right after the open packet. */
  initialPacket?: string;
  /** Send the session id as a cookie on the handshake (true: name 'io', path '/', httpOnly, SameSite=Lax). */
  cookie?: boolean | EngineCookieOptions;
  /** CORS for the polling requests (the `cors` package's options, as engine.io). */
  cors?: CorsOptions | CorsOptionsDelegate<never> | boolean;
  /** Engine.IO v3 clients are refused (code 5), as engine.io does without `allowEIO3`; only false is supported. */
  allowEIO3?: false;
  /** WebSocket: bytes buffered per socket above which sends are dropped (the engine's policy). Default 1 MiB. */
  maxBackpressure?: number;
}

/**
 * Options of `server.attach(app, options)`, as engine.io's AttachOptions.
 *
 * @example
 * engine.attach(app, { path: '/realtime', addTrailingSlash: false });
 */
export interface AttachOptions {
  /** URL path of the Engine.IO endpoint. Default '/engine.io'. */
  path?: string;
  /** Keep a trailing slash on `path` ('/engine.io/'). Default true. */
  addTrailingSlash?: boolean;
  /**
   * On a node:http server: end an upgrade to another path that no other 'upgrade' listener answered within
   * `destroyUpgradeTimeout` ms. Default true. (On a Gale app, upgrades to other paths are the app's.)
   */
  destroyUpgrade?: boolean;
  /** See destroyUpgrade. Default 1000. */
  destroyUpgradeTimeout?: number;
}

/** What a session needs from its server. */
export interface SessionHost {
  readonly opts: {
    pingInterval: number;
    pingTimeout: number;
    upgradeTimeout: number;
    maxHttpBufferSize: number;
    initialPacket?: string;
  };
  /** Transports this session may upgrade to from `transport`. */
  upgrades(transport: string): string[];
  /** The server's 'flush' and 'drain' events (engine.io emits them for every session). */
  emit(event: 'flush' | 'drain', ...args: unknown[]): boolean;
  listenerCount(event: 'flush' | 'drain'): number;
}

/** Called after a batch of packets went out (conn.send's callback). */
export type SendCallback = (transport: Transport) => void;

/**
 * Options of `socket.send(data, options)`.
 *
 * @example
 * socket.send(bigText, { compress: false });
 */
export interface SendOptions {
  /** Compress this message (permessage-deflate or HTTP compression, when the server has them on). Default true. */
  compress?: boolean;
}

/**
 * What `socket.send` takes: text, or binary data.
 *
 * @example
 * const reply: Message = Buffer.from([1, 2, 3]);
 * socket.send(reply);
 */
export type Message = string | Buffer | ArrayBuffer | ArrayBufferView;
