// Express 4's request: `req.host` is the host name (deprecated), `req.param()`, the singular accepts
// aliases, and `req.query` parsed once from the original URL by the app's parser.
import { EXTENDED_QUERY, ExpressRequest, QUERY_SET } from './request.js';

/**
 * Express 4's request: `req.host` is the host name (deprecated), `req.param()`, the singular
 * accepts aliases, and `req.query` parsed once from the original URL by the app's parser.
 *
 * @example
 * import express from '@gale-http/express/4';
 * const app = express();
 * app.get('/u/:id?', (req, res) => res.send(req.param('id') ?? 'none')); // Express 4's req.param
 */
export class ExpressRequest4 extends ExpressRequest {
  override get query(): Record<string, unknown> {
    if (this._qurl === undefined) {
      const url = this.originalUrl;
      const i = url.indexOf('?');
      this._q = (this._qp4 ?? EXTENDED_QUERY)(i === -1 ? '' : url.slice(i + 1));
      this._qurl = QUERY_SET;
    }
    return this._q as Record<string, unknown>;
  }
  override set query(v: Record<string, unknown>) {
    this._q = v;
    this._qurl = QUERY_SET;
  }
  override get host(): string | undefined {
    return this.hostname;
  }
  override get _compat4(): boolean {
    return true;
  }
  param(name: string, defaultValue?: unknown): unknown {
    const params = (this.params || {}) as Record<string, unknown>;
    const body = (this.body || {}) as Record<string, unknown>;
    const query = (this.query || {}) as Record<string, unknown>;
    if (null != params[name] && Object.hasOwn(params, name)) return params[name];
    if (null != body[name]) return body[name];
    if (null != query[name]) return query[name];
    return defaultValue;
  }
  acceptsEncoding(...args: unknown[]): unknown {
    return this.acceptsEncodings(...args);
  }
  acceptsCharset(...args: unknown[]): unknown {
    return this.acceptsCharsets(...args);
  }
  acceptsLanguage(...args: unknown[]): unknown {
    return this.acceptsLanguages(...args);
  }
}
