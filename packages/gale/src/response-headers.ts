// The header layer of Response: name/value validation, Content-Type codes → names, and the header
// helpers (get/append/type/location/vary/links/attachment…). Imports Response as a type only, never at run time.
import { basename, extname } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import varyHeader from 'vary';
import { ErrorCodes, GaleError } from './errors.js';
import type { Response } from './response.js';

/**
 * A header value: a string, a number, or a list (sent as several lines).
 *
 * @example
 * res.header('x-count', 3).header('link', ['</a>; rel="preload"', '</b>; rel="preload"']);
 */
export type HeaderValue = string | number | readonly string[];

// RFC 9110 token and field-value checks: a value with CR/LF would split the response.
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const BAD_VALUE = /[\0-\x08\x0a-\x1f\x7f]/;
/** Headers the engine writes itself from the body it is given. */
export const ENGINE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'date']);

/** Validates a header name and value, returning the name (throws GaleError otherwise). */
export function checkHeader(name: string, value: string): string {
  if (!TOKEN.test(name)) throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
  if (BAD_VALUE.test(value)) {
    throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
  }
  return name;
}

/** The Content-Type a response holds as a string or a CT_* code (native.ts), as a header value. */
export function contentTypeName(ct: string | number): string {
  if (typeof ct === 'string') return ct;
  return ['', 'application/json', 'text/plain; charset=utf-8', 'application/octet-stream', 'text/html; charset=utf-8'][
    ct
  ] as string;
}

/**
 * The header helpers of Response, documented here. Response implements them in response.ts:
 * one-liners inline, the others by calling the functions below.
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

/** `res.append(name, value)`. */
export function appendHeader(res: Response, name: string, value: HeaderValue): Response {
  const prev = res.getHeader(name);
  if (prev === undefined) return res.header(name, value);
  const list = typeof prev === 'object' ? [...prev] : [String(prev)];
  if (typeof value === 'object') list.push(...value);
  else list.push(String(value));
  return res.header(name, list);
}

/** `res.vary(field)`. */
export function addVary(res: Response, field: string | string[]): Response {
  const prev = res.getHeader('vary');
  const current = prev === undefined ? '' : typeof prev === 'object' ? prev.join(', ') : String(prev);
  return res.header('Vary', varyHeader.append(current, field));
}

/** `res.links(links)`. */
export function addLinks(res: Response, links: Record<string, string | string[]>): Response {
  const prev = res.getHeader('link');
  let link = prev === undefined ? '' : `${typeof prev === 'object' ? prev.join(', ') : prev}, `;
  link += Object.entries(links)
    .map(([rel, url]) =>
      [url]
        .flat()
        .map((u) => `<${u}>; rel="${rel}"`)
        .join(', '),
    )
    .join(', ');
  return res.header('Link', link);
}

/** `res.attachment(filename)`. */
export function attachment(res: Response, filename: string | undefined): Response {
  const name = filename === undefined ? undefined : basename(filename);
  if (name) res.type(extname(name));
  return res.header('Content-Disposition', contentDisposition(name));
}
