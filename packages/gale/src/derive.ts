// `derive()`: a middleware whose return value is merged into `req.state` and typed for what runs after it, without
// `declare module` (as Hono's `c.var` and Elysia's `derive`). The typing is route-types.ts's StateMiddleware.
import type { Next } from './chain.js';
import type { AnyParams } from './request/api.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';
import type { StateMiddleware } from './route-types.js';

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * A middleware that computes per-request state: `fn`'s return value (or what its promise resolves to) is merged
 * into `req.state`, then the chain goes on. Given to a route before its handler, the handler (and any middleware
 * after it) sees `req.state` typed; given to `app.use()` or `router.use()`, the app or router that call returns has
 * it typed for every route declared on it. To refuse the request, throw (an `HttpError(401)`, say) or answer with
 * `res`: then nothing after it runs. `fn` may declare the state it needs itself, by typing its `req` (a route that
 * lacks it does not compile).
 *
 * @example
 * const auth = derive(async (req) => {
 *   const user = await users.byToken(req.get('authorization'));
 *   if (user === undefined) throw new HttpError(401, 'sign in first');
 *   return { user };
 * });
 * app.get('/me', auth, (req) => ({ name: req.state.user.name }));
 * const admin = router().use(auth);
 * admin.get('/stats', (req) => `hello ${req.state.user.name}`);
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a function that returns nothing returns void (it adds no state)
export function derive<T extends object | undefined | void, P extends object = AnyParams, S extends object = object>(
  fn: (req: Request<P, S>, res: Response) => T | PromiseLike<T>,
): StateMiddleware<Awaited<T>, P, S> {
  const mw = (req: Request<P, S>, res: Response, next: Next): unknown => {
    const out = fn(req, res);
    if (!isThenable(out)) {
      if (out !== undefined && out !== null) Object.assign(req.state, out);
      return res.headersSent ? undefined : next();
    }
    return Promise.resolve(out).then((v) => {
      if (v !== undefined && v !== null) Object.assign(req.state, v);
      if (!res.headersSent) return next();
    });
  };
  return mw as StateMiddleware<Awaited<T>, P, S>;
}
