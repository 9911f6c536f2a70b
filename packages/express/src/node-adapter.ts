// The app as a node:http request listener (`http.createServer(app)`, supertest): Node's
// IncomingMessage/ServerResponse behind the small part of Gale's Request/Response the layer uses, so
// the same req/res classes serve both. No Gale engine here: such an app runs on node:http.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { strongEtag, weakEtag } from './etag.js';
import type { ServerContext } from './socket.js';

type HeaderValue = string | number | readonly string[];

/** Gale's Request as the layer reads it, over a Node request. */
export class NodeSourceRequest {
  constructor(private readonly r: IncomingMessage) {}
  get originalUrl(): string {
    return this.r.url ?? '/';
  }
  get method(): string {
    return this.r.method ?? 'GET';
  }
  get headers(): Record<string, string | string[] | undefined> {
    return this.r.headers;
  }
  get httpVersion(): string {
    return this.r.httpVersion;
  }
  get rawHeaders(): string[] {
    return this.r.rawHeaders;
  }
  /** node:http's own on Node ≥ 26; before that, one that aborts when the request closes unfinished. */
  get signal(): AbortSignal {
    const own = (this.r as { signal?: AbortSignal }).signal;
    if (own !== undefined) return own;
    if (this.ac === undefined) {
      const ac = new AbortController();
      this.ac = ac;
      this.r.once('close', () => {
        if (!this.r.complete || !this.r.readableEnded) ac.abort();
      });
    }
    return this.ac.signal;
  }
  private ac: AbortController | undefined;
  get headersDistinct(): Record<string, string[] | undefined> {
    return this.r.headersDistinct;
  }
  get remoteAddress(): string {
    return this.r.socket?.remoteAddress ?? '';
  }
  /** 'https' on a TLS socket (as Gale's request reports it with no proxy trusted). */
  get protocol(): string {
    return (this.r.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  }
  get aborted(): boolean {
    return this.r.destroyed && !this.r.complete;
  }
  webStream(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.r) as ReadableStream<Uint8Array>;
  }
}

/** Gale's Response as the layer drives it, over a Node response. */
export class NodeSinkResponse {
  constructor(private readonly s: ServerResponse) {}
  get finished(): boolean {
    return this.s.writableEnded || this.s.destroyed;
  }
  get headersSent(): boolean {
    return this.s.headersSent;
  }
  header(name: string, value: HeaderValue): this {
    this.s.setHeader(name, value as string | number | string[]);
    return this;
  }
  /** Gale's checked-header entry (see Response._headerValid); node:http validates again anyway. */
  _headerValid(name: string, _lower: string, value: HeaderValue): this {
    return this.header(name, value);
  }
  getHeader(name: string): HeaderValue | undefined {
    return this.s.getHeader(name) as HeaderValue | undefined;
  }
  /** Gale's ETag left to the engine (Response._tagLater): node:http has no engine, so it is made and set now. */
  _tagLater(body: string | Uint8Array, weak: boolean): void {
    this.header('ETag', (weak ? weakEtag : strongEtag)(body));
  }
  /** Gale's getHeader for a lower-case name (see Response._getLower). */
  _getLower(lower: string): HeaderValue | undefined {
    return this.s.getHeader(lower) as HeaderValue | undefined;
  }
  getHeaderNames(): string[] {
    return this.s.getHeaderNames();
  }
  removeHeader(name: string): this {
    this.s.removeHeader(name);
    return this;
  }
  /** Gale's removeHeader for a lower-case name (see Response._removeLower). */
  _removeLower(lower: string): this {
    return this.removeHeader(lower);
  }
  status(code: number): this {
    this.s.statusCode = code;
    return this;
  }
  /** The Content-Length and Transfer-Encoding the layer kept aside (the engine frames the body itself). */
  length(value: HeaderValue | undefined, te?: HeaderValue): void {
    if (this.s.headersSent) return;
    if (value !== undefined) this.s.setHeader('Content-Length', value as string | number);
    if (te !== undefined) this.s.setHeader('Transfer-Encoding', te as string | string[]);
  }
  write(chunk: string | Uint8Array): boolean {
    return this.s.write(chunk);
  }
  end(body?: string | Uint8Array): void {
    if (body === undefined) this.s.end();
    else this.s.end(body);
  }
  destroy(): void {
    this.s.destroy();
  }
  on(event: string, fn: () => void): this {
    this.s.on(event, fn);
    return this;
  }
}

/**
 * After `server.close()`, node:http still answers requests on keep-alive connections that were busy at close() and
 * keeps them open, so a client that keeps sending (a poller, a browser reusing its connection) holds close() — and a
 * SIGTERM exit — open. Answers then carry `Connection: close`, as app.close() does on Gale's engine.
 */
export function closingServer(req: IncomingMessage, res: ServerResponse): void {
  const server = (req.socket as { server?: { listening?: boolean } } | null)?.server;
  if (server?.listening === false && !res.headersSent) res.setHeader('Connection', 'close');
}

/** The server context of a request that arrived through node:http. */
export function nodeContext(req: IncomingMessage): ServerContext {
  const sock = req.socket;
  return {
    localAddress: sock?.localAddress ?? '',
    localPort: sock?.localPort ?? 0,
    family: sock?.localFamily ?? 'IPv4',
    server: (sock as { server?: unknown } | undefined)?.server,
  };
}
