// Conditional GET for Response: entity tags (the `etag` package's, computed by the engine), the freshness check
// behind 304s, an ETag left to the engine made now, and request header reads. Imports Request and Response as
// types only, never response.ts at run time.
import fresh from 'fresh';
import { native } from '../native.js';
import type { RequestView as Request } from '../request/api.js';
import { HeaderEntry, type ResponseView as Response } from './api.js';

/**
 * The entity tag of a body, in the format of the `etag` package (and so Express's default `etag fn`):
 * `"<length in hex>-<27 characters of base64 SHA-1>"`, with `W/` when weak. Computed by the engine, in one call.
 *
 * @example
 * import { entityTag } from 'gale';
 * entityTag('{"hello":"world"}', true); // 'W/"11-IkjuL6CqqtmReFMfkkvwC0sKj04"'
 */
export function entityTag(body: string | Uint8Array, weak: boolean): string {
  return native.etag(body, weak);
}

/** `res._tagNow()`: makes the ETag `_tagLater` left to the engine, now (something reads the headers, or another end). */
export function tagNow(res: {
  _headers: Map<string, HeaderEntry> | undefined;
  _etagBody: string | Uint8Array | undefined;
  readonly _etagBits: number;
}): void {
  const body = res._etagBody as string | Uint8Array;
  res._etagBody = undefined;
  if (res._headers === undefined) res._headers = new Map();
  res._headers.set('etag', new HeaderEntry('ETag', entityTag(body, res._etagBits === 1)));
}

/** A request header without materialising all of them while the engine still holds the request. */
export function requestHeader(req: Request, name: string): string | undefined {
  if (req._ended) return req.get(name);
  return req._n.header(req._id, name);
}

/** Sets the ETag (unless one was set) and tells whether the request's validators match (as Express's req.fresh). */
export function notModified(res: Response, mode: 'weak' | 'strong' | false, body: string | Uint8Array): boolean {
  let headers = res._headers;
  let etag = headers?.get('etag')?.value;
  if (etag === undefined && mode !== false && res._req._lacksValidators()) {
    // Nothing to compare the tag with: the engine makes it from the bytes it sends (Response._tagLater).
    res._tagLater(body, mode === 'weak');
    return false;
  }
  if (etag === undefined && mode !== false) {
    etag = entityTag(body, mode === 'weak');
    if (headers === undefined) {
      headers = new Map();
      res._headers = headers;
    }
    headers.set('etag', new HeaderEntry('ETag', etag));
  }
  const lastModified = headers?.get('last-modified')?.value;
  const status = res.statusCode;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  const req = res._req;
  // The engine said neither validator came (and the app made no headers object to add one): nothing to compare.
  if (req._lacksValidators()) return false;
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
