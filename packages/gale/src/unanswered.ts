// Requests whose handler never answers: the handlerTimeout (503 and a log line once a request has waited that long
// without a head) and, in development, a warning shortly after a handler or chain settled without answering.
// One coarse clock and one list of waiting responses per app: a deferred request costs a push and a store.
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the watcher needs of a response (Response has it). */
export interface Waiting {
  readonly headersSent: boolean;
  readonly finished: boolean;
  /** The tick it times out at; 0 while not watched, -1 when it may stay open (a stream, SSE, a long-poll). */
  _dl: number;
  /** Its route (set by the app when it is deferred), for the messages. */
  _rt: unknown;
}

/** The default `handlerTimeout`, in milliseconds. */
export const DEFAULT_HANDLER_TIMEOUT = 30_000;
/** How long after a handler settled without answering development mode waits before it warns. */
export const GRACE_MS = 1000;

// The package's own folder (dist/ and, where source maps are on, the src/ its frames map to): frames there are Gale's.
const OWN = dirname(dirname(fileURLToPath(import.meta.url))) + sep;

/** Where a route was declared: a captured stack, formatted only when a message needs it (`placeOf`). */
export type DeclaredAt = { readonly stack?: string };

/** Captures the stack of the code declaring a route (cheap: V8 formats it only when read). */
export function declaredAt(): DeclaredAt {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  Error.captureStackTrace(holder, declaredAt);
  Error.stackTraceLimit = limit;
  return holder;
}

/** `file:line:column` of the first frame of `at` outside this package, or undefined when the stack has none. */
export function placeOf(at: DeclaredAt | undefined): string | undefined {
  for (const line of (at?.stack ?? '').split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^\s()]+:\d+:\d+)\)?\s*$/.exec(line);
    if (m === null) continue;
    const place = m[1] as string;
    const path = place.startsWith('file://') ? fileURLToPath(place.replace(/:\d+:\d+$/, '')) : place;
    if (path.startsWith(OWN) || path.startsWith('node:')) continue;
    return place;
  }
  return undefined;
}

/**
 * The handlerTimeout of one app. `tick` counts `step` milliseconds; a response is given its deadline in ticks when
 * its handler returns without answering, and each tick the app's live (deferred) responses are looked over: those
 * past their deadline that have no head yet go to `expire`. Nothing is kept per request but the two fields, so a
 * request costs a store, and the sweep reads the live table (as long as the most requests in flight at once).
 */
export class HandlerTimer<R extends Waiting> {
  private tick = 1;
  private timer: NodeJS.Timeout | undefined;
  /** The tick length: a tenth of the shortest timeout seen, from 10 ms to 1 s. */
  private step = 1000;
  private shortest = 10_000;

  constructor(
    private readonly live: readonly (R | undefined)[],
    private readonly expire: (res: R) => void,
  ) {}

  /** Watches `res` for `ms` milliseconds from now (at least one whole tick). */
  watch(res: R, ms: number): void {
    if (ms < this.shortest) this.fit(ms);
    res._dl = this.tick + Math.ceil(ms / this.step) + 1;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.step);
      this.timer.unref();
    }
  }

  /** A finer clock for a shorter timeout; the deadlines already set keep their time. */
  private fit(ms: number): void {
    this.shortest = ms;
    const step = Math.max(10, Math.min(1000, Math.floor(ms / 10)));
    if (step >= this.step) return;
    const scale = this.step / step;
    for (const res of this.live) {
      if (res !== undefined && res._dl > 0) res._dl = this.tick + Math.ceil((res._dl - this.tick) * scale);
    }
    this.step = step;
    this.stop();
  }

  private sweep(): void {
    const now = ++this.tick;
    const live = this.live;
    for (let i = 0; i < live.length; i++) {
      const res = live[i];
      if (res === undefined || res._dl <= 0 || res._dl > now || res.finished || res.headersSent) continue;
      res._dl = 0;
      try {
        this.expire(res);
      } catch (err) {
        // Answering failed (the connection broke meanwhile): nothing is left to answer.
        console.error('gale: answering a request past its handlerTimeout failed:', err);
      }
    }
  }

  /** Stops the clock until the next `watch` (the app closed, or the tick changed). */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The development warning for a route whose handler (or middleware chain) settled without answering. */
export function unansweredWarning(
  method: string,
  path: string,
  pattern: string | undefined,
  at: DeclaredAt | undefined,
): string {
  return (
    `gale: ${method} ${path}: ${routeName(pattern, at)} returned without answering, ` +
    `and nothing answered in the ${GRACE_MS} ms since; the client is still waiting. Return a value, call res.send() ` +
    'or res.json() (and return or await it in an async handler), or call next() in middleware.'
  );
}

/** `the route /users/:id (declared at src/app.ts:12:5)`, for the messages about a route's handler. */
export function routeName(pattern: string | undefined, at: DeclaredAt | undefined): string {
  const place = placeOf(at);
  return `${pattern === undefined ? 'the notFound handler' : `the route ${pattern}`}${place === undefined ? '' : ` (declared at ${place})`}`;
}
