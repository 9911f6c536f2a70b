// Gale's diagnostics_channel TracingChannels (`gale.request`, `gale.handler`; docs/guides/observability.md) and the
// Response subclass a traced request gets. Nothing here runs for a request unless one of the channels has a
// subscriber: app.ts asks `tracingOn()` once per request and, when it is false, never comes here.
import { tracingChannel } from 'node:diagnostics_channel';
import type { Request } from './request/request.js';
import { Response } from './response/response.js';

/**
 * The context object both of Gale's TracingChannels publish for one request (the same object for every event of
 * that request). Read the request's headers in `start` (or at the latest in the event-loop turn the response ends
 * in); `method`, `url`, `path` and `route` are copied here and stay readable after the response ended.
 *
 * @example
 * import { tracingChannel } from 'node:diagnostics_channel';
 * import type { RequestTrace } from 'gale';
 * tracingChannel<unknown, RequestTrace>('gale.request').subscribe({
 *   start(ctx) { console.log('>', ctx.method, ctx.url); },
 *   end() {},
 *   asyncStart() {},
 *   asyncEnd(ctx) { console.log('<', ctx.status, ctx.route ?? '(no route)'); },
 *   error(ctx) { console.error('failed', ctx.error); },
 * });
 */
export interface RequestTrace {
  /** Gale's request. */
  readonly request: Request;
  /** Gale's response. */
  readonly response: Response;
  /** The request method, e.g. `GET`. */
  readonly method: string;
  /** The request target as received, query string included (`req.originalUrl`). */
  readonly url: string;
  /** `url` without its query string. */
  readonly path: string;
  /**
   * The pattern of the route that took the request, mount points joined (`/users/:id`); undefined when no route
   * matched and the request went to the app's middleware, `notFound` handler or unprefixed fetch handler.
   */
  readonly route: string | undefined;
  /** The status sent, set when the response is done (`asyncStart`/`asyncEnd` of `gale.request`); undefined before. */
  status: number | undefined;
  /** The response did not complete: the client left first, or the app destroyed it. Set with `status`. */
  aborted: boolean;
  /** The last error a middleware or handler threw, rejected with or passed to `next(err)` (set before `error`). */
  error: unknown;
}

/** `gale.request`: from the request reaching JavaScript to its response being done. */
const requestChannel = tracingChannel<unknown, RequestTrace>('gale.request');
/** `gale.handler`: the route's middleware chain and handler, called once. */
const handlerChannel = tracingChannel<unknown, RequestTrace>('gale.handler');

/**
 * The names of Gale's TracingChannels (as `diagnostics_channel.tracingChannel(name)` takes them): `request`, from
 * the request reaching JavaScript to its response being done, and `handler`, the route's middleware and handler.
 *
 * @example
 * import { tracingChannel } from 'node:diagnostics_channel';
 * import { TRACING_CHANNELS, type RequestTrace } from 'gale';
 * const handlers = tracingChannel<unknown, RequestTrace>(TRACING_CHANNELS.handler);
 * handlers.subscribe({ start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error: (ctx) => console.error(ctx.error) });
 */
export const TRACING_CHANNELS = { request: 'gale.request', handler: 'gale.handler' } as const;

/** Whether this request is traced: one question per request, asked before anything is made for tracing. */
export function tracingOn(): boolean {
  return requestChannel.hasSubscribers || handlerChannel.hasSubscribers;
}

const NO_ERROR: unknown = Symbol('no error');

/**
 * The response of a traced request: the ways a response ends (whole, streamed, a file, destroyed, aborted, a
 * WebSocket's 101) also publish `gale.request`'s end, so untraced responses carry no check for it.
 */
export class TracedResponse extends Response {
  /** @internal the request's trace context */
  readonly _trace: RequestTrace;
  /** @internal gale.handler's trace is open (its sync call, or the promise it returned, has not settled) */
  _handlerOpen = false;
  /** @internal the dispatch's synchronous part is over (gale.request's `end` was published) */
  _syncOver = false;
  /** @internal the response is done (status recorded) */
  _isDone = false;
  /** @internal the last error published, so one error reaching two catch sites is published once */
  _published: unknown = NO_ERROR;

  constructor(
    n: ConstructorParameters<typeof Response>[0],
    id: number,
    req: Request,
    host: ConstructorParameters<typeof Response>[3],
    route: string | undefined,
  ) {
    super(n, id, req, host);
    const url = req.originalUrl;
    const q = url.indexOf('?');
    this._trace = {
      request: req,
      response: this,
      method: req.method,
      url,
      path: q === -1 ? url : url.slice(0, q),
      route,
      status: undefined,
      aborted: false,
      error: undefined,
    };
  }

  override finish(ctype: string | number, body: string | Uint8Array | undefined, lines?: string): void {
    super.finish(ctype, body, lines);
    this._done();
  }

  override end(body?: string | Uint8Array): void {
    super.end(body);
    if (this.finished) this._done();
  }

  override destroy(): void {
    const open = !this.finished;
    super.destroy();
    if (open) this._done(true);
  }

  override _aborted(): void {
    const open = !this.finished;
    super._aborted();
    if (open) this._done(true);
  }

  override sendFile(path: string, options: { root?: string; dotfiles?: 'ignore' | 'allow' } = {}): void {
    super.sendFile(path, options);
    this._done();
  }

  /** @internal the response is done: record how, and publish now unless the dispatch is still running */
  _done(cut = false): void {
    if (this._isDone) return;
    this._isDone = true;
    const ctx = this._trace;
    ctx.status = this.headersSent ? this.statusCode : undefined;
    ctx.aborted = cut || this._req._aborted;
    if (this._syncOver) publishDone(ctx);
  }
}

/** gale.request's asyncStart/asyncEnd: the response is done (always after its `end`, once per request). */
function publishDone(ctx: RequestTrace): void {
  requestChannel.asyncStart.runStores(ctx, publishAsyncEnd, undefined, ctx);
}

function publishAsyncEnd(ctx: RequestTrace): void {
  requestChannel.asyncEnd.publish(ctx);
}

/**
 * Runs `handle(route, req, res, true)` as the traced request `res` stands for: gale.request's `start` (stores bound
 * to it are entered for the whole call: middleware, handler and what they start), `end` when it returns, and the
 * response's end (asyncStart/asyncEnd) after that once the response is done.
 */
export function traceRequest<T, R>(
  res: TracedResponse,
  handle: (this: T, route: R, req: Request, res: Response, traced: boolean) => void,
  self: T,
  route: R,
): void {
  requestChannel.start.runStores(res._trace, runTraced, undefined, res, handle, self, route);
  res._syncOver = true;
  if (res._isDone) publishDone(res._trace);
}

function runTraced<T, R>(
  res: TracedResponse,
  handle: (this: T, route: R, req: Request, res: Response, traced: boolean) => void,
  self: T,
  route: R,
): void {
  try {
    handle.call(self, route, res._req, res, true);
  } finally {
    requestChannel.end.publish(res._trace);
  }
}

/**
 * Calls a traced request's route function (its handler, or its middleware chain) as gale.handler: `start`, `end`,
 * and when it returned a promise `asyncStart`/`asyncEnd` once that settles; `error` (with gale.request's) for what
 * it throws or rejects with. Returns what the function returned, and throws what it threw.
 */
export function runHandler(run: (req: Request, res: Response) => unknown, route: object, res: TracedResponse): unknown {
  return handlerChannel.start.runStores(res._trace, callHandler, undefined, run, route, res);
}

function callHandler(run: (req: Request, res: Response) => unknown, route: object, res: TracedResponse): unknown {
  const ctx = res._trace;
  res._handlerOpen = true;
  let out: unknown;
  try {
    out = run.call(route, res._req, res);
  } catch (err) {
    traceError(res, err);
    res._handlerOpen = false;
    throw err;
  } finally {
    handlerChannel.end.publish(ctx);
  }
  if (typeof (out as PromiseLike<unknown> | undefined)?.then === 'function') {
    Promise.resolve(out).then(
      () => handlerSettled(res),
      (err: unknown) => {
        traceError(res, err);
        handlerSettled(res);
      },
    );
  } else {
    res._handlerOpen = false;
  }
  return out;
}

function handlerSettled(res: TracedResponse): void {
  res._handlerOpen = false;
  handlerChannel.asyncStart.publish(res._trace);
  handlerChannel.asyncEnd.publish(res._trace);
}

/**
 * Publishes `error` for an error a middleware or handler of a traced request threw, rejected with or passed to
 * `next(err)`: on gale.request, and on gale.handler while its trace is open. Called where Gale catches such errors
 * (chain.ts, app.ts); an error that reaches two of them is published once. Does nothing for an untraced request.
 */
export function traceError(res: Response, err: unknown): void {
  if (!(res instanceof TracedResponse) || res._published === err) return;
  res._published = err;
  const ctx = res._trace;
  ctx.error = err;
  if (res._handlerOpen) handlerChannel.error.publish(ctx);
  requestChannel.error.publish(ctx);
}
