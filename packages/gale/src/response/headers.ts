// The header layer of Response: name/value validation, Content-Type codes → names, and the header
// helpers (get/append/type/location/vary/links/attachment…). Imports Response as a type only, never at run time.
import { basename, extname } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import varyHeader from 'vary';
import { ErrorCodes, GaleError } from '../errors.js';
import type { HeaderValue } from '../options.js';
import type { HeaderEntry, ResponseView as Response } from './api.js';

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
