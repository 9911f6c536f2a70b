// Server-side WebSocket objects: the socket an `app.ws` route's handlers receive, with uWebSockets.js-style
// methods (send → status, subscribe/publish, getBufferedAmount) and a `ws`-library facade (on('message'), readyState).
// Frames, limits, compression and pub/sub fan-out live in the engine; this file only forwards calls to it.

import type { NativeServer } from './native.js';
import type { AnyParams } from './request/api.js';
import type { Request } from './request/request.js';
import type { Relay } from './scale-hooks.js';

/**
 * What `send` did: written (or corked for this loop turn), buffered over the high-water mark (wait for
 * `drain`), dropped over `maxBackpressure`, or not sent because the socket is closing or closed.
 *
 * @example
 * if (ws.send(frame) === 'buffered') ws.once('drain', () => resumeProducer());
 */
export type SendStatus = 'sent' | 'buffered' | 'dropped' | 'closed';
const STATUS: readonly SendStatus[] = ['sent', 'buffered', 'dropped', 'closed'];

/**
 * Data `send` and `publish` accept; strings go out as text frames unless `binary` is set.
 *
 * @example
 * ws.send('text');
 * ws.send(new Uint8Array([1, 2, 3]));
 * ws.send(Buffer.from('bytes'), { binary: true });
 */
export type WsData = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Options of `send` and `publish`.
 *
 * @example
 * ws.send(JSON.stringify(state), { compress: true });
 */
export interface SendOptions {
  /** Send a binary frame (default: binary for bytes, text for strings). */
  binary?: boolean;
  /** Compress with permessage-deflate when the client negotiated it (default true). */
  compress?: boolean;
}

/**
 * Options of `app.publish` and `ws.publish`: who is left out, decided in the engine for each subscriber.
 *
 * @example
 * ws.publish('chat', message, { except: ['muted'], volatile: true }); // not to subscribers of 'muted'
 */
export interface PublishOptions extends SendOptions {
  /** Leave out the subscribers of these topics (socket.io's `except(room)`). */
  except?: readonly string[];
  /**
   * Leave out sockets that cannot take it now instead of queueing for them (socket.io's `volatile`): their send
   * buffer is full, or something sent to them earlier in this loop turn has not gone out yet.
   */
  volatile?: boolean;
  /** Only this process's subscribers, when the app has cross-process pub/sub (`pubsub()`, cluster workers). */
  local?: boolean;
}

type Listener = (...args: never[]) => unknown;

/** Index bits of socket ids (crates/gale-server/src/ws/mod.rs). */
export const WS_SID_MASK = (1 << 20) - 1;

function bytesOf(data: WsData): string | Uint8Array {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('send(data): data must be a string, a Buffer, a Uint8Array, an ArrayBuffer or a typed array');
}

/** @internal the handlers a socket calls (WsBehavior, seen from here without importing ws-route.ts) */
export interface SocketBehavior {
  // biome-ignore lint/suspicious/noExplicitAny: the socket's data type is the route's, unknown here
  message?(ws: WebSocket<any>, data: Buffer, isBinary: boolean): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  drain?(ws: WebSocket<any>): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  close?(ws: WebSocket<any>, code: number, reason: string): unknown;
}

/** @internal what a socket needs from its route and app */
export interface SocketHost {
  readonly n: NativeServer;
  /** Cross-process pub/sub of the app, if any (see scale-hooks.ts). */
  readonly relay: Relay | undefined;
  error(err: unknown, ws: WebSocket): void;
  /** The upgrade request the engine kept for `ws`, made into a request object once. */
  requestOf(ws: WebSocket): Request;
}

/**
 * One WebSocket connection, given to an `app.ws` route's `open`, `message`, `drain` and `close` handlers.
 * Valid until `close` has run; `data` is what the route's `upgrade(req)` returned.
 *
 * @example
 * app.ws('/chat', {
 *   upgrade: (req) => ({ user: req.query.user }),
 *   open: (ws) => ws.subscribe('room'),
 *   message: (ws, data) => ws.publish('room', data),
 * });
 */
export class WebSocket<D = unknown> {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  // On the prototype (below the class), as the `ws` library has them: not four fields in every socket.
  declare readonly CONNECTING: 0;
  declare readonly OPEN: 1;
  declare readonly CLOSING: 2;
  declare readonly CLOSED: 3;

  /** What the route's `upgrade(req)` returned (undefined without one). */
  readonly data: D;
  /** The subprotocol chosen in the handshake ('' for none). */
  readonly protocol: string;
  /** @internal the upgrade request, or undefined while the engine keeps it for this socket (ws-route.ts) */
  _req: Request | undefined;
  /** @internal the route's params, for a request made from the kept head */
  readonly _params: AnyParams;
  /** 1 (OPEN) until `close`/`terminate` is called (2) or the connection ends (3). */
  readyState: 0 | 1 | 2 | 3 = 1;
  /** @internal */ readonly _sid: number;
  /** @internal */ readonly _host: SocketHost;
  /** @internal the route's handlers (typed loosely: ws-route.ts owns the type) */
  readonly _behavior: SocketBehavior;
  private listeners: Map<string, Listener[]> | undefined;

  /** @internal */
  constructor(
    host: SocketHost,
    sid: number,
    data: D,
    protocol: string,
    req: Request | undefined,
    params: AnyParams,
    behavior: SocketBehavior,
  ) {
    this._host = host;
    this._behavior = behavior;
    this._sid = sid;
    this.data = data;
    this.protocol = protocol;
    this._req = req;
    this._params = params;
  }

  /**
   * The upgrade request: its fields stay readable for the socket's whole life and after it closed. When nothing read
   * it before the 101 (no middleware, `upgrade` or `protocols` on the route), the engine keeps its head and the object
   * is made on first read, so idle sockets hold none.
   */
  get req(): Request {
    return this._req ?? this._host.requestOf(this);
  }

  /** The client's IP address (the upgrade request's peer, copied before the upgrade). */
  get remoteAddress(): string {
    return this.req.remoteAddress;
  }

  /** The client's port. */
  get remotePort(): number {
    return this.req.remotePort ?? 0;
  }

  /**
   * Sends a message. Strings are text frames, bytes binary frames (override with `binary`). Returns what
   * happened (see {@link SendStatus}); with a callback (as in the `ws` library), it is called with an error
   * when the message was not sent.
   */
  send(data: WsData, options?: SendOptions | ((err?: Error) => void), cb?: (err?: Error) => void): SendStatus {
    if (typeof options === 'function') {
      cb = options;
      options = undefined;
    }
    const body = bytesOf(data);
    const binary = options?.binary ?? typeof body !== 'string';
    const status =
      this.readyState !== 1
        ? 'closed'
        : (STATUS[this._host.n.wsSend(this._sid, body, binary, options?.compress ?? true)] as SendStatus);
    if (cb !== undefined) {
      const done = cb;
      const err =
        status === 'dropped' || status === 'closed'
          ? new Error(status === 'closed' ? 'WebSocket is not open' : 'message dropped: maxBackpressure reached')
          : undefined;
      queueMicrotask(() => done(err));
    }
    return status;
  }

  /** Sends a ping frame (payload at most 125 bytes); the client's pong resets the idle timer. */
  ping(data: WsData = ''): SendStatus {
    if (this.readyState !== 1) return 'closed';
    return STATUS[this._host.n.wsPing(this._sid, bytesOf(data))] as SendStatus;
  }

  /**
   * Starts the closing handshake. `code` is one a close frame may carry (RFC 6455 7.4: 1000–1003, 1007–1014,
   * 3000–4999, as the `ws` library checks); `reason` at most 123 bytes of UTF-8. The `close` handler runs when
   * the connection has ended.
   */
  close(code = 1000, reason = ''): void {
    const valid =
      (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
      (code >= 3000 && code <= 4999);
    if (!Number.isInteger(code) || !valid) {
      throw new RangeError(`close(code): code must be 1000-1003, 1007-1014 or 3000-4999, got ${code}`);
    }
    if (Buffer.byteLength(reason) > 123) {
      throw new RangeError('close(code, reason): reason must be at most 123 bytes of UTF-8');
    }
    if (this.readyState !== 1) return;
    this.readyState = 2;
    this._host.n.wsClose(this._sid, code, reason);
  }

  /** Drops the connection at once, without a closing handshake (the `close` handler sees 1006). */
  terminate(): void {
    if (this.readyState === 3) return;
    this.readyState = 2;
    this._host.n.wsTerminate(this._sid);
  }

  /** Bytes accepted by `send` and not yet written to the kernel. */
  getBufferedAmount(): number {
    return this._host.n.wsBuffered(this._sid) ?? 0;
  }

  /** The same as `getBufferedAmount()` (the `ws` library's name). */
  get bufferedAmount(): number {
    return this.getBufferedAmount();
  }

  /** Subscribes to `topic`, so `publish(topic, …)` reaches this socket. False if it already was. */
  subscribe(topic: string): boolean {
    return this.readyState === 1 && this._host.n.wsSubscribe(this._sid, topic);
  }

  /** Unsubscribes from `topic`. False if it was not subscribed. */
  unsubscribe(topic: string): boolean {
    return this._host.n.wsUnsubscribe(this._sid, topic);
  }

  isSubscribed(topic: string): boolean {
    return this._host.n.wsIsSubscribed(this._sid, topic);
  }

  /** The topics this socket is subscribed to. */
  getTopics(): string[] {
    return this._host.n.wsTopics(this._sid);
  }

  /**
   * Sends to every subscriber of `topic` except this socket; returns how many sockets it reached. The frame
   * is built (and compressed) once in the engine for all of them.
   */
  publish(topic: string | readonly string[], data: WsData, options?: PublishOptions): number {
    const body = bytesOf(data);
    const binary = options?.binary ?? typeof body !== 'string';
    const compress = options?.compress ?? true;
    const n = this._host.n.wsPublish(topic, body, binary, compress, this._sid, options?.except, options?.volatile);
    // Cross-process pub/sub (gale.pubsub, cluster workers): the other processes' subscribers, after the local ones.
    const relay = this._host.relay;
    if (relay !== undefined && options?.local !== true)
      relay(topic, body, binary, compress, options?.except, options?.volatile);
    return n;
  }

  /**
   * Listens for `message` (data: Buffer, isBinary), `close` (code, reason: Buffer), `drain`, and `error`,
   * as with the `ws` library.
   */
  on(event: 'message', fn: (data: Buffer, isBinary: boolean) => void): this;
  on(event: 'close', fn: (code: number, reason: Buffer) => void): this;
  on(event: 'drain' | 'pong', fn: () => void): this;
  on(event: 'error', fn: (err: Error) => void): this;
  on(event: string, fn: Listener): this {
    if (this.listeners === undefined) this.listeners = new Map();
    const list = this.listeners.get(event);
    if (list === undefined) this.listeners.set(event, [fn]);
    else list.push(fn);
    return this;
  }

  /** Same as `on` (the DOM name). */
  addEventListener(event: 'message' | 'close' | 'drain' | 'error', fn: Listener): this {
    return this.on(event as 'drain', fn as () => void);
  }

  /** Removes a listener added with `on`. */
  off(event: string, fn: Listener): this {
    const list = this.listeners?.get(event);
    const i = list?.indexOf(fn) ?? -1;
    if (list !== undefined && i >= 0) list.splice(i, 1);
    return this;
  }

  /** Calls `fn` for the next `event` only. */
  once(event: string, fn: Listener): this {
    const wrapped = ((...args: never[]) => {
      this.off(event, wrapped);
      return fn(...args);
    }) as Listener;
    return this.on(event as 'drain', wrapped as () => void);
  }

  /** @internal runs the `event` listeners; a throwing listener is reported like a throwing handler */
  _emit(event: string, ...args: unknown[]): void {
    const list = this.listeners?.get(event);
    if (list === undefined) return;
    for (const fn of [...list]) {
      try {
        const out = (fn as (...a: unknown[]) => unknown)(...args);
        if (out instanceof Promise) out.catch((err: unknown) => this._host.error(err, this));
      } catch (err) {
        this._host.error(err, this);
      }
    }
  }

  /** @internal true when someone listens for `event` */
  _listens(event: string): boolean {
    return (this.listeners?.get(event)?.length ?? 0) > 0;
  }
}

for (const [name, value] of [
  ['CONNECTING', 0],
  ['OPEN', 1],
  ['CLOSING', 2],
  ['CLOSED', 3],
] as const) {
  Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
}
