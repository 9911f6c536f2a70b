// The hot path of an app: `dispatch`, which the engine calls for every request routed to JavaScript, runs the route and
// answers what it returned; the handlerTimeout, error answers and the engine's events. App (app.ts) owns one
// Dispatcher and gives the engine its `dispatch` and `onEvent`, made once here, when it creates the server.
import type { Route } from '../app-routes.js';
import { wakeOwed } from '../body-source.js';
import { type ChainHost, type Handler, handleScopedError, isThenable } from '../chain.js';
import { ErrorCodes, HttpError, ValidationError } from '../errors.js';
import { sendResponse } from '../fetch/send.js';
import { GlobalResponse } from '../fetch/web-response.js';
import type { InProcess } from '../in-process.js';
import { requestLogger } from '../logging.js';
import {
  EV_ABORT,
  EV_BODY,
  EV_CLOSED,
  EV_DRAIN,
  EV_PIPE,
  EV_TOPIC,
  EV_WS_CLOSE,
  EV_WS_DRAIN,
  EV_WT,
  type NativeServer,
} from '../native.js';
import type { GaleOptions } from '../options.js';
import { type ErrorFormat, problemDocument, wantsProblem } from '../problem.js';
import type { RequestConfig } from '../request/config.js';
import { Request } from '../request/request.js';
import { Response, type ResponseHost } from '../response/response.js';
import type { RouteAnswers } from '../route-answer.js';
import { isStreamSource } from '../stream.js';
import { runHandler, TracedResponse, traceError, traceRequest, tracingOn } from '../tracing.js';
import { GRACE_MS, HandlerTimer, placeOf, routeName, unansweredWarning } from '../unanswered.js';
import type { Views } from '../views.js';
import type { WtHub } from '../webtransport-route.js';
import type { WsHub } from '../ws-route.js';
import type { PubSub } from './pubsub.js';

const MASK = 0xfffff;

/** What App's constructor gives its Dispatcher besides the options (once; nothing is read through it per request). */
export interface DispatchParts {
  /** The app's routes by id, filled as they are registered (app-routes.ts). */
  readonly routes: Route[];
  readonly hub: WsHub;
  /** WebTransport sessions and streams (webtransport-route.ts). */
  readonly wt: WtHub;
  /** The request options every Request of the app reads (one shared object). */
  readonly reqConfig: RequestConfig;
  /** The app's views, for `res.render`. */
  readonly views: Views;
  /** gale({ handlerTimeout }): how long a handler may leave its request unanswered (false: no limit). */
  readonly handlerTimeout: number | false;
}

/** One app's request path: from the engine's call to the answer, and the events that follow it. */
export class Dispatcher {
  /** What every Response of the app reads and calls back (the app changes its `etag`, closes its `sse`). */
  readonly host: ResponseHost;
  /** What route chains call back (chain.ts): replies, errors, a request no route answered. */
  readonly chainHost: ChainHost;
  /** `app.notFound(handler)`'s handler. */
  notFoundHandler: Handler | undefined = undefined;
  /** Resolves `app.close()`'s promise once the engine reports the server closed. */
  resolveClosed: (() => void) | undefined = undefined;
  /** The requests the handlerTimeout watches (unanswered.ts). */
  readonly waiting: HandlerTimer<Response>;
  private readonly routes: Route[];
  private readonly live: (Response | undefined)[] = [];
  private readonly hub: WsHub;
  private readonly wt: WtHub;
  private readonly reqConfig: RequestConfig;
  /** Development mode: unanswered requests are reported, error answers carry the stack. */
  private readonly dev: boolean;
  private readonly handlerTimeout: number | false;
  /** How Gale's own error answers are written (gale({ errorFormat })). */
  private readonly errorFormat: ErrorFormat;
  /** Set by `attach`, once the engine exists (it is made with `dispatch` and `onEvent`). */
  private n!: NativeServer;
  private inProcess!: InProcess;
  private pubsub!: PubSub;
  /** The routes whose answer the engine keeps (`App._answerRoute`): a traced request takes them back. */
  private answers!: RouteAnswers;

  constructor(options: GaleOptions, o: DispatchParts) {
    this.routes = o.routes;
    this.hub = o.hub;
    this.wt = o.wt;
    this.reqConfig = o.reqConfig;
    this.dev = options.development ?? process.env.NODE_ENV === 'development';
    this.handlerTimeout = o.handlerTimeout;
    this.errorFormat = options.errorFormat ?? 'negotiate';
    const live = this.live;
    this.waiting = new HandlerTimer(live, (res) => this.timedOut(res, res._rt as Route));
    this.host = {
      forget: (id) => {
        live[id & MASK] = undefined;
      },
      // Only Gale's own responses reach these hooks: the views are the classes.
      track: (res) => {
        live[res._id & MASK] = res as Response;
      },
      fail: (err, req, res) => this.fail(err, req as Request, res as Response),
      // Off unless asked for: hashing every body costs the hot path (Express's default is 'weak').
      etag: options.etag === true || options.etag === 'weak' ? 'weak' : options.etag === 'strong' ? 'strong' : false,
      cookieSecret: options.cookieSecret,
      views: o.views,
      logRequests: options.logger !== undefined && options.requestLogging !== false,
      sse: new Set(),
    };
    this.chainHost = {
      reply: (out, req, res) => this.reply(out, req, res),
      fail: (err, req, res) => this.fail(err, req, res),
      notFound: (req, res) => {
        const handler = this.notFoundHandler;
        if (handler === undefined) this.answerError(req, res, 404, 'Not Found');
        else
          this.reply(
            handler(req, res, () => Promise.resolve()),
            req,
            res,
          );
      },
    };
  }

  /** The engine, made with `dispatch` and `onEvent`, and what the app makes with it. */
  attach(n: NativeServer, inProcess: InProcess, pubsub: PubSub, answers: RouteAnswers): void {
    this.n = n;
    this.inProcess = inProcess;
    this.pubsub = pubsub;
    this.answers = answers;
  }

  // The engine calls this synchronously for every request routed to JS; params arrive as arguments.
  // A function (not an arrow) so params past the third can be read from `arguments`.
  readonly dispatch = function (
    this: Dispatcher,
    id: number,
    routeId: number,
    p0?: string,
    p1?: string,
    p2?: string,
  ): void {
    // The low 24 bits are the route; the top byte what the engine tells of the request (request.ts's RequestFlags).
    const route = this.routes[routeId & 0xffffff] as Route;
    let params: Record<string, string> | undefined;
    const names = route.names;
    if (names.length !== 0) {
      params = {};
      if (names.length <= 3) {
        params[names[0] as string] = p0 as string;
        if (names.length > 1) params[names[1] as string] = p1 as string;
        if (names.length > 2) params[names[2] as string] = p2 as string;
      } else {
        // biome-ignore lint/complexity/noArguments: params past the third arrive as extra arguments
        const args = arguments;
        for (let i = 0; i < names.length; i++) params[names[i] as string] = args[i + 2];
      }
    }
    const req = new Request(this.n, id, params, this.reqConfig, routeId >>> 24);
    if (route.base !== '') req._base = route.base;
    if (tracingOn()) {
      // Traced requests run JavaScript: routes answered natively go back to it.
      if (this.answers.size !== 0) this.answers.dropAll();
      if (this.hub.acceptsNatively) this.hub.revokeNative();
      const traced = new TracedResponse(this.n, id, req, this.host, route.pattern);
      req._res = traced;
      traceRequest(traced, this.handle, this, route);
      return;
    }
    const res = new Response(this.n, id, req, this.host);
    req._res = res;
    this.handle(route, req, res, false);
  }.bind(this);

  /**
   * Runs a request through its route and answers what the route returned. `traced` (a traced request: `res` is a
   * TracedResponse) calls the route through gale.handler's trace (tracing.ts).
   */
  private handle(route: Route, req: Request, res: Response, traced: boolean): void {
    let out: unknown;
    try {
      out = traced ? runHandler(route.run, route, res as TracedResponse) : route.run(req, res);
    } catch (err) {
      this.failScoped(err, req, res, route);
      return;
    }
    if (res.finished) return;
    if (
      route.direct &&
      out !== undefined &&
      !isThenable(out) &&
      !(out instanceof GlobalResponse) &&
      !isStreamSource(out)
    ) {
      // A plain returned value: answer now, on the synchronous path (no snapshot, no tracking).
      try {
        res.send(out);
      } catch (err) {
        this.failScoped(err, req, res, route);
      }
      if (res.finished) return;
    }
    req._deferred = true;
    this.live[res._id & MASK] = res;
    res._rt = route;
    const limit = route.timeout ?? this.handlerTimeout;
    if (limit !== false) this.waiting.watch(res, limit);
    if (this.dev) this.watchSettled(out, req, res, route);
    if (route.direct && out !== undefined) {
      if (out instanceof Promise) {
        // The usual async handler: one reaction for both outcomes (no Promise.resolve wrapper, no second .then).
        out.then(
          (v: unknown) => {
            // finished without a head: the client left meanwhile (nothing to answer, nothing to log).
            if (v !== undefined && !res.headersSent && !res.finished) this.settle(v, req, res, route);
          },
          (err: unknown) => this.failScoped(err, req, res, route),
        );
      } else this.settle(out, req, res, route);
    }
  }

  /**
   * Development mode: once the handler (or the route's chain) settled, a response that still has no head a moment
   * later is reported with the route and where it was declared (a callback answering within GRACE_MS is not).
   */
  private watchSettled(out: unknown, req: Request, res: Response, route: Route): void {
    const check = () => {
      if (res.headersSent || res.finished || res._dl < 0) return;
      const t = setTimeout(() => {
        if (res.headersSent || res.finished || res._dl < 0) return;
        requestLogger(req).warn(unansweredWarning(req.method, req.originalUrl, route.pattern, route.at));
      }, GRACE_MS);
      t.unref();
    };
    if (isThenable(out)) out.then(check, () => {});
    else check();
  }

  /** Which route holds an in-process request that has no answer yet (app.request()'s timeout error says it). */
  holding(method: string, target: string): string | undefined {
    for (const res of this.live) {
      if (res === undefined || res.headersSent || res.finished || res._rt === undefined) continue;
      const req = res._req;
      if (req.method !== method || req.originalUrl !== target || req.remotePort !== 0) continue;
      const route = res._rt as Route;
      return `${routeName(route.pattern, route.at)} has not answered it`;
    }
    return undefined;
  }

  /** The handlerTimeout ran out for a request whose handler never started an answer: a log line, and 503. */
  private timedOut(res: Response, route: Route): void {
    const req = res._req;
    const ms = route.timeout ?? this.handlerTimeout;
    requestLogger(req).error(
      { route: route.pattern, handlerTimeout: ms, at: placeOf(route.at) },
      `gale: ${req.method} ${req.originalUrl}: ${routeName(route.pattern, route.at)} did not answer within handlerTimeout (${ms} ms); answered 503`,
    );
    const detail = `The server did not answer within ${ms} ms (handlerTimeout)`;
    this.answerError(req, res, 503, detail, ErrorCodes.HANDLER_TIMEOUT);
  }

  /** Answers with a direct handler's (resolved) return value; its errors take the route's scoped path. */
  private settle(out: unknown, req: Request, res: Response, route: Route): void {
    try {
      const sent = this.reply(out, req, res);
      if (sent !== undefined) sent.then(undefined, (err) => this.failScoped(err, req, res, route));
    } catch (err) {
      this.failScoped(err, req, res, route);
    }
  }

  private failScoped(err: unknown, req: Request, res: Response, route: Route): void {
    handleScopedError(err, req, res, route.scopes, this.chainHost);
  }

  /** The engine's events: a request's abort, drain and body, WebSocket close and drain, topics, pipes, WebTransport. */
  readonly onEvent = (kind: number, id: number, code?: unknown, reason?: unknown, ...wt: unknown[]): void => {
    // (EV_WT, kind, id, a, b, data): webtransport-route.ts reads them.
    if (kind === EV_WT) return void this.wt.event(id, code as number, reason, wt[0], wt[1]);
    if (kind === EV_CLOSED) {
      this.resolveClosed?.();
      return;
    }
    if (kind === EV_WS_CLOSE) {
      this.hub.closed(id, code as number, reason as string);
      return;
    }
    if (kind === EV_WS_DRAIN) {
      this.hub.drained(id);
      return;
    }
    if (kind === EV_TOPIC) {
      this.pubsub.topicChanged(reason as string, id === 1);
      return;
    }
    if (kind === EV_PIPE) {
      this.inProcess.wake(id);
      return;
    }
    if (kind === EV_BODY) {
      // Through the readers' own table, not the live responses: a handler may read its body after answering.
      wakeOwed(this.reqConfig.owed, id);
      return;
    }
    const res = this.live[id & MASK];
    if (res === undefined || res._id !== id) {
      if (kind === EV_ABORT) {
        this.n.release(id);
        wakeOwed(this.reqConfig.owed, id);
      }
      return;
    }
    if (kind === EV_ABORT) {
      this.live[id & MASK] = undefined;
      // Copied before the engine lets go: code still running for this request (a middleware's fs callback, as send's
      // stat) reads its fields after the client left, and a throwing getter there would be an uncaught exception.
      res._req._snapshot();
      res._req._aborted = true;
      res._aborted();
      res._req._abort?.abort(new Error('client disconnected'));
      wakeOwed(this.reqConfig.owed, id);
    } else if (kind === EV_DRAIN) {
      res._emit('drain');
    }
  };

  /** Turns a handler's return value (or what its promise resolves to) into the response. */
  private reply(out: unknown, req: Request, res: Response): Promise<void> | undefined {
    if (isThenable(out)) {
      return Promise.resolve(out).then((v) => {
        if (v !== undefined && !res.headersSent) return this.reply(v, req, res);
      });
    }
    if (res.headersSent || res.finished) return undefined;
    if (out instanceof GlobalResponse) {
      const sent = sendResponse(res, out, req.method === 'HEAD');
      return sent === undefined ? undefined : sent.then(() => undefined);
    }
    // A returned Readable / ReadableStream / async iterable is streamed; its errors take the scoped path.
    if (isStreamSource(out)) return res._pipe(out).then(() => undefined);
    res.send(out);
    return undefined;
  }

  /** Answers an error no handler took: HttpError keeps its status; anything else is a logged 500. */
  private fail(err: unknown, req: Request, res: Response): void {
    traceError(res, err);
    const http = err instanceof HttpError ? err : undefined;
    const status = http?.status ?? 500;
    // req.log carries the request id when the app has a logger.
    if (status >= 500) requestLogger(req).error(err, `gale: ${status} while handling a request`);
    if (res.finished) return;
    if (res.headersSent) {
      // Mid-stream: the status is gone; cut the connection so the client sees a truncated body.
      res.destroy();
      return;
    }
    let body: string;
    if (http?.expose) body = http.message;
    else if (this.dev && err instanceof Error) body = `${err.stack ?? err.message}`;
    else body = status >= 500 ? 'Internal Server Error' : (http?.message ?? 'Error');
    res.removeHeader('content-type');
    if (http instanceof ValidationError) {
      // RFC 9457: the problem document names every failing field (whatever errorFormat says: it is the answer).
      res.status(status).header('content-type', 'application/problem+json');
      res.end(JSON.stringify(http.problem));
      return;
    }
    this.answerError(req, res, status, body, http?.code, http?.headers);
  }

  /**
   * Writes an error answer Gale makes itself: plain text, or the RFC 9457 problem document (errorFormat, the
   * request's Accept); `code` defaults to the status's stable code. Not send(): error answers get no ETag.
   */
  private answerError(
    req: Request,
    res: Response,
    status: number,
    detail: string,
    code?: string,
    headers?: Record<string, string>,
  ): void {
    res.status(status);
    if (headers) for (const [k, v] of Object.entries(headers)) res.header(k, v);
    if (wantsProblem(this.errorFormat, req.get('accept'))) {
      res.header('content-type', 'application/problem+json');
      res.end(JSON.stringify(problemDocument(status, detail, code)));
    } else {
      res.header('content-type', 'text/plain; charset=utf-8');
      res.end(detail);
    }
  }
}
