// The Engine.IO v4 server on a Gale app (engine.io's Server): the routes at the Engine.IO path (long-polling
// requests and the WebSocket route), request checks with engine.io's error codes and answers, handshakes,
// CORS (the `cors` package, as engine.io), engine middlewares, the session cookie and the headers events.
import { EventEmitter } from 'node:events';
import { serialize as serializeCookie } from 'cookie';
import cors from 'cors';
import type { Request, Response, WebSocket } from 'gale';
import { App } from 'gale';
import { allowRequest, notAnApp, runMiddlewares } from './checks.js';
import {
  type EngineOptions,
  ERROR_MESSAGES,
  ERRORS,
  engineOptions,
  type Query,
  queryOf,
  type Refusal,
  randomId,
} from './options.js';
import { Polling } from './polling.js';
import { Socket } from './socket.js';
import type { Transport } from './transport.js';
import type { AttachOptions, EngineMiddleware, ServerOptions } from './types.js';
import { WsTransport } from './websocket.js';

/** What an accepted upgrade carries to the WebSocket's handlers. */
interface WsContext {
  req: Request;
  query: Query;
  transport: WsTransport | undefined;
}

/**
 * A raw Engine.IO v4 server (engine.io 6's `Server`) on a Gale app: `engine.io-client` (and socket.io-client
 * underneath Socket.IO) talks to it over HTTP long-polling and WebSocket. Emits 'connection' (a {@link Socket}),
 * 'connection_error', 'initial_headers', 'headers', 'flush' and 'drain' as engine.io does. `io.engine` in
 * @gale-http/socket.io is one of these.
 *
 * @example
 * import { gale } from 'gale';
 * import { Server } from '@gale-http/engine.io';
 *
 * const app = gale();
 * const engine = new Server({ pingInterval: 10_000, cors: { origin: 'https://app.example' } });
 * engine.attach(app, { path: '/engine.io' });
 * engine.on('connection', (socket) => {
 *   socket.on('message', (data) => socket.send(data)); // echo
 *   socket.on('close', (reason) => console.log(socket.id, 'closed:', reason));
 * });
 * engine.on('connection_error', (err) => console.log(err.code, err.message));
 * await app.listen(3000);
 */
export class Server extends EventEmitter {
  /** engine.io's error codes. */
  static readonly errors = ERRORS;
  /** The message of each error code. */
  static readonly errorMessages: Readonly<Record<number, string>> = { ...ERROR_MESSAGES };
  readonly opts: EngineOptions;
  /** Open sessions by id (a plain object, as engine.io's). */
  readonly clients: Record<string, Socket> = Object.create(null);
  /** The app this server is attached to (the one `listen()` made, for it). */
  httpServer: App | undefined;
  private count = 0;
  private readonly middlewares: EngineMiddleware[] = [];
  /** Whether the WebSocket transport has its route (see attach). */
  private wsRoute = false;

  constructor(opts: ServerOptions = {}) {
    super();
    this.opts = engineOptions(opts);
    // biome-ignore lint/suspicious/noExplicitAny: cors() takes node's req/res; Gale's have the members it uses
    if (opts.cors) this.use(cors(opts.cors as any) as unknown as EngineMiddleware);
  }

  /** How many sessions are open. */
  get clientsCount(): number {
    return this.count;
  }

  /** The open session `sid`, if any. */
  private client(sid: string): Socket | undefined {
    return Object.hasOwn(this.clients, sid) ? this.clients[sid] : undefined;
  }

  /**
   * Adds a `(req, res, next)` middleware run on every Engine.IO HTTP request and upgrade before its checks (as
   * engine.io's `use`); `next(err)` answers 400 (code 3).
   *
   * @example
   * engine.use((req, res, next) => (req.get('x-token') === secret ? next() : next(new Error('forbidden'))));
   */
  use(fn: EngineMiddleware): void {
    this.middlewares.push(fn);
  }

  /** Transports a session on `transport` may upgrade to. */
  upgrades(transport: string): string[] {
    if (!this.opts.allowUpgrades || transport !== 'polling' || !this.wsRoute) return [];
    return ['websocket'];
  }

  /**
   * The session id for a new session; override to choose your own (a string or a promise of one).
   *
   * @example
   * engine.generateId = (req) => `${req.get('x-node') ?? 'n0'}-${crypto.randomUUID()}`;
   */
  generateId(_req: Request): string | Promise<string> {
    return randomId();
  }

  /**
   * Puts the Engine.IO routes on a Gale app: the WebSocket route and the long-polling requests at `path`
   * ('/engine.io/' by default). Middleware the app declares before this call applies to them, as to any route.
   *
   * @example
   * const engine = new Server({ transports: ['websocket'] });
   * engine.attach(app, { path: '/live', addTrailingSlash: false });
   */
  attach(app: App, options: AttachOptions = {}): this {
    if (!(app instanceof App)) throw new TypeError(notAnApp(app));
    if (this.httpServer !== undefined)
      throw new Error('@gale-http/engine.io: this server is already attached to an app');
    this.httpServer = app;
    let path = (options.path ?? '/engine.io').replace(/\/$/, '');
    if (options.addTrailingSlash !== false) path += '/';
    const polling = this.opts.transports.includes('polling');
    // The engine routes upgrades and plain GETs of one path to different handlers, so long-polling and WebSocket
    // share the Engine.IO path as they do in engine.io.
    const websocket = this.opts.transports.includes('websocket');
    this.wsRoute = websocket;
    const http = (req: Request, res: Response): undefined => {
      this.handleRequest(req, res);
      return undefined;
    };
    if (websocket) {
      app.ws<WsContext | undefined>(path, {
        upgrade: (req, res) => this.onUpgradeRequest(req, res),
        open: (ws) => this.onWebSocket(ws),
        message: (ws, data, isBinary) => ws.data?.transport?.onData(isBinary ? data : data.toString()),
        close: (ws, code) => ws.data?.transport?.onWsClose(code),
        maxPayloadLength: this.opts.maxHttpBufferSize,
        // Engine.IO's own heartbeat decides liveness ('ping timeout'); the engine's idle timer stays off.
        idleTimeout: 0,
        sendPings: false,
        compression: this.opts.perMessageDeflate ? 'shared' : false,
        maxBackpressure: this.opts.maxBackpressure,
      });
      if (polling) app.get(path, http);
    }
    // Every other method (POST, OPTIONS preflights, and GET when the WebSocket route is not there) comes here.
    app.all(path, http);
    return this;
  }

  /**
   * engine.io's hook for node:http 'upgrade' events. Gale's engine accepts the WebSockets of the attached path
   * itself, so there is nothing to hand over: this throws, saying so.
   */
  handleUpgrade(..._args: unknown[]): never {
    throw new Error(
      '@gale-http/engine.io: handleUpgrade() is not needed: attach(app) gives the engine a WebSocket route at the path, ' +
        "and Gale's engine upgrades those requests itself",
    );
  }

  /** Checks a request (engine.io's verify); undefined when it may go on. */
  private verify(req: Request, query: Query, upgrade: boolean): Refusal | undefined {
    const transport = query.transport;
    if (transport !== 'polling' && transport !== 'websocket') return [ERRORS.UNKNOWN_TRANSPORT, { transport }];
    if (!this.opts.transports.includes(transport)) return [ERRORS.UNKNOWN_TRANSPORT, { transport }];
    const sid = query.sid;
    if (sid) {
      const client = this.client(sid);
      if (client === undefined || client._overdue()) return [ERRORS.UNKNOWN_SID, { sid }];
      const previousTransport = client.transport.name;
      if (!upgrade && previousTransport !== transport) {
        return [ERRORS.BAD_REQUEST, { name: 'TRANSPORT_MISMATCH', transport, previousTransport }];
      }
      const protocol = query.EIO === '4' ? 4 : 3;
      if (protocol !== client.protocol) {
        return [ERRORS.BAD_REQUEST, { name: 'PROTOCOL_MISMATCH', protocol, previousProtocol: client.protocol }];
      }
      return undefined;
    }
    if (req.method !== 'GET') return [ERRORS.BAD_HANDSHAKE_METHOD, { method: req.method }];
    if (transport === 'websocket' && !upgrade) return [ERRORS.BAD_REQUEST, { name: 'TRANSPORT_HANDSHAKE_ERROR' }];
    return undefined;
  }

  private refuse(req: Request, res: Response, [code, context]: Refusal, upgrade: boolean): void {
    this.emit('connection_error', { req, code, message: ERROR_MESSAGES[code], context });
    if (res.finished) return;
    if (res.headersSent) {
      // A middleware committed the response before it failed: end it as it is (engine.io does the same).
      res.end();
      return;
    }
    const message = context.message ? context.message : ERROR_MESSAGES[code];
    if (upgrade) {
      // engine.io answers a refused upgrade with a bare 400 and the message as text/html.
      res.status(400).header('Content-Type', 'text/html').end(message);
      return;
    }
    res
      .status(code === ERRORS.FORBIDDEN ? 403 : 400)
      .header('Content-Type', 'application/json')
      .end(JSON.stringify({ code, message }));
  }

  /**
   * An HTTP request at the Engine.IO path (polling, preflights, and every kind of bad request); attach() routes
   * them here. Call it yourself from a route of your own to serve Engine.IO at a path attach() does not cover.
   *
   * @example
   * app.all('/custom/engine.io/', (req, res) => engine.handleRequest(req, res));
   */
  handleRequest(req: Request, res: Response): void {
    const query = queryOf(req);
    runMiddlewares(this.middlewares, req, res, (err) => {
      if (err !== undefined) {
        this.refuse(req, res, [ERRORS.BAD_REQUEST, { name: 'MIDDLEWARE_FAILURE' }], false);
        return;
      }
      const refusal = this.verify(req, query, false);
      if (refusal !== undefined) {
        this.refuse(req, res, refusal, false);
        return;
      }
      const sid = query.sid;
      if (sid) {
        // verify() found the session and checked that it is on polling.
        ((this.client(sid) as Socket).transport as Polling).onRequest(req, res);
        return;
      }
      const allowed = query.sid ? undefined : allowRequest(this.opts.allowRequest, req);
      if (allowed === undefined) this.handshake(req, res, query, undefined);
      else
        allowed.then((r) => {
          if (r === undefined) this.handshake(req, res, query, undefined);
          else this.refuse(req, res, r, false);
        });
    });
  }

  /**
   * The WebSocket route's upgrade step: the engine middlewares, then the same checks as for HTTP requests, refused
   * with a 400 before the 101. A second WebSocket for a session that is upgrading or upgraded is accepted and then
   * closed (onWebSocket), as engine.io does.
   */
  private onUpgradeRequest(req: Request, res: Response): WsContext | undefined | Promise<WsContext | undefined> {
    if (this.middlewares.length === 0) return this.checkUpgrade(req, res);
    return new Promise((resolve) => {
      // A middleware that answers the request itself (instead of calling next) ends the upgrade.
      const answered = (): void => resolve(undefined);
      res.once('close', answered);
      runMiddlewares(this.middlewares, req, res, (err) => {
        res.off('close', answered);
        if (err === undefined) {
          resolve(this.checkUpgrade(req, res));
          return;
        }
        this.refuse(req, res, [ERRORS.BAD_REQUEST, { name: 'MIDDLEWARE_FAILURE' }], true);
        resolve(undefined);
      });
    });
  }

  private checkUpgrade(req: Request, res: Response): WsContext | undefined | Promise<WsContext | undefined> {
    const query = queryOf(req);
    let refusal = this.verify(req, query, true);
    if (refusal === undefined && query.transport !== 'websocket') {
      refusal = [ERRORS.BAD_REQUEST, { name: 'TRANSPORT_HANDSHAKE_ERROR' }];
    }
    if (refusal === undefined && !query.sid && query.EIO !== '4') {
      refusal = [ERRORS.UNSUPPORTED_PROTOCOL_VERSION, { protocol: 3 }];
    }
    if (refusal !== undefined) {
      this.refuse(req, res, refusal, true);
      return undefined;
    }
    const ctx: WsContext = { req, query, transport: undefined };
    // Read now what the session keeps (the request's fields stay readable after the upgrade).
    void req.headers;
    void req.remoteAddress;
    const allowed = query.sid ? undefined : allowRequest(this.opts.allowRequest, req);
    if (allowed === undefined) return ctx;
    return allowed.then((r) => {
      if (r === undefined) return ctx;
      this.refuse(req, res, r, true);
      return undefined;
    });
  }

  private onWebSocket(ws: WebSocket<WsContext | undefined>): void {
    const ctx = ws.data;
    if (ctx === undefined) return; // not accepted (refused in upgrade)
    const transport = new WsTransport(ws);
    ctx.transport = transport;
    const sid = ctx.query.sid;
    if (!sid) {
      this.handshake(ctx.req, undefined, ctx.query, transport);
      return;
    }
    const client = this.client(sid);
    if (client === undefined || client.upgrading || client.upgraded) {
      ws.close();
      return;
    }
    client._maybeUpgrade(transport);
  }

  /** A new session on `transport` (polling when `res` is the handshake GET's response). */
  private handshake(req: Request, res: Response | undefined, query: Query, ws: WsTransport | undefined): void {
    if (query.EIO !== '4') {
      // Engine.IO v3 (or no EIO): socket.io refuses it unless allowEIO3, which this server does not offer.
      if (res !== undefined) this.refuse(req, res, [ERRORS.UNSUPPORTED_PROTOCOL_VERSION, { protocol: 3 }], false);
      else ws?.close();
      return;
    }
    const id = this.generateId(req);
    if (typeof id !== 'string') {
      id.then(
        (sid) => this.open(sid, req, res, ws),
        (error: unknown) => {
          if (res !== undefined) {
            this.refuse(req, res, [ERRORS.BAD_REQUEST, { name: 'ID_GENERATION_ERROR', error }], false);
          } else ws?.close();
        },
      );
      return;
    }
    this.open(id, req, res, ws);
  }

  private open(id: string, req: Request, res: Response | undefined, ws: WsTransport | undefined): void {
    if (res?.finished || (ws !== undefined && ws.readyState !== 'open')) return;
    let transport: Transport;
    if (ws !== undefined) transport = ws;
    else {
      transport = new Polling({
        maxHttpBufferSize: this.opts.maxHttpBufferSize,
        httpRequestBodyTimeout: this.opts.httpRequestBodyTimeout,
        httpCompression: this.opts.httpCompression,
        headers: (headers, r) => this.onHeaders(headers, r, id),
      });
    }
    const socket = new Socket(id, this, transport, req);
    this.clients[id] = socket;
    this.count++;
    socket.once('close', () => {
      delete this.clients[id];
      this.count--;
    });
    if (res !== undefined) (transport as Polling).onRequest(req, res);
    this.emit('connection', socket);
  }

  /** Response headers of a polling answer: the session cookie on the first, then the headers events. */
  private onHeaders(headers: Record<string, string | string[]>, req: Request, sid: string): void {
    if (!queryOf(req).sid) {
      const c = this.opts.cookie;
      if (c !== undefined) {
        const { name, ...options } = c;
        headers['Set-Cookie'] = [serializeCookie(name, sid, options as Parameters<typeof serializeCookie>[2])];
      }
      this.emit('initial_headers', headers, req);
    }
    this.emit('headers', headers, req);
  }

  /**
   * Closes every session ('forced close'), as engine.io's close(); the app keeps serving (close it with
   * `app.close()`, or `engine.httpServer.close()` after listen()).
   *
   * @example
   * process.on('SIGTERM', async () => {
   *   engine.close();
   *   await app.close();
   * });
   */
  close(): this {
    for (const client of Object.values(this.clients)) client.close(true);
    return this;
  }
}
