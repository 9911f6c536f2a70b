// Route answers: the reply a route's JavaScript gave, kept by the engine and sent by it to the later requests the
// caller vouches the JavaScript would answer alike (crates/gale-server, `Target::Answer`). @gale-http/express uses
// it for handlers that answer a constant (App._answerRoute); an app's kept answers are its RouteAnswers.
import type { NativeServer, ReplyMeta } from './native.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';
import { tracingOn } from './tracing.js';

/** Why a reply cannot become the route's answer, or undefined when it can (checked while the reply is made). */
function refusal(req: Request, res: Response): string | undefined {
  if (tracingOn()) return 'tracing is on (a TracingChannel has a subscriber)';
  if (res._t0 !== 0) return 'requests are logged';
  if (req.method !== 'GET' || req.httpVersion !== '1.1') return 'not an HTTP/1.1 GET';
  if (!req._lacksValidators()) return 'the request has a validator';
  const length = req.get('content-length');
  if ((length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined) return 'it has a body';
  return undefined;
}

/**
 * Makes the reply `res` is about to give the answer of the route at `pattern` (registered for all methods, called
 * directly): `res`'s end() goes to the engine as always and, when the request is one the engine would answer alike,
 * is also kept as the route's answer. `done` learns whether it was (and, when not, why).
 */
export function captureAnswer(
  n: NativeServer,
  pattern: string,
  req: Request,
  res: Response,
  done: (kept: boolean, why?: string) => void,
): void {
  const why = refusal(req, res);
  if (why !== undefined) {
    done(false, why);
    return;
  }
  // Only this response sees the wrapper: its `end` reaches the engine as the real one and keeps the same arguments.
  const wrapper = Object.create(n) as NativeServer;
  wrapper.end = (id, status, ctype, lines, body, meta?: ReplyMeta) => {
    const sent = n.end(id, status, ctype, lines, body, meta);
    if (!sent) done(false, 'the client left');
    else if (tracingOn() || res.statusMessage !== undefined) done(false, 'tracing or a reason phrase');
    else {
      try {
        n.routeAnswer(pattern, status, ctype ?? 0, lines, body, meta);
        done(true);
      } catch (err) {
        done(false, (err as Error).message);
      }
    }
    return sent;
  };
  (res as unknown as { _n: NativeServer })._n = wrapper;
}

/** The routes of one app whose answer the engine keeps, by pattern (`App._answerRoute`). */
export class RouteAnswers {
  private readonly kept = new Set<string>();

  /** `routes`: the app's routes, where `keep` looks the pattern up. */
  constructor(
    private readonly n: NativeServer,
    private readonly routes: readonly { readonly pattern: string | undefined; readonly direct: boolean }[],
  ) {}

  /** How many routes have a kept answer. */
  get size(): number {
    return this.kept.size;
  }

  /** Keeps the reply `res` is about to give as the answer of the route at `pattern`, if that route has no middleware. */
  keep(pattern: string, req: Request, res: Response, done: (kept: boolean, why?: string) => void): void {
    const route = this.routes.find((r) => r.pattern === pattern);
    if (route === undefined || !route.direct) {
      done(false, 'the route has Gale middleware');
      return;
    }
    captureAnswer(this.n, pattern, req, res, (kept, why) => {
      if (kept) this.kept.add(pattern);
      done(kept, why);
    });
  }

  /** Takes the answer of the route at `pattern` back (its requests run JavaScript again). */
  drop(pattern: string): void {
    if (this.kept.delete(pattern)) this.n.routeAnswer(pattern);
  }

  /** Takes every answer back (a traced request: tracing needs the JavaScript to run). */
  dropAll(): void {
    for (const p of this.kept) this.drop(p);
  }
}
