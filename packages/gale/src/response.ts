// The response object handlers receive. A whole reply goes to the engine in one native call; a
// streamed reply sends its head on the first write() and reports backpressure like a Node stream.
import * as crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import { basename, extname, isAbsolute, resolve as resolvePath, sep } from 'node:path';
import accepts from 'accepts';
import { create as contentDisposition } from 'content-disposition';
import * as cookie from 'cookie';
import { sign } from 'cookie-signature';
import encodeUrl from 'encodeurl';
import fresh from 'fresh';
import { contentType } from 'mime-types';
import vary from 'vary';
import { ErrorCodes, GaleError, HttpError } from './errors.js';
import { escapeHtml, SafeHtml } from './html.js';
import { logRequestDone, primeRequestLog } from './logging.js';
import { CT_BYTES, CT_HTML, CT_JSON, CT_NONE, CT_TEXT, type NativeServer } from './native.js';
import type { Request } from './request.js';
import { type SseOptions, SseStream } from './sse.js';
import { pump, type StreamSource } from './stream.js';
import type { Views } from './views.js';

export type HeaderValue = string | number | readonly string[];

// RFC 9110 token and field-value checks: a value with CR/LF would split the response.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const BAD_VALUE = /[\0-\x08\x0a-\x1f\x7f]/;
/** Headers the engine writes itself from the body it is given. */
const ENGINE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'date']);

/** Validates a header name and value, returning the name (throws GaleError otherwise). */
export function checkHeader(name: string, value: string): string {
  if (!TOKEN.test(name)) throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
  if (BAD_VALUE.test(value)) {
    throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
  }
  return name;
}

/** Hooks and settings the app gives every response (keeps this file free of app imports). */
export interface ResponseHost {
  /** Called when a deferred response finishes or aborts, to forget it. */
  forget(id: number): void;
  /** Called when a streamed response must be tracked for drain/abort events. */
  track(res: Response): void;
  /** The app's last-resort error answer (logged 500, or a destroyed stream), for async helpers. */
  fail(err: unknown, req: Request, res: Response): void;
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

/** Options for `res.cookie()`: the Set-Cookie attributes, with `maxAge` in milliseconds as in Express. */
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

/** Options for `res.download()`. */
export interface DownloadOptions {
  /** Resolve `path` under this directory (paths escaping it answer 404). */
  root?: string;
  /** Serve dotfiles: 'allow', or 'ignore' (404, default). */
  dotfiles?: 'ignore' | 'allow';
  /** Extra headers (Content-Disposition is always set from the file name). */
  headers?: Record<string, string>;
}

/** A handler in `res.format()`, chosen by the request's Accept header. */
export type FormatHandler = (req: Request, res: Response) => unknown;

const hashBase64: (data: string | Uint8Array) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha1', data, 'base64')
    : (data) => crypto.createHash('sha1').update(data).digest('base64');

/**
 * The entity tag of a body, in the format of the `etag` package (and so Express):
 * `"<length in hex>-<27 chars of base64 SHA-1>"`, with `W/` when weak.
 */
export function entityTag(body: string | Uint8Array, weak: boolean): string {
  const len = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const tag = `"${len.toString(16)}-${hashBase64(body).slice(0, 27)}"`;
  return weak ? `W/${tag}` : tag;
}

/** A request header without materialising all of them while the engine still holds the request. */
function requestHeader(req: Request, name: string): string | undefined {
  if (req._ended) return req.get(name);
  return req._n.header(req._id, name);
}

type Negotiable = Parameters<typeof accepts>[0];

/**
 * An outgoing response.
 *
 * @example
 * app.get('/hi', (req, res) => res.status(201).header('x-id', '7').json({ ok: true }));
 */
export class Response {
  /** The status code to send (default 200). */
  statusCode = 200;
  /** True once the head has been handed to the engine. */
  headersSent = false;
  /** True once the response has ended (or the client went away). */
  finished = false;
  /** @internal */ readonly _id: number;
  /** @internal */ readonly _req: Request;
  private readonly _n: NativeServer;
  private readonly _host: ResponseHost;
  private _ctype: string | number = CT_NONE;
  private _headers: Map<string, [string, HeaderValue]> | undefined;
  private _events: EventEmitter | undefined;
  private _locals: Record<string, unknown> | undefined;
  /** performance.now() at the start when requests are logged, else 0 */
  private readonly _t0: number;

  constructor(n: NativeServer, id: number, req: Request, host: ResponseHost) {
    this._n = n;
    this._id = id;
    this._req = req;
    this._host = host;
    this._t0 = host.logRequests ? performance.now() : 0;
  }

  /**
   * Values for templates rendered by this response (merged over `app.locals`, under `render`'s data).
   *
   * @example
   * app.use((req, res, next) => { res.locals.user = req.user; return next(); });
   */
  get locals(): Record<string, unknown> {
    if (this._locals === undefined) this._locals = {};
    return this._locals;
  }

  /** Sets the status code. */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) {
      throw new GaleError(ErrorCodes.INVALID_STATUS, `status must be an integer from 100 to 999, got ${code}`);
    }
    this.statusCode = code;
    return this;
  }

  /** Sets a header (replacing one of the same name). Content-Length and framing are the engine's. */
  header(name: string, value: HeaderValue): this {
    if (this.headersSent) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, `cannot set header "${name}": the response head was already sent`);
    }
    if (!TOKEN.test(name))
      throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
    const values = typeof value === 'object' ? value : [String(value)];
    for (const v of values) {
      if (BAD_VALUE.test(v)) {
        throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
      }
    }
    const lower = name.toLowerCase();
    if (lower === 'content-type') {
      this._ctype = String(values[0]);
      return this;
    }
    if (ENGINE_HEADERS.has(lower)) return this;
    if (this._headers === undefined) this._headers = new Map();
    this._headers.set(lower, [name, value]);
    return this;
  }

  /** Alias of `header`, as in Express. */
  set(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  /** Alias of `header`, as in node:http. */
  setHeader(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  /** A header set on this response, by name. */
  getHeader(name: string): HeaderValue | undefined {
    const lower = name.toLowerCase();
    if (lower === 'content-type') return this._ctype === CT_NONE ? undefined : contentTypeName(this._ctype);
    return this._headers?.get(lower)?.[1];
  }

  /** Removes a header set on this response. */
  removeHeader(name: string): this {
    const lower = name.toLowerCase();
    if (lower === 'content-type') this._ctype = CT_NONE;
    else this._headers?.delete(lower);
    return this;
  }

  /**
   * Sends `value` as JSON (with an ETag, and 304 when the request's If-None-Match matches).
   *
   * @example
   * app.get('/user', (req, res) => res.json({ id: 1 }));
   */
  json(value: unknown): void {
    const body = JSON.stringify(value);
    this.sendBody(this._ctype === CT_NONE ? CT_JSON : this._ctype, body === undefined ? 'null' : body);
  }

  /**
   * Sends a string (text/plain), bytes (application/octet-stream), `html` markup (text/html) or any
   * other value as JSON. A type set with `type()`/`header()` wins. Bodies get an ETag (app option
   * `etag`) and the answer is 304 when the request's If-None-Match matches it.
   *
   * @example
   * app.get('/', (req, res) => res.send('hello'));
   */
  send(body?: unknown): void {
    const none = this._ctype === CT_NONE;
    if (body === undefined || body === null) this.finish(this._ctype, undefined);
    else if (typeof body === 'string') this.sendBody(none ? CT_TEXT : this._ctype, body);
    else if (body instanceof Uint8Array) this.sendBody(none ? CT_BYTES : this._ctype, body);
    else if (body instanceof ArrayBuffer) this.sendBody(none ? CT_BYTES : this._ctype, new Uint8Array(body));
    else if (body instanceof SafeHtml) this.sendBody(none ? CT_HTML : this._ctype, body.value);
    else this.json(body);
  }

  /**
   * Sends HTML (text/html; charset=utf-8 unless a type was set).
   *
   * @example
   * app.get('/', (req, res) => res.html('<h1>Hi</h1>'));
   */
  html(body: string | SafeHtml): void {
    this.sendBody(this._ctype === CT_NONE ? CT_HTML : this._ctype, typeof body === 'string' ? body : body.value);
  }

  /**
   * Sends the status code with its reason phrase as a text/plain body.
   *
   * @example
   * app.post('/jobs', (req, res) => { queue.push(req.body); res.sendStatus(202); }); // "Accepted"
   */
  sendStatus(code: number): void {
    this.status(code);
    this.type('txt');
    this.sendBody(this._ctype, STATUS_CODES[code] ?? String(code));
  }

  /**
   * Sets Content-Type from an extension or name (`'json'`, `'.html'`, `'png'`) or a MIME type
   * (text types get `charset=utf-8`, as Express); unknown extensions become application/octet-stream.
   *
   * @example
   * res.type('csv').send('a,b\n1,2\n'); // text/csv; charset=utf-8
   */
  type(type: string): this {
    const ct = contentType(type);
    return this.header('Content-Type', ct === false ? (type.includes('/') ? type : 'application/octet-stream') : ct);
  }

  /** Alias of `type`, as in Express. */
  contentType(type: string): this {
    return this.type(type);
  }

  /**
   * Appends to a header (Set-Cookie, Link, …), keeping values set before.
   *
   * @example
   * res.append('Link', '</a.css>; rel=preload').append('Link', '</b.js>; rel=preload');
   */
  append(name: string, value: HeaderValue): this {
    const prev = this.getHeader(name);
    if (prev === undefined) return this.header(name, value);
    const list = typeof prev === 'object' ? [...prev] : [String(prev)];
    if (typeof value === 'object') list.push(...value);
    else list.push(String(value));
    return this.header(name, list);
  }

  /** A header set on this response (alias of `getHeader`, as in Express). */
  get(name: string): HeaderValue | undefined {
    return this.getHeader(name);
  }

  /**
   * Sets the Location header, percent-encoding what must be (already-encoded sequences are kept).
   *
   * @example
   * res.status(201).location(`/users/${id}`).json(user);
   */
  location(url: string): this {
    return this.header('Location', encodeUrl(url));
  }

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
  redirect(a: number | string, b?: string): void {
    const status = typeof a === 'number' ? a : 302;
    const url = typeof a === 'number' ? b : a;
    if (typeof url !== 'string' || url === '') {
      throw new GaleError(ErrorCodes.INVALID_REDIRECT, `redirect() needs a URL string, got ${JSON.stringify(url)}`);
    }
    this.status(status);
    this.location(url);
    const address = this.getHeader('location') as string;
    const message = STATUS_CODES[status] ?? String(status);
    const kind = accepts(this._req as unknown as Negotiable).types(['text', 'html']);
    this.vary('Accept');
    if (kind === 'text') {
      this.finish('text/plain; charset=utf-8', `${message}. Redirecting to ${address}`);
    } else if (kind === 'html') {
      const u = escapeHtml(address);
      this.finish(
        'text/html; charset=utf-8',
        `<!DOCTYPE html><head><title>${message}</title></head><body><p>${message}. Redirecting to ${u}</p></body>`,
      );
    } else {
      this.finish(this._ctype, '');
    }
  }

  /**
   * Adds `field` to the Vary header (once; `*` absorbs the rest).
   *
   * @example
   * res.vary('Accept-Encoding').vary('Origin');
   */
  vary(field: string | string[]): this {
    const prev = this.getHeader('vary');
    const current = prev === undefined ? '' : typeof prev === 'object' ? prev.join(', ') : String(prev);
    return this.header('Vary', vary.append(current, field));
  }

  /**
   * Adds links to the Link header.
   *
   * @example
   * res.links({ next: '/users?page=3', last: '/users?page=9' });
   * // Link: </users?page=3>; rel="next", </users?page=9>; rel="last"
   */
  links(links: Record<string, string | string[]>): this {
    const prev = this.getHeader('link');
    let link = prev === undefined ? '' : `${typeof prev === 'object' ? prev.join(', ') : prev}, `;
    link += Object.entries(links)
      .map(([rel, url]) =>
        [url]
          .flat()
          .map((u) => `<${u}>; rel="${rel}"`)
          .join(', '),
      )
      .join(', ');
    return this.header('Link', link);
  }

  /**
   * Marks the response as a download (Content-Disposition: attachment), with the file name's type.
   *
   * @example
   * res.attachment('report.csv').send(csv); // Content-Type: text/csv; charset=utf-8
   */
  attachment(filename?: string): this {
    const name = filename === undefined ? undefined : basename(filename);
    if (name) this.type(extname(name));
    return this.header('Content-Disposition', contentDisposition(name));
  }

  /**
   * Sends the file at `path` as a download named `filename` (default: the file's name), through the
   * engine's `sendFile` (validators, Range, 304). A relative path resolves against the working
   * directory unless `root` is given.
   *
   * @example
   * app.get('/invoice/:id', (req, res) =>
   *   res.download(`${req.params.id}.pdf`, 'invoice.pdf', { root: '/srv/invoices' }));
   */
  download(path: string, filename?: string | DownloadOptions, options: DownloadOptions = {}): void {
    let name = filename;
    if (typeof name === 'object') {
      options = name;
      name = undefined;
    }
    const extra = Object.entries(options.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-disposition');
    for (const [k, v] of extra) this.header(k, v);
    this.header('Content-Disposition', contentDisposition(basename(name || path)));
    const full = options.root === undefined ? resolvePath(path) : path;
    try {
      this.sendFile(full, { root: options.root, dotfiles: options.dotfiles });
    } catch (err) {
      // As Express, the download headers belong to the file only: an error answer must not be a download.
      if (!this.headersSent) {
        this.removeHeader('content-disposition');
        for (const [k] of extra) this.removeHeader(k);
      }
      throw err;
    }
  }

  /**
   * Sets a cookie (appends a Set-Cookie header). Objects are stored as `j:` + JSON and signed values
   * as `s:` + value + signature, as Express and cookie-parser do; `maxAge` is in milliseconds and
   * `path` defaults to `/`. Signing needs the app's `cookieSecret` option.
   *
   * @example
   * res.cookie('sid', id, { httpOnly: true, secure: true, sameSite: 'lax', maxAge: 86_400_000, signed: true });
   */
  cookie(name: string, value: unknown, options: CookieOptions = {}): this {
    const { signed, maxAge, ...attrs } = options;
    const opts: cookie.CookieSerializeOptions = attrs;
    let val = typeof value === 'object' ? `j:${JSON.stringify(value)}` : String(value);
    if (signed) {
      const secrets = this._host.cookieSecret;
      const secret = typeof secrets === 'string' ? secrets : secrets?.[0];
      if (!secret) {
        throw new GaleError(
          ErrorCodes.COOKIE_SECRET,
          `cannot sign cookie "${name}": set the app's cookieSecret option`,
        );
      }
      val = `s:${sign(val, secret)}`;
    }
    if (maxAge !== undefined && maxAge !== null) {
      const ms = Number(maxAge);
      if (!Number.isNaN(ms)) {
        opts.expires = new Date(Date.now() + ms);
        opts.maxAge = Math.floor(ms / 1000);
      }
    }
    if (opts.path === undefined || opts.path === null) opts.path = '/';
    let line: string;
    try {
      line = cookie.serialize(name, val, opts);
    } catch (err) {
      throw new GaleError(ErrorCodes.INVALID_COOKIE, `cannot set cookie "${name}": ${(err as Error).message}`);
    }
    return this.append('Set-Cookie', line);
  }

  /**
   * Tells the client to delete a cookie: an empty value that expired in 1970. Pass the same `path`
   * and `domain` the cookie was set with.
   *
   * @example
   * res.clearCookie('sid', { path: '/' });
   */
  clearCookie(name: string, options: CookieOptions = {}): this {
    const { maxAge: _ignored, ...rest } = options;
    return this.cookie(name, '', { path: '/', ...rest, expires: new Date(1) });
  }

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
  format(handlers: Record<string, FormatHandler>): unknown {
    const keys = Object.keys(handlers).filter((k) => k !== 'default');
    const key = keys.length > 0 ? (accepts(this._req as unknown as Negotiable).types(keys) as string | false) : false;
    this.vary('Accept');
    if (key) {
      this.type(key);
      return (handlers[key] as FormatHandler)(this._req, this);
    }
    if (handlers.default) return handlers.default(this._req, this);
    throw new HttpError(406, 'Not Acceptable', { code: ErrorCodes.NOT_ACCEPTABLE });
  }

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
  stream(source: StreamSource): Promise<boolean> {
    return this._pipe(source).then(undefined, (err) => {
      this._host.fail(err, this._req, this);
      return false;
    });
  }

  /** @internal stream() without the error answer: rejects with the source's error */
  _pipe(source: StreamSource): Promise<boolean> {
    return pump(this, source, (chunk) => {
      if (this._ctype === CT_NONE) this._ctype = typeof chunk === 'string' ? CT_TEXT : CT_BYTES;
    });
  }

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
  sse(options: SseOptions = {}): SseStream {
    if (this.finished || this.headersSent) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot start an event stream: the response head was already sent');
    }
    const lastEventId = requestHeader(this._req, 'last-event-id');
    this.header('Content-Type', 'text/event-stream');
    this.header('Cache-Control', 'no-cache');
    this.header('X-Accel-Buffering', 'no');
    const stream = new SseStream(this, lastEventId, options);
    const open = this._host.sse;
    if (!stream.closed) {
      open.add(stream);
      stream.onClose(() => open.delete(stream));
    }
    return stream;
  }

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
  render(name: string, data: Record<string, unknown> = {}): Promise<void> {
    const merged = this._locals === undefined ? data : { ...this._locals, ...data };
    return this._host.views
      .render(name, merged)
      .then((out) => {
        if (!this.finished) this.html(out);
      })
      .catch((err) => this._host.fail(err, this._req, this));
  }

  /**
   * Sends a file from disk through the engine's static path (validators, 304, Range, precompressed
   * siblings). `path` must be absolute unless `root` is given; paths with dot-segments under `root`
   * and dotfiles are refused with 404. Headers set on `res` are sent too.
   *
   * @example
   * app.get('/report', (req, res) => res.sendFile('report.pdf', { root: '/srv/files' }));
   */
  sendFile(path: string, options: { root?: string; dotfiles?: 'ignore' | 'allow' } = {}): void {
    let full = path;
    // Dotfile checks cover what the caller did not choose: the part below root, or the file name.
    let checked: string[];
    if (options.root !== undefined) {
      const root = resolvePath(options.root);
      full = resolvePath(root, path.replace(/^\/+/, ''));
      if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) {
        throw new HttpError(404, 'Not Found');
      }
      checked = full.slice(root.length).split(sep);
    } else if (!isAbsolute(path)) {
      throw new GaleError(ErrorCodes.INVALID_PATH, `sendFile needs an absolute path or a root option, got ${path}`);
    } else {
      checked = [full.slice(full.lastIndexOf(sep) + 1)];
    }
    if (options.dotfiles !== 'allow' && checked.some((seg) => seg.startsWith('.') && seg.length > 1)) {
      throw new HttpError(404, 'Not Found');
    }
    if (this.finished || this.headersSent) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot send a file: a response was already sent');
    }
    let lines = this.headerLines() ?? '';
    // A Content-Type set on res wins over the one guessed from the file name.
    if (this._ctype !== CT_NONE) lines = `Content-Type: ${contentTypeName(this._ctype)}\r\n${lines}`;
    // Copy what JS may still read before the engine can release the request.
    if (this._req._deferred) this._req._snapshot();
    if (this._t0 !== 0) primeRequestLog(this._req);
    const code = this._n.sendFile(this._id, full, lines || undefined);
    if (code === 404) throw new HttpError(404, 'Not Found');
    this.finished = true;
    this.headersSent = true;
    if (this._req._deferred) this._host.forget(this._id);
    this._events?.emit('finish');
    if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, false);
  }

  /** Ends the response, with an optional last piece of body. */
  end(body?: string | Uint8Array): void {
    if (this.headersSent && !this.finished) {
      this.finished = true;
      this._req._snapshot();
      this._host.forget(this._id);
      this._n.endStream(this._id, body);
      this._events?.emit('finish');
      if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, false);
      return;
    }
    this.finish(this._ctype, body);
  }

  /**
   * Streams a chunk (the head goes out first, chunked on HTTP/1.1). Returns false when the client is
   * not keeping up: wait for the `'drain'` event before writing more.
   */
  write(chunk: string | Uint8Array): boolean {
    if (this.finished) {
      throw new GaleError(ErrorCodes.HEADERS_SENT, 'write() after the response ended');
    }
    if (!this.headersSent) {
      this.headersSent = true;
      this._host.track(this);
      this._n.writeHead(this._id, this.statusCode, this._ctype, this.headerLines());
    }
    return this._n.write(this._id, chunk);
  }

  /**
   * Abandons the response: what was already streamed is flushed, then the connection closes without
   * completing the body, so the client sees a truncated response instead of a complete one.
   */
  destroy(): void {
    if (this.finished) return;
    this.finished = true;
    this.headersSent = true;
    this._req._snapshot();
    this._host.forget(this._id);
    this._n.destroy(this._id);
    this._events?.emit('close');
    if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, true);
  }

  /** Listens for `'drain'`, `'close'` (client went away or response done) or `'finish'`. */
  on(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    if (this._events === undefined) this._events = new EventEmitter();
    this._events.on(event, listener);
    return this;
  }

  /** Like `on`, once. */
  once(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    if (this._events === undefined) this._events = new EventEmitter();
    this._events.once(event, listener);
    return this;
  }

  /** Removes a listener added with `on` or `once`. */
  off(event: 'drain' | 'close' | 'finish', listener: () => void): this {
    this._events?.off(event, listener);
    return this;
  }

  /** @internal engine events */
  _emit(event: 'drain' | 'close'): void {
    this._events?.emit(event);
  }

  /** @internal the client went away */
  _aborted(): void {
    if (this.finished) return;
    this.finished = true;
    this._req._snapshot();
    this._n.release(this._id);
    this._events?.emit('close');
    if (this._t0 !== 0) logRequestDone(this._req, this.statusCode, this._t0, true);
  }

  private headerLines(): string | undefined {
    if (this._headers === undefined) return undefined;
    let out = '';
    for (const [name, value] of this._headers.values()) {
      if (typeof value === 'object') for (const v of value) out += `${name}: ${v}\r\n`;
      else out += `${name}: ${value}\r\n`;
    }
    return out;
  }

  private finish(ctype: string | number, body: string | Uint8Array | undefined): void {
    if (this.finished || this.headersSent) {
      throw new GaleError(
        ErrorCodes.HEADERS_SENT,
        'cannot send a response: one was already sent (or streaming started) for this request',
      );
    }
    this.finished = true;
    this.headersSent = true;
    const req = this._req;
    if (req._deferred) {
      req._snapshot();
      this._host.forget(this._id);
    }
    if (this._t0 !== 0) primeRequestLog(req);
    this._n.end(this._id, this.statusCode, ctype, this.headerLines(), body);
    if (this._events !== undefined) {
      this._events.emit('finish');
      this._events.emit('close');
    }
    if (this._t0 !== 0) logRequestDone(req, this.statusCode, this._t0, false);
  }

  /** send/json/html: adds the ETag and answers 304 when the request already has this body. */
  private sendBody(ctype: string | number, body: string | Uint8Array): void {
    const mode = this._host.etag;
    if ((mode !== false || this._headers !== undefined) && !this.finished && !this.headersSent) {
      if (this.notModified(mode, body)) {
        this.statusCode = 304;
        this.finish(CT_NONE, undefined);
        return;
      }
    }
    // No content: no Content-Type either (the ETag of what would have been sent stays, as Express).
    if (this.statusCode === 204 || this.statusCode === 304) this.finish(CT_NONE, undefined);
    else this.finish(ctype, body);
  }

  /** Sets the ETag (unless one was set) and tells whether the request's validators match (as Express's req.fresh). */
  private notModified(mode: 'weak' | 'strong' | false, body: string | Uint8Array): boolean {
    let headers = this._headers;
    let etag = headers?.get('etag')?.[1];
    if (etag === undefined && mode !== false) {
      etag = entityTag(body, mode === 'weak');
      if (headers === undefined) {
        headers = new Map();
        this._headers = headers;
      }
      headers.set('etag', ['ETag', etag]);
    }
    const lastModified = headers?.get('last-modified')?.[1];
    const status = this.statusCode;
    if ((status < 200 || status >= 300) && status !== 304) return false;
    const req = this._req;
    const noneMatch = etag === undefined ? undefined : requestHeader(req, 'if-none-match');
    const modifiedSince = lastModified === undefined ? undefined : requestHeader(req, 'if-modified-since');
    if (noneMatch === undefined && modifiedSince === undefined) return false;
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    return fresh(
      {
        'if-none-match': noneMatch,
        'if-modified-since': modifiedSince,
        'cache-control': requestHeader(req, 'cache-control'),
      },
      {
        etag: etag === undefined ? undefined : String(etag),
        'last-modified': lastModified === undefined ? undefined : String(lastModified),
      },
    );
  }
}

function contentTypeName(ct: string | number): string {
  if (typeof ct === 'string') return ct;
  return ['', 'application/json', 'text/plain; charset=utf-8', 'application/octet-stream', 'text/html; charset=utf-8'][
    ct
  ] as string;
}
