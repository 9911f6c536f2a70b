// WebTransport sessions and streams, as an `app.webtransport` route's handlers receive them: a session sends
// datagrams and opens streams; each stream is a node:stream (Duplex, Readable or Writable) with the engine's
// backpressure both ways. QUIC, framing and limits live in the engine (crates/gale-server/src/h3/wt.rs).
import { Duplex, Readable, Writable } from 'node:stream';

import type { NativeServer } from './native.js';
import type { Request } from './request/request.js';

/**
 * What `sendDatagram` did: sent, dropped (larger than `maxDatagramSize`, or the client takes no datagrams), or not
 * sent because the session is closed.
 *
 * @example
 * if (session.sendDatagram(frame) === 'dropped') splitIntoStream(frame);
 */
export type DatagramStatus = 'sent' | 'dropped' | 'closed';
const DATAGRAM: readonly DatagramStatus[] = ['sent', 'sent', 'dropped', 'closed'];

/**
 * What a stream's 'reset' event carries: the client reset its sending (`stopped` false) or asked the server to stop
 * sending (`stopped` true), with its WebTransport error code (null when the code was HTTP/3's own, or the session
 * or connection went away). The stream is destroyed right after, without an 'error'.
 *
 * @example
 * stream.on('reset', (err: WebTransportStreamError) => console.log('client reset', err.code, err.stopped));
 */
export class WebTransportStreamError extends Error {
  readonly code: number | null;
  readonly stopped: boolean;
  constructor(code: number | null, stopped: boolean) {
    super(
      stopped
        ? `the client stopped this WebTransport stream's sending (code ${code})`
        : `the client reset its side of this WebTransport stream (code ${code})`,
    );
    this.name = 'WebTransportStreamError';
    this.code = code;
    this.stopped = stopped;
  }
}

/** @internal what a stream needs of the engine and its session */
interface StreamHost {
  readonly n: NativeServer;
  forget(id: number): void;
}

/** The engine side of one stream, shared by the three stream classes. */
class Core {
  paused = false;
  /** A write said 'buffered': its callback runs at the drain event. */
  waiting: ((err?: Error) => void) | undefined = undefined;
  constructor(
    readonly host: StreamHost,
    readonly id: number,
  ) {}

  /**
   * A write. To a stream the client or the session's end already closed, it goes nowhere, quietly: the close was
   * (or will be) told as the stream's reset, and a write racing it must not become an 'error' nobody listens to
   * (a client leaving never crashes the process).
   */
  write(chunk: Buffer, cb: (err?: Error) => void): void {
    const status = this.host.n.wtWrite(this.id, chunk, false);
    if (status === 1) this.waiting = cb;
    else if (status === 2) cb(new Error('WebTransport write refused: 4 MiB unsent on this stream; wait for drain'));
    else cb();
  }

  end(cb: (err?: Error) => void): void {
    this.host.n.wtWrite(this.id, new Uint8Array(0), true);
    cb();
  }

  drained(): void {
    const cb = this.waiting;
    this.waiting = undefined;
    cb?.();
  }

  /** The client's bytes: pushed, and the engine paused while the readable side is full. */
  data(r: Readable, buf: Buffer, fin: boolean): void {
    if (buf.length !== 0 && !r.push(buf) && !this.paused) {
      this.paused = true;
      this.host.n.wtPause(this.id, true);
    }
    if (fin) r.push(null);
  }

  read(): void {
    if (this.paused) {
      this.paused = false;
      this.host.n.wtPause(this.id, false);
    }
  }

  /** Ends whatever side is still open: reset the sending, stop the receiving (code 0). */
  destroy(sending: boolean, receiving: boolean): void {
    if (sending) this.host.n.wtReset(this.id, 0, false);
    if (receiving) this.host.n.wtReset(this.id, 0, true);
    this.host.forget(this.id);
    this.drained();
  }
}

/**
 * The client reset or stopped stream `s`: it emits 'reset' with a WebTransportStreamError, then is destroyed without
 * an error ('close' follows; `for await` and `pipeline` see a premature close). Not an 'error': `pipe` listens for
 * those and throws them again when nothing else does, and a client must not be able to crash the process by
 * resetting a stream the app only pipes.
 */
function failed(s: Duplex | Readable | Writable, code: number | null, stopped: boolean): void {
  s.emit('reset', new WebTransportStreamError(code, stopped));
  s.destroy();
}

/** @internal what the hub calls on a stream */
export interface StreamEnd {
  readonly _core: Core;
  _data(buf: Buffer, fin: boolean): void;
  _reset(code: number | null, stopped: boolean): void;
}

/**
 * A bidirectional WebTransport stream: a node:stream Duplex. `end()` ends the server's sending (FIN), `reset(code)`
 * abandons it, `stop(code)` asks the client to stop its own; the client's FIN ends the readable side.
 *
 * @example
 * app.webtransport('/echo', { stream: (session, stream) => stream.pipe(stream) });
 */
export class WebTransportBidiStream extends Duplex implements StreamEnd {
  /** @internal */ readonly _core: Core;
  /** The session this stream belongs to. */
  readonly session: WebTransportSession;
  /** @internal */
  constructor(host: StreamHost, id: number, session: WebTransportSession) {
    super({ allowHalfOpen: true });
    this._core = new Core(host, id);
    this.session = session;
  }
  /** Resets the server's sending with WebTransport error code `code` (what was not sent is lost). */
  reset(code = 0): void {
    this._core.host.n.wtReset(this._core.id, code, false);
  }
  /** Asks the client to stop sending, with WebTransport error code `code`. */
  stop(code = 0): void {
    this._core.host.n.wtReset(this._core.id, code, true);
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error) => void): void {
    this._core.write(chunk, cb);
  }
  override _final(cb: (err?: Error) => void): void {
    this._core.end(cb);
  }
  override _read(): void {
    this._core.read();
  }
  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    this._core.destroy(!this.writableFinished, !this.readableEnded);
    cb(err);
  }
  /** @internal */ _data(buf: Buffer, fin: boolean): void {
    this._core.data(this, buf, fin);
  }
  /** @internal */ _reset(code: number | null, stopped: boolean): void {
    failed(this, code, stopped);
  }
}

/**
 * A unidirectional stream the client opened: a node:stream Readable of its bytes.
 *
 * @example
 * app.webtransport('/upload', {
 *   stream: async (session, stream) => {
 *     for await (const chunk of stream) console.log(chunk.length);
 *   },
 * });
 */
export class WebTransportReceiveStream extends Readable implements StreamEnd {
  /** @internal */ readonly _core: Core;
  readonly session: WebTransportSession;
  /** @internal */
  constructor(host: StreamHost, id: number, session: WebTransportSession) {
    super();
    this._core = new Core(host, id);
    this.session = session;
  }
  /** Asks the client to stop sending, with WebTransport error code `code`. */
  stop(code = 0): void {
    this._core.host.n.wtReset(this._core.id, code, true);
  }
  override _read(): void {
    this._core.read();
  }
  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    this._core.destroy(false, !this.readableEnded);
    cb(err);
  }
  /** @internal */ _data(buf: Buffer, fin: boolean): void {
    this._core.data(this, buf, fin);
  }
  /** @internal */ _reset(code: number | null, stopped: boolean): void {
    failed(this, code, stopped);
  }
}

/**
 * A unidirectional stream the server opened (`session.createUnidirectionalStream()`): a node:stream Writable.
 *
 * @example
 * const out = session.createUnidirectionalStream();
 * out.end('hello');
 */
export class WebTransportSendStream extends Writable implements StreamEnd {
  /** @internal */ readonly _core: Core;
  readonly session: WebTransportSession;
  /** @internal */
  constructor(host: StreamHost, id: number, session: WebTransportSession) {
    super();
    this._core = new Core(host, id);
    this.session = session;
  }
  /** Resets the server's sending with WebTransport error code `code`. */
  reset(code = 0): void {
    this._core.host.n.wtReset(this._core.id, code, false);
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error) => void): void {
    this._core.write(chunk, cb);
  }
  override _final(cb: (err?: Error) => void): void {
    this._core.end(cb);
  }
  override _destroy(err: Error | null, cb: (err: Error | null) => void): void {
    this._core.destroy(!this.writableFinished, false);
    cb(err);
  }
  /** @internal */ _data(): void {}
  /** @internal */ _reset(code: number | null, stopped: boolean): void {
    failed(this, code, stopped);
  }
}

/**
 * Any stream of a session.
 *
 * @example
 * const open = new Set<WebTransportStream>();
 * app.webtransport('/s', { stream: (_session, stream) => void open.add(stream.once('close', () => open.delete(stream))) });
 */
export type WebTransportStream = WebTransportBidiStream | WebTransportReceiveStream | WebTransportSendStream;

/** @internal what a session needs of its app */
export interface SessionHost extends StreamHost {
  adopt(id: number, stream: StreamEnd): void;
}

/**
 * One WebTransport session, given to an `app.webtransport` route's handlers. `data` is what the route's
 * `upgrade(req)` returned; `req` is the CONNECT request, readable for the session's whole life.
 *
 * @example
 * app.webtransport('/game', {
 *   upgrade: (req) => ({ player: req.query.name }),
 *   open: (session) => session.sendDatagram(`hello ${session.data.player}`),
 *   datagram: (session, data) => session.sendDatagram(data),
 * });
 */
export class WebTransportSession<D = unknown> {
  readonly data: D;
  readonly req: Request;
  /** True once the session ended (either side closed it, or the connection went). */
  closed = false;
  /** True once the client or the server (at a graceful close) asked to wind the session down. */
  draining = false;
  /** @internal */ readonly _id: number;
  /** @internal */ readonly _host: SessionHost;

  /** @internal */
  constructor(host: SessionHost, id: number, data: D, req: Request) {
    this._host = host;
    this._id = id;
    this.data = data;
    this.req = req;
  }

  /** Sends a datagram (unreliable, unordered): 'dropped' when it is over `maxDatagramSize`. */
  sendDatagram(data: string | Uint8Array): DatagramStatus {
    if (this.closed) return 'closed';
    return DATAGRAM[this._host.n.wtDatagram(this._id, data)] as DatagramStatus;
  }

  /** The largest datagram payload the path takes now, in bytes (0 once closed). */
  get maxDatagramSize(): number {
    return this.closed ? 0 : this._host.n.wtMaxDatagram(this._id);
  }

  /** Opens a bidirectional stream; writes wait until the client's stream limit lets it open. */
  createBidirectionalStream(): WebTransportBidiStream {
    const s = new WebTransportBidiStream(this._host, this.open(true), this as WebTransportSession);
    this._host.adopt(s._core.id, s);
    return s;
  }

  /** Opens a unidirectional stream to the client. */
  createUnidirectionalStream(): WebTransportSendStream {
    const s = new WebTransportSendStream(this._host, this.open(false), this as WebTransportSession);
    this._host.adopt(s._core.id, s);
    return s;
  }

  /** Closes the session with a WebTransport code and a reason (at most 1024 bytes); its streams are reset. */
  close(code = 0, reason = ''): void {
    if (!this.closed) this._host.n.wtClose(this._id, code >>> 0, reason);
  }

  private open(bidi: boolean): number {
    const id = this.closed ? undefined : this._host.n.wtOpen(this._id, bidi);
    if (id === undefined) throw new Error('WebTransport session is closed: no stream can be opened');
    return id;
  }
}
