// The `etag`, `query parser` and `trust proxy` settings compiled as Express compiles them. ETags are
// the `etag` package's format, hashed straight from a string body (no Buffer copy).
import * as crypto from 'node:crypto';
import querystring from 'node:querystring';
import proxyaddr from 'proxy-addr';
import qs from 'qs';

const builtin = new WeakSet<object>();

/** True for the generators made here (they accept a string body as it is). */
export function isBuiltinEtag(fn: object): boolean {
  return builtin.has(fn);
}

const hashBase64: (data: string | Uint8Array) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (data) => crypto.hash('sha1', data, 'base64')
    : (data) => crypto.createHash('sha1').update(data).digest('base64');

function entityTag(body: string | Uint8Array): string {
  const len = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (len === 0) return '"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return `"${len.toString(16)}-${hashBase64(body).slice(0, 27)}"`;
}

export const strongEtag = (body: string | Uint8Array): string => entityTag(body);
export const weakEtag = (body: string | Uint8Array): string => `W/${entityTag(body)}`;
builtin.add(strongEtag);
builtin.add(weakEtag);

/** The `etag` setting: true/'weak', 'strong', false, or a function `(body, encoding) => tag`. */
export function compileETag(val: unknown): ((body: unknown, encoding?: string) => unknown) | undefined {
  if (typeof val === 'function') return val as (body: unknown) => unknown;
  switch (val) {
    case true:
    case 'weak':
      return weakEtag as (body: unknown) => string;
    case false:
      return undefined;
    case 'strong':
      return strongEtag as (body: unknown) => string;
    default:
      throw new TypeError(`unknown value for etag function: ${val}`);
  }
}

/** The `query parser` setting: 'simple' (querystring), 'extended' (qs), true, false, or a function. */
export function compileQueryParser(val: unknown): ((str: string) => unknown) | undefined {
  if (typeof val === 'function') return val as (str: string) => unknown;
  switch (val) {
    case true:
    case 'simple':
      return querystring.parse;
    case false:
      return undefined;
    case 'extended':
      return (str: string) => qs.parse(str, { allowPrototypes: true });
    default:
      throw new TypeError(`unknown value for query parser function: ${val}`);
  }
}

/** The `trust proxy` setting: true, a hop count, addresses (list or comma string), or a function. */
export function compileTrust(val: unknown): (addr: string, i: number) => boolean {
  if (typeof val === 'function') return val as (addr: string, i: number) => boolean;
  if (val === true) return () => true;
  if (typeof val === 'number') return (_a, i) => i < val;
  let list = val;
  if (typeof list === 'string') list = list.split(',').map((v) => v.trim());
  return proxyaddr.compile((list || []) as string[]);
}
