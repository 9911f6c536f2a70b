// Where an app listens: binding its port (itself, or through a node:cluster primary), the HTTP/2, HTTP/3 and TLS
// settings a listen sets, TLS reloads (and SIGHUP's), and the bound address. App (app.ts) owns one and delegates.
import { constants as osConstants } from 'node:os';
import type { Logger } from '../logging.js';
import type { NativeServer } from '../native.js';
import { checkListen, ioChoice } from '../option-rules.js';
import type { AddressInfo, ListenCallback, ListenOptions } from '../options.js';
import { scaleHooks as hooks } from '../scale-hooks.js';
import { nativeHttp2, nativeHttp3, nativeTls, type TlsOptions } from '../tls.js';
import { listenViaPrimary, viaPrimary } from '../worker-listen.js';

/** A listen's port and host, as `listen()` takes them. */
type Where = number | ListenOptions | undefined;

/** One app's listening state. */
export class Listener {
  /** A listen started (bound, or binding through the primary). */
  listening = false;
  /** The bound address while listening. */
  bound: AddressInfo | undefined;
  /** The backend the engine listens with (`App.ioBackend`). */
  ioBackend: 'uring' | 'epoll' | undefined;
  /** In a node:cluster worker: the primary's listening socket, as this worker's share of it. */
  private primaryListener: import('node:net').Server | undefined;
  /** The TLS options the app listens with (files are re-read from these on reload). */
  private tlsOptions: TlsOptions | undefined;
  /** `listen({ http2 })` turned HTTP/2 on (ALPN offers `h2` on TLS reloads too; only `h2` for `http1: false`). */
  private http2: boolean | 'only' = false;
  private offHup: (() => void) | undefined;

  /**
   * `app`: what the scale hooks hear of (`hooks.listening`); `reusePort`: every worker binds the port itself
   * (SO_REUSEPORT) rather than taking connections from a cluster primary; `closed`: the app's close() has begun.
   */
  constructor(
    private readonly app: object,
    private readonly n: NativeServer,
    private readonly logger: Logger,
    private readonly reusePort: boolean,
    private readonly closed: () => boolean,
    /** The app's WebTransport routes: HTTP/3 offers WebTransport when there is one. */
    private readonly webtransport: { readonly routes: number },
  ) {}

  /**
   * `App.listen` once the app's plugins are ready: binds, itself or through a node:cluster primary. Without `cb`,
   * returns the bound address's promise; with it, undefined, and `cb` gets no argument or the error (later).
   */
  listen(where: Where, hostArg: string | undefined, cb: ListenCallback | undefined): Promise<AddressInfo> | undefined {
    if (this.viaPrimary(where)) {
      const bound = this.bindViaPrimary(where, hostArg);
      if (cb === undefined) return bound;
      bound.then(
        () => cb(),
        (err: Error) => cb(err),
      );
      return undefined;
    }
    if (cb === undefined) {
      try {
        return Promise.resolve(this.bind(where, hostArg));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    try {
      this.bind(where, hostArg);
      process.nextTick(cb);
    } catch (err) {
      process.nextTick(cb, err as Error);
    }
    return undefined;
  }

  /** Whether this listen goes through a node:cluster primary (an async bind). */
  private viaPrimary(where: Where): boolean {
    return viaPrimary(typeof where === 'object' ? where : {}, this.reusePort);
  }

  /** Binds the listener now (the native listen is synchronous) and returns the address. */
  private bind(where: Where = 0, hostArg = '0.0.0.0'): AddressInfo {
    const o = this.configure(where, hostArg);
    const host = o.host ?? '0.0.0.0';
    let listened: ReturnType<NativeServer['listen']>;
    try {
      // On port 0 with HTTP/3 the engine tries other ports when the UDP port of the one picked is taken.
      listened = this.n.listen(host, o.port ?? 0, ioChoice(o.io));
    } catch (err) {
      throw listenError(err, host, o.port ?? 0);
    }
    const [[address, boundPort, family], backend, fallback] = listened;
    this.ioBackend = backend;
    if (fallback !== undefined) this.logger.warn(`gale: io_uring cannot be used: ${fallback}; listening with epoll`);
    this.listening = true;
    return this.record({ address, port: boundPort, family });
  }

  /** In a node:cluster worker: takes its connections from the primary, which owns the socket (worker-listen.ts). */
  private async bindViaPrimary(where: Where = 0, hostArg = '0.0.0.0'): Promise<AddressInfo> {
    const o = this.configure(where, hostArg);
    if (ioChoice(o.io) === 'uring') {
      this.logger.warn('gale: io_uring cannot be used: connections come from the node:cluster primary; using epoll');
    }
    this.ioBackend = 'epoll';
    this.listening = true;
    const warn = (m: string) => this.logger.warn(m);
    const { server, address } = await listenViaPrimary(this.n, o.port ?? 0, o.host ?? '0.0.0.0', warn).catch(
      (err: Error) => {
        this.listening = false;
        throw err;
      },
    );
    this.primaryListener = server;
    if (this.closed()) server.close();
    return this.record({ address: address.address, port: address.port, family: address.family });
  }

  /** Loads new TLS certificates, or re-reads the files `listen({ tls })` was given (`App.reloadTls`). */
  reloadTls(options?: TlsOptions): void {
    const next = options === undefined ? this.tlsOptions : { ...this.tlsOptions, ...options };
    if (next === undefined) throw new Error('reloadTls(): this app was not started with listen({ tls })');
    this.n.setTls(nativeTls(next, this.http2));
    this.tlsOptions = next;
  }

  /** close() began: SIGHUP no longer reloads certificates. */
  stopReloads(): void {
    this.offHup?.();
  }

  /** close() stops accepting: the primary stops sending connections, and there is no address any more. */
  stop(): void {
    this.primaryListener?.close();
    this.bound = undefined;
  }

  /** What listen() sets before it binds: checked options, HTTP/2, HTTP/3, TLS (and its reload on SIGHUP). */
  private configure(where: Where, hostArg: string): ListenOptions {
    checkListen(where, hostArg);
    const o = typeof where === 'object' ? where : { port: where, host: hostArg };
    const http2 = nativeHttp2(o.http2, o.tls);
    this.n.setHttp2(http2);
    this.http2 = http2 === null ? false : http2.http1 === false ? 'only' : true;
    this.n.setHttp3(nativeHttp3(o.http3, o.tls, this.webtransport.routes !== 0));
    if (o.tls !== undefined) {
      this.tlsOptions = o.tls;
      this.n.setTls(nativeTls(o.tls, this.http2));
      if (o.tls.reloadOnSighup) {
        const onHup = () => {
          try {
            this.reloadTls();
            this.logger.info?.('gale: TLS certificates reloaded (SIGHUP)');
          } catch (err) {
            this.logger.error?.({ err }, 'gale: TLS reload on SIGHUP failed; the previous certificates stay in use');
          }
        };
        process.on('SIGHUP', onHup);
        this.offHup = () => process.off('SIGHUP', onHup);
      }
    }
    return o;
  }

  /** Records the bound address (app.address()) and tells the scale hooks. */
  private record(bound: AddressInfo): AddressInfo {
    this.bound = bound;
    hooks.listening?.(this.app, bound);
    return bound;
  }
}

/** A failed listen's error with node:http's fields: `errno` (libuv's, negative), `syscall`, `address`, `port`. */
function listenError(err: unknown, address: string, port: number): unknown {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (typeof e !== 'object' || e === null || typeof e.code !== 'string') return err;
  const errno = (osConstants.errno as Record<string, number | undefined>)[e.code];
  if (errno !== undefined) e.errno = -errno;
  e.syscall = 'listen';
  e.address = address;
  e.port = port;
  return e;
}
