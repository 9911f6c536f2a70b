// Conditional GET for Response: entity tags (as the `etag` package), the freshness check behind 304s,
// and request header reads. Imports Request and Response as types only, never response.ts at run time.
import * as crypto from 'node:crypto';
import fresh from 'fresh';
import type { Request } from './request.js';
import type { Response } from './response.js';

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
export function requestHeader(req: Request, name: string): string | undefined {
  if (req._ended) return req.get(name);
  return req._n.header(req._id, name);
}

/** Sets the ETag (unless one was set) and tells whether the request's validators match (as Express's req.fresh). */
export function notModified(res: Response, mode: 'weak' | 'strong' | false, body: string | Uint8Array): boolean {
  let headers = res._headers;
  let etag = headers?.get('etag')?.[1];
  if (etag === undefined && mode !== false) {
    etag = entityTag(body, mode === 'weak');
    if (headers === undefined) {
      headers = new Map();
      res._headers = headers;
    }
    headers.set('etag', ['ETag', etag]);
  }
  const lastModified = headers?.get('last-modified')?.[1];
  const status = res.statusCode;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  const req = res._req;
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
