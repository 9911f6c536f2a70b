// Engine.IO on a node:http or node:https server (engine.io's attach(httpServer)): the server keeps its own request
// and upgrade listeners for every other path; requests at the Engine.IO path are served here, long-polling over
// node's IncomingMessage/ServerResponse and WebSocket through the `ws` library, as engine.io does.
import { EventEmitter } from 'node:events';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import accepts from 'accepts';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * What the Engine.IO core reads of a request: Gale's Request has all of it; `NodeRequest` gives it over node's
 * IncomingMessage. `raw` is what middlewares, `allowRequest` and `socket.request` get.
 */
export interface EngineRequest {
  readonly method: string;
  readonly originalUrl: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly remoteAddress: string;
  readonly secure: boolean;
  get(name: string): string | undefined;
  arrayBuffer(): Promise<ArrayBuffer>;
  acceptsEncodings(...encodings: string[]): string | false;
}

/** What the Engine.IO core does with a response (Gale's Response, or `NodeResponse` over a ServerResponse). */
export interface EngineResponse {
  readonly finished: boolean;
  readonly headersSent: boolean;
  status(code: number): this;
  header(name: string, value: string | string[]): this;
  end(body?: string | Uint8Array): unknown;
  destroy(): void;
  once(event: 'close', fn: () => void): unknown;
  off(event: 'close', fn: () => void): unknown;
}

/** The node:http request behind an Engine.IO request. */
export class NodeRequest implements EngineRequest {
  readonly raw: IncomingMessage;

  constructor(raw: IncomingMessage) {
    this.raw = raw;
  }
  get method(): string {
    return this.raw.method ?? 'GET';
  }
  get originalUrl(): string {
    return this.raw.url ?? '/';
  }
  get headers(): Record<string, string | string[] | undefined> {
    return this.raw.headers;
  }
  get remoteAddress(): string {
    return this.raw.socket?.remoteAddress ?? '';
  }
  get secure(): boolean {
    return (this.raw.socket as { encrypted?: boolean } | null)?.encrypted === true;
  }
  get(name: string): string | undefined {
    const v = this.raw.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }
  acceptsEncodings(...encodings: string[]): string | false {
    return accepts(this.raw).encodings(encodings);
  }
  /** The whole body; rejects when the client goes away before it ends. */
  arrayBuffer(): Promise<ArrayBuffer> {
    const req = this.raw;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const gone = (): void => reject(new Error('the request was aborted'));
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => {
        req.off('close', onClose);
        const body = Buffer.concat(chunks);
        resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
      });
      req.once('error', gone);
      const onClose = (): void => {
        if (!req.complete) gone();
      };
      req.once('close', onClose);
    });
  }
}

/** The node:http response behind an Engine.IO answer. */
export class NodeResponse implements EngineResponse {
  readonly raw: ServerResponse;

  constructor(raw: ServerResponse) {
    this.raw = raw;
  }
  get finished(): boolean {
    return this.raw.writableEnded || this.raw.destroyed;
  }
  get headersSent(): boolean {
    return this.raw.headersSent;
  }
  status(code: number): this {
    this.raw.statusCode = code;
    return this;
  }
  header(name: string, value: string | string[]): this {
    this.raw.setHeader(name, value);
    return this;
  }
  end(body?: string | Uint8Array): void {
    if (body === undefined) this.raw.end();
    else this.raw.end(body);
  }
  destroy(): void {
    this.raw.destroy();
  }
  /** 'close': the client went away before the answer (node emits it after a finished answer too: ignored then). */
  once(_event: 'close', fn: () => void): this {
    const wrapped = (): void => {
      if (!this.raw.writableFinished) fn();
    };
    closeWrappers.set(fn, wrapped);
    this.raw.once('close', wrapped);
    return this;
  }
  off(_event: 'close', fn: () => void): this {
    const wrapped = closeWrappers.get(fn);
    if (wrapped !== undefined) this.raw.off('close', wrapped);
    return this;
  }
}

const closeWrappers = new WeakMap<() => void, () => void>();

/** Whether `x` is a node:http or node:https server (or anything with their request and upgrade events). */
export function isNodeServer(x: unknown): x is HttpServer {
  const s = x as Partial<HttpServer> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.listen === 'function' &&
    typeof s.listeners === 'function' &&
    typeof s.removeAllListeners === 'function' &&
    typeof s.address === 'function'
  );
}

/** What the Engine.IO server gives the node front. */
export interface NodeHost {
  handleRequest(req: HttpRequest, res: HttpResponse): void;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): unknown;
}

/**
 * Puts the Engine.IO server on a node:http server, as engine.io's attach(): requests whose URL starts with `path`
 * are Engine.IO's, the others go to the listeners the server had; upgrades at `path` become WebSockets, others are
 * left to the server's other 'upgrade' listeners and, unless `destroyUpgrade` is false, ended after
 * `destroyUpgradeTimeout` ms if nobody answered them.
 */
export function attachToNodeServer(
  server: HttpServer,
  host: NodeHost,
  path: string,
  options: { destroyUpgrade?: boolean; destroyUpgradeTimeout?: number },
  websocket: boolean,
): void {
  const mine = (req: IncomingMessage): boolean => (req.url ?? '').startsWith(path);
  const others = server.listeners('request').slice(0) as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('close', () => host.close());
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // After close(), node:http still answers requests on keep-alive connections left open and keeps them open, so a
    // client that keeps polling (socket.io-client reconnecting) holds close() — and a SIGTERM exit — for minutes.
    // Answers then carry Connection: close, so each connection ends with its request, as app.close() does on Gale.
    if (!server.listening) res.setHeader('Connection', 'close');
    if (mine(req)) {
      host.handleRequest(req, res);
      return;
    }
    for (const listener of others) listener.call(server, req, res);
  });
  if (!websocket) return;
  const destroyAfter = options.destroyUpgradeTimeout ?? 1000;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (mine(req)) {
      // A WebSocket opened after close() would keep the server (and the process) up for as long as it lives.
      if (!server.listening) closingAnswer(socket);
      else host.handleUpgrade(req, socket, head);
      return;
    }
    if (options.destroyUpgrade === false) return;
    // node:http ends an upgrade nobody listens for; this listener is one, so it does that itself when no other
    // listener answered in time.
    socket.on('error', () => {});
    setTimeout(() => {
      const s = socket as Duplex & { bytesWritten?: number };
      if (s.writable && (s.bytesWritten ?? 0) <= 0) s.end();
    }, destroyAfter).unref();
  });
}

/** Where an upgrade's response headers wait on its request until `ws` writes the 101 (engine.io's kResponseHeaders). */
const upgradeHeaders = new WeakMap<IncomingMessage, Record<string, string | string[]>>();

/**
 * The `res` engine middlewares get for a node:http upgrade (engine.io's WebSocketResponse): headers they set go on the
 * 101; `end()` abandons the upgrade (closes the socket); 'close' when the socket closes.
 */
export class UpgradeResponse extends EventEmitter {
  readonly req: IncomingMessage;
  readonly socket: Duplex;

  constructor(req: IncomingMessage, socket: Duplex) {
    super();
    this.req = req;
    this.socket = socket;
    upgradeHeaders.set(req, {});
    socket.once('close', () => this.emit('close'));
  }
  /** The headers set for the 101 of `req` (taken: a second call gets none). */
  static headersOf(req: IncomingMessage): Record<string, string | string[]> {
    const h = upgradeHeaders.get(req) ?? {};
    upgradeHeaders.delete(req);
    return h;
  }
  setHeader(name: string, value: string | string[]): this {
    const h = upgradeHeaders.get(this.req);
    if (h !== undefined) h[name] = value;
    return this;
  }
  getHeader(name: string): string | string[] | undefined {
    return upgradeHeaders.get(this.req)?.[name];
  }
  removeHeader(name: string): void {
    const h = upgradeHeaders.get(this.req);
    if (h !== undefined) delete h[name];
  }
  write(): boolean {
    return true;
  }
  writeHead(): this {
    return this;
  }
  end(): this {
    this.emit('finish');
    this.socket.destroy();
    return this;
  }
}

/** Answers an upgrade that came after the server's close() with 503 and closes the connection. */
function closingAnswer(socket: Duplex): void {
  socket.on('error', () => {});
  const message = 'the server is closing';
  if (socket.writable) {
    socket.write(
      'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n' +
        `Content-Length: ${message.length}\r\n\r\n${message}`,
    );
  }
  socket.destroy();
}

/** Ends a refused upgrade with engine.io's bare answer: 400, the message as text/html, and the socket closed. */
export function refuseUpgrade(socket: Duplex, message: string): void {
  socket.on('error', () => {});
  if (socket.writable) {
    socket.write(
      'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-type: text/html\r\n' +
        `Content-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
  }
  socket.destroy();
}
