// The header layer of Response: name/value validation, the headers it holds (set, read, removed, listed),
// Content-Type codes → names, and the header helpers (get/append/type/location/vary/links/attachment…).
// Imports Response as a type only, never at run time.
import { basename, extname } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import { contentType } from 'mime-types';
import varyHeader from 'vary';
import { ErrorCodes, GaleError } from '../errors.js';
import { CT_NONE } from '../native.js';
import type { HeaderValue } from '../options.js';
import { HeaderEntry, type ResponseView as Response } from './api.js';

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
 * The fields of a Response that hold its headers (response.ts): Content-Type, Connection and Content-Length apart from
 * the others, which the engine writes itself.
 */
export interface HeaderFields {
  readonly headersSent: boolean;
  _ctype: string | number;
  _close: boolean | undefined;
  _length: number | undefined;
  _headers: Map<string, HeaderEntry> | undefined;
  /** An ETag left to the engine (`Response._tagLater`): made by `_tagNow` before any read of the headers. */
  readonly _etagBody: string | Uint8Array | undefined;
  _tagNow(): void;
}

/** `res.header(name, value)`: checks the name and every value (RFC 9110), then sets the header. */
export function setHeader(res: HeaderFields, name: string, value: HeaderValue): void {
  if (res.headersSent) {
    throw new GaleError(ErrorCodes.HEADERS_SENT, `cannot set header "${name}": the response head was already sent`);
  }
  if (!TOKEN.test(name)) throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid header name ${JSON.stringify(name)}`);
  const values = typeof value === 'object' ? value : [String(value)];
  for (const v of values) {
    if (BAD_VALUE.test(v)) {
      throw new GaleError(ErrorCodes.INVALID_HEADER, `invalid character in the value of header "${name}"`);
    }
  }
  setChecked(res, name, name.toLowerCase(), value);
}

/**
 * `res._headerValid(name, lower, value)`: sets a header whose name and value were checked already, with the name's
 * lower case (`res.header` checks them first).
 */
export function setChecked(res: HeaderFields, name: string, lower: string, value: HeaderValue): void {
  if (res.headersSent) {
    throw new GaleError(ErrorCodes.HEADERS_SENT, `cannot set header "${name}": the response head was already sent`);
  }
  if (lower === 'content-type') {
    res._ctype = String(typeof value === 'object' ? value[0] : value);
    return;
  }
  if (ENGINE_HEADERS.has(lower)) {
    // The engine writes these itself, but follows what the app asked for.
    const first = String(typeof value === 'object' ? value[0] : value);
    if (lower === 'connection') res._close = /(?:^|,)\s*close\s*(?:,|$)/i.test(first);
    else if (lower === 'content-length') {
      const n = Number(first);
      res._length = Number.isSafeInteger(n) && n >= 0 ? n : undefined;
    }
    return;
  }
  // A header set after an ETag left to the engine goes after it, as it would have.
  if (res._etagBody !== undefined) res._tagNow();
  if (res._headers === undefined) res._headers = new Map();
  res._headers.set(lower, new HeaderEntry(name, value));
}

/** `res._getLower(lower)`: a header's value by its lower-case name. */
export function getLower(res: HeaderFields, lower: string): HeaderValue | undefined {
  if (res._etagBody !== undefined) res._tagNow();
  if (lower === 'content-type') return res._ctype === CT_NONE ? undefined : contentTypeName(res._ctype);
  if (lower === 'content-length') return res._length;
  if (lower === 'connection') return res._close === undefined ? undefined : res._close ? 'close' : 'keep-alive';
  return res._headers?.get(lower)?.value;
}

/** `res.getHeaderNames()`. */
export function headerNames(res: HeaderFields): string[] {
  if (res._etagBody !== undefined) res._tagNow();
  const names = res._headers === undefined ? [] : [...res._headers.keys()];
  if (res._ctype !== CT_NONE) names.push('content-type');
  return names;
}

/** `res._removeLower(lower)`: removes a header by its lower-case name. */
export function removeLower(res: HeaderFields, lower: string): void {
  if (res._etagBody !== undefined) res._tagNow();
  if (lower === 'content-type') res._ctype = CT_NONE;
  else if (lower === 'content-length') res._length = undefined;
  else if (lower === 'connection') res._close = undefined;
  else res._headers?.delete(lower);
}

/**
 * What `res.type(t)` made of each `t` seen (mime-types' answer with its charset, already checked as a header value):
 * apps pass a handful of constant types, and the lookup, lower-casing and checks cost ~1 µs per call otherwise.
 * Bounded, so types made per request cannot grow it.
 */
const TYPES = new Map<string, string>();

/** `res.type(type)`. */
export function setType(res: Response, type: string): void {
  const known = TYPES.get(type);
  if (known !== undefined && !res.headersSent) {
    res._ctype = known;
    return;
  }
  const ct = contentType(type);
  res.header('Content-Type', ct === false ? (type.includes('/') ? type : 'application/octet-stream') : ct);
  // Valid (header() threw otherwise): the next res.type(type) skips mime-types and the checks.
  if (TYPES.size < 256) TYPES.set(type, res._ctype as string);
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

// The last header block built, kept whole: most responses of an app carry the same headers in the same order (what
// its middleware sets), so the block is reused up to the first header that differs instead of being concatenated
// again, and the engine reads a string it has already flattened. `ends[i]` is where header i's lines end.
let lastNames: string[] = [];
let lastValues: HeaderValue[] = [];
let lastEnds: number[] = [];
let lastBlock = '';

/** The header lines of a header map (none: undefined), without making an ETag left to the engine. */
export function blockOf(headers: Map<string, HeaderEntry> | undefined): string | undefined {
  return headers === undefined ? undefined : headerBlock(headers);
}

/** The `name: value\r\n` lines of a response's headers, in the order they were set. */
export function headerBlock(headers: Map<string, HeaderEntry>): string {
  let i = 0;
  const n = lastNames.length;
  for (const e of headers.values()) {
    // Arrays never match: Set-Cookie lists and the like are built anew.
    if (i === n || e.name !== lastNames[i] || e.value !== lastValues[i] || typeof e.value === 'object') break;
    i++;
  }
  if (i === n && i === headers.size) return lastBlock;
  // Nothing in common (a response whose only header is its ETag): new lists, not slices of nothing.
  const names = i === 0 ? [] : lastNames.slice(0, i);
  const values = i === 0 ? [] : lastValues.slice(0, i);
  const ends = i === 0 ? [] : lastEnds.slice(0, i);
  let out = i === 0 ? '' : lastBlock.slice(0, ends[i - 1]);
  let j = 0;
  for (const { name, value } of headers.values()) {
    if (j++ < i) continue;
    if (typeof value === 'object') for (const v of value) out += `${name}: ${v}\r\n`;
    else out += `${name}: ${value}\r\n`;
    names.push(name);
    values.push(value);
    ends.push(out.length);
  }
  lastNames = names;
  lastValues = values;
  lastEnds = ends;
  lastBlock = out;
  return out;
}
