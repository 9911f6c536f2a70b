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

/** The peer of one request, as Node's socket shows it. */
export class SocketView extends EventEmitter {
  readonly remoteAddress: string | undefined;
  readonly remoteFamily: string | undefined;
  readonly remotePort: number | undefined = undefined;
  readonly localAddress: string;
  readonly localPort: number;
  readonly encrypted: undefined = undefined;
  readonly server: unknown;
  /** @internal set when the client went away or the socket was destroyed */
  _gone = false;
  private readonly onDestroy: () => void;
  _httpMessage: unknown;

  constructor(remoteAddress: string, ctx: ServerContext, onDestroy: () => void) {
    super();
    this.remoteAddress = remoteAddress || undefined;
    this.remoteFamily = remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
    this.localAddress = ctx.localAddress;
    this.localPort = ctx.localPort;
    this.server = ctx.server;
    this.onDestroy = onDestroy;
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
    return { address: this.localAddress, port: this.localPort, family: this.remoteFamily ?? 'IPv4' };
  }

  /** Closes the connection (the response is abandoned). */
  destroy(err?: Error): this {
    if (!this._gone) {
      this._gone = true;
      this.onDestroy();
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
