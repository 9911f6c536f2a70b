// `app.ws(path, …)` routes: the behaviour type, the upgrade step that ends a route's middleware chain, and the
// per-app hub that maps engine socket ids to WebSocket objects and delivers messages, drains and closes.
import { ErrorCodes, GaleError } from './errors.js';
import type { Logger } from './logging.js';
import type { NativeServer } from './native.js';
import type { NativeWsOptions } from './native-options.js';
import type { AnyParams } from './request/api.js';
import type { RequestConfig } from './request/config.js';
import { Request } from './request/request.js';
import type { Response } from './response/response.js';
import type { Relay } from './scale-hooks.js';
import { TracedResponse, tracingOn } from './tracing.js';
import { type SocketHost, WebSocket, WS_SID_MASK } from './ws.js';

/**
 * Handlers and limits of a WebSocket route. Every field is optional.
 *
 * @example
 * app.ws('/echo', {
 *   maxPayloadLength: 64 * 1024,
 *   message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
 * });
 */
export interface WsBehavior<D = unknown, P extends object = AnyParams, S extends object = object> {
  /** Plain WebSocket messages (the fast-ws protocol is `fastWs(…)` from @gale-http/fast-ws). */
  protocol?: undefined;
  /**
   * Runs after the route's middleware, before the 101: return (or resolve to) the socket's `data`, or throw
   * an `HttpError` (or answer with `res`) to refuse the upgrade with that status.
   */
  upgrade?(req: Request<P, S>, res: Response): D | Promise<D>;
  /** The socket is open. */
  open?(ws: WebSocket<D>): unknown;
  /** A whole message arrived: a Buffer (text is valid UTF-8; `data.toString()` gives it), and whether it was binary. */
  message?(ws: WebSocket<D>, data: Buffer, isBinary: boolean): unknown;
  /** Buffered output fell below the high-water mark after a send returned 'buffered'. */
  drain?(ws: WebSocket<D>): unknown;
  /** The connection ended: the close code (1006 if it just dropped) and reason. */
  close?(ws: WebSocket<D>, code: number, reason: string): unknown;
  /**
   * Picks the subprotocol from those the client offered (`false`: refuse with 400). Default: the first
   * offered, as the `ws` library does.
   */
  protocols?(offered: string[], req: Request<P, S>): string | false | undefined;
  /** Largest message in bytes (after inflating); larger closes with 1009. Default 1 MiB. */
  maxPayloadLength?: number;
  /** Seconds without any frame from the client before closing with 1001 (0: never). Default 120. */
  idleTimeout?: number;
  /** Ping quiet sockets at half the idle timeout (live clients answer, so only dead ones time out). Default true. */
  sendPings?: boolean;
  /**
   * permessage-deflate: false (default), true or 'shared' (each message compressed on its own, published
   * messages compressed once for all), or 'dedicated' (a compressor per socket: better ratio, more memory).
   */
  compression?: boolean | 'shared' | 'dedicated';
  /** Messages shorter than this many bytes are sent uncompressed. Default 1024. */
  compressionThreshold?: number;
  /** zlib level 0–9. Default 1 (cheap, most of the gain for text). */
  compressionLevel?: number;
  /**
   * Whether the engine may accept this route's upgrades without running JavaScript, when no JavaScript would run for
   * them before the socket's first event anyway: a route with no middleware, hooks, `upgrade`, `protocols`, `open` or
   * connection handler, no params, on an app with no request log and no tracing subscriber. The first upgrade runs as
   * usual; later ones get the same 101 (the first subprotocol offered) from the engine, and the socket object is made
   * on its first message (or at its close, for a `close` handler), so an idle socket costs no JavaScript memory.
   * `false` sends every upgrade through JavaScript. Default true.
   */
  nativeAccept?: boolean;
  /** Bytes buffered for a socket above which sends are dropped ('dropped') or the socket closed. Default 1 MiB. */
  maxBackpressure?: number;
  /** Over `maxBackpressure`, close the socket (1008) instead of dropping the message. Default false. */
  closeOnBackpressureLimit?: boolean;
}

/**
 * An express-ws style handler: `(ws, req) => { ws.on('message', …) }`; `req` has the route's params and state.
 *
 * @example
 * app.ws('/legacy', (ws, req) => ws.on('message', (m) => ws.send(m))); // express-ws / ws style
 */
export type WsConnectionHandler<P extends object = AnyParams, S extends object = object> = (
  ws: WebSocket,
  req: Request<P, S>,
) => unknown;

/** The offset the engine passes with a message that has a Buffer of its own. */
const POOL_NONE = 0xffff_ffff;
/** A request id no record ever has (index bits all set: crates/gale-server/src/request.rs), for a request made from a
 * kept head: every engine lookup with it answers "gone", as with a snapshot's own stale id. */
const NO_REQUEST = 0xffff_ffff;

/** The per-app table of open sockets. */
export class WsHub implements SocketHost {
  n!: NativeServer;
  /** The app's cross-process pub/sub (set by gale.pubsub), undefined otherwise. */
  relay: Relay | undefined = undefined;
  private readonly sockets: (WebSocket | undefined)[] = [];
  /** By JS route id: the behaviour of routes whose upgrades the engine was let accept (kept after a take-back, for
   * the sockets it accepted before). */
  private readonly natives: (WsBehavior | undefined)[] = [];
  /** Routes the engine accepts upgrades of now. */
  private readonly nativeOn = new Set<number>();
  private readonly logger: Logger;
  private readonly cfg: RequestConfig;

  constructor(logger: Logger, cfg: RequestConfig) {
    this.logger = logger;
    this.cfg = cfg;
  }

  /**
   * The upgrade request of a socket whose request the engine kept (nothing read it before the 101): made now from
   * what the engine hands over once, then held by the socket like a snapshot.
   */
  requestOf(ws: WebSocket): Request {
    const req = this.take(ws);
    if (req === undefined) {
      throw new GaleError(
        ErrorCodes.REQUEST_ENDED,
        'ws.req was read after the app that accepted this socket was closed, and never before: read it in open()',
      );
    }
    return req;
  }

  private take(ws: WebSocket): Request | undefined {
    const parts = this.n.wsRequest(ws._sid);
    if (parts === undefined) return undefined;
    const req = new Request(this.n, NO_REQUEST, ws._params, this.cfg);
    req._restore(parts);
    ws._req = req;
    return req;
  }

  /** Lets the engine accept route `routeId`'s upgrades (`nativeAccept`); false when it would not. */
  acceptNatively(routeId: number, b: WsBehavior): boolean {
    if (!this.n.wsNative(routeId, true, b.close !== undefined)) return false;
    this.natives[routeId] = b;
    this.nativeOn.add(routeId);
    return true;
  }

  /** Takes native accepting back from route `routeId` (every route without one): its upgrades run JavaScript again. */
  revokeNative(routeId?: number): void {
    for (const id of routeId === undefined ? [...this.nativeOn] : [routeId]) {
      if (this.nativeOn.delete(id)) this.n.wsNative(id, false, false);
    }
  }

  /** Whether the engine accepts some route's upgrades by itself now. */
  get acceptsNatively(): boolean {
    return this.nativeOn.size !== 0;
  }

  /** The socket object of a socket the engine accepted by itself, made on JS's first sight of it. */
  private adopt(sid: number): WebSocket | undefined {
    if (this.natives.length === 0) return undefined;
    const found = this.n.wsAdopt(sid);
    const b = found && this.natives[found[0]];
    if (found === undefined || b === undefined) return undefined;
    return this.open(sid, b, undefined, found[1], undefined, {});
  }

  /** Engine → JS: a whole message (called synchronously from the engine's read path). */
  readonly onMessage = (sid: number, buf: ArrayBuffer | Buffer, off: number, len: number, isBinary: boolean): void => {
    let ws = this.sockets[sid & WS_SID_MASK];
    if (ws === undefined || ws._sid !== sid) {
      ws = this.adopt(sid);
      if (ws === undefined) return;
    }
    // Small messages arrive as a view of a shared pool (crates/gale-node/src/msgpool.rs), large ones as a Buffer.
    const data = off === POOL_NONE ? (buf as Buffer) : Buffer.from(buf as ArrayBuffer, off, len);
    try {
      const out = ws._behavior.message?.(ws, data, isBinary);
      if (out instanceof Promise) out.catch((err: unknown) => this.error(err, ws));
    } catch (err) {
      this.error(err, ws);
    }
    ws._emit('message', data, isBinary);
  };

  /** Engine → JS: the socket's output drained. */
  drained(sid: number): void {
    const ws = this.sockets[sid & WS_SID_MASK];
    if (ws === undefined || ws._sid !== sid) return;
    this.call(ws, () => ws._behavior.drain?.(ws));
    ws._emit('drain');
  }

  /** Engine → JS: the connection ended. */
  closed(sid: number, code: number, reason: string): void {
    let ws = this.sockets[sid & WS_SID_MASK];
    if (ws === undefined || ws._sid !== sid) {
      ws = this.adopt(sid);
      if (ws === undefined) return;
    }
    this.sockets[sid & WS_SID_MASK] = undefined;
    // The engine keeps an unread upgrade request only while JS can still ask for it by socket id: take it now,
    // so ws.req stays readable in close handlers and afterwards, as a snapshot would.
    if (ws._req === undefined) this.take(ws);
    ws.readyState = 3;
    this.call(ws, () => ws._behavior.close?.(ws, code, reason));
    ws._emit('close', code, Buffer.from(reason));
  }

  /** Opens the socket object for an accepted upgrade (`req` undefined: the engine kept it, see `requestOf`). */
  open(
    sid: number,
    behavior: WsBehavior,
    data: unknown,
    protocol: string,
    req: Request | undefined,
    params: AnyParams,
  ): WebSocket {
    const ws = new WebSocket(this, sid, data, protocol, req, params, behavior);
    this.sockets[sid & WS_SID_MASK] = ws;
    return ws;
  }

  /** A handler threw: log it and close the socket with 1011, as a 500 ends a request. */
  error(err: unknown, ws: WebSocket): void {
    this.logger.error({ err, ws: ws.req.url }, 'WebSocket handler failed');
    if (ws._listens('error')) ws._emit('error', err);
    if (ws.readyState === 1) {
      ws.readyState = 2;
      this.n.wsClose(ws._sid, 1011, 'Internal server error');
    }
  }

  private call(ws: WebSocket, f: () => unknown): void {
    try {
      const out = f();
      if (out instanceof Promise) out.catch((err: unknown) => this.error(err, ws));
    } catch (err) {
      this.error(err, ws);
    }
  }
}

/** Options the engine reads (crates/gale-node/src/ws.rs). */
export function nativeWsOptions(b: WsBehavior): NativeWsOptions {
  const c = b.compression;
  return {
    maxPayloadLength: b.maxPayloadLength,
    idleTimeout: b.idleTimeout,
    sendPings: b.sendPings,
    compression: c === true ? 'shared' : c === false || c === undefined ? 'off' : c,
    compressionThreshold: b.compressionThreshold,
    compressionLevel: b.compressionLevel ?? 1,
    maxBackpressure: b.maxBackpressure,
    closeOnBackpressureLimit: b.closeOnBackpressureLimit,
  };
}

/**
 * The subprotocols offered. `first` (the default pick, which needs only the first token) reads the first header line
 * alone, without copying the request's headers into JS, unless that line offers nothing (then every line, as always).
 */
function offeredProtocols(req: Request, first: boolean): string[] {
  if (first) {
    const raw = req._n.header(req._id, 'sec-websocket-protocol');
    // No line at all (most clients offer none): nothing to look for in the others.
    if (raw === undefined) return [];
    const line = tokens(raw);
    if (line.length !== 0) return line;
  }
  return tokens(req.get('sec-websocket-protocol'));
}

function tokens(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Marks the upgrade request answered (by the 101 the engine sent; a WebTransport CONNECT's 200). */
export function upgraded(req: Request, res: Response, status = 101): void {
  res.finished = true;
  res.headersSent = true;
  res.statusCode = status;
  if (req._deferred) res._host.forget(res._id);
  // ws.req lives as long as the socket; the response object need not.
  req._res = undefined;
  if (res instanceof TracedResponse) res._done();
}

/**
 * The last step of a WebSocket route's chain: runs `upgrade(req)`, picks the subprotocol, asks the engine
 * for the 101 and opens the socket. Async only when `upgrade` returns a promise.
 *
 * `alone`: nothing runs before this step (no middleware). Then, without `upgrade`, `protocols` or a connection
 * handler, no app code has seen the request before the 101, so it is not copied into JS: the engine keeps its head
 * and `ws.req` is made on first read (or at close). An idle socket then holds no request object.
 */
export function upgradeStep(
  hub: WsHub,
  b: WsBehavior,
  onOpen?: WsConnectionHandler,
  alone = false,
  native?: { routeId: number; hasParams: boolean },
) {
  const lazy = alone && b.upgrade === undefined && b.protocols === undefined && onOpen === undefined;
  // A rebuilt route (hooks added) starts over: its first upgrade runs this step again before the engine may accept.
  if (native !== undefined) hub.revokeNative(native.routeId);
  let offer =
    native !== undefined && lazy && !native.hasParams && b.open === undefined && b.nativeAccept !== false
      ? native.routeId
      : -1;
  const accept = (req: Request, res: Response, data: unknown): void => {
    if (res.finished || res.headersSent || req._aborted) return;
    // A traced request was handed to tracing subscribers, and a mounted route's request carries its base: copy those.
    const keep = lazy && req._base === '' && !(res instanceof TracedResponse);
    const offered = offeredProtocols(req, keep);
    const picked = b.protocols ? b.protocols(offered, req) : offered[0];
    if (picked === false) {
      res.status(400).send('Bad Request: none of the offered WebSocket subprotocols is supported here.');
      return;
    }
    if (picked !== undefined && !offered.includes(picked)) {
      throw new GaleError(
        ErrorCodes.INVALID_HEADER,
        `protocols(): returned ${JSON.stringify(picked)}, which the client did not offer`,
      );
    }
    if (!keep) req._snapshot();
    // Headers the route's middleware or upgrade() set on `res` (a session cookie, say) go out with the 101.
    const lines = res.headerLines();
    const sid = hub.n.wsAccept(req._id, picked, lines, keep);
    if (sid === undefined) {
      if (!req._aborted && !res.finished) res.status(503).send('Service Unavailable: the server is shutting down.');
      return;
    }
    // This upgrade ran no JavaScript of the app, and the engine would give the next ones the same 101: let it.
    if (offer !== -1 && keep && !lines && res._t0 === 0 && !tracingOn() && hub.acceptNatively(offer, b)) offer = -1;
    upgraded(req, res);
    const ws = hub.open(sid, b, data, picked ?? '', keep ? undefined : req, req.params);
    try {
      const out = b.open?.(ws);
      if (out instanceof Promise) out.catch((err: unknown) => hub.error(err, ws));
      const out2 = onOpen?.(ws, req);
      if (out2 instanceof Promise) out2.catch((err: unknown) => hub.error(err, ws));
    } catch (err) {
      hub.error(err, ws);
    }
  };
  return withUpgrade(b.upgrade, accept);
}

/**
 * A route's last step for a WebSocket or WebTransport route: `upgrade(req, res)` (if any) gives the data `accept`
 * opens the socket or session with; async only when `upgrade` returns a promise.
 */
export function withUpgrade(
  upgrade: ((req: Request, res: Response) => unknown) | undefined,
  accept: (req: Request, res: Response, data: unknown) => void,
) {
  return (req: Request, res: Response): unknown => {
    if (upgrade === undefined) {
      accept(req, res, undefined);
      return undefined;
    }
    const data = upgrade(req, res);
    if (data instanceof Promise) return data.then((d) => accept(req, res, d));
    accept(req, res, data);
    return undefined;
  };
}
