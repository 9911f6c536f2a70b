// Express-style helpers of Response (redirect, cookies, format, stream, sse, render): their docs and the
// functions of the Response behind them. Imports Response as a type only, never response.ts at run time.
import { STATUS_CODES } from 'node:http';
import accepts from 'accepts';
import * as cookie from 'cookie';
import { sign } from 'cookie-signature';
import { ErrorCodes, GaleError, HttpError } from '../errors.js';
import { escapeHtml } from '../html.js';
import { type SseOptions, SseStream } from '../sse.js';
import type { StreamSource } from '../stream.js';
import type { CookieOptions, FormatHandler, ResponseView as Response } from './api.js';
import { requestHeader } from './etag.js';

type Negotiable = Parameters<typeof accepts>[0];

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

/** `res.clearCookie(name, options)`: an expired empty cookie (`maxAge` ignored), at path '/' unless told. */
export function clearCookie(res: Response, name: string, options: CookieOptions): void {
  const { maxAge: _ignored, ...rest } = options;
  res.cookie(name, '', { path: '/', ...rest, expires: new Date(1) });
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

/** `res.stream(source)`: a source's error is answered as the app's errors are (a 500, or a cut stream). */
export function streamOrFail(
  res: Response & { _pipe(source: StreamSource): Promise<boolean> },
  source: StreamSource,
): Promise<boolean> {
  return res._pipe(source).then(undefined, (err) => {
    res._host.fail(err, res._req, res);
    return false;
  });
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
