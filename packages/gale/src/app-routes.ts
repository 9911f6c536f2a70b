// Registration glue of App: flattens router entries into native routes, each with its middleware chain
// precomputed, keeps the not-found fallback route and mounts static directories. Must not import app.ts;
// nothing here runs per request (the App's dispatch only reads the `routes` array filled here).
import { resolve } from 'node:path';
import { isCors, Preflights } from './app-preflight.js';
import { type ChainHost, compose, type Handler } from './chain.js';
import { ErrorCodes, GaleError } from './errors.js';
import {
  allUses,
  baseOf,
  type ErrorScopes,
  guarded,
  middlewareFor,
  type ScopedUse,
  type Step,
  usesBefore,
} from './flatten.js';
import { type RouteHooks, routeHooks } from './hooks.js';
import type { NativeServer } from './native.js';
import type { FixedResponse, StaticOptions } from './options.js';
import type { Request } from './request/request.js';
import { checkHeader } from './response/headers.js';
import type { Response } from './response/response.js';
import { type Entry, joinPath, type Router, type StaticMount } from './router.js';
import { checkStaticOptions } from './static-options.js';
import type { DeclaredAt } from './unanswered.js';
import { schemaHandler } from './validate.js';
import { acceptStep, type WtHub } from './webtransport-route.js';
import { nativeWsOptions, upgradeStep, type WsHub } from './ws-route.js';

export interface Route {
  /** The handler when the route has no middleware (called directly), else the composed chain. */
  run: (req: Request, res: Response) => unknown;
  direct: boolean;
  names: string[];
  scopes: ErrorScopes;
  /** Mount point a direct handler sees as req.baseUrl ('' at the app root). */
  base: string;
  /** The full path pattern as registered (`/users/:id`), for tracing's `route`; undefined for the fallback route. */
  pattern: string | undefined;
  /** The route's own handlerTimeout (`app.get(path, { handlerTimeout }, …)`); undefined: the app's. */
  timeout: number | false | undefined;
  /** Where the app declared the route (`file:line:column`), for the unanswered-request messages. */
  at: DeclaredAt | undefined;
}

/** Turns an app's entries (and those of the routers mounted on it) into native routes. */
export class Registrar {
  private readonly app: Router;
  private readonly n: NativeServer;
  private readonly routes: Route[];
  private readonly caseSensitive: boolean;
  private readonly chainHost: ChainHost;
  /** The app's notFound handler, run by the fallback route. */
  private readonly notFoundHandler: () => Handler | undefined;
  private fallbackId: number | undefined;
  private readonly owners = new Map<readonly unknown[], Router>();
  private readonly hub: WsHub;
  private readonly wt: WtHub;
  /** OPTIONS routes leading preflights of routed paths to cors() (app-preflight.ts). */
  private readonly preflights: Preflights;
  /** Headers every static mount sends too (`gale({ security })`). */
  staticHeaders: Record<string, string> | undefined;
  /** How to build each route again when a hook or decoration in its scope comes after it (by route id). */
  private readonly rebuilds = new Map<number, () => void>();
  /** Routers whose hook changes already rebuild the routes. */
  private readonly watched = new WeakSet<Router>();

  /** `routes` is the app's own array, indexed by the route ids the engine passes to dispatch. */
  constructor(
    app: Router,
    n: NativeServer,
    routes: Route[],
    caseSensitive: boolean,
    chainHost: ChainHost,
    notFoundHandler: () => Handler | undefined,
    hub: WsHub,
    wt: WtHub,
  ) {
    this.hub = hub;
    this.wt = wt;
    this.app = app;
    this.n = n;
    this.routes = routes;
    this.caseSensitive = caseSensitive;
    this.chainHost = chainHost;
    this.notFoundHandler = notFoundHandler;
    this.preflights = new Preflights({
      register: (path, run, scopes) => {
        const id = this.routes.length;
        let names: string[];
        try {
          names = this.n.route('OPTIONS', path, id);
        } catch (err) {
          throw new GaleError(ErrorCodes.ROUTE_CONFLICT, (err as Error).message);
        }
        this.routes.push({
          run,
          direct: false,
          names,
          scopes,
          base: '',
          pattern: path,
          timeout: undefined,
          at: undefined,
        });
        return id;
      },
      replace: (id, run, scopes) => {
        const r = this.routes[id] as Route;
        this.routes[id] = { ...r, run, direct: false, scopes };
      },
      chainHost,
      caseSensitive,
    });
  }

  /**
   * Registers an entry found at `base` with the outer scopes' error handlers and uses; `owners` are the routers it
   * is declared through (the app first), whose hooks apply to it.
   */
  register(e: Entry, base: string, scopes: ErrorScopes, outer: readonly ScopedUse[], owners: readonly Router[]): void {
    switch (e.kind) {
      case 'use':
        if (isCors(e.fn)) this.preflights.used(joinPath(base, e.prefix), e.seq, e.fn);
        this.refreshFallback();
        return;
      case 'static':
        this.mountStatic(joinPath(base, e.prefix), e.mount);
        return;
      case 'route':
        this.addRoute(e, base, scopes, outer, owners);
        return;
      case 'router': {
        const r = e.router;
        const prefix = joinPath(base, e.prefix);
        const inner: ErrorScopes = [r.errorHandlers, ...scopes];
        const outerHere = [...outer, ...this.usesInScopeBefore(base, e.seq, scopes)];
        const ownersHere = [...owners, r];
        this.watchHooks(r);
        for (const sub of r.entries) this.register(sub, prefix, inner, outerHere, ownersHere);
        r._listeners.push((sub) => this.register(sub, prefix, inner, outerHere, ownersHere));
        this.refreshFallback();
        return;
      }
    }
  }

  /** Uses declared in the scope whose error handlers lead `scopes`, before `seq`. */
  private usesInScopeBefore(base: string, seq: number, scopes: ErrorScopes): ScopedUse[] {
    const owner = this.scopeOwner(scopes);
    return owner ? usesBefore(owner.entries, seq, base, joinPath) : [];
  }

  private scopeOwner(scopes: ErrorScopes): Router | undefined {
    const first = scopes[0];
    if (first === this.app.errorHandlers) return this.app;
    return first ? this.owners.get(first) : undefined;
  }

  private addRoute(
    e: Extract<Entry, { kind: 'route' }>,
    base: string,
    scopes: ErrorScopes,
    outer: readonly ScopedUse[],
    owners: readonly Router[],
  ) {
    const path = joinPath(base, e.path);
    const uses = [...outer, ...this.usesInScopeBefore(base, e.seq, scopes)];
    // Handlers and route-level middleware see the router's mount point as req.baseUrl.
    const mount = baseOf(base);
    // An OPTIONS route for a path cors() covers takes the slot of the one made for preflights.
    const slot = e.method === 'OPTIONS' && !e.ws ? this.preflights.takeOver(path) : undefined;
    if (e.wt) this.wt.routes++;
    const id = slot ?? this.routes.length;
    let names: string[];
    try {
      if (slot !== undefined) names = (this.routes[slot] as Route).names;
      else names = e.ws ? this.n.wsRoute(path, id, nativeWsOptions(e.ws.behavior)) : this.n.route(e.method, path, id);
    } catch (err) {
      throw new GaleError(ErrorCodes.ROUTE_CONFLICT, (err as Error).message);
    }
    const build = (): Route => {
      const hooks = routeHooks(
        owners.map((o) => o._hooks),
        e.ws !== undefined || e.wt !== undefined,
      );
      const steps: Step[] = [
        ...hookSteps(hooks?.front, ''),
        ...middlewareFor(uses, path, this.caseSensitive),
        ...e.fns.map((fn) => ({ fn, base: mount })),
        ...hookSteps(hooks?.beforeBody, ''),
      ];
      // A route with schemas runs its handler behind the checks (validate.ts), after its middleware; preHandler
      // hooks run between the checks and the handler, preValidation ones before the checks.
      let handler: Handler;
      if (e.wt) {
        handler = acceptStep(this.wt, e.wt.behavior) as Handler;
      } else if (e.ws) {
        const native = { routeId: id, hasParams: names.length !== 0 };
        handler = upgradeStep(this.hub, e.ws.behavior, e.ws.onOpen, steps.length === 0, native) as Handler;
      } else {
        const inner = hooks?.wrapHandler === undefined ? e.handler : hooks.wrapHandler(e.handler);
        handler = schemaHandler(inner, e.schema, `${e.method} ${path}`);
        if (hooks?.wrapChecked !== undefined) handler = hooks.wrapChecked(handler, e.schema?.body !== undefined);
      }
      const routeScopes = hooks?.errorScope === undefined ? scopes : [hooks.errorScope, ...scopes];
      // A handler that declares `next` goes through the chain runner, which supplies it.
      const direct = steps.length === 0 && handler.length < 3;
      // (direct handlers declare at most two parameters, so calling them with two is exact)
      const run = direct
        ? (handler as (req: Request, res: Response) => unknown)
        : compose(steps, handler, mount, routeScopes, this.chainHost);
      // (a WebSocket route's request waits for the upgrade, not for an answer: no handlerTimeout)
      const timeout = e.ws || e.wt ? false : e.schema?.handlerTimeout;
      return { run, direct, names, scopes: routeScopes, base: mount, pattern: path, timeout, at: e.at };
    };
    const route = build();
    if (slot !== undefined) this.routes[slot] = route;
    else this.routes.push(route);
    this.rebuilds.set(id, () => {
      this.routes[id] = build();
    });
    const run = route.run;
    if (!e.ws && !e.wt)
      this.preflights.routed(
        path,
        e.method,
        run,
        e.fns.map((fn) => ({ fn })),
        scopes,
      );
  }

  /**
   * Rebuilds every route (and the fallback) when a hook or decoration is added to `r` after routes it applies to were
   * built: hooks apply to the routes of their scope whenever those were declared. Registration-time work only.
   */
  watchHooks(r: Router): void {
    if (this.watched.has(r)) return;
    this.watched.add(r);
    r._hookListeners.push(() => {
      for (const rebuild of this.rebuilds.values()) rebuild();
      this.refreshFallback();
    });
  }

  /** Tracks which router owns an error-handler list, for scope lookups. */
  trackOwners(r: Router): void {
    this.owners.set(r.errorHandlers, r);
    for (const e of r.entries) if (e.kind === 'router') this.trackOwners(e.router);
    r._listeners.push((e) => {
      if (e.kind === 'router') this.trackOwners(e.router);
    });
  }

  /** Routes unmatched paths through JS when there is middleware or a notFound handler. */
  refreshFallback(): void {
    const uses = allUses(this.app.entries, '/', joinPath);
    const notFoundHandler = this.notFoundHandler();
    // The app's own hooks see unmatched requests too (a 404 is logged by onResponse); a router's do not.
    const hooks = routeHooks([this.app._hooks], false);
    if (uses.length === 0 && notFoundHandler === undefined && hooks === undefined) return;
    const handler: Handler = notFoundHandler ?? ((req, res) => this.chainHost.notFound(req, res));
    const steps = [
      ...hookSteps(hooks?.front, ''),
      ...uses.map((u) => ({
        fn: u.prefix === '/' ? u.fn : guarded(u, this.caseSensitive),
        base: baseOf(u.prefix),
      })),
    ];
    const scopes =
      hooks?.errorScope === undefined ? [this.app.errorHandlers] : [hooks.errorScope, this.app.errorHandlers];
    // No middleware: the handler is called directly, as a route's (a fetch handler served alone, serve()).
    const direct = steps.length === 0 && handler.length < 3;
    const run = direct
      ? (handler as (req: Request, res: Response) => unknown)
      : compose(steps, handler, '', scopes, this.chainHost);
    const route: Route = {
      run,
      direct,
      names: [],
      scopes,
      base: '',
      pattern: undefined,
      timeout: undefined,
      at: undefined,
    };
    if (this.fallbackId === undefined) {
      this.fallbackId = this.routes.length;
      this.routes.push(route);
      this.n.fallback(this.fallbackId);
    } else {
      this.routes[this.fallbackId] = route;
    }
  }

  /** `app.fixed`: a response the engine answers by itself, with the static mounts' headers (`security`) too. */
  fixed(method: string, path: string, response: FixedResponse): void {
    const headers: string[] = [];
    let hasType = false;
    for (const [k, v] of Object.entries({ ...this.staticHeaders, ...response.headers })) {
      if (k.toLowerCase() === 'content-type') hasType = true;
      headers.push(k, v);
    }
    if (!hasType) {
      headers.push(
        'Content-Type',
        typeof response.body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      );
    }
    this.n.fixed(method.toUpperCase(), path, response.status ?? 200, headers, response.body);
  }

  mountStatic(prefix: string, mount: StaticMount): void {
    const options = mount.options as StaticOptions;
    const cache = options.cache;
    const headers = Object.entries({ ...this.staticHeaders, ...options.headers })
      .map(([k, v]) => `${checkHeader(k, v)}: ${v}\r\n`)
      .join('');
    const index = options.index === false ? [] : options.index === undefined ? undefined : [options.index].flat();
    this.n.static(prefix, mount.dir, {
      index,
      extensions: options.extensions,
      fallback: options.fallback,
      dotfiles: options.dotfiles,
      maxAge: options.maxAge === undefined ? undefined : Math.floor(options.maxAge / 1000),
      immutable: options.immutable?.source,
      cache: cache !== undefined && cache !== false,
      cacheFileMax: typeof cache === 'object' ? cache.maxFileSize : undefined,
      cacheMax: typeof cache === 'object' ? cache.maxSize : undefined,
      precompressed: options.precompressed,
      compress: options.compress,
      redirect: options.redirect,
      etag: options.etag,
      lastModified: options.lastModified,
      acceptRanges: options.acceptRanges,
      headers: headers || undefined,
    });
  }
}

/** Hook steps as chain steps at the route's mount point. */
function hookSteps(fns: RouteHooks['front'] | undefined, base: string): Step[] {
  return fns === undefined ? [] : fns.map((fn) => ({ fn, base }));
}

/**
 * A static mount for `app.use(prefix, serveStatic(dir, options))` — the same engine path as
 * `app.static(prefix, dir, options)`.
 *
 * @example
 * app.use('/assets', serveStatic('./public', { cache: true }));
 */
export function serveStatic(dir: string, options: StaticOptions = {}): StaticMount {
  return staticMount(dir, options, `serveStatic(${JSON.stringify(dir)})`);
}

/** A checked static mount (see static-options.ts); `where` names the call in error messages. */
export function staticMount(dir: string, options: StaticOptions | undefined, where: string): StaticMount {
  if (typeof dir !== 'string' || dir === '') throw new TypeError(`${where}: the directory must be a non-empty string`);
  return { kind: 'gale.static', dir: resolve(dir), options: checkStaticOptions(options, where) };
}
