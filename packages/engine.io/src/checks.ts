// What @gale-http/engine.io's Server runs before it serves a request: the engine middlewares (engine.use), allowRequest
// for handshakes, and the refusal of something attach() cannot take.
import { ERRORS, type Refusal } from './options.js';
import type { EngineMiddleware, HttpRequest, ServerOptions } from './types.js';

/**
 * Runs `fns` in order as `(req, res, next)`; `done(err)` after the last, or at the first error: `next(err)`, a
 * throw, or a rejected promise from an async middleware (as engine.io 6.6.13). Extra `next` calls are ignored.
 */
export function runMiddlewares(
  fns: readonly EngineMiddleware[],
  req: HttpRequest,
  res: unknown,
  done: (err?: unknown) => void,
): void {
  if (fns.length === 0) {
    done();
    return;
  }
  const step = (i: number): void => {
    if (i === fns.length) {
      done();
      return;
    }
    let called = false;
    const next = (err?: unknown): void => {
      if (called) return;
      called = true;
      if (err) done(err);
      else step(i + 1);
    };
    try {
      const r = (fns[i] as EngineMiddleware)(req, res as never, next) as unknown;
      if (r instanceof Promise) r.catch((err: unknown) => next(err ?? new Error('engine middleware rejected')));
    } catch (err) {
      next(err ?? new Error('engine middleware threw'));
    }
  };
  step(0);
}

/** The allowRequest option on a handshake: a promise of the refusal (403, code 4) or undefined; none without it. */
export function allowRequest(
  check: ServerOptions['allowRequest'],
  req: HttpRequest,
): Promise<Refusal | undefined> | undefined {
  if (check === undefined) return undefined;
  return new Promise((resolve) => {
    try {
      check(req, (message, success) => {
        resolve(success ? undefined : [ERRORS.FORBIDDEN, { message }]);
      });
    } catch (err) {
      resolve([ERRORS.FORBIDDEN, { message: err instanceof Error ? err.message : String(err) }]);
    }
  });
}

/** Why attach() refused `target`, with what to do instead. */
export function notAnApp(target: unknown): string {
  const name = (target as { constructor?: { name?: string } } | null)?.constructor?.name ?? typeof target;
  return (
    `@gale-http/engine.io: attach() takes a Gale app (gale() from 'gale') or a node:http/https server, got ${name}` +
    ' (for an Express app, attach to the server its listen() returns, or to http.createServer(app))'
  );
}
