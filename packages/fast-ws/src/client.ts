// fast-ws client for browsers and Node, exported as `@gale-http/fast-ws/client`. Wire-compatible with fastWS
// servers and with FastWsConnection. Browser-safe: no node: imports, only the standard WebSocket API.
// Over 400 lines: FastWsClient is one class whose connect and greeting, reconnect with backoff, send queue, pending
// replies and pings share its private state (ws, state, pending, queue, pings) and are torn down together in
// dropPending and finish; its types and frame codec are already in client-types.ts and codec.ts.
/**
 * `@gale-http/fast-ws/client`: the fast-ws client for browsers and Node.
 *
 * @example
 * import { FastWsClient } from '@gale-http/fast-ws/client';
 * const client = new FastWsClient('ws://localhost:3000/fast');
 * await client.connected;
 * const echoed = await client.emit('echo', 'hi', true);
 *
 * @module @gale-http/fast-ws/client
 */

import {
  type FastWsClientEvents,
  type FastWsClientOptions,
  type Fn,
  LIFECYCLE,
  type LifecycleName,
  type Pending,
  type ReconnectOptions,
  type SocketLike,
  toError,
  unref,
  type Waiter,
  type WebSocketConstructor,
} from './client-types.js';
import {
  clampReason,
  clientEventFrame,
  eventId,
  GREETING,
  messageFrame,
  parseServerFrame,
  pingFrame,
  pongFrame,
  type ValueCodec,
} from './codec.js';
import { defaultValueCodec } from './value.js';

export type {
  FastWsClientEvents,
  FastWsClientOptions,
  ReconnectOptions,
  WebSocketConstructor,
} from './client-types.js';
export { createValueCodec, eventId, type ValueCodec } from './codec.js';

/**
 * A fast-ws client. Connects at once (subprotocol `fast-ws`) and reconnects with backoff unless told not to.
 *
 * @example
 * import { WebSocket } from 'ws'; // Node 20 only; browsers and Node 22+ have a global WebSocket
 * const client = new FastWsClient('ws://127.0.0.1:3000/fast', { WebSocket });
 * await client.connected;
 * const echoed = await client.emit('echo', 'hi', true); // 'hi'
 * client.on('news', (data) => console.log(data));
 * client.close();
 */
export class FastWsClient {
  readonly url: string;
  private readonly Ctor: WebSocketConstructor;
  private readonly codec: ValueCodec;
  private readonly replyTimeout: number;
  private readonly pingInterval: number;
  private readonly pingTimeout: number;
  private readonly maxQueue: number;
  private readonly backoff: Required<ReconnectOptions> | null;
  private ws: SocketLike | null = null;
  private state: 'connecting' | 'open' | 'ready' | 'waiting' | 'closed' = 'connecting';
  private stopped = false;
  private fatal: Error | null = null;
  private attempt = 0;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private queue: { frame: string; entry?: Pending }[] = [];
  private readonly pings = new Map<string, Waiter[]>();
  private waiters: { resolve(): void; reject(err: Error): void }[] = [];
  private readonly listeners = new Map<string, Fn[]>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(url: string, options: FastWsClientOptions = {}) {
    this.url = url;
    const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Ctor) throw new TypeError("fast-ws: no global WebSocket; pass { WebSocket } from 'ws'");
    this.Ctor = Ctor;
    this.codec = options.codec ?? defaultValueCodec;
    this.replyTimeout = options.replyTimeout ?? 5000;
    this.pingInterval = options.pingInterval ?? 30_000;
    this.pingTimeout = options.pingTimeout ?? 10_000;
    this.maxQueue = options.maxQueue ?? 1024;
    const r = options.reconnect ?? true;
    this.backoff =
      r === false ? null : { delay: 500, factor: 2, maxDelay: 10_000, retries: Infinity, ...(r === true ? {} : r) };
    this.open();
  }

  /** True between the greeting and the next disconnect. */
  get isConnected(): boolean {
    return this.state === 'ready';
  }

  /**
   * Resolves when connected (at once if already). Rejects on a version mismatch or when the client closes
   * for good; a failed attempt that will be retried keeps it pending.
   */
  get connected(): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(this.fatal ?? new Error('Client closed.'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Listens to a lifecycle event, or to a server event by name (the listener gets its data). */
  on<K extends LifecycleName>(name: K, fn: FastWsClientEvents[K]): this;
  on(name: string, fn: (data: unknown) => void): this;
  on(name: string, fn: Fn): this {
    const key = LIFECYCLE.has(name) ? name : eventId(name);
    const list = this.listeners.get(key);
    if (list) list.push(fn);
    else this.listeners.set(key, [fn]);
    return this;
  }

  /** Removes a listener added with `on`. */
  off(name: string, fn: Fn): this {
    const list = this.listeners.get(LIFECYCLE.has(name) ? name : eventId(name));
    const i = list ? list.indexOf(fn) : -1;
    if (i >= 0) list!.splice(i, 1);
    return this;
  }

  /**
   * Sends event `name`. Without `wantReply` it resolves once the frame is sent or queued; with it, resolves
   * with the server's reply or rejects with "Response timeout." after `replyTimeout` ms, or "Connection
   * closed." if the socket drops first. Rejects when the client is closed or the queue is full.
   */
  emit(name: string, data?: unknown, wantReply?: false): Promise<void>;
  emit(name: string, data: unknown, wantReply: true): Promise<unknown>;
  emit(name: string, data?: unknown, wantReply?: boolean): Promise<unknown>;
  emit(name: string, data?: unknown, wantReply = false): Promise<unknown> {
    if (this.stopped) return Promise.reject(new Error('Client closed.'));
    if (!wantReply) {
      try {
        this.write(clientEventFrame(name, '', data, this.codec));
        return Promise.resolve();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return new Promise((resolve, reject) => {
      const id = this.allocateId();
      const frame = clientEventFrame(name, String(id), data, this.codec);
      const entry: Pending = { resolve, reject, sent: false, done: false, timer: undefined as never };
      entry.timer = setTimeout(() => this.settle(id, entry, new Error('Response timeout.')), this.replyTimeout);
      this.pending.set(id, entry);
      try {
        this.write(frame, entry);
      } catch (err) {
        this.settle(id, entry, err as Error);
      }
    });
  }

  /** Sends a plain message (the server's 'message' event). Throws when closed or the queue is full. */
  send(data: unknown): void {
    if (this.stopped) throw new Error('Client closed.');
    this.write(messageFrame(data, this.codec));
  }

  /** App-level ping; resolves with the round trip in ms, rejects with "Ping timeout." after `pingTimeout`. */
  ping(): Promise<number> {
    const ws = this.ws;
    if (this.stopped) return Promise.reject(new Error('Client closed.'));
    if (this.state !== 'ready' || !ws) return Promise.reject(new Error('Not connected.'));
    const frame = pingFrame();
    const ts = frame.slice(1);
    return new Promise((resolve, reject) => {
      const w: Waiter = { resolve, reject, timer: undefined as never };
      w.timer = setTimeout(() => {
        const list = this.pings.get(ts);
        if (list) list.splice(list.indexOf(w), 1);
        if (list?.length === 0) this.pings.delete(ts);
        reject(new Error('Ping timeout.'));
      }, this.pingTimeout);
      const list = this.pings.get(ts);
      if (list) list.push(w);
      else this.pings.set(ts, [w]);
      ws.send(frame);
    });
  }

  /** Closes for good: no reconnect; pending replies and queued frames are rejected with "Client closed.". */
  close(code = 1000, reason = ''): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.dropPending(new Error('Client closed.'), true);
    if (this.ws) this.ws.close(code, clampReason(reason));
    else this.finish(code, reason);
  }

  private open(): void {
    const ws = new this.Ctor(this.url, 'fast-ws') as SocketLike;
    this.ws = ws;
    this.state = 'connecting';
    ws.binaryType = 'arraybuffer';
    // Events of a socket that was replaced are ignored.
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.state = 'open';
      this.fire('open');
    };
    ws.onmessage = (ev) => {
      if (this.ws === ws) this.onFrame(ws, ev.data);
    };
    ws.onerror = (ev) => {
      if (this.ws === ws && !this.stopped) this.fire('error', toError(ev));
    };
    ws.onclose = (ev) => {
      if (this.ws === ws) this.onClose(ev.code, ev.reason);
    };
  }

  private onFrame(ws: SocketLike, data: unknown): void {
    if (this.state !== 'ready') {
      if (data === GREETING) this.onGreeting(ws);
      else this.drop(ws, new Error('Server version mismatch.'), 4002, 'server version mismatch', true);
      return;
    }
    if (typeof data !== 'string') {
      this.fire('binary', data);
      return;
    }
    const f = parseServerFrame(data, this.codec);
    switch (f.kind) {
      case 'event':
        for (const fn of this.listeners.get(f.id)?.slice() ?? []) this.call(fn, f.data);
        break;
      case 'reply': {
        // '' is a fastWS 2.x server answering a fire-and-forget event; its client reads it as id 0.
        if (f.replyId === '') break;
        const id = Number(f.replyId);
        const entry = this.pending.get(id);
        if (entry) this.settle(id, entry, null, f.data); // else: late, after its timeout
        break;
      }
      case 'message':
        this.fire('message', f.data);
        break;
      case 'ping':
        ws.send(pongFrame(f.ts));
        this.fire('ping', Number(f.ts));
        break;
      case 'pong': {
        const latency = Date.now() - Number(f.ts);
        for (const w of this.pings.get(f.ts) ?? []) {
          clearTimeout(w.timer);
          w.resolve(latency);
        }
        this.pings.delete(f.ts);
        this.fire('pong', latency);
        break;
      }
      case 'greeting':
        break;
      default: // browsers let scripts close with 1000 or 3000-4999 only: 1002 → 4002, 1007 → 4007
        this.drop(ws, new Error(f.reason), f.code + 3000, f.reason, false);
    }
  }

  private onGreeting(ws: SocketLike): void {
    this.state = 'ready';
    this.attempt = 0;
    const queued = this.queue;
    this.queue = [];
    for (const q of queued) {
      if (q.entry?.done) continue; // timed out while waiting
      if (q.entry) q.entry.sent = true;
      ws.send(q.frame);
    }
    if (this.pingInterval > 0) {
      this.heartbeat = setInterval(() => {
        this.ping().catch((err: Error) => {
          if (err.message === 'Ping timeout.' && this.ws === ws) ws.close(4000, 'ping timeout');
        });
      }, this.pingInterval);
      unref(this.heartbeat); // a heartbeat alone should not keep a Node process alive
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
    this.fire('connect');
  }

  // Protocol failure on this socket: report it and close; a version mismatch also stops reconnecting.
  private drop(ws: SocketLike, err: Error, code: number, reason: string, fatal: boolean): void {
    if (fatal) {
      this.stopped = true;
      this.fatal = err;
    }
    this.fire('error', err);
    ws.close(code, clampReason(reason));
  }

  private onClose(code: number, reason: string): void {
    const wasReady = this.state === 'ready';
    this.ws = null;
    clearInterval(this.heartbeat);
    this.dropPending(new Error('Connection closed.'), false);
    if (wasReady) this.fire('disconnect', code, reason);
    const b = this.backoff;
    if (this.stopped || !b || this.attempt >= b.retries) {
      this.finish(code, reason);
      return;
    }
    this.attempt++;
    const full = Math.min(b.maxDelay, b.delay * b.factor ** (this.attempt - 1));
    const delay = Math.round(full / 2 + (Math.random() * full) / 2); // jitter: many clients do not return at once
    this.state = 'waiting';
    this.fire('reconnecting', this.attempt, delay);
    this.retryTimer = setTimeout(() => {
      if (this.stopped) return;
      try {
        this.open();
      } catch (err) {
        this.fire('error', err as Error);
        this.onClose(1006, 'could not open');
      }
    }, delay);
  }

  private finish(code: number, reason: string): void {
    this.state = 'closed';
    this.stopped = true;
    this.dropPending(new Error('Connection closed.'), true);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(this.fatal ?? new Error('Connection closed.'));
    this.fire('close', code, reason);
  }

  // Rejects replies sent on the socket that is gone (all of them, with the queue, when `all`) and pings.
  private dropPending(err: Error, all: boolean): void {
    for (const [id, entry] of this.pending) if (all || entry.sent) this.settle(id, entry, err);
    if (all) this.queue = [];
    for (const list of this.pings.values()) {
      for (const w of list) {
        clearTimeout(w.timer);
        w.reject(err);
      }
    }
    this.pings.clear();
  }

  private write(frame: string, entry?: Pending): void {
    if (this.state === 'ready' && this.ws) {
      if (entry) entry.sent = true;
      this.ws.send(frame);
    } else if (this.queue.length >= this.maxQueue) {
      throw new Error('Send queue is full.');
    } else {
      this.queue.push({ frame, entry });
    }
  }

  // Reply ids count 0…65535 and wrap, as fastWS's client does; ids still waiting are skipped.
  private allocateId(): number {
    for (let n = 0; n < 0x10000; n++) {
      const id = this.nextId;
      this.nextId = (id + 1) & 0xffff;
      if (!this.pending.has(id)) return id;
    }
    throw new Error('Too many replies pending.');
  }

  private settle(id: number, entry: Pending, err: Error | null, value?: unknown): void {
    if (entry.done) return;
    entry.done = true;
    clearTimeout(entry.timer);
    if (this.pending.get(id) === entry) this.pending.delete(id);
    if (err) entry.reject(err);
    else entry.resolve(value);
  }

  private fire(name: LifecycleName, ...args: unknown[]): void {
    const list = this.listeners.get(name);
    if (list) for (const fn of list.slice()) this.call(fn, ...args);
  }

  // A throwing listener must not break frame handling; it is reported as 'error' (or console.error).
  private call(fn: Fn, ...args: unknown[]): void {
    try {
      (fn as (...a: unknown[]) => void)(...args);
    } catch (err) {
      const onError = this.listeners.get('error');
      if (onError?.length && !onError.includes(fn)) for (const h of onError.slice()) this.call(h, err);
      else console.error('fast-ws client: listener failed:', err);
    }
  }
}
