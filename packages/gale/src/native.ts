// The only file that loads Gale's native binding: a per-platform npm package when one is installed,
// else the addon built from source into ../native by scripts/build-native.mjs.
import { createRequire } from 'node:module';
import type { GaleOptions } from './options.js';

/** Methods of one native server (see crates/gale-node/src/methods.rs). */
export interface NativeServer {
  route(method: string, path: string, id: number): string[];
  fixed(method: string, path: string, status: number, headers: string[], body: string | Uint8Array): void;
  listen(host: string, port: number): [address: string, port: number, family: string];
  close(): void;
  forceClose(): void;
  connections(): number;
  /** [connections, websockets, requestsInFlight, requestRecords, requestsTotal, pendingOutput, acceptPaused] */
  stats(): [number, number, number, number, number, number, boolean];
  end(
    id: number,
    status: number,
    contentType: number | string | undefined,
    headers: string | undefined,
    body: string | Uint8Array | undefined,
  ): boolean;
  writeHead(id: number, status: number, contentType: number | string | undefined, headers: string | undefined): boolean;
  write(id: number, chunk: string | Uint8Array): boolean;
  endStream(id: number, chunk: string | Uint8Array | undefined): boolean;
  release(id: number): void;
  destroy(id: number): void;
  static(prefix: string, dir: string, options: NativeStaticOptions): void;
  sendFile(id: number, path: string, headers: string | undefined): number;
  fallback(route: number | undefined): void;
  /** The body received so far and its state: 0 more is coming (EV_BODY follows), 1 complete, else an error status. */
  takeBody(id: number): [chunk: Buffer, state: number] | undefined;
  method(id: number): string | undefined;
  url(id: number): string | undefined;
  headers(id: number): string[] | undefined;
  header(id: number, lowerName: string): string | undefined;
  body(id: number): Buffer | undefined;
  remote(id: number): [address: string, port: number, family: string] | null | undefined;
  version(id: number): number | undefined;
  /** WebSocket methods (crates/gale-node/src/ws.rs); send results: 0 sent, 1 buffered, 2 dropped, 3 closed. */
  wsRoute(path: string, id: number, options: Record<string, unknown>): string[];
  wsAccept(id: number, protocol: string | undefined): number | undefined;
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
  wsPublish(topic: string, data: string | Uint8Array, binary: boolean, compress: boolean, exclude?: number): number;
  wsSubscribers(topic: string): number;
}

/** Options the engine reads: the engine's subset of the public options (defaults live in gale-server). */
export type NativeOptions = Pick<
  GaleOptions,
  | 'bodyLimit'
  | 'maxHeaderSize'
  | 'maxHeaders'
  | 'maxUriLength'
  | 'headersTimeout'
  | 'requestTimeout'
  | 'keepAliveTimeout'
  | 'maxConnections'
  | 'sendTimeout'
  | 'maxWriteBuffer'
  | 'proxyProtocol'
  | 'reusePort'
  | 'caseSensitive'
  | 'strict'
> & { maxPipeline?: number; highWaterMark?: number; backlog?: number };

/** Static mount options as the engine reads them (see crates/gale-node/src/methods.rs). */
export interface NativeStaticOptions {
  index?: string[];
  extensions?: string[];
  fallback?: string;
  dotfiles?: 'ignore' | 'deny' | 'allow';
  maxAge?: number;
  immutable?: string;
  cache?: boolean;
  cacheFileMax?: number;
  cacheMax?: number;
  precompressed?: boolean;
  compress?: boolean;
  redirect?: boolean;
  headers?: string;
}

export type DispatchFn = (id: number, route: number, ...params: string[]) => void;
export type EventFn = (kind: number, id: number, code?: number, reason?: string) => void;
/** A WebSocket message: a view (`off`, `len`) of a pooled ArrayBuffer, or a Buffer of its own (`off` 0xFFFFFFFF). */
export type WsMessageFn = (sid: number, buf: ArrayBuffer | Buffer, off: number, len: number, isBinary: boolean) => void;

interface Binding {
  createServer(options: NativeOptions, dispatch: DispatchFn, onEvent: EventFn, onWsMessage: WsMessageFn): NativeServer;
}

/** Event kinds from crates/gale-node/src/handler.rs. */
export const EV_ABORT = 0;
export const EV_DRAIN = 1;
export const EV_CLOSED = 2;
export const EV_BODY = 3;
export const EV_WS_CLOSE = 4;
export const EV_WS_DRAIN = 5;

/** Content types the engine knows by index (crates/gale-node/src/methods.rs). */
export const CT_NONE = 0;
export const CT_JSON = 1;
export const CT_TEXT = 2;
export const CT_BYTES = 3;
export const CT_HTML = 4;

function platformTriple(): string {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return `linux-${arch}-${report?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`;
}

function load(): Binding {
  const require = createRequire(import.meta.url);
  // GALE_NATIVE names another build of the addon (the chaos tests load one with debug assertions).
  const override = process.env.GALE_NATIVE;
  if (override) return require(override) as Binding;
  const triple = platformTriple();
  const tried: string[] = [];
  for (const id of [`@gale-http/${triple}`, `../native/gale.${triple}.node`]) {
    try {
      return require(id) as Binding;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'MODULE_NOT_FOUND') throw err;
      tried.push(id);
    }
  }
  throw new Error(
    `Gale's native engine for ${triple} was not found (tried ${tried.join(', ')}). ` +
      'Build it from source: install Rust from https://rustup.rs, then run `npm install` (or `npm run build`) in the Gale checkout.',
  );
}

/** The loaded binding. */
export const native: Binding = load();
