// In-process requests (`app.request()`): a Web Request is written as HTTP/1.1 bytes into one of the engine's in-memory
// connections (crates/gale-server/src/mem.rs), which reads, routes and answers it as it would a socket's; the response
// comes back parsed by the engine (gale-http's ResponseReader) and becomes a Web Response. Imports no App.
import { ErrorCodes, GaleError } from './errors.js';
import { FetchRequest } from './fetch/web-request.js';
import { GlobalHeaders, GlobalResponse } from './fetch/web-response.js';
import type { NativeServer } from './native.js';

/** `memRead` states (crates/gale-node/src/mem.rs). */
const MORE = 0;
const DONE = 1;
/** `memWrite` results: queued / queued, wait for a wake-up / the connection is gone. */
const FULL = 1;
const GONE = 2;

const CRLF = Buffer.from('\r\n');
const LAST_CHUNK = Buffer.from('0\r\n\r\n');
/** Statuses whose Response must have a null body (the Fetch standard's null body status). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** A URL with a scheme; anything else is a path on http://localhost. */
const ABSOLUTE = /^[a-z][a-z\d+\-.]*:/i;

type Input = string | URL | Request;
type StreamBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

function isStreamBody(body: unknown): body is StreamBody {
  if (typeof body !== 'object' || body === null) return false;
  return (
    typeof (body as ReadableStream).getReader === 'function' ||
    typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

function inProcessError(message: string, cause?: unknown): GaleError {
  const err = new GaleError(ErrorCodes.IN_PROCESS, message);
  if (cause !== undefined) (err as { cause?: unknown }).cause = cause;
  return err;
}

/** The Web Request for `app.request(input, init)`: a path is resolved against http://localhost. */
function toRequest(input: Input, init: RequestInit | undefined): Request {
  const url = typeof input === 'string' && !ABSOLUTE.test(input) ? new URL(input, 'http://localhost') : input;
  let o = init;
  // Node's Request needs duplex: 'half' for a stream body (FetchRequest adds it for ReadableStreams).
  if (isStreamBody(o?.body) && (o as { duplex?: string }).duplex === undefined) {
    o = { ...o, duplex: 'half' } as RequestInit;
  }
  return new FetchRequest(url, o);
}

/** The request head, as a client writes it: no default fields but Host and the body's framing. */
function requestHead(request: Request, framing: string): Buffer {
  const url = new URL(request.url);
  let head = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (!request.headers.has('host')) head += `host: ${url.host}\r\n`;
  for (const [name, value] of request.headers) {
    // The framing is this client's to decide, from the body it sends.
    if (name === 'content-length' || name === 'transfer-encoding') continue;
    head += `${name}: ${value}\r\n`;
  }
  return Buffer.from(`${head}${framing}\r\n`, 'latin1');
}

/** The Web Response for a head (and, when the response is complete, its body). */
function toResponse(
  status: number,
  reason: string,
  fields: string[],
  body: Uint8Array | ReadableStream<Uint8Array> | null,
): Response {
  const headers = new GlobalHeaders();
  for (let i = 0; i + 1 < fields.length; i += 2) headers.append(fields[i] as string, fields[i + 1] as string);
  // The constructor takes 200–599; fetch() reports any status a server sends, and so does this.
  const inRange = status >= 200 && status <= 599;
  // (A Buffer is a BodyInit at run time; TypeScript's DOM types want an ArrayBuffer-backed view.)
  const res = new GlobalResponse(NULL_BODY.has(status) ? null : (body as BodyInit | null), {
    status: inRange ? status : 200,
    statusText: reason,
    headers,
  });
  if (!inRange) Object.defineProperty(res, 'status', { value: status });
  return res;
}

/** One in-process request: the writer of its bytes and the reader of its response. */
class Exchange {
  private key = -1;
  private head = true;
  private ended = false;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private pulled: (() => void) | undefined;
  private room: (() => void) | undefined;
  private resolve!: (res: Response) => void;
  private reject!: (err: unknown) => void;
  readonly response: Promise<Response>;
  private readonly onAbort = (): void => this.fail(this.request.signal.reason);
  /** The default timeout's timer (no signal given), cleared once the head arrives. */
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly n: NativeServer,
    private readonly open: Map<number, Exchange>,
    private readonly request: Request,
  ) {
    this.response = new Promise<Response>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // It may reject (an abort) before app.request() hands it out: not an unhandled rejection meanwhile.
    this.response.catch(() => {});
  }

  async start(streamed: boolean, timeout: Timeout | undefined): Promise<void> {
    const req = this.request;
    if (req.signal.aborted) throw req.signal.reason;
    let body: Buffer | undefined;
    let framing: string;
    if (streamed) framing = 'transfer-encoding: chunked\r\n';
    else {
      if (req.body !== null) body = Buffer.from(await req.arrayBuffer());
      // As fetch(): a length for any body, and 0 for a POST or PUT without one.
      framing =
        body !== undefined || req.method === 'POST' || req.method === 'PUT'
          ? `content-length: ${body?.length ?? 0}\r\n`
          : '';
    }
    const flags = (req.url.startsWith('https:') ? 1 : 0) | (req.method === 'HEAD' ? 2 : 0);
    const key = this.n.memOpen(flags);
    if (key === undefined) throw inProcessError('app.request(): the app is closed');
    this.key = key;
    this.open.set(key, this);
    req.signal.addEventListener('abort', this.onAbort, { once: true });
    if (req.signal.aborted) {
      this.fail(req.signal.reason);
      return;
    }
    if (timeout !== undefined) {
      this.timer = setTimeout(() => {
        const url = new URL(req.url);
        const target = url.pathname + url.search;
        const why = timeout.describe(req.method, target) ?? 'no handler is running for it (is its body still coming?)';
        this.fail(
          inProcessError(
            `app.request(${req.method} ${target}): no response within ${timeout.ms} ms: ${why}. Pass a signal ` +
              '(init.signal, e.g. AbortSignal.timeout(60_000)) for a request that may take longer',
          ),
        );
      }, timeout.ms);
    }
    const head = requestHead(req, framing);
    this.n.memWrite(key, body === undefined || body.length === 0 ? head : Buffer.concat([head, body]));
    if (streamed && req.body !== null) void this.pump(req.body);
  }

  /** Sends a stream body as chunks, waiting whenever the engine has not read what came before. */
  private async pump(source: ReadableStream<Uint8Array>): Promise<void> {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.ended) break;
        const bytes = done ? LAST_CHUNK : chunkOf(value);
        if (bytes === undefined) continue;
        const r = this.n.memWrite(this.key, bytes);
        if (done || r === GONE) break;
        if (r === FULL) await new Promise<void>((resolve) => (this.room = resolve));
      }
    } catch (err) {
      // The body failed mid-way: the request goes away as a client's would.
      this.fail(err);
    } finally {
      if (this.ended) reader.cancel().catch(() => {});
      else reader.releaseLock();
    }
  }

  /** The engine says there is something to look at (Event::Pipe). */
  wake(): void {
    const room = this.room;
    if (room !== undefined) {
      this.room = undefined;
      room();
    }
    if (this.head || this.pulled !== undefined) this.read();
  }

  private read(): void {
    if (this.ended) return;
    const r = this.n.memRead(this.key);
    if (r === undefined) {
      this.fail(inProcessError('app.request(): the connection is gone'));
      return;
    }
    const [state, chunk, status] = r;
    if (this.head) {
      if (status === undefined) {
        if (state !== MORE) this.fail(inProcessError('app.request(): the connection closed before a response'));
        return;
      }
      this.head = false;
      clearTimeout(this.timer);
      const [, , , reason = '', fields = []] = r;
      if (state === DONE) {
        // The whole response is here (the usual case): no stream.
        const empty = this.request.method === 'HEAD' ? null : new Uint8Array(0);
        this.finish();
        this.resolve(toResponse(status, reason, fields, chunk ?? empty));
        return;
      }
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          this.controller = c;
        },
        pull: () =>
          new Promise<void>((resolve) => {
            this.pulled = resolve;
            this.read();
          }),
        cancel: () => this.finish(),
      });
      this.resolve(toResponse(status, reason, fields, body));
    }
    const c = this.controller;
    if (c === undefined) return;
    if (chunk !== undefined) c.enqueue(chunk);
    if (state === DONE) {
      this.finish();
      c.close();
    } else if (state !== MORE) {
      this.finish();
      c.error(new TypeError('terminated: the in-process connection closed before the response ended'));
    }
    if (chunk !== undefined || state !== MORE) {
      const pulled = this.pulled;
      this.pulled = undefined;
      pulled?.();
    }
  }

  /** Gives up: the connection closes (aborting the request in the app) and whoever waits hears `err`. */
  fail(err: unknown): void {
    if (this.ended) return;
    const c = this.controller;
    this.finish();
    if (this.head) this.reject(err);
    else c?.error(err);
    const pulled = this.pulled;
    this.pulled = undefined;
    pulled?.();
  }

  /** Done with the connection: its key is let go. */
  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.request.signal.removeEventListener('abort', this.onAbort);
    if (this.key >= 0) {
      this.open.delete(this.key);
      this.n.memClose(this.key);
    }
    const room = this.room;
    this.room = undefined;
    room?.();
  }
}

function chunkOf(value: unknown): Buffer | undefined {
  let bytes: Uint8Array;
  if (typeof value === 'string') bytes = Buffer.from(value);
  else if (value instanceof Uint8Array) bytes = value;
  else if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else throw new TypeError('app.request(): a stream body must yield strings or bytes');
  if (bytes.length === 0) return undefined;
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
}

/** `app.request()`'s default timeout, in milliseconds, for a request made without a signal. */
export const DEFAULT_TIMEOUT = 10_000;

interface Timeout {
  readonly ms: number;
  describe(method: string, target: string): string | undefined;
}

/** The in-process requests of one app, by connection key (for the engine's wake-ups). */
export class InProcess {
  private readonly open = new Map<number, Exchange>();

  /**
   * `describe(method, target)` says which route's handler holds an in-process request that is taking too long (for
   * the default timeout's error), or undefined when none does.
   */
  constructor(
    private readonly n: NativeServer,
    private readonly describe: (method: string, target: string) => string | undefined = () => undefined,
  ) {}

  private readonly timeout: Timeout = {
    ms: DEFAULT_TIMEOUT,
    describe: (method, target) => this.describe(method, target),
  };

  /** In-process requests not finished yet. */
  get size(): number {
    return this.open.size;
  }

  /** Event::Pipe for connection `key`. */
  wake(key: number): void {
    this.open.get(key)?.wake();
  }

  /** `app.request(input, init)`. */
  async request(input: Input, init: RequestInit | undefined): Promise<Response> {
    const request = toRequest(input, init);
    const upgrade = request.headers.get('upgrade');
    if (upgrade !== null) {
      throw inProcessError(
        `app.request(): an Upgrade request (${upgrade}) needs a socket; WebSockets and h2c are not available ` +
          'in-process: listen and connect a client to test them',
      );
    }
    const ex = new Exchange(this.n, this.open, request);
    // Without a signal of the caller's, a request that gets no head in DEFAULT_TIMEOUT ms fails saying which route
    // holds it (a test would otherwise wait for its runner's timeout, which says nothing).
    const timeout = init?.signal == null ? this.timeout : undefined;
    await ex.start(isStreamBody(init?.body), timeout);
    return ex.response;
  }
}
