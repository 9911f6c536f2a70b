// The only file that loads Gale's native binding: the per-platform npm package (@gale-http/<triple>) when one is
// installed, else the addon built from source into ../native by scripts/build-native.mjs, or GALE_NATIVE's file.
// Refuses Node.js < 20 with a message; one Node-API (napi8) binary serves every Node major from 20 on.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
// The setup-time option types are generated from the binding's Rust (npm run binding-types).
import type {
  NativeHttp2,
  NativeHttp3,
  NativeOptions,
  NativeStaticOptions,
  NativeTls,
  NativeWsOptions,
} from './native-options.js';
import type { IoBackend } from './options.js';

/** Methods of one native server (see crates/gale-node/src/methods.rs). */
export interface NativeServer {
  route(method: string, path: string, id: number): string[];
  fixed(method: string, path: string, status: number, headers: string[], body: string | Uint8Array): void;
  /** Binds and accepts with the `io` backend; returns the address, the backend used, and why io_uring was not. */
  listen(
    host: string,
    port: number,
    io: IoBackend,
  ): [address: [address: string, port: number, family: string], backend: 'uring' | 'epoll', fallback?: string];
  /** Graceful close; idle HTTP/1.1 connections stay open `idleGraceMs` for a request that may be on its way. */
  close(idleGraceMs: number): void;
  /** The idle keep-alive timeout (and the `Keep-Alive` line of responses) from now on. */
  setKeepAliveTimeout(ms: number): void;
  /** Serve connections handed over with `adopt` (a node:cluster worker's), without a listener of its own (Unix). */
  serveAdopted(): void;
  /** Serve the connected TCP socket `fd` (the engine takes a copy); an error message when it cannot. */
  adopt(fd: number): string | undefined;
  forceClose(): void;
  connections(): number;
  /** [connections, websockets, requestsInFlight, requestRecords, requestsTotal, pendingOutput, acceptPaused] */
  stats(): [number, number, number, number, number, number, boolean];
  /** Serve (or reload) TLS; throws saying what is wrong (the old certificates stay). */
  setTls(options: NativeTls): void;
  /** Serve HTTP/2 with these settings (null: HTTP/1.1 only); throws naming an option out of range. */
  setHttp2(options: NativeHttp2 | null): void;
  setHttp3(options: NativeHttp3 | null): void;
  /**
   * The route registered for all methods at `pattern` answers its HTTP/1.1 GET and HEAD requests without a body or
   * validator in the engine with this reply (as `end` takes it); with `status` undefined, runs its JS again. Throws
   * what the engine refuses (compression on, no such route, a reason phrase, close or another length).
   */
  routeAnswer(
    pattern: string,
    status?: number,
    contentType?: number | string,
    headers?: string,
    body?: string | Uint8Array,
    meta?: ReplyMeta,
  ): void;
  end(
    id: number,
    status: number,
    contentType: number | string | undefined,
    headers: string | undefined,
    body: string | Uint8Array | undefined,
    meta?: ReplyMeta,
    /** True: on success, return what `keep(id)` would (the Request's copy for late reads) instead of true. */
    keep?: boolean,
  ): boolean | KeptHead;
  writeHead(
    id: number,
    status: number,
    contentType: number | string | undefined,
    headers: string | undefined,
    meta?: ReplyMeta,
  ): boolean;
  write(id: number, chunk: string | Uint8Array): boolean;
  endStream(id: number, chunk: string | Uint8Array | undefined): boolean;
  release(id: number): void;
  destroy(id: number): void;
  static(prefix: string, dir: string, options: NativeStaticOptions): void;
  sendFile(id: number, path: string, headers: string | undefined): number;
  fallback(route: number | undefined): void;
  /**
   * The body received so far and its state: 0 more is coming (EV_BODY follows), 1 complete, else an error status;
   * the Buffer alone when complete (the usual case: no array made).
   */
  takeBody(id: number): Buffer | [chunk: Buffer, state: number] | undefined;
  /** The whole body as a string (taken) when it is all here, valid UTF-8 and at most `limit` bytes; else undefined. */
  takeBodyText(id: number, limit: number): string | undefined;
  /** Frees a chunk `takeBody` gave (its ArrayBuffer detached: the bytes go now, not at a full GC); it reads as empty after. */
  dropChunk(chunk: Buffer): void;
  method(id: number): string | undefined;
  url(id: number): string | undefined;
  headers(id: number): string[] | undefined;
  header(id: number, lowerName: string): string | undefined;
  body(id: number): Buffer | undefined;
  remote(id: number): [address: string, port: number, family: string, secure: boolean] | null | undefined;
  /** The connection's local end. */
  local(id: number): [address: string, port: number, family: string] | undefined;
  version(id: number): number | undefined;
  /** One copy of what JS may read of a request after the engine lets go of it (Request._keep). */
  keep(id: number): KeptHead | undefined;
  /** Method, target and flat lower-cased headers of a head `keep` copied. */
  parseKept(head: string): [method: string, url: string, headers: string[]] | undefined;
  /** WebSocket methods (crates/gale-node/src/ws.rs); send results: 0 sent, 1 buffered, 2 dropped, 3 closed. */
  wsRoute(path: string, id: number, options: NativeWsOptions): string[];
  /** With `keepHead` the engine keeps the request's head for `wsRequest` (the socket's JS side did not read it). */
  wsAccept(id: number, protocol: string | undefined, headers?: string, keepHead?: boolean): number | undefined;
  /** The upgrade request a socket accepted with `keepHead` kept, handed over once. */
  wsRequest(sid: number): KeptRequest | undefined;
  /** Lets the engine accept a WebSocket route's upgrades by itself (ws-route.ts, `nativeAccept`), or takes it back. */
  wsNative(routeId: number, on: boolean, hasClose: boolean): boolean;
  /** A socket the engine accepted by itself, once, on JS's first sight of it: its route and subprotocol. */
  wsAdopt(sid: number): [routeId: number, protocol: string] | undefined;
  wsSend(sid: number, data: string | Uint8Array, binary: boolean, compress: boolean): number;
  wsPing(sid: number, data: string | Uint8Array): number;
  wsClose(sid: number, code: number, reason: string): boolean;
  wsTerminate(sid: number): boolean;
  wsBuffered(sid: number): number | undefined;
  wsRemote(sid: number): [address: string, port: number, family: string] | undefined;
  wsSubscribe(sid: number, topic: string): boolean;
  wsUnsubscribe(sid: number, topic: string): boolean;
  wsIsSubscribed(sid: number, topic: string): boolean;
  wsTopics(sid: number): string[];
  /** `topics`: a name or several (each socket once); `except`: topics whose subscribers are left out. */
  wsPublish(
    topics: string | readonly string[],
    data: string | Uint8Array,
    binary: boolean,
    compress: boolean,
    exclude?: number,
    except?: readonly string[],
    volatile?: boolean,
  ): number;
  wsSubscribers(topic: string): number;
  /** Report topics becoming active/inactive as onEvent(EV_TOPIC, active ? 1 : 0, 0, topic). */
  wsWatchTopics(on: boolean): void;
  /**
   * In-process connections (`app.request`, crates/gale-node/src/mem.rs). `memOpen` flags: 1 an https: URL, 2 a
   * HEAD request; undefined while the server closes. `memWrite`: 0 queued, 1 queued but wait for EV_PIPE, 2 gone.
   * `memRead`: state 0 more to come, 1 complete, 2 failed; the body since the last read; status, reason and
   * `[name, value, …]` once, in the read that completes the head.
   */
  memOpen(flags: number): number | undefined;
  memWrite(key: number, bytes: Uint8Array): number;
  memRead(
    key: number,
  ): [state: number, body: Buffer | undefined, status?: number, reason?: string, headers?: string[]] | undefined;
  memClose(key: number): void;
  /** WebTransport (crates/gale-node/src/wt.rs): statuses 0 sent, 1 buffered (wait for its drain), 2 dropped, 3 closed. */
  wtAccept(id: number): number | undefined;
  wtOpen(session: number, bidi: boolean): number | undefined;
  wtWrite(stream: number, data: string | Uint8Array, fin: boolean): number;
  wtReset(stream: number, code: number, stop: boolean): void;
  wtPause(stream: number, paused: boolean): void;
  wtDatagram(session: number, data: string | Uint8Array): number;
  wtMaxDatagram(session: number): number;
  wtClose(session: number, code: number, reason: string): void;
}

/** A WebSocket's kept upgrade request (`wsRequest`): method, target, HTTP minor version, flat lower-cased headers, peer. */
export type KeptRequest = [
  method: string,
  url: string,
  minor: number,
  headers: string[],
  remote: [address: string, port: number, family: string, secure: boolean],
];
/**
 * A request's head as `keep` copied it: the request line and headers as Latin-1 text (for `parseKept`), the HTTP minor
 * version (2 for HTTP/2), and the peer (address '' and port undefined when the connection was gone).
 */
/**
 * `keep`'s one string: the HTTP minor version digit, `0`/`1` for TLS, the peer (`4`, or `m` for an IPv4-mapped IPv6
 * address, then the IPv4 address's 4 bytes and the port's 2, big-endian, as characters; `t` then
 * `<port> <address>\n`; `-` when the connection was gone), then the head, which `parseKept` takes (request.ts
 * `keptHead`, `keptPeer`).
 */
export type KeptHead = string;
/**
 * What a reply rarely carries, passed only when set: a reason phrase other than the standard one, the app's own
 * `Connection: close`, and a declared body length (Content-Length for a streamed body or a HEAD answer). The length
 * alone is passed as a number (the Express layer's every reply: one value read instead of an array's three).
 */
export type ReplyMeta = [reason: string | undefined, close: boolean, length: number | undefined] | number;

export type DispatchFn = (id: number, route: number, ...params: string[]) => void;
/** An event; EV_WT's are (EV_WT, kind, id, a, b, data), as crates/gale-node/src/handler.rs `wt_event` lays them out. */
export type EventFn = (kind: number, id: number, code?: unknown, reason?: unknown, b?: unknown, data?: unknown) => void;
/** A WebSocket message: a view (`off`, `len`) of a pooled ArrayBuffer, or a Buffer of its own (`off` 0xFFFFFFFF). */
export type WsMessageFn = (sid: number, buf: ArrayBuffer | Buffer, off: number, len: number, isBinary: boolean) => void;

interface Binding {
  createServer(options: NativeOptions, dispatch: DispatchFn, onEvent: EventFn, onWsMessage: WsMessageFn): NativeServer;
  /** The `etag` package's entity tag of a body (crates/gale-http/src/etag.rs). */
  etag(body: string | Uint8Array, weak: boolean): string;
}

/** Event kinds from crates/gale-node/src/handler.rs. */
export const EV_ABORT = 0;
export const EV_DRAIN = 1;
export const EV_CLOSED = 2;
export const EV_BODY = 3;
export const EV_WS_CLOSE = 4;
export const EV_WS_DRAIN = 5;
export const EV_TOPIC = 6;
export const EV_PIPE = 7;
export const EV_WT = 8;

/** Content types the engine knows by index (crates/gale-node/src/methods.rs). */
export const CT_NONE = 0;
export const CT_JSON = 1;
export const CT_TEXT = 2;
export const CT_BYTES = 3;
export const CT_HTML = 4;

/** The oldest Node.js major Gale runs on (Node-API 8 and the runtime APIs the TypeScript layer uses). */
export const MIN_NODE_MAJOR = 20;

/** Where the engine came from: what `gale --version` prints. */
export interface NativeInfo {
  /** `<platform>-<arch>[-<abi>]`, as in the package and file names. */
  triple: string;
  /** The file loaded. */
  path: string;
  /** The per-platform npm package it came from, with its version; undefined for a build from source or GALE_NATIVE. */
  package?: { name: string; version: string };
  /** What the build recorded beside the binary (scripts/build-native.mjs): engine version, Rust target, rustc, commit. */
  build?: { engine?: string; rustTarget?: string; napi?: number; rustc?: string; commit?: string; builtAt?: string };
}

/** The npm package that carries the engine for this machine: `@gale-http/<triple>` (scripts/platforms.mjs). */
export const nativePackage = (triple: string): string => `@gale-http/${triple}`;

function isMusl(): boolean {
  // ldd names its libc; reading it is cheap, unlike process.report, which is the fallback.
  try {
    return readFileSync('/usr/bin/ldd', 'latin1').includes('musl');
  } catch {}
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/** This machine's triple, as scripts/platforms.mjs names the targets. */
export function platformTriple(): string {
  const { platform, arch } = process;
  if (platform === 'win32') return `win32-${arch}`;
  if (platform !== 'linux') return `${platform}-${arch}`;
  return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
}

function checkNode(): void {
  const major = Number(process.versions.node.split('.')[0]);
  const napi = Number(process.versions.napi ?? 0);
  if (major < MIN_NODE_MAJOR || napi < 8) {
    throw new Error(
      `Gale needs Node.js ${MIN_NODE_MAJOR} or newer (this is Node.js ${process.versions.node}, Node-API ${napi || 'unknown'}). ` +
        'Install a current LTS from https://nodejs.org (or with nvm: nvm install --lts).',
    );
  }
}

function sidecar(file: string): NativeInfo['build'] {
  try {
    return JSON.parse(readFileSync(file.replace(/\.node$/, '.json'), 'utf8')) as NativeInfo['build'];
  } catch {
    return undefined;
  }
}

function load(): { binding: Binding; info: NativeInfo } {
  checkNode();
  const require = createRequire(import.meta.url);
  const triple = platformTriple();
  // GALE_NATIVE names another build of the addon (the chaos tests load one with debug assertions).
  const override = process.env.GALE_NATIVE;
  if (override) {
    const path = require.resolve(override);
    return { binding: require(path) as Binding, info: { triple, path, build: sidecar(path) } };
  }
  const pkg = nativePackage(triple);
  const local = `../native/gale.${triple}.node`;
  // 1. the addon built from source in a checkout of the repository (scripts/build-native.mjs): native/ is not in the
  //    published package, so only a checkout has it, and there it must win over a prebuilt package npm installed;
  // 2. the prebuilt package npm installed as an optional dependency (what users have).
  for (const id of [local, pkg]) {
    let path: string;
    try {
      path = require.resolve(id);
    } catch {
      continue;
    }
    let binding: Binding;
    try {
      binding = require(path) as Binding;
    } catch (err) {
      throw new Error(
        `Gale's native engine ${path} did not load on this machine (${triple}, Node.js ${process.version}): ` +
          `${(err as Error).message}. If the package is for another platform (a lockfile or node_modules copied ` +
          'from another machine), delete node_modules and package-lock.json and run npm install again.',
        { cause: err },
      );
    }
    const info: NativeInfo = { triple, path, build: sidecar(path) };
    if (id === pkg) {
      const meta = require(`${pkg}/package.json`) as { name: string; version: string };
      info.package = { name: meta.name, version: meta.version };
    }
    return { binding, info };
  }
  throw new Error(
    [
      `Gale's native engine for ${triple} was not found: the package ${pkg} is not installed.`,
      `npm installs it as an optional dependency of gale on ${triple} machines. If it is missing:`,
      '- optional dependencies were left out (npm install --omit=optional, or --no-optional): install without that flag;',
      '- package-lock.json was made on another OS or CPU (npm/cli#4828): delete node_modules and package-lock.json, ' +
        'then run npm install again;',
      `- no prebuilt engine exists for ${triple}: build it from source (install Rust from https://rustup.rs, clone ` +
        'the Gale repository, run npm install there) and point GALE_NATIVE at the packages/gale/native/' +
        `gale.${triple}.node it builds.`,
    ].join('\n'),
  );
}

const loaded = load();
/** The loaded binding. */
export const native: Binding = loaded.binding;
/** Which engine binary was loaded, and from where. */
export const nativeInfo: Readonly<NativeInfo> = loaded.info;
