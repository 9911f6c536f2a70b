// CORS preflights for paths that have routes. The engine answers a method a path has no route for with 405, so an
// OPTIONS preflight would never reach `use(cors())`. For every route path a cors() middleware covers, an OPTIONS
// route runs the cors() middlewares that apply and, when they pass the request on, answers as the engine would
// have (the path's ALL route, else 405 with Allow). An app's own OPTIONS route for the path takes the place of it.
// Registration only: nothing here runs for requests other than those OPTIONS ones. No app.ts import.
import { type ChainHost, compose, type Handler, type Middleware } from './chain.js';
import { type ErrorScopes, prefixRelation } from './flatten.js';
import { CORS_POLICY } from './middleware/cors.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';

type RouteRun = (req: Request, res: Response) => unknown;

/** Is `fn` a cors() middleware. */
export function isCors(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  if ((fn as { [CORS_POLICY]?: unknown })[CORS_POLICY] !== undefined) return true;
  return isCorsPackage(fn);
}

/**
 * The `cors` package's middleware (what Express apps use): its preflights need the same OPTIONS routes. Known by its
 * name and its source, read once per function at registration (nothing per request).
 */
function isCorsPackage(fn: { readonly name: string; readonly length: number }): boolean {
  if (fn.name !== 'corsMiddleware' || fn.length !== 3) return false;
  const source = Function.prototype.toString.call(fn);
  return source.includes('optionsCallback') && source.includes('next');
}

/** The engine's Allow order (crates/gale-router method.rs); a GET route also answers HEAD. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

interface RoutedPath {
  methods: Set<string>;
  /** The path's ALL route, which answers OPTIONS when cors() passes it on. */
  all: RouteRun | undefined;
  /** The app has its own OPTIONS route for the path. */
  own: boolean;
  /** The id of the OPTIONS route made here, once made. */
  id: number | undefined;
  /** The cors() uses covering the path, in declaration order. */
  cors: { seq: number; prefix: string; fn: Middleware }[];
  scopes: ErrorScopes;
}

/** What the registrar lends: native registration of an OPTIONS route and the slot to replace later. */
export interface PreflightHost {
  /** Registers OPTIONS `path` natively with `run`; returns its route id. */
  register(path: string, run: RouteRun, scopes: ErrorScopes): number;
  /** Replaces the route in slot `id`. */
  replace(id: number, run: RouteRun, scopes: ErrorScopes): void;
  chainHost: ChainHost;
  caseSensitive: boolean;
}

export class Preflights {
  private readonly paths = new Map<string, RoutedPath>();
  private readonly uses: RoutedPath['cors'] = [];
  private readonly host: PreflightHost;

  constructor(host: PreflightHost) {
    this.host = host;
  }

  /**
   * An app's own OPTIONS route for `path`: returns the id of the route made here to reuse its slot (the native
   * router already has the path under OPTIONS), or undefined.
   */
  takeOver(path: string): number | undefined {
    const p = this.paths.get(path);
    if (p === undefined || p.own) return undefined;
    p.own = true;
    return p.id;
  }

  /** A route was registered: remember its method, and cover it when a cors() applies. */
  routed(
    path: string,
    method: string,
    run: RouteRun,
    steps: readonly { seq?: number; fn: Middleware }[],
    scopes: ErrorScopes,
  ): void {
    let p = this.paths.get(path);
    if (p === undefined) {
      p = { methods: new Set(), all: undefined, own: false, id: undefined, cors: [], scopes };
      this.paths.set(path, p);
    }
    if (method === 'ALL') p.all = run;
    else if (method === 'OPTIONS') p.own = true;
    else p.methods.add(method);
    for (const u of this.uses) if (this.covers(u.prefix, path)) this.add(p, u);
    // Route-level cors(): app.get('/x', cors(), handler) covers that path only.
    for (const s of steps) if (isCors(s.fn)) this.add(p, { seq: -1, prefix: path, fn: s.fn });
    this.refresh(path, p);
  }

  /** A cors() use was registered: cover the paths routed so far under its prefix. */
  used(prefix: string, seq: number, fn: Middleware): void {
    const u = { seq, prefix, fn };
    this.uses.push(u);
    for (const [path, p] of this.paths) {
      if (!this.covers(prefix, path)) continue;
      this.add(p, u);
      this.refresh(path, p);
    }
  }

  private covers(prefix: string, path: string): boolean {
    return prefixRelation(prefix, path, this.host.caseSensitive) !== 'never';
  }

  private add(p: RoutedPath, u: RoutedPath['cors'][number]): void {
    if (!p.cors.includes(u) && !p.cors.some((c) => c.fn === u.fn && c.prefix === u.prefix)) p.cors.push(u);
  }

  private refresh(path: string, p: RoutedPath): void {
    if (p.own || p.cors.length === 0 || (p.all !== undefined && p.id === undefined)) return;
    const onward: Handler = (req, res) => {
      if (p.all !== undefined) return p.all(req, res);
      const allow = ORDER.filter((m) => p.methods.has(m) || (m === 'HEAD' && p.methods.has('GET')));
      res.status(405).header('Allow', allow.join(', ')).send('Method Not Allowed');
      return undefined;
    };
    const steps = p.cors.map((c) => ({ fn: c.fn, base: '' }));
    const run: RouteRun = compose(steps, onward, '', p.scopes, this.host.chainHost);
    if (p.id === undefined) p.id = this.host.register(path, run, p.scopes);
    else this.host.replace(p.id, run, p.scopes);
  }
}
