// The Engine.IO v4 server (engine.io's Server), on a Gale app (its routes at the Engine.IO path, WebSockets on the
// engine) or on a node:http(s) server (node-http.ts: its request and upgrade events, WebSockets through `ws`):
// request checks with engine.io's error codes and answers, handshakes, CORS (the `cors` package, as engine.io),
// engine middlewares, the session cookie and the headers events.
// Over 400 lines: it is engine.io's Server class, and its two request paths, Gale routes (onUpgradeRequest,
// checkUpgrade, onWebSocket) and node:http events (handleRequest, handleUpgrade, wsServer), share the private checks,
// refusals and session table (verify, refuse, handshake, open, clients), so they stay on one class as in engine.io.
import { EventEmitter } from 'node:events';
import { type Server as HttpServer, IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { serialize as serializeCookie } from 'cookie';
import cors from 'cors';
import type { Request, Response, WebSocket, WebTransportSession, WebTransportStream } from 'gale';
import { App, WebTransportBidiStream } from 'gale';
import { WebSocketServer } from 'ws';
import { allowRequest, notAnApp, runMiddlewares } from './checks.js';
import {
  attachToNodeServer,
  type EngineRequest,
  type EngineResponse,
  isNodeServer,
  NodeRequest,
  NodeResponse,
  refuseUpgrade,
  UpgradeResponse,
} from './node-http.js';
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
import type { AttachOptions, EngineMiddleware, HttpRequest, HttpResponse, ServerOptions } from './types.js';
import { NodeWsTransport, type WebSocketTransport, WsTransport } from './websocket.js';
import { WebTransportTransport } from './webtransport.js';

/** The Engine.IO routes' options: a long-poll waits for news as long as the heartbeat allows, not handlerTimeout. */
const LONG_POLL = { handlerTimeout: false } as const;

/** What an accepted upgrade carries to the WebSocket's handlers. */
interface WsContext {
  req: Request;
  query: Query;
  transport: WsTransport | undefined;
}

/** What an accepted WebTransport session carries to its stream handler. */
type WtContext = Omit<WsContext, 'transport'> & { transport: WebTransportTransport | undefined };

/** The request a middleware, `allowRequest` and `socket.request` get: node's own on a node:http server. */
function rawOf(req: EngineRequest): HttpRequest {
  return req instanceof NodeRequest ? req.raw : (req as unknown as Request);
}

/**
 * A raw Engine.IO v4 server (engine.io 6's `Server`) on a Gale app or a node:http server: `engine.io-client` (and
 * socket.io-client underneath Socket.IO) talks to it over HTTP long-polling and WebSocket. Emits 'connection' (a
 * {@link Socket}), 'connection_error', 'initial_headers', 'headers', 'flush' and 'drain' as engine.io does.
 * `io.engine` in @gale-http/socket.io is one of these. On a Gale app the engine serves its WebSockets; on a node:http
 * server they go through the `ws` library, as in engine.io.
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
  /** The options, with engine.io's defaults filled in. */
  opts: EngineOptions;
  /** Open sessions by id (a plain object, as engine.io's). */
  readonly clients: Record<string, Socket> = Object.create(null);
  /** The app or node:http server this server is attached to (the app `listen()` made, for it). */
  httpServer: App | HttpServer | undefined;
  private count = 0;
  private readonly middlewares: EngineMiddleware[] = [];
  /** Whether the WebSocket transport has its route (see attach). */
  private wsRoute = false;
  /** Whether the WebTransport transport has its route (a Gale app with `webtransport` in `transports`). */
  private wtRoute = false;
  /** The `ws` server that upgrades node:http requests (made on the first one). */
  private wss: WebSocketServer | undefined;

  constructor(opts: ServerOptions = {}) {
    super();
    this.opts = engineOptions(opts);
    // biome-ignore lint/suspicious/noExplicitAny: cors() takes node's req/res; Gale's have the members it uses
    if (opts.cors) this.use(cors(opts.cors as any) as unknown as EngineMiddleware);
  }

  /**
   * Sets options again (engine.io's options of `attach()`, merged by the caller): for the sessions opened from now
   * on. `cors` stays as the constructor set it.
   *
   * @example
   * engine.configure({ pingInterval: 20_000 });
   */
  configure(opts: ServerOptions): this {
    this.opts = engineOptions(opts);
    return this;
  }

  /**
   * Forgets what it was attached to, so that `attach()` may be called again (after the app or server it was on
   * closed: its routes or listeners stay there).
   *
   * @example
   * engine.close();
   * await app.close();
   * engine.detach().attach(otherApp);
   */
  detach(): this {
    this.httpServer = undefined;
    return this;
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
   * engine.io's `use`); `next(err)` answers 400 (code 3). It gets Gale's Request and Response on a Gale app, node's
   * IncomingMessage and ServerResponse on a node:http server.
   *
   * @example
   * engine.use((req, res, next) => (req.headers['x-token'] === secret ? next() : next(new Error('forbidden'))));
   */
  use(fn: EngineMiddleware): void {
    this.middlewares.push(fn);
  }

  /** Transports a session on `transport` may upgrade to. */
  upgrades(transport: string): string[] {
    if (!this.opts.allowUpgrades || transport !== 'polling') return [];
    const to: string[] = [];
    if (this.wsRoute) to.push('websocket');
    if (this.wtRoute) to.push('webtransport');
    return to;
  }

  /**
   * The session id for a new session; override to choose your own (a string or a promise of one).
   *
   * @example
   * engine.generateId = (req) => `${req.headers['x-node'] ?? 'n0'}-${crypto.randomUUID()}`;
   */
  generateId(_req: HttpRequest): string | Promise<string> {
    return randomId();
  }

  /**
   * Serves Engine.IO at `path` ('/engine.io/' by default): on a Gale app, as its routes (middleware the app
   * declares before this call applies to them, as to any route); on a node:http or node:https server, on its
   * 'request' and 'upgrade' events, as engine.io does — requests whose URL starts with the path are Engine.IO's,
   * the server's other listeners keep the rest.
   *
   * @example
   * const engine = new Server({ transports: ['websocket'] });
   * engine.attach(app, { path: '/live', addTrailingSlash: false });
   */
  attach(target: App | HttpServer, options: AttachOptions = {}): this {
    if (this.httpServer !== undefined)
      throw new Error('@gale-http/engine.io: this server is already attached to an app');
    let path = (options.path ?? '/engine.io').replace(/\/$/, '');
    if (options.addTrailingSlash !== false) path += '/';
    const websocket = this.opts.transports.includes('websocket');
    const galeApp = (target as { galeApp?: unknown }).galeApp;
    // The server @gale-http/express's listen() returns: attach to the Gale app that serves it.
    if (galeApp instanceof App) target = galeApp;
    if (!(target instanceof App)) {
      if (!isNodeServer(target)) throw new TypeError(notAnApp(target));
      if (this.opts.transports.includes('webtransport')) {
        throw new Error(
          '@gale-http/engine.io: the webtransport transport needs a Gale app listening with http3 (a node:http server has no HTTP/3): attach to the app',
        );
      }
      this.httpServer = target;
      this.wsRoute = websocket;
      attachToNodeServer(target, this, path, options, websocket);
      return this;
    }
    this.httpServer = target;
    const polling = this.opts.transports.includes('polling');
    // The engine routes upgrades and plain GETs of one path to different handlers, so long-polling and WebSocket
    // share the Engine.IO path as they do in engine.io.
    this.wsRoute = websocket;
    const http = (req: Request, res: Response, next: () => unknown): unknown => {
      // The router matches '/engine.io' for '/engine.io/' too; engine.io serves only URLs starting with the path.
      if (!req.originalUrl.startsWith(path)) return next();
      this.handleRequest(req, res);
      return undefined;
    };
    // engine.io serves every URL that starts with the path ('/engine.io/anything?EIO=4…' too).
    const paths = path.endsWith('/') ? [path, `${path}*rest`] : [path];
    if (this.opts.transports.includes('webtransport')) {
      this.wtRoute = true;
      for (const p of paths) {
        target.webtransport<WtContext | undefined>(p, {
          upgrade: (req, res) => this.onWtRequest(req, res),
          stream: (session, stream) => this.onWtStream(session, stream),
          close: (session) => session.data?.transport?.onClose(),
        });
      }
    }
    if (websocket) {
      for (const p of paths) {
        target.ws<WsContext | undefined>(p, {
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
        if (polling) target.get(p, LONG_POLL, http);
      }
    }
    // Every other method (POST, OPTIONS preflights, and GET when the WebSocket route is not there) comes here.
    for (const p of paths) target.all(p, LONG_POLL, http);
    return this;
  }

  /**
   * Serves one Engine.IO HTTP request (polling, preflights, and every kind of bad request): Gale's Request and
   * Response, or node's IncomingMessage and ServerResponse. attach() routes them here; call it yourself to serve
   * Engine.IO at a path attach() does not cover.
   *
   * @example
   * app.all('/custom/engine.io/', (req, res) => engine.handleRequest(req, res));
   */
  handleRequest(req: HttpRequest, res: HttpResponse): void {
    if (req instanceof IncomingMessage) {
      this.serveHttp(new NodeRequest(req), new NodeResponse(res as ServerResponse));
    } else this.serveHttp(req as unknown as EngineRequest, res as unknown as EngineResponse);
  }

  private serveHttp(req: EngineRequest, res: EngineResponse): void {
    const query = queryOf(req);
    const raw = rawOf(req);
    runMiddlewares(this.middlewares, raw, res instanceof NodeResponse ? res.raw : res, (err) => {
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
      const allowed = allowRequest(this.opts.allowRequest, raw);
      if (allowed === undefined) this.handshake(req, res, query, undefined);
      else
        allowed.then((r) => {
          if (r === undefined) this.handshake(req, res, query, undefined);
          else this.refuse(req, res, r, false);
        });
    });
  }

  /**
   * engine.io's hook for a node:http server's 'upgrade' event: the engine middlewares, the request checks, then a
   * WebSocket through the `ws` library (a refused upgrade gets a bare 400). attach() calls it for upgrades at the
   * Engine.IO path; on a Gale app the engine upgrades by itself.
   *
   * @example
   * httpServer.on('upgrade', (req, socket, head) => {
   *   if (req.url?.startsWith('/engine.io/')) engine.handleUpgrade(req, socket, head);
   * });
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const view = new NodeRequest(req);
    const query = queryOf(view);
    const res = new UpgradeResponse(req, socket);
    const refuse = ([code, context]: Refusal): void => {
      this.emit('connection_error', { req, code, message: ERROR_MESSAGES[code], context });
      refuseUpgrade(socket, context.message ? context.message : ERROR_MESSAGES[code]);
    };
    runMiddlewares(this.middlewares, req, res, (err) => {
      if (err !== undefined) {
        refuse([ERRORS.BAD_REQUEST, { name: 'MIDDLEWARE_FAILURE' }]);
        return;
      }
      const refusal = this.checkUpgradeQuery(view, query);
      if (refusal !== undefined) {
        refuse(refusal);
        return;
      }
      const go = (): void => {
        // Middlewares that wait for writeHead() to add their headers (express-session) get it now.
        res.writeHead();
        this.wsServer().handleUpgrade(req, socket, head, (ws) => {
          const transport = new NodeWsTransport(ws);
          this.onUpgraded(view, query, transport);
        });
      };
      const allowed = query.sid ? undefined : allowRequest(this.opts.allowRequest, req);
      if (allowed === undefined) go();
      else
        allowed.then((r) => {
          if (r === undefined) go();
          else refuse(r);
        });
    });
  }

  /** The `ws` server for node:http upgrades, with engine.io's settings (message limit, permessage-deflate). */
  private wsServer(): WebSocketServer {
    if (this.wss === undefined) {
      const deflate = this.opts.perMessageDeflateOptions;
      const WsEngine = (this.opts.wsEngine ?? WebSocketServer) as typeof WebSocketServer;
      this.wss = new WsEngine({
        noServer: true,
        clientTracking: false,
        perMessageDeflate: deflate === false ? false : { threshold: 1024, ...deflate },
        maxPayload: this.opts.maxHttpBufferSize,
      });
      this.wss.on('headers', (lines: string[], req: IncomingMessage) => {
        const extra = UpgradeResponse.headersOf(req);
        if (!queryOf(new NodeRequest(req)).sid) this.emit('initial_headers', extra, req);
        this.emit('headers', extra, req);
        for (const name of Object.keys(extra)) lines.push(`${name}: ${extra[name]}`);
      });
    }
    return this.wss;
  }

  /** Checks a request (engine.io's verify); undefined when it may go on. */
  private verify(req: EngineRequest, query: Query, upgrade: boolean): Refusal | undefined {
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

  /** verify() for an upgrade, and the checks only an upgrade has (a websocket transport, Engine.IO v4). */
  private checkUpgradeQuery(req: EngineRequest, query: Query): Refusal | undefined {
    const refusal = this.verify(req, query, true);
    if (refusal !== undefined) return refusal;
    if (query.transport !== 'websocket') return [ERRORS.BAD_REQUEST, { name: 'TRANSPORT_HANDSHAKE_ERROR' }];
    if (!query.sid && query.EIO !== '4') return [ERRORS.UNSUPPORTED_PROTOCOL_VERSION, { protocol: 3 }];
    return undefined;
  }

  private refuse(req: EngineRequest, res: EngineResponse, [code, context]: Refusal, upgrade: boolean): void {
    this.emit('connection_error', { req: rawOf(req), code, message: ERROR_MESSAGES[code], context });
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
   * The Gale WebSocket route's upgrade step: the engine middlewares, then the same checks as for HTTP requests,
   * refused with a 400 before the 101. A second WebSocket for a session that is upgrading or upgraded is accepted
   * and then closed (onUpgraded), as engine.io does.
   */
  private onUpgradeRequest(req: Request, res: Response): WsContext | undefined | Promise<WsContext | undefined> {
    return this.afterMiddlewares(req, res, () => this.checkUpgrade(req, res));
  }

  /** Runs the engine middlewares, then `then`; a middleware that answers the request itself (or fails) ends it. */
  private afterMiddlewares<T>(req: Request, res: Response, then: () => T | Promise<T>): T | Promise<T | undefined> {
    if (this.middlewares.length === 0) return then();
    return new Promise((resolve) => {
      const answered = (): void => resolve(undefined);
      res.once('close', answered);
      runMiddlewares(this.middlewares, req, res, (err) => {
        res.off('close', answered);
        if (err === undefined) return resolve(then());
        this.refuse(req as unknown as EngineRequest, res, [ERRORS.BAD_REQUEST, { name: 'MIDDLEWARE_FAILURE' }], true);
        resolve(undefined);
      });
    });
  }

  private checkUpgrade(req: Request, res: Response): WsContext | undefined | Promise<WsContext | undefined> {
    const view = req as unknown as EngineRequest;
    const query = queryOf(view);
    const refusal = this.checkUpgradeQuery(view, query);
    if (refusal !== undefined) {
      this.refuse(view, res, refusal, true);
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
      this.refuse(view, res, r, true);
      return undefined;
    });
  }

  private onWebSocket(ws: WebSocket<WsContext | undefined>): void {
    const ctx = ws.data;
    if (ctx === undefined) return; // not accepted (refused in upgrade)
    const transport = new WsTransport(ws);
    ctx.transport = transport;
    this.onUpgraded(ctx.req as unknown as EngineRequest, ctx.query, transport);
  }

  /**
   * A WebTransport session's CONNECT: the engine middlewares, then the session. engine.io-client sends neither EIO nor
   * the transport in this URL (its first packet opens or upgrades a session), and engine.io checks none.
   */
  private onWtRequest(req: Request, res: Response): WtContext | Promise<WtContext | undefined> {
    return this.afterMiddlewares(req, res, () => {
      // Read now what the session keeps (the request's fields stay readable after the session opened).
      void req.headers;
      void req.remoteAddress;
      const query: Query = { ...queryOf(req as unknown as EngineRequest), EIO: '4', transport: 'webtransport' };
      return { req, query, transport: undefined };
    });
  }

  /** The session's first bidirectional stream carries Engine.IO (engine.io's onWebTransportSession); others go. */
  private onWtStream(session: WebTransportSession<WtContext | undefined>, stream: WebTransportStream): void {
    const ctx = session.data;
    if (ctx === undefined || ctx.transport !== undefined || !(stream instanceof WebTransportBidiStream)) {
      stream.destroy();
      return;
    }
    const transport = new WebTransportTransport(session, stream, this.opts.maxHttpBufferSize);
    ctx.transport = transport;
    transport.awaitOpen(this.opts.upgradeTimeout, (sid) => {
      const req = ctx.req as unknown as EngineRequest;
      if (sid === undefined) this.handshake(req, undefined, ctx.query, transport);
      else this.onUpgraded(req, { ...ctx.query, sid }, transport);
    });
  }

  /** A WebSocket was accepted: a new session on it, or the upgrade of a polling one (else it is closed). */
  private onUpgraded(req: EngineRequest, query: Query, transport: WebSocketTransport | WebTransportTransport): void {
    const sid = query.sid;
    if (!sid) {
      this.handshake(req, undefined, query, transport);
      return;
    }
    const client = this.client(sid);
    if (client === undefined || client.upgrading || client.upgraded) {
      transport.close();
      return;
    }
    client._maybeUpgrade(transport);
  }

  /** A new session on `transport` (polling when `res` is the handshake GET's response). */
  private handshake(
    req: EngineRequest,
    res: EngineResponse | undefined,
    query: Query,
    ws: WebSocketTransport | WebTransportTransport | undefined,
  ): void {
    if (query.EIO !== '4') {
      // Engine.IO v3 (or no EIO): socket.io refuses it unless allowEIO3, which this server does not offer.
      if (res !== undefined) this.refuse(req, res, [ERRORS.UNSUPPORTED_PROTOCOL_VERSION, { protocol: 3 }], false);
      else ws?.close();
      return;
    }
    const id = this.generateId(rawOf(req));
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

  private open(
    id: string,
    req: EngineRequest,
    res: EngineResponse | undefined,
    ws: WebSocketTransport | WebTransportTransport | undefined,
  ) {
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
    const socket = new Socket(id, this, transport, rawOf(req), req.remoteAddress);
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
  private onHeaders(headers: Record<string, string | string[]>, req: EngineRequest, sid: string): void {
    const raw = rawOf(req);
    if (!queryOf(req).sid) {
      const c = this.opts.cookie;
      if (c !== undefined) {
        const { name, ...options } = c;
        headers['Set-Cookie'] = [serializeCookie(name, sid, options as Parameters<typeof serializeCookie>[2])];
      }
      this.emit('initial_headers', headers, raw);
    }
    this.emit('headers', headers, raw);
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
