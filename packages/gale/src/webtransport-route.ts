// `app.webtransport(path, …)` routes: the behaviour type, the accept step that ends a route's middleware chain (the
// CONNECT is an HTTP/3 request like any other until then), and the per-app hub that maps the engine's session and
// stream ids to their objects and delivers its events.
import type { Logger } from './logging.js';
import type { NativeServer } from './native.js';
import type { AnyParams } from './request/api.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';
import {
  type SessionHost,
  type StreamEnd,
  WebTransportBidiStream,
  WebTransportReceiveStream,
  WebTransportSession,
} from './webtransport.js';
import { upgraded, withUpgrade } from './ws-route.js';

/**
 * Handlers of a WebTransport route. Every field is optional.
 *
 * @example
 * app.webtransport('/echo', {
 *   stream: (session, stream) => {
 *     if (stream instanceof WebTransportBidiStream) stream.pipe(stream);
 *   },
 *   datagram: (session, data) => session.sendDatagram(data),
 * });
 */
export interface WebTransportBehavior<D = unknown, P extends object = AnyParams, S extends object = object> {
  /**
   * Runs after the route's middleware, before the session opens: return (or resolve to) the session's `data`, or
   * throw an `HttpError` (or answer with `res`) to refuse it with that status.
   */
  upgrade?(req: Request<P, S>, res: Response): D | Promise<D>;
  /** The session is open (its 200 is on its way). */
  open?(session: WebTransportSession<D>): unknown;
  /** The client opened a stream: bidirectional (a Duplex) or unidirectional (a Readable). */
  stream?(session: WebTransportSession<D>, stream: WebTransportBidiStream | WebTransportReceiveStream): unknown;
  /** A datagram from the client. */
  datagram?(session: WebTransportSession<D>, data: Buffer): unknown;
  /** The client asked to wind the session down, or the server is closing gracefully. */
  draining?(session: WebTransportSession<D>): unknown;
  /** The session ended: the code and reason of the side that closed it (0 and '' when it just went away). */
  close?(session: WebTransportSession<D>, code: number, reason: string): unknown;
}

/** Kinds of the engine's WebTransport events (crates/gale-node/src/handler.rs `wt_event`). */
const STREAM = 0;
const DATA = 1;
const RESET = 2;
const DRAIN = 3;
const DATAGRAM = 4;
const DRAINING = 5;
const CLOSE = 6;

/** @internal a session and its route's handlers */
interface Open {
  session: WebTransportSession;
  b: WebTransportBehavior;
}

/** The per-app table of sessions and streams. */
export class WtHub implements SessionHost {
  n!: NativeServer;
  /** Routes declared: the HTTP/3 listener offers WebTransport when there is one. */
  routes = 0;
  private readonly sessions = new Map<number, Open>();
  private readonly streams = new Map<number, StreamEnd>();
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  adopt(id: number, stream: StreamEnd): void {
    this.streams.set(id, stream);
  }

  forget(id: number): void {
    this.streams.delete(id);
  }

  /** Opens the session object of an accepted CONNECT. */
  open(id: number, b: WebTransportBehavior, data: unknown, req: Request): WebTransportSession {
    const session = new WebTransportSession(this, id, data, req);
    this.sessions.set(id, { session, b });
    return session;
  }

  /** Engine → JS: one WebTransport event (`kind` and its arguments as handler.rs lays them out). */
  event(kind: number, id: number, a: unknown, b: unknown, data: unknown): void {
    switch (kind) {
      case STREAM: {
        const o = this.sessions.get(a as number);
        if (o === undefined) return;
        const s = b
          ? new WebTransportBidiStream(this, id, o.session)
          : new WebTransportReceiveStream(this, id, o.session);
        this.streams.set(id, s);
        this.call(o, () => o.b.stream?.(o.session, s));
        return;
      }
      case DATA:
        this.streams.get(id)?._data(data as Buffer, a as boolean);
        return;
      case RESET: {
        const s = this.streams.get(id);
        if (s === undefined) return;
        this.streams.delete(id);
        s._reset(a as number | null, b as boolean);
        return;
      }
      case DRAIN:
        this.streams.get(id)?._core.drained();
        return;
      case DATAGRAM: {
        const o = this.sessions.get(id);
        if (o !== undefined) this.call(o, () => o.b.datagram?.(o.session, data as Buffer));
        return;
      }
      case DRAINING: {
        const o = this.sessions.get(id);
        if (o === undefined || o.session.draining) return;
        o.session.draining = true;
        this.call(o, () => o.b.draining?.(o.session));
        return;
      }
      case CLOSE: {
        const o = this.sessions.get(id);
        if (o === undefined) return;
        this.sessions.delete(id);
        o.session.closed = true;
        this.call(o, () => o.b.close?.(o.session, a as number, data as string));
      }
    }
  }

  /** A handler threw: log it and close the session (code 0, reason 'internal error'), as a 500 ends a request. */
  error(err: unknown, session: WebTransportSession): void {
    this.logger.error({ err, webtransport: session.req.url }, 'WebTransport handler failed');
    session.close(0, 'internal error');
  }

  private call(o: Open, f: () => unknown): void {
    try {
      const out = f();
      if (out instanceof Promise) out.catch((err: unknown) => this.error(err, o.session));
    } catch (err) {
      this.error(err, o.session);
    }
  }
}

/**
 * The last step of a WebTransport route's chain: runs `upgrade(req)`, asks the engine to accept the session and opens
 * its object. A request that is no WebTransport CONNECT (HTTP/1.1 or HTTP/2 CONNECT to the path) gets a 400 saying so.
 */
export function acceptStep(hub: WtHub, b: WebTransportBehavior) {
  const accept = (req: Request, res: Response, data: unknown): void => {
    if (res.finished || res.headersSent || req._aborted) return;
    // The session keeps its request readable after the engine let the CONNECT's record go.
    req._snapshot();
    const id = hub.n.wtAccept(req._id);
    if (id === undefined) {
      res
        .status(400)
        .send(
          'Bad Request: a WebTransport session opens with an HTTP/3 extended CONNECT (:protocol webtransport) on a server listening with http3.',
        );
      return;
    }
    upgraded(req, res, 200);
    const session = hub.open(id, b, data, req);
    try {
      const out = b.open?.(session);
      if (out instanceof Promise) out.catch((err: unknown) => hub.error(err, session));
    } catch (err) {
      hub.error(err, session);
    }
  };
  return withUpgrade(b.upgrade as ((req: Request, res: Response) => unknown) | undefined, accept);
}
