// Types and small helpers of the fast-ws client (options, lifecycle events, the WebSocket shape it needs).
// Browser-safe: no node: imports.
import type { ValueCodec } from './codec.js';

/**
 * A WebSocket class: the browser's, Node 22's global one, or the `ws` package's (Node 20 has no global).
 *
 * @example
 * import { WebSocket } from 'ws'; // Node 20; browsers and Node 22+ have globalThis.WebSocket
 * const client = new FastWsClient('ws://localhost:3000/fast', { WebSocket });
 */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => object;

// The part of the standard WebSocket API used here; browsers' and `ws`'s WebSocket both have it.
export interface SocketLike {
  binaryType: string;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/**
 * How the client reconnects after a dropped connection: exponential backoff with jitter.
 *
 * @example
 * const client = new FastWsClient(url, { reconnect: { delay: 250, factor: 2, maxDelay: 5000, retries: 10 } });
 */
export interface ReconnectOptions {
  /** First delay in ms (default 500); each attempt multiplies it by `factor` (2) up to `maxDelay` (10000). */
  delay?: number;
  factor?: number;
  maxDelay?: number;
  /** Attempts in a row before giving up (default Infinity); a successful connect resets the count. */
  retries?: number;
}

/**
 * Options of `new FastWsClient(url, options)`.
 *
 * @example
 * const client = new FastWsClient('wss://example.com/fast', { replyTimeout: 2000, pingInterval: 15_000, maxQueue: 100 });
 */
export interface FastWsClientOptions {
  /** Default `globalThis.WebSocket`. On Node 20 pass the `ws` package's: `{ WebSocket }` from 'ws'. */
  WebSocket?: WebSocketConstructor;
  /** ms before `emit(…, true)` rejects with "Response timeout." (default 5000). */
  replyTimeout?: number;
  /** Reconnect with exponential backoff and jitter when the connection drops (default true). */
  reconnect?: boolean | ReconnectOptions;
  /** ms between app-level heartbeat pings while connected (default 30000; 0 = none). */
  pingInterval?: number;
  /** ms a ping may wait for its pong; a heartbeat that times out drops the connection (default 10000). */
  pingTimeout?: number;
  /** Frames kept while not connected, sent after the next greeting (default 1024); beyond, emit rejects. */
  maxQueue?: number;
  codec?: ValueCodec;
}

/**
 * Client lifecycle events; these names cannot be server event names (as in fastWS).
 *
 * @example
 * client.on('connect', () => console.log('connected'));
 * client.on('disconnect', (code, reason) => console.log('lost', code, reason));
 */
export interface FastWsClientEvents {
  /** The socket opened; 'connect' follows once the server's greeting arrived. */
  open: () => void;
  connect: () => void;
  /** A connected socket closed (a reconnect may follow). */
  disconnect: (code: number, reason: string) => void;
  reconnecting: (attempt: number, delay: number) => void;
  /** Closed for good: `close()`, a version mismatch, reconnect off or out of retries. */
  close: (code: number, reason: string) => void;
  error: (err: Error) => void;
  message: (data: unknown) => void;
  binary: (data: ArrayBuffer) => void;
  /** The server pinged (already answered); its clock in ms. */
  ping: (ts: number) => void;
  pong: (latency: number) => void;
}
export type LifecycleName = keyof FastWsClientEvents;
export const LIFECYCLE = new Set<string>([
  'open',
  'connect',
  'disconnect',
  'reconnecting',
  'close',
  'error',
  'message',
  'binary',
  'ping',
  'pong',
]);

export type Fn = (...args: never[]) => void;
export interface Pending {
  resolve(v: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
  sent: boolean;
  done: boolean;
}
export interface Waiter {
  resolve(v: number): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export function unref(t: unknown): void {
  (t as { unref?: () => void }).unref?.();
}

export function toError(ev: unknown): Error {
  const e = (ev as { error?: unknown } | null)?.error;
  if (e instanceof Error) return e;
  const m = (ev as { message?: unknown } | null)?.message;
  return new Error(typeof m === 'string' && m ? m : 'WebSocket error');
}
