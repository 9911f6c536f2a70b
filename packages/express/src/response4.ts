// Express 4's response: the older argument forms of send/json/jsonp/redirect, status without checks,
// Express 4's content-type and charset rules (mime 1, via send 0.19), res.location('back').
import { basename, extname } from 'node:path';
// Express 4 ships content-disposition 0.5, which quotes every filename (2.x leaves a token unquoted).
import contentDisposition from 'content-disposition-0';
import contentType1 from 'content-type-1';
import encodeUrl from 'encodeurl';
import send0 from 'send-0';
import statuses from 'statuses';
import { ExpressResponse, memo } from './response.js';

/** Express 4's utils.setCharset, with its content-type 1 (which sorts the parameters). */
const setCharset = memo((type: string): string => {
  const parsed = contentType1.parse(type);
  parsed.parameters.charset = 'utf-8';
  return contentType1.format(parsed);
});

type Cb = (err?: unknown) => void;

const charsetRe = /;\s*charset\s*=/;
const cache = new Map<string, string>();
/** Express 4's res.set rule for Content-Type: add the mime database's charset when none is given. */
function contentType4(v: string): string {
  let out = cache.get(v);
  if (out === undefined) {
    out = v;
    if (!charsetRe.test(v)) {
      const charset = send0.mime.charsets.lookup(v.split(';')[0] as string, '');
      if (charset) out = `${v}; charset=${charset.toLowerCase()}`;
    }
    if (cache.size < 512) cache.set(v, out);
  }
  return out;
}

/**
 * Express 4's response.
 *
 * @example
 * import express from '@gale-http/express/4';
 * const app = express();
 * app.get('/old', (req, res) => res.send(201, 'created')); // Express 4's res.send(status, body)
 */
export class ExpressResponse4 extends ExpressResponse {
  override _compat4(): boolean {
    return true;
  }
  override status(code: number): this {
    this.statusCode = code;
    return this;
  }
  override _setStatus(code: number): void {
    this.statusCode = code;
  }
  override links(links: Record<string, string | string[]>): this {
    let link = (this.get('Link') as string) || '';
    if (link) link += ', ';
    return this.set(
      'Link',
      link +
        Object.keys(links)
          .map((rel) => `<${links[rel]}>; rel="${rel}"`)
          .join(', '),
    );
  }
  override send(...args: unknown[]): this {
    let chunk = args[0];
    let encoding: BufferEncoding | undefined;
    if (args.length === 2) {
      if (typeof args[0] !== 'number' && typeof args[1] === 'number') this.statusCode = args[1];
      else {
        this.statusCode = args[0] as number;
        chunk = args[1];
      }
    }
    if (typeof chunk === 'number' && args.length === 1) {
      if (!this.get('Content-Type')) this.type('txt');
      this.statusCode = chunk;
      chunk = statuses.message[chunk];
    }
    switch (typeof chunk) {
      case 'string':
        if (!this.get('Content-Type')) this.type('html');
        break;
      case 'boolean':
      case 'number':
      case 'object':
        if (chunk === null) chunk = '';
        else if (Buffer.isBuffer(chunk)) {
          if (!this.get('Content-Type')) this.type('bin');
        } else return this.json(chunk);
        break;
    }
    if (typeof chunk === 'string') {
      encoding = 'utf8';
      const type = this.get('Content-Type');
      if (typeof type === 'string') this.set('Content-Type', setCharset(type));
    }
    return this._sendBody(chunk as string | Uint8Array | undefined, encoding);
  }
  override json(...args: unknown[]): this {
    let val = args[0];
    if (args.length === 2) {
      if (typeof args[1] === 'number') this.statusCode = args[1];
      else {
        this.statusCode = args[0] as number;
        val = args[1];
      }
    }
    return super.json(val);
  }
  override jsonp(...args: unknown[]): this {
    let val = args[0];
    if (args.length === 2) {
      if (typeof args[1] === 'number') this.statusCode = args[1];
      else {
        this.statusCode = args[0] as number;
        val = args[1];
      }
    }
    return super.jsonp(val);
  }
  override sendStatus(statusCode: number): this {
    const body = statuses.message[statusCode] || String(statusCode);
    this.statusCode = statusCode;
    this.type('txt');
    return this.send(body);
  }
  /** Express 4's deprecated lower-case sendfile (no absolute-path check). */
  sendfile(path: string, options?: object | Cb, callback?: Cb): void {
    let done = callback;
    let opts = (options || {}) as Record<string, unknown>;
    if (typeof options === 'function') {
      done = options as Cb;
      opts = {};
    }
    this._sendFile(path, opts, done);
  }
  override _disposition(name: string): string {
    return contentDisposition(basename(name));
  }
  override type(type: string): this {
    const ct = type.indexOf('/') === -1 ? send0.mime.lookup(type) : type;
    return this.set('Content-Type', ct);
  }
  override attachment(filename?: string): this {
    if (filename) this.type(extname(filename));
    this.set('Content-Disposition', contentDisposition(filename ? basename(filename) : undefined));
    return this;
  }
  /** Express 4: `res.vary()` with no field (or an empty list) is a deprecated no-op, not an error. */
  override vary(field: string | string[]): this {
    if (!field || (Array.isArray(field) && field.length === 0)) return this;
    return super.vary(field);
  }
  override _contentType(value: string): string {
    return contentType4(value);
  }
  override clearCookie(name: string, options?: Record<string, unknown>): this {
    return this.cookie(name, '', { expires: new Date(1), path: '/', ...options });
  }
  override location(url: string): this {
    const loc = url === 'back' ? (this.req.get('Referrer') as string) || '/' : String(url);
    return this.set('Location', encodeUrl(loc));
  }
  override redirect(...args: unknown[]): void {
    let address = args[0] as string;
    let status = 302;
    if (args.length === 2) {
      if (typeof args[0] === 'number') {
        status = args[0];
        address = args[1] as string;
      } else status = args[1] as number;
    }
    this._redirect(status, address);
  }
  override _redirectHtml(message: string | undefined, u: string): string {
    return `<p>${message}. Redirecting to ${u}</p>`;
  }
}
