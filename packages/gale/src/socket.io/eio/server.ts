// The Engine.IO v4 server on a Gale app (engine.io's Server): the routes at the Engine.IO path (long-polling
// requests and the WebSocket route), request checks with engine.io's error codes and answers, handshakes,
// CORS (the `cors` package, as socket.io), engine middlewares, the session cookie and the headers events.
import { EventEmitter } from 'node:events';
import { serialize as serializeCookie } from 'cookie';
import cors from 'cors';
import type { App } from '../../app.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import type { WebSocket } from '../../ws.js';
import { type EngineMiddleware, randomId, type ServerOptions } from '../types.js';
import { type EngineOptions, ERROR_MESSAGES, ERRORS, type Query, queryOf, type Refusal } from './options.js';
import { Polling } from './polling.js';
import { EioSocket } from './socket.js';
import type { Transport } from './transport.js';
import { WsTransport } from './websocket.js';

/** What an accepted upgrade carries to the WebSocket's handlers. */
interface WsContext {
  req: Request;
  query: Query;
  transport: WsTransport | undefined;
}

/**
 * The Engine.IO server. `io.engine` in gale/socket.io; emits 'connection' (an {@link EioSocket}),
 * 'connection_error', 'initial_headers' and 'headers' as engine.io does.
 *
 * @example
 * io.engine.on('connection_error', (err) => console.log(err.code, err.message));
 * console.log(io.engine.clientsCount);
 */
export class EngineServer extends EventEmitter {
  readonly opts: EngineOptions;
  /** Open sessions by id. */
  readonly clients = new Map<string, EioSocket>();
  private readonly middlewares: EngineMiddleware[] = [];
  /** Whether the WebSocket transport has its route (see attach). */
  private wsRoute = false;

  constructor(opts: EngineOptions, corsOption: ServerOptions['cors']) {
    super();
    this.opts = opts;
    // biome-ignore lint/suspicious/noExplicitAny: cors() takes node's req/res; Gale's have the members it uses
    if (corsOption) this.use(cors(corsOption as any) as unknown as EngineMiddleware);
  }

  /** Open sessions. */
  get clientsCount(): number {
    return this.clients.size;
  }

  /**
   * Adds a `(req, res, next)` middleware run on every Engine.IO HTTP request before its checks (as
   * `io.engine.use` in socket.io); `next(err)` answers 400 (code 3).
   */
  use(fn: EngineMiddleware): void {
    this.middlewares.push(fn);
  }

  /** Transports a session on `transport` may upgrade to. */
  upgrades(transport: string): string[] {
    if (!this.opts.allowUpgrades || transport !== 'polling' || !this.wsRoute) return [];
    return ['websocket'];
  }

  /** The session id for a new session; replace to choose your own. */
  generateId(_req: Request): string | Promise<string> {
    return randomId();
  }

  /**
   * Registers the Engine.IO routes at `path` on `app`. `websocket`: whether the WebSocket transport gets its
   * route (false when the engine cannot share the path with polling).
   */
  attach(app: App, path: string, websocket: boolean): void {
    const polling = this.opts.transports.includes('polling');
    this.wsRoute = websocket;
    const http = (req: Request, res: Response): undefined => {
      this.handleRequest(req, res);
      return undefined;
    };
    if (websocket) {
      app.ws<WsContext | undefined>(path, {
        upgrade: (req, res) => this.handleUpgrade(req, res),
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
  }

  /** Checks a request (engine.io's verify); undefined when it may go on. */
  private verify(req: Request, query: Query, upgrade: boolean): Refusal | undefined {
    const transport = query.transport;
    if (transport !== 'polling' && transport !== 'websocket') return [ERRORS.UNKNOWN_TRANSPORT, { transport }];
    if (!this.opts.transports.includes(transport)) return [ERRORS.UNKNOWN_TRANSPORT, { transport }];
    const sid = query.sid;
    if (sid) {
      const client = this.clients.get(sid);
      if (client === undefined) return [ERRORS.UNKNOWN_SID, { sid }];
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

  /** allowRequest, for handshakes only; resolves to a refusal or undefined. */
  private allow(req: Request, query: Query): Promise<Refusal | undefined> | undefined {
    const check = this.opts.allowRequest;
    if (check === undefined || query.sid) return undefined;
    return new Promise((resolve) => {
      try {
        check(req, (message, success) => {
          resolve(success ? undefined : [ERRORS.FORBIDDEN, { message }]);
        });
      } catch (err) {
        resolve([ERRORS.FORBIDDEN, { message: err instanceof Error ? err.message : String(err) }]);
      }
    });
  }

  private refuse(req: Request, res: Response, [code, context]: Refusal, upgrade: boolean): void {
    this.emit('connection_error', { req, code, message: ERROR_MESSAGES[code], context });
    if (res.finished) return;
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

  /** An HTTP request at the Engine.IO path (polling, preflights, and every kind of bad request). */
  handleRequest(req: Request, res: Response): void {
    const query = queryOf(req);
    this.applyMiddlewares(req, res, (err) => {
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
        ((this.clients.get(sid) as EioSocket).transport as Polling).onRequest(req, res);
        return;
      }
      const allowed = this.allow(req, query);
      if (allowed === undefined) this.handshake(req, res, query, undefined);
      else
        allowed.then((r) => {
          if (r === undefined) this.handshake(req, res, query, undefined);
          else this.refuse(req, res, r, false);
        });
    });
  }

  private applyMiddlewares(req: Request, res: Response, done: (err?: unknown) => void): void {
    const fns = this.middlewares;
    if (fns.length === 0) {
      done();
      return;
    }
    const step = (i: number): void => {
      if (i === fns.length) {
        done();
        return;
      }
      let called = false;
      const next = (err?: unknown): void => {
        if (called) return;
        called = true;
        if (err) done(err);
        else step(i + 1);
      };
      try {
        (fns[i] as EngineMiddleware)(req, res, next);
      } catch (err) {
        next(err ?? new Error('engine middleware threw'));
      }
    };
    step(0);
  }

  /** The WebSocket route's upgrade step: the same checks, refused with a 400 before the 101. */
  private handleUpgrade(req: Request, res: Response): WsContext | undefined | Promise<WsContext | undefined> {
    const query = queryOf(req);
    let refusal = this.verify(req, query, true);
    if (refusal === undefined && query.transport !== 'websocket') {
      refusal = [ERRORS.BAD_REQUEST, { name: 'TRANSPORT_HANDSHAKE_ERROR' }];
    }
    if (refusal === undefined && !query.sid && query.EIO !== '4') {
      refusal = [ERRORS.UNSUPPORTED_PROTOCOL_VERSION, { protocol: 3 }];
    }
    if (refusal === undefined && query.sid) {
      const client = this.clients.get(query.sid) as EioSocket;
      if (client.upgrading || client.upgraded) refusal = [ERRORS.BAD_REQUEST, { name: 'ALREADY_UPGRADED' }];
    }
    if (refusal !== undefined) {
      this.refuse(req, res, refusal, true);
      return undefined;
    }
    const ctx: WsContext = { req, query, transport: undefined };
    // Read now what the session keeps (the request's fields stay readable after the upgrade).
    void req.headers;
    void req.remoteAddress;
    const allowed = this.allow(req, query);
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
    const client = this.clients.get(sid);
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
        httpCompression: this.opts.httpCompression,
        headers: (headers, r) => this.onHeaders(headers, r, id),
      });
    }
    const socket = new EioSocket(id, this, transport, req);
    this.clients.set(id, socket);
    socket.once('close', () => {
      this.clients.delete(id);
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

  /** Closes every session ('forced close'). */
  close(): this {
    for (const client of [...this.clients.values()]) client.close(true);
    return this;
  }
}
