// The request-side options of an app, resolved once when the app is created. Every Request holds a
// reference to its app's RequestConfig (one field), so reading options costs nothing per request.
import proxyaddr from 'proxy-addr';
import type { BodySource } from '../body-source.js';
import { NullObject } from '../null-object.js';
import type { ByteSize, GaleOptions, QueryOptions } from '../options.js';
import { loadQs, type QsParseOptions } from '../qs.js';

/**
 * A query string as the extended parser (qs) makes it: values are strings, arrays, or nested objects (Express's
 * `ParsedQs`). `req.query` has this type in an app that declares `query: 'extended'` in `Register`.
 *
 * @example
 * // gale({ query: 'extended' }), GET /search?filter[tag]=a&filter[tag]=b
 * const q: ParsedQuery = { filter: { tag: ['a', 'b'] } };
 */
export interface ParsedQuery {
  [key: string]: undefined | string | ParsedQuery | (string | ParsedQuery)[];
}

/**
 * A query string as the simple parser (the default) makes it: a key given once maps to its string, a key given
 * several times to the array of them.
 *
 * @example
 * app.get('/search', (req) => {
 *   const q: SimpleQuery = req.query; // ?tag=a&tag=b&page=2 → { tag: ['a', 'b'], page: '2' }
 *   return typeof q.page === 'string' ? Number(q.page) : 1;
 * });
 */
export type SimpleQuery = { [key: string]: string | string[] | undefined };

/**
 * What an app tells Gale's types about itself, by declaration merging (once, anywhere in the app). `query` gives
 * the type of `req.query` on routes without a query schema: `'extended'` for `gale({ query: 'extended' })` (or qs
 * options), any type for a parser function of your own; without it (or with `'simple'`), the simple parser's
 * `SimpleQuery`. TypeScript cannot see which parser `gale()` was given, and the simple one is the default.
 *
 * @example
 * declare module 'gale' {
 *   interface Register {
 *     query: 'extended';
 *   }
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the app through declaration merging
export interface Register {}

/**
 * The type of `req.query` on a route without a query schema: `SimpleQuery`, or what the app declares in `Register`
 * (`ParsedQuery` for `'extended'`).
 *
 * @example
 * app.get('/search', (req) => {
 *   const q: Query = req.query; // ?tag=a&tag=b → { tag: ['a', 'b'] }
 *   return q.tag;
 * });
 */
export type Query = Register extends { readonly query: infer Q }
  ? Q extends 'extended'
    ? ParsedQuery
    : Q extends 'simple'
      ? SimpleQuery
      : Q
  : SimpleQuery;

export type TrustFn = (addr: string, hop: number) => boolean;

/** @internal Resolved JSON options. */
export interface JsonConfig {
  strict: boolean;
  reviver: ((this: unknown, key: string, value: unknown) => unknown) | undefined;
  limit: number;
  strictType: boolean;
}

/** @internal Resolved urlencoded options. */
export interface UrlencodedConfig {
  extended: boolean;
  depth: number;
  parameterLimit: number;
  limit: number;
}

/** @internal Resolved text options. */
export interface TextConfig {
  limit: number;
  defaultCharset: string;
}

/** @internal What a Request reads from its app. */
export interface RequestConfig {
  query: (search: string) => ParsedQuery;
  json: JsonConfig;
  urlencoded: UrlencodedConfig;
  text: TextConfig;
  /** Largest body any reader accepts (the engine's bodyLimit); also caps decompressed bodies. */
  bodyLimit: number;
  secrets: readonly string[];
  /** undefined: trust no proxy (req.ip is the socket address, X-Forwarded-* are ignored). */
  trust: TrustFn | undefined;
  requireLength: boolean;
  subdomainOffset: number;
  /** The app whose requests read this (`req.app`: gale's App); undefined for a request made without one. */
  app?: object;
  /**
   * The app's request bodies the engine owes a wake-up (its Body event), by request id: filled by the readers
   * (body-source.ts), emptied by the events (app/dispatch.ts). Not an option: state shared by the app's requests.
   */
  readonly owed: Map<number, BodySource>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Parses `1024`, `'100kb'`, `'1.5mb'` into bytes (1 kb = 1024 bytes, as the `bytes` package). */
export function parseBytes(value: ByteSize | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') {
    if (!(value >= 0)) throw new TypeError(`option ${name} must be a byte count >= 0, got ${value}`);
    return value;
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new TypeError(`option ${name} must be a byte count like 1024 or '100kb', got ${JSON.stringify(value)}`);
  return Math.floor(Number(m[1]) * (UNITS[(m[2] ?? 'b').toLowerCase()] as number));
}

/** The simple query parser: URLSearchParams; a key given several times maps to an array. */
export function simpleQuery(search: string): ParsedQuery {
  const out = new NullObject<ParsedQuery>();
  // Nothing to decode (no `%`, no `+`): split by hand, as URLSearchParams would (empty pairs skipped, the first `=`
  // splits, no `=` means ''), without its iterator and entry arrays.
  if (search.indexOf('%') === -1 && search.indexOf('+') === -1) {
    // URLSearchParams' constructor drops one leading `?` (`/x??a=1` has the key `a`).
    let i = search.charCodeAt(0) === 63 ? 1 : 0;
    while (i <= search.length) {
      let amp = search.indexOf('&', i);
      if (amp === -1) amp = search.length;
      if (amp > i) {
        const eq = search.indexOf('=', i);
        const split = eq !== -1 && eq < amp;
        add(out, search.slice(i, split ? eq : amp), split ? search.slice(eq + 1, amp) : '');
      }
      i = amp + 1;
    }
    return out;
  }
  for (const [k, v] of new URLSearchParams(search)) add(out, k, v);
  return out;
}

function add(out: ParsedQuery, k: string, v: string): void {
  const prev = out[k];
  out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev as string, v];
}

function extendedQuery(o: QueryOptions): (search: string) => ParsedQuery {
  const qs = loadQs("the query: 'extended' option");
  const opts: QsParseOptions = {
    depth: o.depth ?? 5,
    parameterLimit: o.parameterLimit ?? 1000,
    arrayLimit: o.arrayLimit ?? 20,
    // Null-prototype objects: `?constructor=x` or `?hasOwnProperty=x` cannot shadow anything.
    plainObjects: true,
  };
  return (search) => qs.parse(search, opts) as ParsedQuery;
}

function queryParser(q: GaleOptions['query']): (search: string) => ParsedQuery {
  if (q === undefined || q === 'simple') return simpleQuery;
  if (q === 'extended') return extendedQuery({});
  if (typeof q === 'function') return q as (search: string) => ParsedQuery;
  if (typeof q === 'object' && q !== null) return q.parser === 'simple' ? simpleQuery : extendedQuery(q);
  throw new TypeError(`option query must be 'simple', 'extended', qs options or a function, got ${String(q)}`);
}

/** Express's `trust proxy` compilation: true, hop count, address list (array or comma string), function. */
export function compileTrust(value: GaleOptions['trustProxy']): TrustFn | undefined {
  if (value === undefined || value === false || value === 0) return undefined;
  if (typeof value === 'function') return value;
  if (value === true) return () => true;
  if (typeof value === 'number') return (_addr, hop) => hop < value;
  const list = typeof value === 'string' ? value.split(',').map((v) => v.trim()) : value;
  if (list.length === 0 || (list.length === 1 && list[0] === '')) return undefined;
  return proxyaddr.compile(list);
}

/** Resolves the app options a Request reads; throws TypeError on a malformed option. */
export function requestConfig(options: GaleOptions = {}): RequestConfig {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const j = options.json ?? {};
  const u = options.urlencoded ?? {};
  const t = options.text ?? {};
  const secrets = options.cookieSecret === undefined ? [] : [options.cookieSecret].flat();
  if (secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('option cookieSecret must be a non-empty string or an array of them');
  }
  const parameterLimit = u.parameterLimit ?? 1000;
  if (!(parameterLimit >= 1)) throw new TypeError('option urlencoded.parameterLimit must be a positive number');
  const depth = u.depth ?? 32;
  if (!(depth >= 0)) throw new TypeError('option urlencoded.depth must be zero or a positive number');
  return {
    query: queryParser(options.query),
    json: {
      strict: j.strict ?? true,
      reviver: j.reviver,
      limit: parseBytes(j.limit, bodyLimit, 'json.limit'),
      strictType: j.strictType ?? false,
    },
    urlencoded: {
      extended: u.extended ?? false,
      depth,
      parameterLimit,
      limit: parseBytes(u.limit, bodyLimit, 'urlencoded.limit'),
    },
    text: {
      limit: parseBytes(t.limit, bodyLimit, 'text.limit'),
      defaultCharset: t.defaultCharset ?? 'utf-8',
    },
    bodyLimit,
    secrets,
    trust: compileTrust(options.trustProxy),
    requireLength: options.requireLength ?? false,
    subdomainOffset: options.subdomainOffset ?? 2,
    owed: new Map(),
  };
}

/** The configuration of a Request made without an app (defaults). */
export const DEFAULT_REQUEST_CONFIG: RequestConfig = requestConfig();
