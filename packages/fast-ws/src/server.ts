// Server side of the fast-ws protocol over any raw text socket (Gale's ws, the `ws` package, a test double):
// greeting, event dispatch by hashed id, replies, plain messages, app-level ping/pong and channels.
import {
  clampReason,
  eventId,
  GREETING,
  messageFrame,
  parseClientFrame,
  pingFrame,
  pongFrame,
  RESPONSE,
  replyFrame,
  serverEventFrame,
  type ValueCodec,
} from './codec.js';
import { defaultValueCodec } from './value.js';

/**
 * The few socket operations the protocol needs. Gale's `ws` object satisfies it as is.
 *
 * @example
 * const conn = new FastWsConnection({ send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) });
 */
export interface RawSocket {
  send(text: string): unknown;
  close(code?: number, reason?: string): void;
  subscribe?(topic: string): unknown;
  unsubscribe?(topic: string): unknown;
  /** Sends `text` to the topic's subscribers (Gale's and uWS's publish leave the sender out). */
  publish?(topic: string, text: string): unknown;
}

/**
 * One event received from the client.
 *
 * @example
 * conn.on('echo', (event: FastWsEvent) => event.reply(event.data)); // answers the client's emit('echo', data, true)
 */
export interface FastWsEvent {
  /** The name the listener was registered under (the wire only carries its hash). */
  name: string;
  data: unknown;
  /** '' when the client does not wait for a reply. */
  replyId: string;
  /**
   * Answers the client's `emit(name, data, true)`. Sends only when `replyId` is non-empty and only the first
   * time; returns whether it sent. (fastWS 2019 behaved so; fastWS 2.x always sends, and its client reads the
   * empty id as 0, resolving whichever request #0 is pending with the wrong value.)
   */
  reply(data: unknown): boolean;
}

/**
 * A client-event listener; a returned promise that rejects is reported like a throw.
 *
 * @example
 * const echo: FastWsListener = (evt) => evt.reply(evt.data);
 * app.ws('/fast', fastWsHandlers((c) => c.on('echo', echo)));
 */
export type FastWsListener = (evt: FastWsEvent) => unknown;

/**
 * Lifecycle events; these names cannot be used as client event names (as in fastWS).
 *
 * @example
 * app.ws('/fast', fastWsHandlers((c) => {
 *   c.on('close', (code, reason) => console.log('closed', code, reason));
 *   c.on('error', (err) => console.error('listener failed', err));
 * }));
 */
export interface FastWsLifecycle {
  /** A plain message, frame = ENC(value). */
  message: (data: unknown) => void;
  /** The client pinged (already answered); its clock in ms. */
  ping: (ts: number) => void;
  /** Answer to our `ping()`: round trip in ms. */
  pong: (latency: number) => void;
  /** A binary frame (outside the protocol), passed on by `receiveBinary`. */
  binary: (data: Uint8Array) => void;
  close: (code: number, reason: string) => void;
  /** A listener threw or rejected. Without an 'error' listener it goes to console.error. */
  error: (err: unknown) => void;
}
type LifecycleName = keyof FastWsLifecycle;
const LIFECYCLE = new Set<string>(['message', 'ping', 'pong', 'binary', 'close', 'error']);

/**
 * Options of `fastWsHandlers(setup, options)` and `new FastWsConnection(socket, options)`.
 *
 * @example
 * const codec = createValueCodec();
 * app.ws('/fast', fastWsHandlers((conn) => conn.on('echo', (e) => e.reply(e.data)), { codec }));
 */
export interface FastWsConnectionOptions {
  /** Value codec (replicator) shared by all connections; see createValueCodec. */
  codec?: ValueCodec;
}

interface Entry {
  name: string;
  fn: FastWsListener;
}

/**
 * The fast-ws protocol for one connection. Feed it the client's text frames with `receive`, tell it when
 * the socket closed with `handleClose`; it writes through `raw`.
 *
 * @example
 * const c = new FastWsConnection({ send: (t) => ws.send(t), close: (code, r) => ws.close(code, r) });
 * c.on('echo', (e) => e.reply(e.data));
 * ws.on('message', (d) => c.receive(d.toString()));
 * ws.on('close', (code, r) => c.handleClose(code, r.toString()));
 * c.greet();
 */
export class FastWsConnection {
  readonly raw: RawSocket;
  private readonly codec: ValueCodec;
  private readonly events = new Map<string, Entry[]>();
  private readonly life = new Map<string, ((...args: never[]) => void)[]>();
  private done = false;
  private closeSeen = false;

  constructor(raw: RawSocket, opts: FastWsConnectionOptions = {}) {
    this.raw = raw;
    this.codec = opts.codec ?? defaultValueCodec;
  }

  /** True once the socket closed or the connection closed it; sends become no-ops. */
  get closed(): boolean {
    return this.done;
  }

  /** Sends the 2-byte greeting 0x00 0x02; call right after the socket opens. */
  greet(): void {
    this.write(GREETING);
  }

  /**
   * Listens to a lifecycle event, or to a client event by name. Several names may share a hash; each
   * listener of that hash is called.
   */
  on<K extends LifecycleName>(name: K, fn: FastWsLifecycle[K]): this;
  on(name: string, fn: FastWsListener): this;
  on(name: string, fn: FastWsListener | ((...args: never[]) => void)): this {
    if (LIFECYCLE.has(name)) {
      const list = this.life.get(name);
      if (list) list.push(fn as () => void);
      else this.life.set(name, [fn as () => void]);
    } else {
      const id = eventId(name);
      const entry = { name, fn: fn as FastWsListener };
      const list = this.events.get(id);
      if (list) list.push(entry);
      else this.events.set(id, [entry]);
    }
    return this;
  }

  /** Removes a listener added with `on`. */
  off(name: string, fn: (...args: never[]) => unknown): this {
    if (LIFECYCLE.has(name)) {
      const list = this.life.get(name);
      const i = list ? list.indexOf(fn as () => void) : -1;
      if (i >= 0) list!.splice(i, 1);
    } else {
      const list = this.events.get(eventId(name));
      const i = list ? list.findIndex((e) => e.fn === fn && e.name === name) : -1;
      if (i >= 0) list!.splice(i, 1);
    }
    return this;
  }

  /**
   * Handles one text frame from the client. A frame that does not parse closes the socket with 1002 (bad
   * framing) or 1007 (undecodable value) and a reason saying what was wrong; returns false then.
   */
  receive(text: string): boolean {
    if (this.done) return false;
    const f = parseClientFrame(text, this.codec);
    switch (f.kind) {
      case 'event':
        this.dispatch(f.id, f.replyId, f.data, f.enc);
        return true;
      case 'message':
        this.lifecycle('message', f.data);
        return true;
      case 'ping':
        this.write(pongFrame(f.ts));
        this.lifecycle('ping', Number(f.ts));
        return true;
      case 'pong':
        this.lifecycle('pong', Date.now() - Number(f.ts));
        return true;
      default:
        this.close(f.code, f.reason);
        return false;
    }
  }

  /** Passes a binary frame on as 'binary' (fast-ws leaves binary frames outside the protocol). */
  receiveBinary(data: Uint8Array): void {
    if (!this.done) this.lifecycle('binary', data);
  }

  /** Tells the connection the socket has closed: emits 'close' once and turns later sends into no-ops. */
  handleClose(code = 1005, reason = ''): void {
    if (this.closeSeen) return;
    this.closeSeen = true;
    this.done = true;
    this.lifecycle('close', code, reason);
  }

  /**
   * Closes the socket (the host's close callback then calls `handleClose`). A host whose close() refuses
   * codes other than 1000 and 3000–4999 (as browsers' do) gets 1002 → 4002, 1007 → 4007.
   */
  close(code = 1000, reason = ''): void {
    if (this.done) return;
    this.done = true;
    const why = clampReason(reason);
    try {
      this.raw.close(code, why);
    } catch (err) {
      if (code === 1000 || code >= 3000) throw err;
      this.raw.close(code + 3000, why);
    }
  }

  /** Sends event `name` with `data` to this client. Throws if `data` cannot be encoded. */
  emit(name: string, data?: unknown): void {
    this.write(serverEventFrame(name, data, this.codec));
  }

  /** Sends a plain message (the client's 'message' event). */
  send(data: unknown): void {
    this.write(messageFrame(data, this.codec));
  }

  /** Sends an app-level ping; the answer arrives as a 'pong' event with the latency in ms. */
  ping(): void {
    this.write(pingFrame());
  }

  /** Subscribes this socket to channel `ch` (raw.subscribe). */
  join(ch: string): void {
    if (!this.raw.subscribe) throw new Error('fast-ws: this socket has no subscribe()');
    this.raw.subscribe(ch);
  }

  /** Unsubscribes this socket from channel `ch` (raw.unsubscribe). */
  quit(ch: string): void {
    if (!this.raw.unsubscribe) throw new Error('fast-ws: this socket has no unsubscribe()');
    this.raw.unsubscribe(ch);
  }

  /**
   * Publishes event `name` to channel `ch` (raw.publish; with Gale, every subscriber but this socket). To
   * reach every subscriber, publish `serverEventFrame(name, data)` from the app instead.
   */
  emitToChannel(ch: string, name: string, data?: unknown): void {
    if (!this.raw.publish) throw new Error('fast-ws: this socket has no publish()');
    this.raw.publish(ch, serverEventFrame(name, data, this.codec));
  }

  private write(text: string): void {
    if (!this.done) this.raw.send(text);
  }

  private dispatch(id: string, replyId: string, data: unknown, enc: string): void {
    const list = this.events.get(id);
    if (!list) return; // nobody listens: as in fastWS, dropped (a waiting client times out)
    let replied = replyId === '';
    const reply = (x: unknown): boolean => {
      if (replied || this.done) return false;
      replied = true;
      // Echoing the received primitive: its received encoding decodes to the same value, so reuse it rather
      // than JSON-encoding 1 KB again (objects may have been changed in place, so they are re-encoded).
      const same = x === data && (typeof x !== 'object' || x === null);
      this.write(same ? RESPONSE + replyId + enc : replyFrame(replyId, x, this.codec));
      return true;
    };
    for (const entry of list.length === 1 ? list : list.slice()) {
      this.call(entry.fn, { name: entry.name, data, replyId, reply });
    }
  }

  private call(fn: FastWsListener, evt: FastWsEvent): void {
    try {
      const r = fn(evt) as PromiseLike<unknown> | undefined;
      if (r && typeof r.then === 'function') r.then(undefined, (err) => this.fail(err));
    } catch (err) {
      this.fail(err);
    }
  }

  private lifecycle(name: LifecycleName, ...args: unknown[]): void {
    const list = this.life.get(name);
    if (!list) return;
    for (const fn of list.length === 1 ? list : list.slice()) {
      try {
        (fn as (...a: unknown[]) => void)(...args);
      } catch (err) {
        if (name === 'error') console.error(err);
        else this.fail(err);
      }
    }
  }

  private fail(err: unknown): void {
    if (this.life.get('error')?.length) this.lifecycle('error', err);
    else console.error('fast-ws: listener failed:', err);
  }
}

/**
 * Handlers for Gale's `app.ws(path, …)` (or any host with the same callback shapes), as `fastWsHandlers` makes them.
 *
 * @example
 * const handlers: FastWsHandlers<WebSocket> = fastWsHandlers((c) => c.on('echo', (e) => e.reply(e.data)));
 * app.ws('/fast', handlers);
 */
export interface FastWsHandlers<S extends RawSocket> {
  open(ws: S): void;
  message(ws: S, data: string | Uint8Array, isBinary: boolean): void;
  close(ws: S, code: number, reason: string | Uint8Array): void;
}

const utf8 = new TextDecoder();

/**
 * Builds open/message/close handlers that run fast-ws on each socket: `setup` gets the connection right
 * before the greeting is sent, and registers its listeners there.
 *
 * @example
 * app.ws('/fast', fastWsHandlers((c) => c.on('echo', (e) => e.reply(e.data))));
 */
export function fastWsHandlers<S extends RawSocket>(
  setup: (conn: FastWsConnection, ws: S) => void,
  opts: FastWsConnectionOptions = {},
): FastWsHandlers<S> {
  const conns = new WeakMap<S, FastWsConnection>();
  return {
    open(ws) {
      const conn = new FastWsConnection(ws, opts);
      conns.set(ws, conn);
      setup(conn, ws);
      conn.greet();
    },
    message(ws, data, isBinary) {
      const conn = conns.get(ws);
      if (!conn) return;
      if (isBinary) conn.receiveBinary(typeof data === 'string' ? new TextEncoder().encode(data) : data);
      else conn.receive(typeof data === 'string' ? data : utf8.decode(data));
    },
    close(ws, code, reason) {
      const conn = conns.get(ws);
      conns.delete(ws);
      conn?.handleClose(code, typeof reason === 'string' ? reason : utf8.decode(reason));
    },
  };
}
