// A stand-in for the net.Socket that Node middleware reads from req.socket / res.socket: addresses,
// readable/writable, events ('close' when the client goes away), and harmless no-ops for the
// tuning calls. Made only when something touches req.socket, req.connection or res.socket.
import { EventEmitter } from 'node:events';

/** What the server knows about itself, shared by every request of one listening server. */
export interface ServerContext {
  localAddress: string;
  localPort: number;
  family: string;
  /** The express-side server object (http.Server stand-in). */
  server: unknown;
}

/** The request/response pair a socket view belongs to. */
export interface SocketOwner {
  /** The peer address (read from the engine on first use). */
  remote(): string;
  /** The peer port. */
  remotePort(): number | undefined;
  /** The connection's local end (undefined once it is gone). */
  local(): { address: string; port: number; family: string } | undefined;
  /** Whether the connection is TLS. */
  secure(): boolean;
  /** Abandons the response (socket.destroy()). */
  destroy(): void;
  /** Starts forwarding the client-gone event (someone listens on the socket). */
  watch(): void;
}

/** The peer of one request, as Node's socket shows it. */
export class SocketView extends EventEmitter {
  /** @internal set when the client went away or the socket was destroyed */
  _gone = false;
  private readonly ctx: ServerContext;
  private readonly owner: SocketOwner;
  private addr: string | undefined = undefined;
  _httpMessage: unknown;

  constructor(ctx: ServerContext, owner: SocketOwner) {
    super();
    this.ctx = ctx;
    this.owner = owner;
  }

  /** `true` on a TLS connection (as a TLSSocket has), else undefined; assignable, as on Node's sockets. */
  get encrypted(): true | undefined {
    if (this._encrypted !== undefined) return this._encrypted;
    return this.owner.secure() ? true : undefined;
  }
  set encrypted(v: true | undefined) {
    this._encrypted = v;
  }
  private _encrypted: true | undefined = undefined;

  get remoteAddress(): string | undefined {
    if (this.addr === undefined) this.addr = this.owner.remote();
    return this.addr || undefined;
  }
  get remotePort(): number | undefined {
    return this.owner.remotePort();
  }
  get remoteFamily(): string {
    return this.remoteAddress?.includes(':') ? 'IPv6' : 'IPv4';
  }
  get localAddress(): string {
    return this.owner.local()?.address ?? this.ctx.localAddress;
  }
  get localPort(): number {
    return this.owner.local()?.port ?? this.ctx.localPort;
  }
  get server(): unknown {
    return this.ctx.server;
  }

  get readable(): boolean {
    return !this._gone;
  }
  get writable(): boolean {
    return !this._gone;
  }
  get destroyed(): boolean {
    return this._gone;
  }
  get readyState(): string {
    return this._gone ? 'closed' : 'open';
  }

  address(): { address: string; port: number; family: string } {
    return { address: this.localAddress, port: this.localPort, family: this.ctx.family };
  }

  /** Closes the connection (the response is abandoned). */
  destroy(err?: Error): this {
    if (!this._gone) {
      this._gone = true;
      this.owner.destroy();
      if (err) this.emit('error', err);
      this.emit('close', Boolean(err));
    }
    return this;
  }
  end(): this {
    return this.destroy();
  }
  destroySoon(): void {
    this.destroy();
  }
  setTimeout(_ms: number, cb?: () => void): this {
    if (cb) this.once('timeout', cb);
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  cork(): void {}
  uncork(): void {}
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }

  /** @internal the client went away */
  _closed(): void {
    if (this._gone) return;
    this._gone = true;
    this.emit('close', true);
  }
}

// Listening on the socket is what needs the engine's client-gone event: forward it from then on.
for (const name of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener'] as const) {
  const orig = EventEmitter.prototype[name] as (...a: unknown[]) => unknown;
  Object.defineProperty(SocketView.prototype, name, {
    configurable: true,
    writable: true,
    value: function (this: SocketView, ...args: unknown[]) {
      (this as unknown as { owner: SocketOwner }).owner.watch();
      return orig.apply(this, args);
    },
  });
}
