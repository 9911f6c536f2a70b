// The connection as node:http middleware reads it from req.socket / res.socket on Gale's native API (addresses,
// 'close' when the client leaves; writing or tuning refuses), and the GALE_ERR_NODE_MIDDLEWARE error every
// refusal of node-members.ts uses. Made only when something touches those names.
import { isIPv6 } from 'node:net';
import { ErrorCodes, GaleError } from './errors.js';
import type { RequestView as Request } from './request/api.js';

const LAYER =
  'Gale’s native Request and Response are not node:http objects: run this middleware on @gale-http/express, the ' +
  'Express layer (npm install @gale-http/express; import express from "@gale-http/express"), where req and res are ' +
  'node:http-shaped';

/**
 * The error a node:http-only middleware gets at its first use on the native API, naming what it touched.
 *
 * @example
 * throw nodeOnly('req.method was assigned (method-override does)', 'the engine routed the request already');
 */
export function nodeOnly(what: string, why: string): GaleError {
  return new GaleError(ErrorCodes.NODE_MIDDLEWARE, `${what}: ${why}. ${LAYER}.`);
}

/** Listeners added through `on('close' | 'aborted')` of a request or socket view, by request: for removal. */
const abortListeners = new WeakMap<Request, Map<(...a: unknown[]) => void, () => void>>();

/** Calls `fn` when the client leaves before the response ends (at once if it has). */
export function onAbort(req: Request, fn: (...a: unknown[]) => void, once: boolean): void {
  let map = abortListeners.get(req);
  if (map === undefined) {
    map = new Map();
    abortListeners.set(req, map);
  }
  const signal = req.signal;
  const wrapper = () => {
    if (once) offAbort(req, fn);
    fn();
  };
  map.set(fn, wrapper);
  if (signal.aborted) queueMicrotask(wrapper);
  else signal.addEventListener('abort', wrapper, { once: true });
}

/** Undoes `onAbort`. */
export function offAbort(req: Request, fn: (...a: unknown[]) => void): void {
  const map = abortListeners.get(req);
  const wrapper = map?.get(fn);
  if (wrapper === undefined) return;
  map?.delete(fn);
  req.signal.removeEventListener('abort', wrapper);
}

/**
 * What `req.socket`, `req.connection` and `res.socket` are on the native API: the connection's addresses, read
 * from the engine, and its `'close'` (the client went away before the response ended). Writing to it or tuning it
 * is node:http's business and refuses with `GALE_ERR_NODE_MIDDLEWARE`.
 *
 * @example
 * app.use((req, res, next) => {
 *   console.log(req.socket.remoteAddress, req.socket.remotePort, req.socket.encrypted === true);
 *   return next();
 * });
 */
export class SocketView {
  /** @internal */ readonly _req: Request;
  constructor(req: Request) {
    this._req = req;
  }
  /** The peer's address (undefined once the connection is gone and it was never read). */
  get remoteAddress(): string | undefined {
    return this._req.remoteAddress || undefined;
  }
  /** The peer's port. */
  get remotePort(): number | undefined {
    return this._req.remotePort;
  }
  /** `'IPv4'` or `'IPv6'`, from the peer's address. */
  get remoteFamily(): string | undefined {
    const a = this.remoteAddress;
    return a === undefined ? undefined : isIPv6(a) ? 'IPv6' : 'IPv4';
  }
  /** The address the connection arrived on (the server's end). */
  get localAddress(): string | undefined {
    return this._req.local?.address;
  }
  /** The port the connection arrived on. */
  get localPort(): number | undefined {
    return this._req.local?.port;
  }
  /** true on a TLS connection (as a tls.TLSSocket), undefined otherwise (as a net.Socket). */
  get encrypted(): true | undefined {
    return this._req._secureConn ? true : undefined;
  }
  /** True once the client has gone away. */
  get destroyed(): boolean {
    return this._req.aborted;
  }
  /** False once the client has gone away. */
  get readable(): boolean {
    return !this._req.aborted;
  }
  /** False once the client has gone away or the response has ended. */
  get writable(): boolean {
    return !this._req.aborted && this._req._res?.finished !== true;
  }
  /** `'close'`: the client went away before the response ended; `'error'`: accepted, never emitted. */
  on(event: string, listener: (...a: unknown[]) => void): this {
    if (event === 'close') onAbort(this._req, listener, false);
    else if (event !== 'error') throw nodeOnly(`req.socket.on('${event}')`, 'the socket belongs to the engine');
    return this;
  }
  /** `on`, once. */
  once(event: string, listener: (...a: unknown[]) => void): this {
    if (event === 'close') onAbort(this._req, listener, true);
    else if (event !== 'error') throw nodeOnly(`req.socket.once('${event}')`, 'the socket belongs to the engine');
    return this;
  }
  /** `on` under its other name. */
  addListener(event: string, listener: (...a: unknown[]) => void): this {
    return this.on(event, listener);
  }
  /** Removes a `'close'` listener. */
  removeListener(event: string, listener: (...a: unknown[]) => void): this {
    if (event === 'close') offAbort(this._req, listener);
    return this;
  }
  /** `removeListener` under its other name. */
  off(event: string, listener: (...a: unknown[]) => void): this {
    return this.removeListener(event, listener);
  }
  /** Cuts the connection under this request (the response's `destroy()`). */
  destroy(): this {
    this._req._res?.destroy();
    return this;
  }
}

// node:net's socket methods the engine keeps to itself.
for (const name of [
  'setTimeout',
  'setNoDelay',
  'setKeepAlive',
  'write',
  'end',
  'pipe',
  'pause',
  'resume',
  'ref',
  'unref',
]) {
  Object.defineProperty(SocketView.prototype, name, {
    value(): never {
      throw nodeOnly(
        `req.socket.${name}() was called`,
        'the socket belongs to the engine, which reads, writes and times it',
      );
    },
    configurable: true,
    writable: true,
  });
}
