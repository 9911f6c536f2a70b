// TLS options of `app.listen({ tls })`: PEM given as strings, Buffers or file paths, turned into what the
// engine takes (crates/gale-node config.rs setTls), and re-read from the same files on reload (SIGHUP).
import { readFileSync } from 'node:fs';
import type { NativeTls } from './native-options.js';

/**
 * PEM text, its bytes, or the path of a PEM file.
 *
 * @example
 * import { readFileSync } from 'node:fs';
 * const fromPath: PemSource = '/etc/ssl/site.crt';
 * const fromBytes: PemSource = readFileSync('/etc/ssl/site.key');
 */
export type PemSource = string | Uint8Array;

/**
 * A certificate chain and its private key.
 *
 * @example
 * const site: TlsCertificate = { cert: '/etc/ssl/site.crt', key: '/etc/ssl/site.key' };
 * await app.listen({ port: 443, tls: site });
 */
export interface TlsCertificate {
  /** The certificate chain, server certificate first (PEM). */
  cert: PemSource;
  /** The private key (PEM; PKCS#8, PKCS#1 or SEC1, unencrypted). */
  key: PemSource;
}

/**
 * TLS for `app.listen({ port, tls })`: HTTPS and WSS served by the engine with rustls (TLS 1.2 and 1.3, session
 * tickets). Paths are read when the server starts and again on `app.reloadTls()` / SIGHUP.
 *
 * @example
 * await app.listen({
 *   port: 443,
 *   tls: {
 *     cert: '/etc/ssl/site.crt', key: '/etc/ssl/site.key',
 *     sni: { 'api.example.com': { cert: '/etc/ssl/api.crt', key: '/etc/ssl/api.key' } },
 *     reloadOnSighup: true,
 *   },
 * });
 */
export interface TlsOptions extends Partial<TlsCertificate> {
  /** Certificates by host name (`a.example.com`, or `*.example.com`); `cert`/`key` serve every other name. */
  sni?: Record<string, TlsCertificate>;
  /** Intermediate certificates appended to every chain (PEM). */
  ca?: PemSource;
  /** ALPN protocols offered, in order of preference. Default `['h2', 'http/1.1']` with `http2`, else `['http/1.1']`. */
  alpn?: string[];
  /** Lowest TLS version accepted. Default `'TLSv1.2'`. */
  minVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Re-read the certificate files on SIGHUP (new handshakes use them; open connections carry on). Default false. */
  reloadOnSighup?: boolean;
}

function pem(src: PemSource | undefined, what: string): string | Uint8Array | undefined {
  if (src === undefined) return undefined;
  if (src instanceof Uint8Array) return src;
  if (typeof src !== 'string') throw new TypeError(`tls.${what}: give PEM text, a Buffer, or a file path`);
  if (src.includes('-----BEGIN')) return src;
  try {
    return readFileSync(src);
  } catch (err) {
    throw new Error(`tls.${what}: cannot read ${JSON.stringify(src)}: ${(err as Error).message}`);
  }
}

/**
 * HTTP/2 for `app.listen({ http2 })`, served by the engine next to HTTP/1.1 on the same port: over TLS to clients
 * that negotiate `h2` (ALPN), and in cleartext to clients that start with the HTTP/2 preface (h2c with prior
 * knowledge). The same routes, middleware, request and response API; `req.httpVersion` is `'2.0'`.
 *
 * @example
 * await app.listen({ port: 443, tls: { cert: './site.crt', key: './site.key' }, http2: true });
 * await app.listen({ port: 8080, http2: { maxConcurrentStreams: 256 } }); // h2c and HTTP/1.1
 */
export interface Http2Options {
  /** Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100. */
  maxConcurrentStreams?: number;
  /** Each stream's window for request bodies, 65535–2147483647 bytes (SETTINGS_INITIAL_WINDOW_SIZE). Default 262144. */
  initialWindowSize?: number;
  /** The connection's window for request bodies, shared by its streams, 65535–2147483647 bytes. Default 1048576. */
  connectionWindowSize?: number;
  /** Largest frame the client may send, 16384–16777215 (SETTINGS_MAX_FRAME_SIZE). Default 16384. */
  maxFrameSize?: number;
  /** Serve cleartext HTTP/2 (prior knowledge) on a listener without TLS. Default true. */
  cleartext?: boolean;
  /**
   * Serve HTTP/1.1 on the same port too. Default true. With `false` the port is HTTP/2 only, as Node's
   * `http2.createServer` is: an HTTP/1.x request is answered 505 with how to connect (and the connection closed),
   * and over TLS ALPN offers only `h2`.
   *
   * @example
   * await app.listen({ port: 8082, http2: { http1: false } }); // h2c (prior knowledge) only
   */
  http1?: boolean;
}

/** The engine's form of `listen({ http2 })` (null: off); `tls.alpn` naming `h2` turns it on too. */
export function nativeHttp2(o: boolean | Http2Options | undefined, tls: TlsOptions | undefined): Http2Options | null {
  if (o === undefined) return tls?.alpn?.includes('h2') ? {} : null;
  if (o === false) return null;
  if (o === true) return {};
  if (typeof o !== 'object' || o === null)
    throw new TypeError('listen: http2 must be true, false or an options object');
  for (const k of ['maxConcurrentStreams', 'initialWindowSize', 'connectionWindowSize', 'maxFrameSize'] as const) {
    const v = o[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0))
      throw new TypeError(`listen: http2.${k} must be a non-negative integer, not ${String(v)}`);
  }
  return { ...o };
}

/**
 * HTTP/3 for `app.listen({ tls, http3 })`: QUIC on a UDP socket at the TLS listener's address and port, served
 * by the engine on Node's loop with the same routes, middleware, request and response API (`req.httpVersion` is
 * `'3.0'`). Needs `tls` (QUIC is always encrypted; TLS 1.3). Linux and macOS.
 *
 * @example
 * await app.listen({ port: 443, tls: { cert: './site.crt', key: './site.key' }, http2: true, http3: true });
 */
export interface Http3Options {
  /** Request streams a client may have open at once. Default 100. */
  maxConcurrentStreams?: number;
  /** Milliseconds without traffic after which a connection is closed (QUIC's idle timeout), 1–600000. Default 30000. */
  idleTimeout?: number;
  /** QUIC connections one IP address may have open (handshakes included); more are refused. Default 64. */
  maxConnectionsPerAddress?: number;
  /**
   * Handshakes in progress above which a new client must first prove its address with a QUIC Retry (one round trip
   * more; nothing is kept for a spoofed address). 0: always. Default 64.
   */
  retryAbove?: number;
  /**
   * New QUIC handshakes started per second, across all clients (a second's worth may come at once). Past it a client
   * that has not proved its address gets a Retry and one that has is refused (CONNECTION_REFUSED; QUIC clients
   * then try again or fall back to HTTP/2), so a burst of connection attempts cannot fill the loop with TLS
   * handshakes. Default 1000.
   */
  maxHandshakesPerSecond?: number;
  /**
   * UDP segmentation offload where the kernel has it: GSO (one send carries many QUIC packets) and GRO (one receive
   * takes many). Turn it off only on a network whose drivers mishandle it. Default true.
   */
  segmentationOffload?: boolean;
  /** WebTransport's limits per connection, used when the app has `app.webtransport` routes. */
  webtransport?: WebTransportLimits;
}

/**
 * Limits of WebTransport on each HTTP/3 connection (`listen({ http3: { webtransport } })`).
 *
 * @example
 * app.listen({ port: 443, tls, http3: { webtransport: { maxSessions: 1, maxStreams: 32 } } });
 */
export interface WebTransportLimits {
  /** Sessions one connection may have at once (answered or not); more CONNECTs are rejected. Default 4. */
  maxSessions?: number;
  /** Streams the client may have open at once in one session; more are refused (H3_REQUEST_REJECTED). Default 100. */
  maxStreams?: number;
  /** Streams that may wait on a connection for a session the app has not accepted yet. Default 16. */
  maxHeldStreams?: number;
  /** Milliseconds such a stream may wait before it is refused (WEBTRANSPORT_BUFFERED_STREAM_REJECTED). Default 5000. */
  holdTimeout?: number;
}

/** The engine's form of `listen({ http3 })` (null: off); WebTransport is offered when the app has its routes. */
export function nativeHttp3(
  o: boolean | Http3Options | undefined,
  tls: TlsOptions | undefined,
  webtransport = false,
): Http3Options | null {
  if (o === undefined || o === false) return null;
  if (tls === undefined)
    throw new TypeError('listen: http3 needs tls (HTTP/3 runs over QUIC, which is always encrypted)');
  const h = o === true ? {} : { ...o };
  if (webtransport) h.webtransport = { ...h.webtransport };
  else delete h.webtransport;
  return h;
}

/**
 * Resolves `o` (reading any files) into the engine's form; `http2` makes ALPN offer `h2` by default (only `h2` for
 * `'only'`: `http2: { http1: false }`).
 */
export function nativeTls(o: TlsOptions, http2: boolean | 'only' = false): NativeTls {
  if ((o.cert === undefined) !== (o.key === undefined)) throw new TypeError('tls: give both cert and key');
  return {
    cert: pem(o.cert, 'cert'),
    key: pem(o.key, 'key'),
    ca: pem(o.ca, 'ca'),
    sni: Object.entries(o.sni ?? {}).map(([name, c]) => ({
      name,
      cert: pem(c.cert, `sni[${name}].cert`) as string | Uint8Array,
      key: pem(c.key, `sni[${name}].key`) as string | Uint8Array,
    })),
    alpn: o.alpn ?? (http2 === 'only' ? ['h2'] : http2 ? ['h2', 'http/1.1'] : ['http/1.1']),
    minVersion: o.minVersion,
  };
}
