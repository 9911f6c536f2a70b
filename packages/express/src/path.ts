// Route paths of the Express layer: compiles a layer's path into matchers exactly as Express does
// (path-to-regexp 8 for Express 5, path-to-regexp 0.1 for Express 4, RegExp paths for both), reads "simple" paths
// (literal and `:param` segments only) as segments for the native router, and takes a request URL's pathname (for
// the router and req.path). Uses only npm packages; must not import Gale internals.
import * as p2r8 from 'path-to-regexp';
import p2r0 from 'path-to-regexp-0';

/** Which Express major the layer imitates. */
export type Compat = 4 | 5;

/** A path as Express accepts it for `use`, `route` and the method helpers. */
export type PathArg = string | RegExp | readonly PathArg[];

/** What a matcher found: decoded params and the matched part of the path. */
export interface Match {
  params: Record<string, string>;
  path: string;
}

/** One segment of a simple path: literal text, or a `:param` (any one non-empty segment). */
export type Seg = string | null;

export interface LayerOptions {
  sensitive: boolean;
  strict: boolean;
  end: boolean;
}

const TRAILING_SLASH = /\/+$/;
const MATCHING_GROUP = /\((?:\?<(.*?)>)?(?!\?)/g;
const hasOwn = Object.prototype.hasOwnProperty;

/** Express's decode_param: percent-decoding, a malformed escape is a 400 error. */
export function decodeParam(val: string | undefined): string | undefined {
  if (typeof val !== 'string' || val.length === 0 || val.indexOf('%') === -1) return val;
  try {
    return decodeURIComponent(val);
  } catch (err) {
    if (err instanceof URIError) {
      const e = err as URIError & { status?: number; statusCode?: number };
      e.message = `Failed to decode param '${val}'`;
      e.status = e.statusCode = 400;
    }
    throw err;
  }
}

function regexpMatcher(re: RegExp): (p: string) => Match | false {
  const keys: (string | number)[] = [];
  let name = 0;
  MATCHING_GROUP.lastIndex = 0;
  for (let m = MATCHING_GROUP.exec(re.source); m !== null; m = MATCHING_GROUP.exec(re.source)) {
    keys.push(m[1] || name++);
  }
  return (p) => {
    const match = re.exec(p);
    if (!match) return false;
    const params: Record<string, string> = {};
    for (let i = 1; i < match.length; i++) {
      const val = decodeParam(match[i]);
      if (val !== undefined) params[keys[i - 1] as string] = val;
    }
    return { params, path: match[0] };
  };
}

function loosen(path: string): string {
  return path === '/' ? path : path.replace(TRAILING_SLASH, '');
}

/** Express 5 (router 2): one matcher per path of an array. */
function matchers5(path: PathArg, opts: LayerOptions): ((p: string) => Match | false)[] {
  const list = (Array.isArray(path) ? (path as unknown[]).flat(Number.POSITIVE_INFINITY) : [path]) as (
    | string
    | RegExp
  )[];
  return list.map((one) => {
    if (one instanceof RegExp) return regexpMatcher(one);
    return match8(opts.strict ? one : loosen(String(one)), opts);
  });
}

/** A string V8 keeps in its string table: as a property name it needs no lookup there on every store. */
const internalized = (s: string): string => Object.keys({ [s]: 0 })[0] as string;

/**
 * path-to-regexp 8's `match(path, { decode: decodeParam })`, the same regular expression, results and decoding
 * (a `*name` wildcard is the list of its decoded segments), with the param names internalized once: its own `match`
 * stores each param under a name sliced from the path, which V8 looks up in its string table on every request
 * (~1 µs per request on a `:param` route, measured).
 */
function match8(path: string, opts: LayerOptions): (p: string) => Match | false {
  const { regexp, keys } = p2r8.pathToRegexp(path, {
    sensitive: opts.sensitive,
    end: opts.end,
    trailing: !opts.strict,
  });
  const names = keys.map((k) => internalized(k.name));
  const wild = keys.map((k) => k.type !== 'param');
  return (input) => {
    const m = regexp.exec(input);
    if (!m) return false;
    const params = Object.create(null) as Record<string, string>;
    for (let i = 1; i < m.length; i++) {
      const v = m[i];
      if (v === undefined) continue;
      params[names[i - 1] as string] = (
        wild[i - 1] ? v.split('/').map((s) => decodeParam(s)) : decodeParam(v)
      ) as string;
    }
    return { path: m[0], params };
  };
}

/** Express 4: path-to-regexp 0.1 over the whole path (arrays included), with its fast paths. */
function matcher4(path: PathArg, opts: LayerOptions): (p: string) => Match | false {
  if (path === '*') return (p) => ({ params: { 0: decodeParam(p) as string }, path: p });
  const keys: { name: string | number }[] = [];
  const re = p2r0(path as never, keys as never, opts) as RegExp;
  return (p) => {
    const match = re.exec(p);
    if (!match) return false;
    const params: Record<string, string> = {};
    for (let i = 1; i < match.length; i++) {
      const prop = (keys[i - 1] as { name: string }).name;
      const val = decodeParam(match[i]);
      if (val !== undefined || !hasOwn.call(params, prop)) params[prop] = val as string;
    }
    return { params, path: match[0] };
  };
}

/**
 * The matching function of a layer: returns the match, false, or throws a 400 error for a
 * malformed percent-escape in a param (as Express). `use('/')` matches everything (fast path).
 */
export function compileMatcher(path: PathArg, opts: LayerOptions, compat: Compat): (p: string) => Match | false {
  if (path === '/' && !opts.end) return () => ({ params: {}, path: '' });
  if (compat === 4) return matcher4(path, opts);
  const ms = matchers5(path, opts);
  if (ms.length === 1) return ms[0] as (p: string) => Match | false;
  return (p) => {
    for (const m of ms) {
      const r = m(p);
      if (r !== false) return r;
    }
    return false;
  };
}

const LITERAL = /^[A-Za-z0-9_.~-]+$/;
const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The segments of a path made only of literal text and whole-segment `:params` (what the native
 * router and Express agree on exactly), or undefined for anything else (regex, wildcards,
 * optional parts, arrays, …), which is then matched in JS only.
 */
export function simpleSegments(path: PathArg): Seg[] | undefined {
  if (typeof path !== 'string' || path[0] !== '/') return undefined;
  if (path === '/') return [];
  const parts = path.slice(1).split('/');
  if (parts[parts.length - 1] === '') parts.pop();
  const out: Seg[] = [];
  for (const part of parts) {
    if (LITERAL.test(part)) out.push(part);
    else if (PARAM.test(part)) out.push(null);
    else return undefined;
  }
  return out;
}

/** The paths of a layer as a list of simple segment lists, or undefined when any is not simple. */
export function simplePaths(path: PathArg): Seg[][] | undefined {
  const list = Array.isArray(path) ? ((path as unknown[]).flat(Number.POSITIVE_INFINITY) as PathArg[]) : [path];
  const out: Seg[][] = [];
  for (const p of list as PathArg[]) {
    const segs = simpleSegments(p);
    if (segs === undefined) return undefined;
    out.push(segs);
  }
  return out;
}

/** The native pattern for simple segments: params renamed by position (`/users/:p0`). */
export function nativePattern(segs: readonly Seg[]): string {
  if (segs.length === 0) return '/';
  let i = 0;
  return segs.map((s) => `/${s === null ? `:p${i++}` : s}`).join('');
}

/**
 * Whether a layer can match some request the native router sends to route `route`: false only
 * when provably impossible (a literal differs, or the segment counts cannot line up). Literals are
 * compared case-insensitively, so the answer holds whatever the case settings.
 */
export function mayMatch(route: readonly Seg[], layer: readonly Seg[][] | undefined, end: boolean): boolean {
  if (layer === undefined) return true;
  for (const segs of layer) {
    if (end ? segs.length !== route.length : segs.length > route.length) continue;
    let ok = true;
    for (let i = 0; i < segs.length; i++) {
      const a = segs[i];
      const b = route[i];
      if (a !== null && b !== null && a !== undefined && b !== undefined && a.toLowerCase() !== b.toLowerCase()) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

/** parseurl(req).pathname, without allocating for the common origin-form URL. */
export function pathnameOf(url: string): string | undefined {
  // An empty URL has no path (parseurl gives null, and the router then matches nothing).
  if (typeof url !== 'string' || url.length === 0) return undefined;
  if (url[0] === '/') {
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
