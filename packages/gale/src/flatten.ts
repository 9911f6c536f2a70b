// Flattens routers into routes: which `use` middleware applies to a route is decided once, at
// registration, from declaration order and path prefixes (a runtime path check only when a prefix
// can't be decided statically, e.g. `use('/users/5')` above `get('/users/:id')`).
import type { ErrorHandler, Middleware } from './chain.js';
import type { Entry } from './router.js';

/** A `use` entry seen from a route: its middleware, the absolute prefix and when it was declared. */
export interface ScopedUse {
  seq: number;
  prefix: string;
  fn: Middleware;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function isParam(seg: string): boolean {
  return seg.startsWith(':') || seg.startsWith('{');
}

function isWild(seg: string): boolean {
  return seg.startsWith('*');
}

/** Does a `use(prefix)` apply to every request of route `path`: always, never, or check at run time. */
export function prefixRelation(prefix: string, path: string, caseSensitive: boolean): 'always' | 'never' | 'runtime' {
  const p = segments(prefix);
  const r = segments(path);
  for (let i = 0; i < p.length; i++) {
    const ps = p[i] as string;
    const rs = r[i];
    if (rs === undefined) return 'never';
    if (isWild(rs) || rs.includes('(') || rs.includes('?')) return 'runtime';
    if (isParam(ps)) continue;
    if (isParam(rs)) return 'runtime';
    const same = caseSensitive ? ps === rs : ps.toLowerCase() === rs.toLowerCase();
    if (!same) return 'never';
  }
  return 'always';
}

/** A run-time test of a request path against a `use` prefix (`:x` segments match any one segment). */
export function prefixMatcher(prefix: string, caseSensitive: boolean): (path: string) => boolean {
  const p = segments(prefix).map((s) => (caseSensitive || isParam(s) ? s : s.toLowerCase()));
  return (path: string) => {
    const r = segments(path);
    if (r.length < p.length) return false;
    for (let i = 0; i < p.length; i++) {
      const ps = p[i] as string;
      if (isParam(ps)) continue;
      let rs = r[i] as string;
      if (!caseSensitive) rs = rs.toLowerCase();
      if (rs !== ps) return false;
    }
    return true;
  };
}

/** A middleware with the mount point it sees as `req.baseUrl`. */
export interface Step {
  fn: Middleware;
  base: string;
}

/** The base a use's middleware sees: its prefix when that is plain text, else the app root. */
export function baseOf(prefix: string): string {
  if (prefix === '/' || prefix === '') return '';
  return segments(prefix).some((s) => isParam(s) || isWild(s)) ? '' : prefix.replace(/\/+$/, '');
}

/** The middleware list for a route at `path`, from the uses in scope (already filtered by order). */
export function middlewareFor(uses: readonly ScopedUse[], path: string, caseSensitive: boolean): Step[] {
  const out: Step[] = [];
  for (const u of uses) {
    const rel = prefixRelation(u.prefix, path, caseSensitive);
    if (rel === 'always') out.push({ fn: u.fn, base: baseOf(u.prefix) });
    else if (rel === 'runtime') out.push({ fn: guarded(u, caseSensitive), base: baseOf(u.prefix) });
  }
  return out;
}

/** Wraps a use so it only runs when the request path is under its prefix. */
export function guarded(u: ScopedUse, caseSensitive: boolean): Middleware {
  const matches = prefixMatcher(u.prefix, caseSensitive);
  const fn = u.fn;
  return (req, res, next) => (matches(req._fullPath) ? fn(req, res, next) : next());
}

/** Uses of one scope (a router or the app) declared before `seq`, with absolute prefixes. */
export function usesBefore(
  entries: readonly Entry[],
  seq: number,
  base: string,
  join: (a: string, b: string) => string,
) {
  const out: ScopedUse[] = [];
  for (const e of entries) {
    if (e.seq >= seq) break;
    if (e.kind === 'use') out.push({ seq: e.seq, prefix: join(base, e.prefix), fn: e.fn });
  }
  return out;
}

/** Every use reachable from `entries` (routers included, recursively), in declaration order. */
export function allUses(
  entries: readonly Entry[],
  base: string,
  join: (a: string, b: string) => string,
  out: ScopedUse[] = [],
): ScopedUse[] {
  for (const e of entries) {
    if (e.kind === 'use') out.push({ seq: e.seq, prefix: join(base, e.prefix), fn: e.fn });
    else if (e.kind === 'router') allUses(e.router.entries, join(base, e.prefix), join, out);
  }
  return out;
}

/** Error handlers in scope, innermost first (live arrays: `onError` added later still counts). */
export type ErrorScopes = readonly (readonly ErrorHandler[])[];
