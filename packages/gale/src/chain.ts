// Runs a route's precomputed middleware chain: koa-style `await next()` and Express-style `next()` /
// `next(err)` both work. A route without middleware never comes here (its handler is called directly).
import { ErrorCodes, GaleError } from './errors.js';
import type { Request } from './request.js';
import type { Response } from './response.js';

/**
 * Calls the rest of the chain; resolves when it has finished. `next(err)` jumps to error handling.
 *
 * @example
 * app.use(async (req, res, next) => {
 *   await next(); // the rest of the chain, the handler included
 *   res.header('x-done', '1');
 * });
 */
export type Next = (err?: unknown) => Promise<void>;
/**
 * A middleware: do something, then `await next()` (or call `next()`), or answer and stop.
 *
 * @example
 * const auth: Middleware = (req, res, next) => (req.get('x-key') === process.env.KEY ? next() : res.status(401).send('no'));
 * app.get('/admin', auth, () => 'welcome');
 */
export type Middleware = (req: Request, res: Response, next: Next) => unknown;
/**
 * A route handler: answer with `res`, or return a value (string, object, bytes, Web Response). A
 * handler declaring a third parameter gets `next`, as in Express: `next(err)` goes to error handling,
 * `next()` to the notFound answer.
 *
 * @example
 * const hello: Handler = (req) => `Hello ${req.params.name}`;
 * app.get('/hello/:name', hello);
 */
export type Handler = (req: Request, res: Response, next: Next) => unknown;
/**
 * Handles an error thrown (or passed to `next(err)`) by a middleware or handler in its scope.
 *
 * @example
 * const onError: ErrorHandler = (err, req, res) => res.status(500).json({ error: 'sorry', path: req.path });
 * app.onError(onError);
 */
export type ErrorHandler = (err: unknown, req: Request, res: Response) => unknown;

/** What the chain needs from the app: sending a handler's value and the last-resort error answer. */
export interface ChainHost {
  /** Sends a handler's return value; returns a promise when the value was one. */
  reply(out: unknown, req: Request, res: Response): Promise<void> | undefined;
  /** Answers an error no handler took (logs 5xx). */
  fail(err: unknown, req: Request, res: Response): void;
  /** A handler passed the request on with `next()`: answer as for an unmatched path. */
  notFound(req: Request, res: Response): void;
}

const RESOLVED: Promise<void> = Promise.resolve();

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * Builds the function that runs `mws` then `handler`, with `errorHandlers` (innermost first) taking
 * errors before the app's default answer.
 */
export function compose(
  steps: readonly { fn: Middleware; base: string }[],
  handler: Handler,
  handlerBase: string,
  scopes: readonly (readonly ErrorHandler[])[],
  host: ChainHost,
): (req: Request, res: Response) => Promise<void> | undefined {
  const n = steps.length;
  const mws = steps.map((s) => s.fn);
  // Mount points as Express shows them (req.baseUrl); all '' for an app-level chain, which then
  // never touches req._base.
  const bases = [...steps.map((s) => s.base), handlerBase];
  const mounted = bases.some((b) => b !== '') ? bases : undefined;
  return (req, res) => {
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) {
        // A second error (e.g. after the first was answered): the app logs it.
        host.fail(err, req, res);
        return;
      }
      failed = true;
      handleScopedError(err, req, res, scopes, host);
    };
    return run(mws, n, handler, req, res, fail, host, mounted);
  };
}

/** Hands `err` to the error handlers in `scopes` (innermost first), then to the app's default answer. */
export function handleScopedError(
  err: unknown,
  req: Request,
  res: Response,
  scopes: readonly (readonly ErrorHandler[])[],
  host: ChainHost,
): void {
  const errorHandlers = scopes.length === 1 ? (scopes[0] as readonly ErrorHandler[]) : scopes.flat();
  const handleError = (err: unknown, req: Request, res: Response, from: number): void => {
    for (let i = from; i < errorHandlers.length; i++) {
      const eh = errorHandlers[i] as ErrorHandler;
      let out: unknown;
      try {
        out = eh(err, req, res);
      } catch (again) {
        err = again;
        continue;
      }
      if (isThenable(out)) {
        const next = i + 1;
        out.then(
          (v) => {
            if (v !== undefined && !res.headersSent) host.reply(v, req, res);
          },
          (again) => handleError(again, req, res, next),
        );
      } else if (out !== undefined && !res.headersSent) {
        host.reply(out, req, res);
      }
      return;
    }
    host.fail(err, req, res);
  };

  handleError(err, req, res, 0);
}

function run(
  mws: readonly Middleware[],
  n: number,
  handler: Handler,
  req: Request,
  res: Response,
  fail: (err: unknown) => void,
  host: ChainHost,
  bases: readonly string[] | undefined,
): Promise<void> | undefined {
  const step = (i: number): Promise<void> | undefined => {
    if (bases !== undefined) req._base = bases[i] as string;
    if (i === n) {
      let out: unknown;
      try {
        out = handler(req, res, (err?: unknown) => {
          if (err !== undefined && err !== null) fail(err);
          else host.notFound(req, res);
          return RESOLVED;
        });
      } catch (err) {
        fail(err);
        return undefined;
      }
      if (out === undefined) return undefined;
      const sent = host.reply(out, req, res);
      return sent === undefined ? undefined : sent.then(undefined, fail);
    }
    let called = false;
    const next: Next = (err?: unknown) => {
      if (called) return Promise.reject(new GaleError(ErrorCodes.NEXT_TWICE, 'next() was called more than once'));
      called = true;
      if (err !== undefined && err !== null) {
        fail(err);
        return RESOLVED;
      }
      const rest = step(i + 1);
      if (bases === undefined) return rest ?? RESOLVED;
      // Back in this middleware: it sees its own mount point again.
      const mine = bases[i] as string;
      req._base = mine;
      if (rest === undefined) return RESOLVED;
      return rest.then(() => {
        req._base = mine;
      });
    };
    let out: unknown;
    try {
      out = (mws[i] as Middleware)(req, res, next);
    } catch (err) {
      fail(err);
      return undefined;
    }
    if (isThenable(out)) return Promise.resolve(out).then(undefined, fail) as Promise<void>;
    return undefined;
  };
  return step(0);
}
