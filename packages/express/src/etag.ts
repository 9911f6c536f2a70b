// The `etag`, `query parser` and `trust proxy` settings compiled as Express compiles them. ETags are
// the `etag` package's format, computed by Gale's engine straight from a string body (no Buffer copy).
import querystring from 'node:querystring';
import { entityTag as galeEntityTag } from 'gale';
import proxyaddr from 'proxy-addr';
import qs from 'qs';

/** The generators made here, and whether each is weak. */
const builtin = new WeakMap<object, boolean>();

/** For the generators made here: true when weak, false when strong; undefined for an app's own function. */
export function builtinWeak(fn: object): boolean | undefined {
  return builtin.get(fn);
}

/**
 * Gale's engine computes the tag in one call, from the string or the bytes. The last string body's tag is kept: a
 * route that answers the same text every time (a constant, a cached page) is hashed once, and telling a different
 * body apart costs a string comparison, less than the SHA-1 it saves. Up to 16 KiB, so a big body is not held.
 */
function memo(weak: boolean): (body: string | Uint8Array) => string {
  let lastBody: string | undefined;
  let lastTag = '';
  return (body) => {
    if (typeof body !== 'string') return galeEntityTag(body, weak);
    if (body === lastBody) return lastTag;
    const tag = galeEntityTag(body, weak);
    if (body.length <= 16_384) {
      lastBody = body;
      lastTag = tag;
    }
    return tag;
  };
}
export const strongEtag = memo(false);
export const weakEtag = memo(true);
builtin.set(strongEtag, false);
builtin.set(weakEtag, true);

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

/**
 * The `query parser` setting: 'simple' (querystring), 'extended' (qs), true, false, or a function. `false` gives no
 * parser on Express 5 (req.query is empty) and, as Express 4 compiles it, a parser that returns `{}`.
 */
export function compileQueryParser(val: unknown, compat: 4 | 5 = 5): ((str: string) => unknown) | undefined {
  if (typeof val === 'function') return val as (str: string) => unknown;
  switch (val) {
    case true:
    case 'simple':
      return querystring.parse;
    case false:
      return compat === 4 ? () => ({}) : undefined;
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
