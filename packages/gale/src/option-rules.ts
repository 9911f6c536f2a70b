// What each user-facing option object may hold: gale()/serve() options, listen() options and app.ws() behaviours, as
// rules for options-check.ts. Kept next to the option types (options.ts, ws-route.ts): a new option needs its rule
// here, or gale() refuses it as unknown (tests/api/options-check.test.ts checks every documented name is accepted).

import type { IoBackend } from './options.js';
import {
  anyOf,
  between,
  bool,
  bytes,
  checkFields,
  checkObject,
  fn,
  invalidOption,
  oneOf,
  type Rule,
  shape,
  str,
} from './options-check.js';

/** A number ≥ `min`, of `unit` (Infinity allowed: the engine saturates it, meaning "no limit"). */
const num =
  (unit: string, min = 0): Rule =>
  (v) =>
    typeof v === 'number' && v >= min
      ? undefined
      : min === 0
        ? `a number of ${unit}, 0 or more`
        : `a positive number of ${unit}`;
const strings: Rule = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'a list of strings';
const object: Rule = (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? undefined : 'an object');

/** The rules of `gale()`'s options (GaleOptions in options.ts); `where` names the call in messages. */
export function galeRules(where: string): Record<string, Rule> {
  return {
    bodyLimit: num('bytes'),
    maxHeaderSize: num('bytes', 1),
    maxHeaders: num('headers', 1),
    maxUriLength: num('bytes', 1),
    strictHost: bool,
    headersTimeout: num('milliseconds'),
    requestTimeout: num('milliseconds'),
    handlerTimeout: (v) =>
      v === false || (typeof v === 'number' && v > 0) ? undefined : 'a number of milliseconds above 0, or false',
    keepAliveTimeout: num('milliseconds'),
    maxConnections: num('connections', 1),
    sendTimeout: num('milliseconds'),
    maxWriteBuffer: num('bytes'),
    proxyProtocol: bool,
    compression: anyOf(
      bool,
      shape(where, 'compression', {
        threshold: num('bytes'),
        brotli: bool,
        gzip: bool,
        brotliQuality: (v) =>
          Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 11 ? undefined : '0 to 11',
        gzipLevel: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 9 ? undefined : '0 to 9'),
      }),
    ),
    reusePort: bool,
    keepAliveHeader: bool,
    decodeParams: bool,
    caseSensitive: bool,
    strict: bool,
    errorFormat: oneOf('negotiate', 'text', 'problem'),
    query: anyOf(
      oneOf('simple', 'extended'),
      fn,
      shape(where, 'query', {
        parser: oneOf('simple', 'extended'),
        depth: num('levels'),
        parameterLimit: num('parameters', 1),
        arrayLimit: num('indexes'),
      }),
    ),
    json: shape(where, 'json', { strict: bool, reviver: fn, limit: bytes, strictType: bool }),
    urlencoded: shape(where, 'urlencoded', {
      extended: bool,
      depth: num('levels'),
      parameterLimit: num('parameters', 1),
      limit: bytes,
    }),
    text: shape(where, 'text', { limit: bytes, defaultCharset: str }),
    cookieSecret: anyOf(str, strings),
    trustProxy: anyOf(bool, num('hops'), str, strings, fn),
    requireLength: bool,
    subdomainOffset: num('labels'),
    development: bool,
    logger: object,
    requestLogging: bool,
    // A value the etag switch does not know ('Weak', 'on') would turn ETags off without a word.
    etag: oneOf(true, false, 'weak', 'strong'),
    views: anyOf(str, strings),
    viewEngine: str,
    security: anyOf(bool, object),
  };
}

/** Checks `gale()`'s options (or serve()'s, with its own names in `more`). */
export function checkGaleOptions(options: unknown, where: string, more: Record<string, Rule> = {}): void {
  if (!checkObject(where, options) || options === undefined) return;
  checkFields(where, options, { ...galeRules(where), ...more });
}

const port: Rule = (v) =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'a port number from 0 to 65535';

/** Checks `listen()`'s arguments: an options object (ListenOptions), or a port and a host. */
export function checkListen(portOrOptions: unknown, host: unknown): void {
  const where = 'listen()';
  if (typeof portOrOptions === 'object' && portOrOptions !== null) {
    checkObject(where, portOrOptions);
    checkFields(where, portOrOptions, {
      port,
      host: str,
      tls: object,
      http2: anyOf(
        bool,
        shape(where, 'http2', {
          maxConcurrentStreams: num('streams', 1),
          // The engine's ranges (RFC 9113 §6.5.2; crates/gale-server/src/h2/mod.rs Settings::new), checked here so
          // that listen() refuses them at once; tests/options-agree.test.ts keeps the two in step.
          initialWindowSize: between(65_535, 2 ** 31 - 1, 'a number of bytes'),
          connectionWindowSize: between(65_535, 2 ** 31 - 1, 'a number of bytes'),
          maxFrameSize: between(16_384, 2 ** 24 - 1, 'a number of bytes'),
          cleartext: bool,
          http1: bool,
        }),
      ),
      http3: anyOf(
        bool,
        shape(where, 'http3', {
          maxConcurrentStreams: num('streams', 1),
          // H3Options::check's range (crates/gale-server/src/lib.rs).
          idleTimeout: between(1, 600_000, 'a number of milliseconds'),
          maxConnectionsPerAddress: num('connections', 1),
          retryAbove: num('handshakes'),
          maxHandshakesPerSecond: num('handshakes per second', 1),
          segmentationOffload: bool,
          webtransport: shape(where, 'http3.webtransport', {
            maxSessions: num('sessions', 1),
            maxStreams: num('streams'),
            maxHeldStreams: num('streams'),
            holdTimeout: num('milliseconds'),
          }),
        }),
      ),
      io: oneOf('auto', 'uring', 'epoll'),
      exclusive: bool,
    });
    const tls = (portOrOptions as { tls?: unknown }).tls;
    if (tls !== undefined) {
      const pem = anyOf(str, object);
      const rules = {
        cert: pem,
        key: pem,
        sni: object,
        ca: pem,
        alpn: strings,
        minVersion: oneOf('TLSv1.2', 'TLSv1.3'),
        reloadOnSighup: bool,
      };
      checkFields(where, tls as object, rules, 'tls.');
    }
    return;
  }
  if (portOrOptions !== undefined) {
    const want = port(portOrOptions);
    if (want !== undefined)
      throw invalidOption(where, `the port must be ${want}; got ${JSON.stringify(portOrOptions)}`);
  }
  if (host !== undefined && typeof host !== 'string') throw invalidOption(where, `the host must be a string`);
}

/** Checks an `app.ws(path, behavior)` behaviour object (WsBehavior in ws-route.ts). */
export function checkWsBehavior(behavior: object, path: string): void {
  checkFields(`app.ws(${JSON.stringify(path)})`, behavior, {
    protocol: oneOf(undefined),
    upgrade: fn,
    open: fn,
    message: fn,
    drain: fn,
    close: fn,
    protocols: fn,
    maxPayloadLength: num('bytes', 1),
    idleTimeout: num('seconds'),
    sendPings: bool,
    compression: oneOf(true, false, 'shared', 'dedicated'),
    compressionThreshold: num('bytes'),
    compressionLevel: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 9 ? undefined : '0 to 9'),
    maxBackpressure: num('bytes'),
    closeOnBackpressureLimit: bool,
    nativeAccept: bool,
  });
}

/**
 * The backend a listen uses: its `io` option, else the `GALE_IO` environment variable, else `'auto'`. A
 * `GALE_IO` that names no backend is refused rather than ignored.
 */
export function ioChoice(io: IoBackend | undefined): IoBackend {
  if (io !== undefined) return io;
  const env = process.env.GALE_IO;
  if (env === undefined || env === '') return 'auto';
  if (env === 'auto' || env === 'uring' || env === 'epoll') return env;
  throw new TypeError(`GALE_IO=${env}: expected auto, uring or epoll`);
}
