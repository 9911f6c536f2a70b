// Runs a route's precomputed middleware chain: koa-style `await next()` and Express-style `next()` /
// `next(err)` both work. A route without middleware never comes here (its handler is called directly).
import { ErrorCodes, GaleError } from './errors.js';
import type { AnyParams, RequestInput } from './request/api.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';
import type { HandlerReturn, TypedResponse } from './response/types.js';
import { traceError } from './tracing.js';

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
 * A middleware: do something, then `await next()` (or call `next()`), or answer and stop. `P` types the params it
 * needs (a route whose path lacks one refuses it at compile time), `S` the state it needs (see `derive`).
 *
 * @example
 * const auth: Middleware = (req, res, next) => (req.get('x-key') === process.env.KEY ? next() : res.status(401).send('no'));
 * app.get('/admin', auth, () => 'welcome');
 */
export type Middleware<P extends object = AnyParams, S extends object = object> = (
  req: Request<P, S>,
  res: Response,
  next: Next,
) => unknown;
/**
 * A connect-style middleware typed for Express or node:http (`helmet()`, `morgan()`, `express-session`, `multer`):
 * Gale's Request and Response carry the node:http and Express members such middleware use, but not their declared
 * types, so its request and response types are not checked against Gale's — only that it takes a `next` Gale can
 * give. Gale's own middleware are checked as `Middleware`.
 *
 * @example
 * import helmet from 'helmet';
 * import morgan from 'morgan';
 * app.use(helmet(), morgan('tiny'));
 */
export type NodeMiddleware = (req: never, res: never, next: (err?: unknown) => void) => unknown;
/**
 * A route handler: answer with `res`, or return a value (string, object, bytes, Web Response). A
 * handler declaring a third parameter gets `next`, as in Express: `next(err)` goes to error handling,
 * `next()` to the notFound answer. `P`, `S` and `I` type its params, state and validated inputs; `R`, the route's
 * `response` schemas, its `res` (see `TypedResponse`) and what it may return (see `HandlerReturn`); without them,
 * `Out` is what it returns (a route method infers it, for `gale/client`). Inline handlers get them from the route
 * (`app.get(path, …)`), a handler declared apart can name them.
 *
 * @example
 * const hello: Handler<{ name: string }> = (req) => `Hello ${req.params.name}`;
 * app.get('/hello/:name', hello);
 */
export type Handler<
  P extends object = AnyParams,
  S extends object = object,
  I extends RequestInput = RequestInput,
  R extends object | undefined = undefined,
  Out = unknown,
> = (
  req: Request<P, S, I>,
  res: [R] extends [object] ? TypedResponse<R> : Response,
  next: Next,
) => [R] extends [object] ? HandlerReturn<R> : Out;
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

/** @internal whether `v` is a promise or another thenable */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
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
  const mws = steps.map((s) => s.fn);
  // Mount points as Express shows them (req.baseUrl); all '' for an app-level chain, which then
  // never touches req._base.
  const bases = [...steps.map((s) => s.base), handlerBase];
  const chain: Chain = {
    mws,
    n: mws.length,
    handler,
    scopes,
    host,
    bases: bases.some((b) => b !== '') ? bases : undefined,
  };
  return (req, res) => new Run(chain, req, res).step(0);
}

/** Hands `err` to the error handlers in `scopes` (innermost first), then to the app's default answer. */
export function handleScopedError(
  err: unknown,
  req: Request,
  res: Response,
  scopes: readonly (readonly ErrorHandler[])[],
  host: ChainHost,
): void {
  traceError(res, err);
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

/** A route's chain as `compose` prepared it, shared by all its requests. */
interface Chain {
  readonly mws: readonly Middleware[];
  readonly n: number;
  readonly handler: Handler;
  readonly scopes: readonly (readonly ErrorHandler[])[];
  readonly host: ChainHost;
  /** Mount point of each level and of the handler; undefined when all are ''. */
  readonly bases: readonly string[] | undefined;
}

// One request's run through a chain. What `next()` returns never rejects (an error is handed to the error handlers
// where it happens), so a middleware that calls `next()` without awaiting it cannot leave a rejection unhandled,
// and a level needs no promise of its own unless its middleware returned one. A synchronous chain runs without any
// promise; an Express-style `(req, res, next) => next()` passes the downstream promise up as it is (none when the
// downstream finished synchronously); only a middleware that returned its own promise gets one `.then` to catch
// its rejection. One object per request plus one `next` per level reached: no other closure.
class Run {
  private failed = false;
  private onReject: ((err: unknown) => void) | undefined;

  constructor(
    private readonly c: Chain,
    private readonly req: Request,
    private readonly res: Response,
  ) {}

  /** Hands an error to the scoped error handlers once; a later one is only logged by the app. */
  fail(err: unknown): void {
    if (this.failed) {
      this.c.host.fail(err, this.req, this.res);
      return;
    }
    this.failed = true;
    handleScopedError(err, this.req, this.res, this.c.scopes, this.c.host);
  }

  /** `fail` as a function for `.then`, made the first time a level returns a promise. */
  private rejecter(): (err: unknown) => void {
    if (this.onReject === undefined) this.onReject = (err: unknown) => this.fail(err);
    return this.onReject;
  }

  step(i: number): Promise<void> | undefined {
    const { c, req, res } = this;
    const bases = c.bases;
    if (bases !== undefined) req._base = bases[i] as string;
    if (i === c.n) return this.end();
    let called = false;
    // The downstream's promise once `next()` ran: undefined while not called or when it finished synchronously.
    let rest: Promise<void> | undefined;
    const next: Next = (err?: unknown) => {
      if (called) return nextTwice();
      called = true;
      if (err !== undefined && err !== null) {
        this.fail(err);
        return RESOLVED;
      }
      rest = this.step(i + 1);
      if (bases === undefined) return rest ?? RESOLVED;
      // Back in this middleware: it sees its own mount point again.
      const mine = bases[i] as string;
      req._base = mine;
      if (rest === undefined) return RESOLVED;
      rest = rest.then(() => {
        req._base = mine;
      });
      return rest;
    };
    let out: unknown;
    try {
      out = (c.mws[i] as Middleware)(req, res, next);
    } catch (err) {
      this.fail(err);
      return undefined;
    }
    // `return next()` (or `next()` and nothing returned): the downstream's own promise, or none, is this level's.
    if (out === rest || out === undefined || out === RESOLVED) return rest;
    if (out instanceof Promise) return out.then(undefined, this.rejecter()) as Promise<void>;
    if (isThenable(out)) return Promise.resolve(out).then(undefined, this.rejecter()) as Promise<void>;
    return rest;
  }

  /** The end of the chain: the handler, and the reply of what it returned. */
  private end(): Promise<void> | undefined {
    const { c, req, res } = this;
    let out: unknown;
    try {
      out = c.handler(req, res, (err?: unknown) => {
        if (err !== undefined && err !== null) this.fail(err);
        else c.host.notFound(req, res);
        return RESOLVED;
      });
    } catch (err) {
      this.fail(err);
      return undefined;
    }
    if (out === undefined) return undefined;
    const sent = c.host.reply(out, req, res);
    return sent === undefined ? undefined : sent.then(undefined, this.rejecter());
  }
}

/** A second `next()` from one middleware: a rejection for whoever awaits it, marked handled so that a call nobody
 * awaits (Express style) cannot end the process with an unhandled rejection. */
function nextTwice(): Promise<void> {
  const p = Promise.reject(new GaleError(ErrorCodes.NEXT_TWICE, 'next() was called more than once'));
  p.catch(ignore);
  return p;
}

function ignore(): void {}
