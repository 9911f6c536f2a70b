// The shape of Response that the modules below it work on (header helpers, Express-style helpers, files, ETags,
// node members): its documented helpers and the core members they use. response.ts's Response implements all of it
// (TypeScript checks that it matches), so none of them imports response.ts. Types only.
import type { EventEmitter } from 'node:events';
import type { NativeServer, ReplyMeta } from '../native.js';
import type { HeaderValue } from '../options.js';
import type { RequestView } from '../request/api.js';
import type { SseOptions, SseStream } from '../sse.js';
import type { StreamSource } from '../stream.js';
import type { Views } from '../views.js';

/** Hooks and settings the app gives every response (keeps this file free of app imports). */
/**
 * @internal One header of a response as set: the name as the app spelled it, and its value. A class rather than a
 * `[name, value]` literal: V8 may pretenure a literal's allocation site (allocate its objects straight in the old
 * generation) once it saw them survive, and every response's headers would then pile up until a full GC — measured
 * on the Express layer: 0.7 MB promoted per scavenge and ~2 µs more CPU per request with one header set.
 */
export class HeaderEntry {
  constructor(
    readonly name: string,
    public value: HeaderValue,
  ) {}
}

/**
 * The app a Response belongs to, as its helpers see it: the app's settings they read (`etag`, `cookieSecret`, views)
 * and the calls they make back. Gale's app is the host of its responses; an app never implements one.
 *
 * @example
 * // The settings a response reads come from the app's options:
 * const app = gale({ etag: 'strong', cookieSecret: process.env.COOKIE_SECRET });
 */
export interface ResponseHost {
  /** Called when a deferred response finishes or aborts, to forget it. */
  forget(id: number): void;
  /** Called when a streamed response must be tracked for drain/abort events. */
  track(res: ResponseView): void;
  /** The app's last-resort error answer (logged 500, or a destroyed stream), for async helpers. */
  fail(err: unknown, req: RequestView, res: ResponseView): void;
  /** ETags for `send`/`json`/`html` bodies: 'weak', 'strong' or false. */
  etag: 'weak' | 'strong' | false;
  /** Secrets for signed cookies; the first one signs. */
  cookieSecret: string | readonly string[] | undefined;
  /** Templates for `res.render`. */
  views: Views;
  /** Log one line per finished request. */
  logRequests: boolean;
  /** Open event streams, closed by `app.close()` so a graceful shutdown does not wait for them. */
  sse: Set<SseStream>;
}

/**
 * The header helpers of Response, documented here. Response implements them in response.ts:
 * one-liners inline, the others by calling the functions below.
 *
 * @example
 * app.get('/', (req, res) => res.set('Cache-Control', 'no-store').append('Vary', 'Accept').type('json').send('{}'));
 */
export interface ResponseHeaders {
  /** Alias of `header`, as in Express. */
  set(name: string, value: HeaderValue): this;

  /** Alias of `header`, as in node:http. */
  setHeader(name: string, value: HeaderValue): this;

  /** A header set on this response, by name. */
  getHeader(name: string): HeaderValue | undefined;

  /** Removes a header set on this response. */
  removeHeader(name: string): this;

  /**
   * Appends to a header (Set-Cookie, Link, …), keeping values set before.
   *
   * @example
   * res.append('Link', '</a.css>; rel=preload').append('Link', '</b.js>; rel=preload');
   */
  append(name: string, value: HeaderValue): this;

  /** A header set on this response (alias of `getHeader`, as in Express). */
  get(name: string): HeaderValue | undefined;

  /**
   * Sets Content-Type from an extension or name (`'json'`, `'.html'`, `'png'`) or a MIME type
   * (text types get `charset=utf-8`, as Express); unknown extensions become application/octet-stream.
   *
   * @example
   * res.type('csv').send('a,b\n1,2\n'); // text/csv; charset=utf-8
   */
  type(type: string): this;

  /** Alias of `type`, as in Express. */
  contentType(type: string): this;

  /**
   * Sets the Location header, percent-encoding what must be (already-encoded sequences are kept).
   *
   * @example
   * res.status(201).location(`/users/${id}`).json(user);
   */
  location(url: string): this;

  /**
   * Adds `field` to the Vary header (once; `*` absorbs the rest).
   *
   * @example
   * res.vary('Accept-Encoding').vary('Origin');
   */
  vary(field: string | string[]): this;

  /**
   * Adds links to the Link header.
   *
   * @example
   * res.links({ next: '/users?page=3', last: '/users?page=9' });
   * // Link: </users?page=3>; rel="next", </users?page=9>; rel="last"
   */
  links(links: Record<string, string | string[]>): this;

  /**
   * Marks the response as a download (Content-Disposition: attachment), with the file name's type.
   *
   * @example
   * res.attachment('report.csv').send(csv); // Content-Type: text/csv; charset=utf-8
   */
  attachment(filename?: string): this;
}

/**
 * Options for `res.cookie()`: the Set-Cookie attributes, with `maxAge` in milliseconds as in Express.
 *
 * @example
 * res.cookie('sid', token, { httpOnly: true, secure: true, sameSite: 'lax', maxAge: 86_400_000, signed: true });
 */
export interface CookieOptions {
  /** Milliseconds until expiry: sets `Max-Age` (in seconds) and `Expires`. */
  maxAge?: number;
  expires?: Date;
  domain?: string;
  /** Default `/`. */
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: boolean | 'lax' | 'strict' | 'none';
  /** CHIPS: the cookie is keyed to the top-level site. */
  partitioned?: boolean;
  priority?: 'low' | 'medium' | 'high';
  /** Sign the value with the app's `cookieSecret` (`s:` prefix, as cookie-parser). */
  signed?: boolean;
  /** Encodes the value; default `encodeURIComponent`. */
  encode?: (value: string) => string;
}

/**
 * A handler in `res.format()`, chosen by the request's Accept header.
 *
 * @example
 * app.get('/item', (req, res) => res.format({ json: (req, res) => res.json(item), html: (req, res) => res.html(page(item)) }));
 */
export type FormatHandler = (req: RequestView, res: ResponseView) => unknown;

/**
 * The Express-style helpers of Response, documented here. Response implements them in response.ts:
 * one-liners inline, the others by calling the functions below.
 *
 * @example
 * app.get('/old', (req, res) => res.redirect(301, '/new'));
 * app.post('/login', (req, res) => res.cookie('sid', 'abc', { httpOnly: true }).sendStatus(204));
 */
export interface ResponseHelpers {
  /**
   * Redirects to `url` with `status` (302 by default) and a short body: text or HTML as the client
   * accepts (as Express), empty otherwise.
   *
   * @example
   * app.get('/old', (req, res) => res.redirect(301, '/new'));
   * app.post('/login', (req, res) => res.redirect('/home'));
   */
  redirect(url: string): void;
  redirect(status: number, url: string): void;

  /**
   * Sets a cookie (appends a Set-Cookie header). Objects are stored as `j:` + JSON and signed values
   * as `s:` + value + signature, as Express and cookie-parser do; `maxAge` is in milliseconds and
   * `path` defaults to `/`. Signing needs the app's `cookieSecret` option.
   *
   * @example
   * res.cookie('sid', id, { httpOnly: true, secure: true, sameSite: 'lax', maxAge: 86_400_000, signed: true });
   */
  cookie(name: string, value: unknown, options?: CookieOptions): this;

  /**
   * Tells the client to delete a cookie: an empty value that expired in 1970. Pass the same `path`
   * and `domain` the cookie was set with.
   *
   * @example
   * res.clearCookie('sid', { path: '/' });
   */
  clearCookie(name: string, options?: CookieOptions): this;

  /**
   * Calls the handler for the best type the client accepts (keys are extensions like `json` or MIME
   * types), after setting Content-Type and `Vary: Accept`; `default` runs when none matches, else a
   * 406 HttpError is thrown. Returns what the handler returns, so handlers can return a body.
   *
   * @example
   * app.get('/user', (req, res) => res.format({
   *   json: () => ({ name: 'ada' }),
   *   html: () => html`<p>ada</p>`,
   *   text: () => 'ada',
   * }));
   */
  format(handlers: Record<string, FormatHandler>): unknown;

  /**
   * Starts a Server-Sent Events stream: `Content-Type: text/event-stream`, `Cache-Control: no-cache`,
   * `X-Accel-Buffering: no`, heartbeat comments every `heartbeat` ms (default 15 s; timers are
   * unref'd and cleared when the stream closes or the client goes away). `app.close()` closes open
   * streams, so a graceful shutdown does not wait for them.
   *
   * @example
   * app.get('/clock', (req, res) => {
   *   const sse = res.sse();
   *   const timer = setInterval(() => sse.send({ event: 'tick', data: { now: Date.now() } }), 1000);
   *   sse.onClose(() => clearInterval(timer));
   * });
   */
  sse(options?: SseOptions): SseStream;

  /**
   * Renders the view `name` with the engine registered for its extension (`app.engine`), looked up
   * in the `views` directories, with `app.locals`, `res.locals` and `data`, and sends the result as
   * HTML. Errors (missing view, template error) go to the app's error answer (500, logged).
   *
   * @example
   * app.engine('ejs', ejs.renderFile);
   * app.set('views', './views').set('view engine', 'ejs');
   * app.get('/', (req, res) => res.render('home', { title: 'Hi' }));
   */
  render(name: string, data?: Record<string, unknown>): Promise<void>;

  /**
   * Streams a body from a Node Readable, a Web ReadableStream or an async iterable of strings/bytes,
   * honouring backpressure, and ends the response when the source ends. When the client goes away
   * the source is stopped (destroyed, cancelled or returned); when the source fails, the app's error
   * answer runs (500 before the first chunk; a cut connection after). Resolves true when everything
   * was sent. Without a type set, the first chunk decides: text/plain for strings, else
   * application/octet-stream. Handlers may also just return the source.
   *
   * @example
   * app.get('/export', (req, res) => res.type('csv').stream(rowsAsCsv())); // an async generator
   * app.get('/log', (req, res) => res.stream(fs.createReadStream('app.log')));
   */
  stream(source: StreamSource): Promise<boolean>;
}

/**
 * Options for `res.download()`.
 *
 * @example
 * app.get('/report', (req, res) => res.download('q3.pdf', 'Q3 report.pdf', { root: './reports', headers: { 'x-kind': 'report' } }));
 */
export interface DownloadOptions {
  /** Resolve `path` under this directory (paths escaping it answer 404). */
  root?: string;
  /** Serve dotfiles: 'allow', or 'ignore' (404, default). */
  dotfiles?: 'ignore' | 'allow';
  /** Extra headers (Content-Disposition is always set from the file name). */
  headers?: Record<string, string>;
}

/**
 * The file senders of Response, documented here. Response implements them in response.ts by calling
 * the functions below.
 *
 * @example
 * app.get('/files/*name', (req, res) => res.sendFile(req.params.name, { root: '/srv/files' }));
 */
export interface ResponseFiles {
  /**
   * Sends a file from disk through the engine's static path (validators, 304, Range, precompressed
   * siblings). `path` must be absolute unless `root` is given; paths with dot-segments under `root`
   * and dotfiles are refused with 404. Headers set on `res` are sent too.
   *
   * @example
   * app.get('/report', (req, res) => res.sendFile('report.pdf', { root: '/srv/files' }));
   */
  sendFile(path: string, options?: { root?: string; dotfiles?: 'ignore' | 'allow' }): void;

  /**
   * Sends the file at `path` as a download named `filename` (default: the file's name), through the
   * engine's `sendFile` (validators, Range, 304). A relative path resolves against the working
   * directory unless `root` is given.
   *
   * @example
   * app.get('/invoice/:id', (req, res) =>
   *   res.download(`${req.params.id}.pdf`, 'invoice.pdf', { root: '/srv/invoices' }));
   */
  download(path: string, filename?: string | DownloadOptions, options?: DownloadOptions): void;
}

/**
 * A response as the modules below Response see it: the documented helpers and the core members they use. Gale's
 * Response implements it, so a helper written against it takes Gale's `res`.
 *
 * @example
 * const noStore = (res: ResponseView) => res.set('Cache-Control', 'no-store');
 * app.get('/me', (req, res) => noStore(res).json({ id: 1 }));
 */
export interface ResponseView extends ResponseHeaders, ResponseHelpers, ResponseFiles {
  statusCode: number;
  headersSent: boolean;
  finished: boolean;
  statusMessage: string | undefined;
  readonly locals: Record<string, unknown>;
  status(code: number): this;
  header(name: string, value: HeaderValue): this;
  json(value: unknown): void;
  send(body?: unknown): void;
  html(body: string | import('../html.js').SafeHtml): void;
  end(body?: string | Uint8Array): void;
  write(chunk: string | Uint8Array): boolean;
  headerLines(): string | undefined;
  destroy(): void;
  on(event: 'drain' | 'close' | 'finish', listener: () => void): this;
  once(event: 'drain' | 'close' | 'finish', listener: () => void): this;
  off(event: 'drain' | 'close' | 'finish', listener: () => void): this;
  writeHead(statusCode: number, statusMessage?: unknown, headers?: unknown): this;
  /** @internal */ finish(ctype: string | number, body: string | Uint8Array | undefined, lines?: string): void;
  /** @internal */ readonly _id: number;
  /** @internal */ readonly _req: RequestView;
  /** @internal */ readonly _n: NativeServer;
  /** @internal */ readonly _host: ResponseHost;
  /** @internal */ readonly _t0: number;
  /** @internal */ _ctype: string | number;
  /** @internal */ _headers: Map<string, HeaderEntry> | undefined;
  /** @internal */ _events: EventEmitter | undefined;
  /** @internal */ _locals: Record<string, unknown> | undefined;
  // biome-ignore lint/suspicious/noConfusingVoidType: most head hooks return nothing
  /** @internal */ _onHead: ((body?: string | Uint8Array) => string | Uint8Array | undefined | void) | undefined;
  /** @internal */ _length: number | undefined;
  /** @internal */ _close: boolean | undefined;
  /** @internal */ _runOnHead(body?: string | Uint8Array): string | Uint8Array | undefined;
  /** @internal */ _tagLater(body: string | Uint8Array, weak: boolean): void;
  /** @internal */ _meta(): ReplyMeta | undefined;
}
