// Express's response helpers (send, json, jsonp, sendStatus, sendFile, download, format, redirect,
// cookie, render, …) ported from Express 5, with Express 4's differences in ExpressResponse4. They
// are written against the node:http API of NodeResponse, so middleware that patches res.write /
// res.end / res.writeHead sees every byte, as on Express.
// Over 400 lines: it ports Express 5's lib/response.js, whose 23 public res members apps expect on one prototype (and
// extend through app.response), with the internal hooks response4.ts overrides for Express 4 (_setStatus, _contentType,
// _redirectHtml, …) and a fast path in send/json that stores headers directly when no header method was replaced.
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import { format as formatContentType, parse as parseContentType } from 'content-type';
import cookie from 'cookie';
import { sign } from 'cookie-signature';
import encodeUrl from 'encodeurl';
import escapeHtml from 'escape-html';
import createError from 'http-errors';
import mime from 'mime-types';
import send1 from 'send';
import send0 from 'send-0';
import statuses from 'statuses';
import varyHeader from 'vary';
import { builtinWeak } from './etag.js';
import { NodeResponse } from './node-response.js';
import { type FileStream, sendfile } from './sendfile.js';

type Settings = {
  get(name: string): unknown;
  enabled(name: string): boolean;
  render(name: string, opts: object, cb: (err: unknown, html?: string) => void): void;
};
type Cb = (err?: unknown) => void;
type Fn = (...a: unknown[]) => unknown;

/** Memoised pure header computations (the same few content types are set on every response). */
export function memo<T>(fn: (s: string) => T): (s: string) => T {
  const cache = new Map<string, T>();
  return (s) => {
    let v = cache.get(s);
    if (v === undefined) {
      v = fn(s);
      if (cache.size < 512) cache.set(s, v);
    }
    return v;
  };
}

/**
 * Express 5's utils.setCharset, with its content-type 2: parameters keep their order and a value that fails to parse
 * (`text/plain; foo`) keeps its type.
 */
export const setCharset = memo((type: string): string => {
  const parsed = parseContentType(type);
  parsed.parameters.charset = 'utf-8';
  return formatContentType(parsed);
});
export const contentType5 = memo((v: string): string | false => mime.contentType(v));

function stringify(value: unknown, replacer: unknown, spaces: unknown, esc: unknown): string | undefined {
  let json =
    replacer || spaces
      ? JSON.stringify(value, replacer as (k: string, v: unknown) => unknown, spaces as number)
      : JSON.stringify(value);
  if (esc && typeof json === 'string') {
    json = json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
  }
  return json;
}

/** Express's utils.normalizeType. */
function normalizeType(type: string): { value: string } {
  if (type.indexOf('/') === -1) return { value: mime.lookup(type) || 'application/octet-stream' };
  const i = type.indexOf(';');
  return { value: (i === -1 ? type : type.slice(0, i)).trim() };
}

/**
 * A response as Express middleware sees it: Express's helpers over node:http's API.
 *
 * @example
 * app.get('/', (req, res) => res.status(201).set('x-id', '7').json({ ok: true }));
 */
export class ExpressResponse extends NodeResponse {
  /** @internal */ _locals: Record<string, unknown> | undefined = undefined;
  declare readonly app: Settings;

  /** Values for views rendered by this response. */
  get locals(): Record<string, unknown> {
    if (this._locals === undefined) this._locals = Object.create(null);
    return this._locals as Record<string, unknown>;
  }
  set locals(v: Record<string, unknown>) {
    this._locals = v;
  }

  status(code: number): this {
    if (!Number.isInteger(code)) {
      throw new TypeError(`Invalid status code: ${JSON.stringify(code)}. Status code must be an integer.`);
    }
    if (code < 100 || code > 999) {
      throw new RangeError(
        `Invalid status code: ${JSON.stringify(code)}. Status code must be greater than 99 and less than 1000.`,
      );
    }
    this.statusCode = code;
    return this;
  }

  links(links: Record<string, string | string[]>): this {
    let link = (this.get('Link') as string) || '';
    if (link) link += ', ';
    return this.set(
      'Link',
      link +
        Object.keys(links)
          .map((rel) => {
            const v = links[rel];
            return Array.isArray(v) ? v.map((one) => `<${one}>; rel="${rel}"`).join(', ') : `<${v}>; rel="${rel}"`;
          })
          .join(', '),
    );
  }

  send(body?: unknown): this {
    let chunk = body;
    let encoding: BufferEncoding | undefined;
    switch (typeof chunk) {
      case 'string': {
        encoding = 'utf8';
        const own = this._ownHeaders();
        const type = own ? this._g._getLower('content-type') : this.get('Content-Type');
        if (typeof type !== 'string') this.type('html');
        else if (own)
          this._g._headerValid('Content-Type', 'content-type', this._contentType(setCharset(type)) as string);
        else this.set('Content-Type', setCharset(type));
        break;
      }
      case 'boolean':
      case 'number':
      case 'object':
        if (chunk === null) chunk = '';
        else if (ArrayBuffer.isView(chunk)) {
          if (!this.get('Content-Type')) this.type('bin');
        } else return this.json(chunk);
        break;
    }
    return this._sendBody(chunk as string | Uint8Array | undefined, encoding);
  }

  /** @internal the common tail of send(): length, ETag, freshness, HEAD and no-body statuses */
  _sendBody(body: string | Uint8Array | undefined, encoding: BufferEncoding | undefined): this {
    let chunk: string | Uint8Array | undefined = body;
    const etagFn = this.app.get('etag fn') as Fn | undefined;
    // Content-Length and a built-in ETag are stored as set() stores them, without its name lookups and value checks
    // (both values are made here and valid), while the header methods are the package's own (_ownHeaders).
    const own = this._ownHeaders();
    const generateETag = !(own ? this._g._getLower('etag') : this.get('ETag')) && typeof etagFn === 'function';
    let len: number | undefined;
    if (chunk !== undefined) {
      if (typeof chunk === 'string') len = Buffer.byteLength(chunk);
      else {
        if (!Buffer.isBuffer(chunk)) chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        len = chunk.length;
      }
      if (own) {
        if (!this._te || this._compat4()) this._clen = String(len);
      } else if (!this.get('Transfer-Encoding') || this._compat4()) this.set('Content-Length', len);
    }
    if (generateETag && len !== undefined) {
      const fn = etagFn as Fn;
      const weak = builtinWeak(fn);
      if (own && weak !== undefined && chunk !== undefined) {
        // The built-in tag of this body, made by the engine from the bytes it sends, or here if anything reads the
        // headers first (Gale's Response._tagLater): the same value, one conversion of the body.
        this._g._tagLater(chunk, weak);
      } else {
        // Express hashes a Buffer of the body; the built-in generators give the same tag from the string.
        const etag =
          weak !== undefined || typeof chunk !== 'string' ? fn(chunk) : fn(Buffer.from(chunk as string), undefined);
        if (etag) this.set('ETag', etag as string);
      }
    }
    if (this.req.fresh) this.statusCode = 304;
    if (204 === this.statusCode || 304 === this.statusCode) {
      this.removeHeader('Content-Type');
      this.removeHeader('Content-Length');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    if (this.statusCode === 205) {
      this.set('Content-Length', '0');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    if (this.req.method === 'HEAD') this.end();
    else this.end(chunk, encoding);
    return this;
  }

  json(obj?: unknown): this {
    const app = this.app;
    const body = stringify(obj, app.get('json replacer'), app.get('json spaces'), app.get('json escape'));
    if (this._ownHeaders()) {
      const g = this._g;
      if (!g._getLower('content-type'))
        g._headerValid('Content-Type', 'content-type', this._contentType(JSON_TYPE) as string);
    } else if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(body);
  }

  /**
   * @internal The header methods are this package's own (none replaced on the response, its app's `response` or a
   * subclass) and the head is not sent (nor the response destroyed: setHeader then keeps headers Gale no longer
   * takes): send() and json() may then store the headers they make as set() would store them, without set()'s lookups
   * and checks. Otherwise they go through set() and get(), as in Express, so a replaced method sees every call.
   */
  _ownHeaders(): boolean {
    return (
      this._header === false &&
      !this._g.headersSent &&
      this.set === SET &&
      this.get === GET &&
      this.setHeader === SET_HEADER &&
      this.getHeader === GET_HEADER
    );
  }

  jsonp(obj?: unknown): this {
    const app = this.app;
    let body = stringify(obj, app.get('json replacer'), app.get('json spaces'), app.get('json escape'));
    let callback = (this.req.query as Record<string, unknown>)[app.get('jsonp callback name') as string];
    if (!this.get('Content-Type')) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'application/json');
    }
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback === 'string' && callback.length !== 0) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'text/javascript');
      const cb = callback.replace(/[^[\]\w$.]/g, '');
      if (body === undefined) body = '';
      else if (typeof body === 'string') body = body.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      body = `/**/ typeof ${cb} === 'function' && ${cb}(${body});`;
    }
    return this.send(body);
  }

  sendStatus(statusCode: number): this {
    const body = statuses.message[statusCode] || String(statusCode);
    this.status(statusCode);
    this.type('txt');
    return this.send(body);
  }

  sendFile(path: string, options?: object | Cb, callback?: Cb): void {
    let done = callback;
    let opts = (options || {}) as Record<string, unknown>;
    if (!path) throw new TypeError('path argument is required to res.sendFile');
    if (typeof path !== 'string') throw new TypeError('path must be a string to res.sendFile');
    if (typeof options === 'function') {
      done = options as Cb;
      opts = {};
    }
    if (!opts.root && !isAbsolute(path)) throw new TypeError('path must be absolute or specify root to res.sendFile');
    const pathname = encodeURI(path);
    if (!this._compat4()) opts.etag = this.app.enabled('etag');
    this._sendFile(pathname, opts, done);
  }

  /** @internal send (the npm package) streams the file through this response, as in Express */
  _sendFile(pathname: string, opts: Record<string, unknown>, done: Cb | undefined): void {
    const req = this.req;
    const next = req.next as Cb;
    const file = (this._compat4() ? send0 : send1)(req as never, pathname, opts as never);
    sendfile(this, file as unknown as FileStream, opts, (err) => {
      if (done) {
        done(err);
        return;
      }
      const e = err as { code?: string; syscall?: string } | undefined;
      if (e && e.code === 'EISDIR') return next();
      if (e && e.code !== 'ECONNABORTED' && e.syscall !== 'write') next(err);
    });
  }

  download(path: string, filename?: unknown, options?: unknown, callback?: Cb): void {
    let done = callback;
    let name = filename as string | null | undefined;
    let opts = (options || null) as Record<string, unknown> | null;
    if (typeof filename === 'function') {
      done = filename as Cb;
      name = null;
      opts = null;
    } else if (typeof options === 'function') {
      done = options as Cb;
      opts = null;
    }
    if (typeof filename === 'object' && (typeof options === 'function' || options === undefined)) {
      name = null;
      opts = filename as Record<string, unknown>;
    }
    const headers: Record<string, unknown> = { 'Content-Disposition': this._disposition(name || path) };
    const extra = opts?.headers as Record<string, unknown> | undefined;
    if (extra) {
      for (const key of Object.keys(extra)) {
        if (key.toLowerCase() !== 'content-disposition') headers[key] = extra[key];
      }
    }
    const o = Object.create(opts) as Record<string, unknown>;
    o.headers = headers;
    const fullPath = !o.root ? resolve(path) : path;
    this.sendFile(fullPath, o, done);
  }

  /** @internal Content-Disposition for download() */
  _disposition(name: string): string {
    return contentDisposition(basename(name));
  }

  type(type: string): this {
    const ct = type.indexOf('/') === -1 ? contentType5(type) || 'application/octet-stream' : type;
    return this.set('Content-Type', ct);
  }
  contentType(type: string): this {
    return this.type(type);
  }

  format(obj: Record<string, (req: unknown, res: unknown, next: unknown) => unknown>): this {
    const req = this.req;
    const next = req.next as Cb;
    const keys = Object.keys(obj).filter((v) => v !== 'default');
    const key = keys.length > 0 ? (req.accepts(keys) as string | false) : false;
    this.vary('Accept');
    if (key) {
      this.set('Content-Type', normalizeType(key).value);
      (obj[key] as Fn)(req, this, next);
    } else if (obj.default) obj.default(req, this, next);
    else next(createError(406, { types: keys.map((k) => normalizeType(k).value) }));
    return this;
  }

  attachment(filename?: string): this {
    const name = filename !== undefined ? basename(filename) : undefined;
    if (name) this.type(extname(name));
    this.set('Content-Disposition', contentDisposition(name));
    return this;
  }

  append(field: string, val: string | string[]): this {
    const prev = this.get(field) as string | string[] | undefined;
    let value: string | string[] = val;
    if (prev) {
      value = Array.isArray(prev) ? prev.concat(val) : Array.isArray(val) ? [prev].concat(val) : [prev, val];
    }
    return this.set(field, value);
  }

  set(field: string | Record<string, unknown>, val?: unknown): this {
    // biome-ignore lint/complexity/noArguments: set(name, undefined) and set(object) differ, as in Express
    if (typeof field === 'string' && arguments.length >= 2) {
      let value: string | string[] = Array.isArray(val) ? val.map(String) : String(val);
      // Most names are not 12 characters long: no lower-cased copy made for them.
      if (field === 'Content-Type' || (field.length === 12 && field.toLowerCase() === 'content-type')) {
        if (Array.isArray(value)) throw new TypeError('Content-Type cannot be set to an Array');
        value = this._contentType(value) as string;
      }
      this.setHeader(field, value);
    } else {
      for (const key in field as Record<string, unknown>) this.set(key, (field as Record<string, unknown>)[key]);
    }
    return this;
  }
  header(field: string | Record<string, unknown>, val?: unknown): this {
    // biome-ignore lint/complexity/noArguments: as set()
    return arguments.length >= 2 ? this.set(field, val) : this.set(field);
  }
  /** @internal res.set's Content-Type rule */
  _contentType(value: string): string | false {
    return contentType5(value);
  }

  get(field: string): unknown {
    return this.getHeader(field);
  }

  clearCookie(name: string, options?: Record<string, unknown>): this {
    const opts: Record<string, unknown> = { path: '/', ...options, expires: new Date(1) };
    delete opts.maxAge;
    return this.cookie(name, '', opts);
  }

  cookie(name: string, value: unknown, options?: Record<string, unknown>): this {
    const opts: Record<string, unknown> = { ...options };
    const secret = (this.req as unknown as { secret?: string }).secret;
    const signed = opts.signed;
    if (signed && !secret) throw new Error('cookieParser("secret") required for signed cookies');
    let val = typeof value === 'object' ? `j:${JSON.stringify(value)}` : String(value);
    if (signed) val = `s:${sign(val, secret as string)}`;
    if (opts.maxAge != null) {
      const maxAge = Number(opts.maxAge);
      if (!Number.isNaN(maxAge)) {
        opts.expires = new Date(Date.now() + maxAge);
        opts.maxAge = Math.floor(maxAge / 1000);
      }
    }
    if (opts.path == null) opts.path = '/';
    this.append('Set-Cookie', cookie.serialize(name, String(val), opts as cookie.CookieSerializeOptions));
    return this;
  }

  location(url: string): this {
    return this.set('Location', encodeUrl(url));
  }

  redirect(...args: unknown[]): void {
    let address = args[0] as string;
    let status = 302;
    if (args.length === 2) {
      status = args[0] as number;
      address = args[1] as string;
    }
    this._redirect(status, address);
  }

  /** @internal */
  _redirect(status: number, url: string): void {
    const address = this.location(url).get('Location') as string;
    let body = '';
    const message = statuses.message[status];
    this.format({
      text: () => {
        body = `${message}. Redirecting to ${address}`;
      },
      html: () => {
        body = this._redirectHtml(message, escapeHtml(address));
      },
      default: () => {
        body = '';
      },
    });
    this._setStatus(status);
    this.set('Content-Length', Buffer.byteLength(body));
    if (this.req.method === 'HEAD') this.end();
    else this.end(body);
  }
  /** @internal */
  _redirectHtml(message: string | undefined, u: string): string {
    return `<!DOCTYPE html><head><title>${message}</title></head><body><p>${message}. Redirecting to ${u}</p></body>`;
  }
  /** @internal Express 5 validates through status(); Express 4 assigns */
  _setStatus(code: number): void {
    this.status(code);
  }

  vary(field: string | string[]): this {
    varyHeader(this as never, field);
    return this;
  }

  render(view: string, options?: unknown, callback?: (err: unknown, html?: string) => void): void {
    const app = this.req.app as unknown as Settings;
    let done = callback;
    let opts = (options || {}) as Record<string, unknown>;
    const req = this.req;
    if (typeof options === 'function') {
      done = options as (err: unknown, html?: string) => void;
      opts = {};
    }
    opts._locals = this.locals;
    const finish =
      done ||
      ((err: unknown, str?: string) => {
        if (err) return (req.next as Cb)(err);
        this.send(str);
      });
    app.render(view, opts, finish);
  }

  /** @internal */
  _compat4(): boolean {
    return false;
  }
}

// The header methods _ownHeaders compares against.
const JSON_TYPE = 'application/json';
const SET = ExpressResponse.prototype.set;
const GET = ExpressResponse.prototype.get;
const SET_HEADER = NodeResponse.prototype.setHeader;
const GET_HEADER = NodeResponse.prototype.getHeader;
