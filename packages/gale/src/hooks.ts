// Lifecycle hooks as Fastify has them (onRequest, preParsing, preValidation, preHandler, onSend, onResponse, onError,
// onClose) and request/response decorations: a router's lists of them, and what a route's chain gets from those in
// its scope (its app and the routers it is mounted through). A route no hook or decoration applies to is built as
// before: nothing here runs for it.
import type { ErrorHandler, Handler, Middleware } from './chain.js';
import { requestLogger } from './logging.js';
import { addHeadHook } from './node-members.js';
import type { AnyParams } from './request/api.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';

/**
 * The hooks by name, with what each is given (see docs/guides/hooks-and-plugins.md for the order they run in):
 * `onRequest` first of all (before middleware), `preParsing` after the middleware and before the body is read,
 * `preValidation` after the body is read (on a route with a body schema) and before the schemas check it,
 * `preHandler` after the checks and before the handler — each may answer with `res`, which ends the request there;
 * `onSend` as the head goes out, given the body (a string or bytes; `undefined` for streams and files), returning
 * another to send instead (synchronous); `onResponse` once the answer is sent; `onError` when an error takes the
 * error path, before the error handlers (to observe it: the handlers still answer); `onClose` when the app closes.
 *
 * @example
 * app.addHook('onRequest', (req) => {
 *   req.log.info({ url: req.url }, 'incoming');
 * });
 * app.addHook('onSend', (_req, res, payload) => {
 *   res.header('x-length', String(payload?.length ?? 0));
 * });
 */
export interface HookMap<S extends object = object> {
  onRequest: (req: Request<AnyParams, S>, res: Response) => unknown;
  preParsing: (req: Request<AnyParams, S>, res: Response) => unknown;
  preValidation: (req: Request<AnyParams, S>, res: Response) => unknown;
  preHandler: (req: Request<AnyParams, S>, res: Response) => unknown;
  onSend: (
    req: Request<AnyParams, S>,
    res: Response,
    payload: string | Uint8Array | undefined,
    // biome-ignore lint/suspicious/noConfusingVoidType: a hook that only sets headers returns nothing
  ) => string | Uint8Array | undefined | void;
  onResponse: (req: Request<AnyParams, S>, res: Response) => unknown;
  onError: (req: Request<AnyParams, S>, res: Response, err: unknown) => unknown;
  onClose: () => unknown;
}

/**
 * A hook's name.
 *
 * @example
 * const name: HookName = 'preHandler';
 */
export type HookName = keyof HookMap;

const HOOK_NAMES: readonly HookName[] = [
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'onSend',
  'onResponse',
  'onError',
  'onClose',
];

type AnyHook = (...args: never[]) => unknown;

/** @internal One router's hooks and decorations (made on its first `addHook` / `decorateRequest`). */
export class HookLists {
  readonly lists: { [K in HookName]?: HookMap[K][] } = {};
  readonly request: [string, unknown][] = [];
  readonly reply: [string, unknown][] = [];

  add(name: HookName, fn: AnyHook): void {
    if (!HOOK_NAMES.includes(name)) {
      throw new TypeError(`addHook(): ${JSON.stringify(name)} is not a hook; the hooks are ${HOOK_NAMES.join(', ')}`);
    }
    if (typeof fn !== 'function') throw new TypeError(`addHook('${name}'): the hook must be a function`);
    const lists = this.lists as Record<HookName, AnyHook[] | undefined>;
    const list = lists[name] ?? [];
    list.push(fn);
    lists[name] = list;
  }
}

/** What the hooks and decorations in a route's scope make of it: `undefined` parts where nothing applies. */
export interface RouteHooks {
  /** Steps that lead the chain: decorations, onSend / onResponse set-up, onRequest hooks. */
  readonly front: Middleware[];
  /** preParsing hooks, after the route's middleware. */
  readonly beforeBody: Middleware[];
  /** The innermost error scope: runs onError hooks, then hands the error on. */
  readonly errorScope: readonly ErrorHandler[] | undefined;
  /** Wraps the handler (behind the schemas' checks: preHandler) and the checked handler (preValidation). */
  readonly wrapHandler: ((h: Handler) => Handler) | undefined;
  readonly wrapChecked: ((h: Handler, readsBody: boolean) => Handler) | undefined;
}

/** The hooks of `scopes` (outer first) merged by name; `undefined` when none of them has any hook or decoration. */
export function routeHooks(scopes: readonly (HookLists | undefined)[], ws: boolean): RouteHooks | undefined {
  const all: { [K in HookName]?: AnyHook[] } = {};
  const request: [string, unknown][] = [];
  const reply: [string, unknown][] = [];
  let any = false;
  for (const s of scopes) {
    if (s === undefined) continue;
    for (const name of HOOK_NAMES) {
      const list = s.lists[name] as AnyHook[] | undefined;
      if (list === undefined || list.length === 0 || name === 'onClose') continue;
      all[name] = [...(all[name] ?? []), ...list];
      any = true;
    }
    request.push(...s.request);
    reply.push(...s.reply);
    if (s.request.length > 0 || s.reply.length > 0) any = true;
  }
  if (!any) return undefined;
  const front: Middleware[] = [];
  if (request.length > 0 || reply.length > 0) front.push(decorating(request, reply));
  // An upgrade answers with a 101 the engine writes: only what runs before it applies to a WebSocket route.
  if (!ws && all.onResponse !== undefined) front.push(onResponseStep(all.onResponse as HookMap['onResponse'][]));
  if (!ws && all.onSend !== undefined) front.push(onSendStep(all.onSend as HookMap['onSend'][]));
  for (const h of all.onRequest ?? []) front.push(hookStep(h as HookMap['onRequest']));
  const beforeBody = ws ? [] : (all.preParsing ?? []).map((h) => hookStep(h as HookMap['preParsing']));
  const onError = all.onError as HookMap['onError'][] | undefined;
  const preHandler = ws ? undefined : (all.preHandler as HookMap['preHandler'][] | undefined);
  const preValidation = ws ? undefined : (all.preValidation as HookMap['preValidation'][] | undefined);
  return {
    front,
    beforeBody,
    errorScope: onError === undefined ? undefined : [observing(onError)],
    wrapHandler: preHandler === undefined ? undefined : (h) => before(preHandler, h, false),
    wrapChecked: preValidation === undefined ? undefined : (h, readsBody) => before(preValidation, h, readsBody),
  };
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

/** A hook as a chain step: it runs, then the chain goes on unless the hook answered. */
function hookStep(hook: (req: Request, res: Response) => unknown): Middleware {
  return (req, res, next) => {
    const out = hook(req, res);
    if (isThenable(out)) return Promise.resolve(out).then(() => (res.headersSent ? undefined : next()));
    return res.headersSent ? undefined : next();
  };
}

/** Hooks run in turn before `handler` (after reading the body first, when `readsBody`); one that answers ends it. */
function before(
  hooks: readonly ((req: Request, res: Response) => unknown)[],
  handler: Handler,
  readsBody: boolean,
): Handler {
  return (req, res, next) => {
    let i = 0;
    // Hooks see the request as the app does (req.path the whole path); the handler, its router's mount point.
    const base = req._base;
    const go = (): unknown => {
      req._base = '';
      while (i < hooks.length) {
        const out = (hooks[i++] as (req: Request, res: Response) => unknown)(req, res);
        if (isThenable(out)) return Promise.resolve(out).then(() => (res.headersSent ? undefined : go()));
        if (res.headersSent) return undefined;
      }
      req._base = base;
      return handler(req, res, next);
    };
    if (!readsBody) return go();
    // preValidation sees the body as read, before the body schema checks it (which then replaces req.body).
    return req.parseBody().then((body) => {
      req.body = body;
      return go();
    });
  };
}

/** Gives each request (and response) in scope its decorations' initial values. */
function decorating(request: readonly [string, unknown][], reply: readonly [string, unknown][]): Middleware {
  return (req, res, next) => {
    for (const [name, value] of request) (req as unknown as Record<string, unknown>)[name] = value;
    for (const [name, value] of reply) (res as unknown as Record<string, unknown>)[name] = value;
    return next();
  };
}

/** Runs the onResponse hooks once the answer is sent (their errors are logged: the answer is gone). */
function onResponseStep(hooks: readonly HookMap['onResponse'][]): Middleware {
  return (req, res, next) => {
    res.once('finish', () => {
      for (const h of hooks) {
        try {
          const out = h(req, res);
          if (isThenable(out)) Promise.resolve(out).catch((err) => logHookError(req, 'onResponse', err));
        } catch (err) {
          logHookError(req, 'onResponse', err);
        }
      }
    });
    return next();
  };
}

/** Has the onSend hooks run as the head goes out, each given the body the one before it returned. */
function onSendStep(hooks: readonly HookMap['onSend'][]): Middleware {
  return (req, res, next) => {
    addHeadHook(res, (body) => {
      let payload = body;
      for (const h of hooks) {
        const out = h(req, res, payload);
        if (isThenable(out)) {
          throw new TypeError(
            'an onSend hook returned a promise: onSend hooks run as the head goes out, synchronously; do the ' +
              'async work in a preHandler hook (or the handler) and set what onSend needs on req or res',
          );
        }
        if (out === undefined) continue;
        if (typeof out !== 'string' && !(out instanceof Uint8Array)) {
          throw new TypeError(`an onSend hook returned ${typeof out}: return a string or bytes to replace the body`);
        }
        payload = out;
      }
      return payload;
    });
    return next();
  };
}

/** The onError hooks as an error handler that observes: they run, then the error goes on to the real handlers. */
function observing(hooks: readonly HookMap['onError'][]): ErrorHandler {
  return (err, req, res) => {
    for (let i = 0; i < hooks.length; i++) {
      let out: unknown;
      try {
        out = (hooks[i] as HookMap['onError'])(req, res, err);
      } catch (failed) {
        // A hook that fails is logged; the error it observed still goes on.
        logHookError(req, 'onError', failed);
        continue;
      }
      if (isThenable(out)) {
        const rest = hooks.slice(i + 1);
        return Promise.resolve(out)
          .catch((failed) => logHookError(req, 'onError', failed))
          .then(async () => {
            for (const h of rest) {
              try {
                await h(req, res, err);
              } catch (failed) {
                logHookError(req, 'onError', failed);
              }
            }
            throw err;
          });
      }
    }
    throw err;
  };
}

function logHookError(req: Request, hook: HookName, err: unknown): void {
  requestLogger(req).error(err, `gale: an ${hook} hook failed`);
}

/**
 * Runs the onClose hooks of `lists` in order (each awaited); rejects with the first failure once all have run.
 *
 * @internal
 */
export async function runCloseHooks(lists: readonly HookLists[]): Promise<void> {
  let failure: { err: unknown } | undefined;
  for (const l of lists) {
    for (const h of l.lists.onClose ?? []) {
      try {
        await h();
      } catch (err) {
        failure ??= { err };
      }
    }
  }
  if (failure !== undefined) throw failure.err;
}
