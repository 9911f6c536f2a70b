// The binding's setup-time options as it reads them: generated from crates/gale-node/src/options.rs (napi-rs
// object types) by `npm run binding-types`; do not edit. CI fails when this file and the Rust differ.

/** `createServer`'s options: the engine's part of `gale()`'s (limits, timeouts, compression, routing). */
export interface NativeOptions {
  bodyLimit?: number;
  maxHeaderSize?: number;
  maxHeaders?: number;
  maxUriLength?: number;
  strictHost?: boolean;
  headersTimeout?: number;
  requestTimeout?: number;
  keepAliveTimeout?: number;
  maxPipeline?: number;
  highWaterMark?: number;
  maxConnections?: number;
  sendTimeout?: number;
  maxWriteBuffer?: number;
  backlog?: number;
  compression?: boolean | NativeCompression;
  proxyProtocol?: boolean;
  reusePort?: boolean;
  keepAliveHeader?: boolean;
  decodeParams?: boolean;
  caseSensitive?: boolean;
  strict?: boolean;
  /** 'negotiate' (the default), 'text' or 'problem'; gale() checked it (option-rules.ts). */
  errorFormat?: string;
}

/** `compression: { … }` (`true` takes the defaults). */
export interface NativeCompression {
  threshold?: number;
  brotli?: boolean;
  gzip?: boolean;
  brotliQuality?: number;
  gzipLevel?: number;
}

/** A static mount's options (`app.static`), as static-options.ts hands them over. */
export interface NativeStaticOptions {
  index?: string[];
  extensions?: string[];
  fallback?: string;
  /** 'ignore' (the default), 'deny' or 'allow'. */
  dotfiles?: string;
  maxAge?: number;
  /** A regular expression source: files whose path matches get `immutable`. */
  immutable?: string;
  cache?: boolean;
  cacheFileMax?: number;
  cacheMax?: number;
  precompressed?: boolean;
  compress?: boolean;
  redirect?: boolean;
  etag?: boolean;
  lastModified?: boolean;
  acceptRanges?: boolean;
  /** Header lines (`name: value\r\n`) every file answer carries. */
  headers?: string;
}

/**
 * `setTls`'s options: the certificates (PEM, as text or bytes), per-name certificates, the CA for client
 * certificates, the ALPN protocols offered and the lowest TLS version.
 */
export interface NativeTls {
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  ca?: string | Uint8Array;
  sni: NativeSni[];
  alpn: string[];
  /** 'TLSv1.2' (the default) or 'TLSv1.3'. */
  minVersion?: string;
}

/** One `sni` entry: the certificate served for `name`. */
export interface NativeSni {
  name: string;
  cert: string | Uint8Array;
  key: string | Uint8Array;
}

/** `setHttp2`'s options. */
export interface NativeHttp2 {
  maxConcurrentStreams?: number;
  initialWindowSize?: number;
  connectionWindowSize?: number;
  maxFrameSize?: number;
  cleartext?: boolean;
  http1?: boolean;
}

/** `setHttp3`'s options. */
export interface NativeHttp3 {
  maxConcurrentStreams?: number;
  idleTimeout?: number;
  maxConnectionsPerAddress?: number;
  retryAbove?: number;
  maxHandshakesPerSecond?: number;
  segmentationOffload?: boolean;
  /** WebTransport's limits; present when the app has `webtransport` routes. */
  webtransport?: NativeWebTransport;
}

/** WebTransport's per-connection limits (`http3.webtransport`). */
export interface NativeWebTransport {
  maxSessions?: number;
  maxStreams?: number;
  maxHeldStreams?: number;
  /** Milliseconds a stream may wait for its session to be accepted. */
  holdTimeout?: number;
}

/** A WebSocket route's options (`app.ws(path, behavior)`), as option-rules.ts checked them. */
export interface NativeWsOptions {
  maxPayloadLength?: number;
  /** Seconds without a message after which the connection is closed (0: never). */
  idleTimeout?: number;
  sendPings?: boolean;
  maxBackpressure?: number;
  closeOnBackpressureLimit?: boolean;
  /** permessage-deflate: 'shared', 'dedicated', or off (anything else). */
  compression?: string;
  compressionThreshold?: number;
  compressionLevel?: number;
  serverMaxWindowBits?: number;
  clientMaxWindowBits?: number;
  serverNoContextTakeover?: boolean;
  clientNoContextTakeover?: boolean;
}
