// Express-style helpers of Response (redirect, cookies, format, stream, sse, render): their docs and the
// functions of the Response behind them. Imports Response as a type only, never response.ts at run time.
import { STATUS_CODES } from 'node:http';
import accepts from 'accepts';
import * as cookie from 'cookie';
import { sign } from 'cookie-signature';
import { ErrorCodes, GaleError, HttpError } from './errors.js';
import { escapeHtml } from './html.js';
import type { Request } from './request.js';
import type { Response } from './response.js';
import { requestHeader } from './response-etag.js';
import { type SseOptions, SseStream } from './sse.js';
import type { StreamSource } from './stream.js';

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
export type FormatHandler = (req: Request, res: Response) => unknown;

type Negotiable = Parameters<typeof accepts>[0];

/**
 * The Express-style helpers of Response, documented here. Response implements them in response.ts:
 * one-liners inline, the others by calling the functions below.
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

/** `res.redirect([status,] url)`. */
export function redirect(res: Response, a: number | string, b?: string): void {
  const status = typeof a === 'number' ? a : 302;
  const url = typeof a === 'number' ? b : a;
  if (typeof url !== 'string' || url === '') {
    throw new GaleError(ErrorCodes.INVALID_REDIRECT, `redirect() needs a URL string, got ${JSON.stringify(url)}`);
  }
  res.status(status);
  res.location(url);
  const address = res.getHeader('location') as string;
  const message = STATUS_CODES[status] ?? String(status);
  const kind = accepts(res._req as unknown as Negotiable).types(['text', 'html']);
  res.vary('Accept');
  if (kind === 'text') {
    res.finish('text/plain; charset=utf-8', `${message}. Redirecting to ${address}`);
  } else if (kind === 'html') {
    const u = escapeHtml(address);
    res.finish(
      'text/html; charset=utf-8',
      `<!DOCTYPE html><head><title>${message}</title></head><body><p>${message}. Redirecting to ${u}</p></body>`,
    );
  } else {
    res.finish(res._ctype, '');
  }
}

/** `res.cookie(name, value, options)`. */
export function setCookie(res: Response, name: string, value: unknown, options: CookieOptions): Response {
  const { signed, maxAge, ...attrs } = options;
  const opts: cookie.CookieSerializeOptions = attrs;
  let val = typeof value === 'object' ? `j:${JSON.stringify(value)}` : String(value);
  if (signed) {
    const secrets = res._host.cookieSecret;
    const secret = typeof secrets === 'string' ? secrets : secrets?.[0];
    if (!secret) {
      throw new GaleError(ErrorCodes.COOKIE_SECRET, `cannot sign cookie "${name}": set the app's cookieSecret option`);
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
  return res.append('Set-Cookie', line);
}

/** `res.format(handlers)`. */
export function format(res: Response, handlers: Record<string, FormatHandler>): unknown {
  const keys = Object.keys(handlers).filter((k) => k !== 'default');
  const key = keys.length > 0 ? (accepts(res._req as unknown as Negotiable).types(keys) as string | false) : false;
  res.vary('Accept');
  if (key) {
    res.type(key);
    return (handlers[key] as FormatHandler)(res._req, res);
  }
  if (handlers.default) return handlers.default(res._req, res);
  throw new HttpError(406, 'Not Acceptable', { code: ErrorCodes.NOT_ACCEPTABLE });
}

/** `res.sse(options)`. */
export function startSse(res: Response, options: SseOptions): SseStream {
  if (res.finished || res.headersSent) {
    throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot start an event stream: the response head was already sent');
  }
  const lastEventId = requestHeader(res._req, 'last-event-id');
  res.header('Content-Type', 'text/event-stream');
  res.header('Cache-Control', 'no-cache');
  res.header('X-Accel-Buffering', 'no');
  const stream = new SseStream(res, lastEventId, options);
  const open = res._host.sse;
  if (!stream.closed) {
    open.add(stream);
    stream.onClose(() => open.delete(stream));
  }
  return stream;
}

/** `res.render(name, data)`. */
export function render(res: Response, name: string, data: Record<string, unknown>): Promise<void> {
  const merged = res._locals === undefined ? data : { ...res._locals, ...data };
  return res._host.views
    .render(name, merged)
    .then((out) => {
      if (!res.finished) res.html(out);
    })
    .catch((err) => res._host.fail(err, res._req, res));
}
