// GaleInstrumentation: an HTTP server span per Gale request, made from gale's `gale.request` TracingChannel (no
// patching). The span starts in a store bound to `start` (so it is the active span for the middleware, the handler
// and everything they start) and ends when the response is done. Only @opentelemetry/api's public API is used.
import type { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import {
  type Context,
  context,
  type MeterProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { RequestTrace } from 'gale';
import { errorType, spanName, startAttributes } from './attributes.js';

const NAME = '@gale-http/otel';
const VERSION: string = createRequire(import.meta.url)('../package.json').version;

/**
 * Options of `new GaleInstrumentation(config)`.
 *
 * @example
 * import { GaleInstrumentation } from '@gale-http/otel';
 * new GaleInstrumentation({
 *   ignore: (request) => request.path === '/health',
 *   requestHook: (span, request) => span.setAttribute('app.tenant', request.request.get('x-tenant') ?? 'none'),
 * });
 */
export interface GaleInstrumentationConfig {
  /** Start listening at once (as OpenTelemetry's instrumentations do). Default true. */
  enabled?: boolean;
  /** Requests to make no span for (health checks, say). Called at the start, while the request's headers are readable. */
  ignore?: (request: RequestTrace) => boolean;
  /** Called with each new span at the start (add attributes from the request's headers here). */
  requestHook?: (span: Span, request: RequestTrace) => void;
  /** Called with each span just before it ends, once the response is done (`request.status` is set). */
  responseHook?: (span: Span, request: RequestTrace) => void;
}

/** A disposable scope, as Node's `withStoreScope` expects of a bound store (Node ≥ 25.9). */
interface Scope {
  [key: symbol]: () => void;
}
/** What `attach` returns (@opentelemetry/api ≥ 1.10, and the AsyncLocalStorage context manager). */
interface Token {
  dispose(): void;
}
interface Attaching {
  attach?(ctx: Context): Token;
}
const DISPOSE: symbol = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('nodejs.dispose');
const NO_SCOPE: Scope = { [DISPOSE]: () => {} };

/** Makes `ctx` the active context until the token is disposed, or returns undefined where that cannot be done. */
function attach(ctx: Context): Token | undefined {
  const api = context as unknown as Attaching & { _getContextManager?(): Attaching | undefined };
  if (typeof api.attach === 'function') return api.attach(ctx);
  // @opentelemetry/api < 1.10 has no attach(); the registered manager has (context-async-hooks' does), and this is
  // the only way to it.
  const manager = api._getContextManager?.();
  return typeof manager?.attach === 'function' ? manager.attach(ctx) : undefined;
}

/**
 * The "store" bound to gale.request's start: diagnostics_channel enters a bound store with `store.run(value, fn)`
 * (Node < 25.9), handed here to OpenTelemetry's public `context.with`, or with `store.withScope(value)` (Node ≥ 25.9),
 * handed to `attach` above. So whatever context manager is registered makes the span active, although OpenTelemetry
 * does not expose its AsyncLocalStorage.
 */
function activatingStore(): AsyncLocalStorage<unknown> {
  const store = {
    run: (ctx: Context, fn: () => unknown) => context.with(ctx, fn),
    withScope: (ctx: Context): Scope => {
      const token = attach(ctx);
      return token === undefined ? NO_SCOPE : { [DISPOSE]: () => token.dispose() };
    },
  };
  return store as unknown as AsyncLocalStorage<unknown>;
}

/** Where the span of a request is kept on its trace context. */
const SPAN: unique symbol = Symbol('gale-http.otel.span');
type Carrier = RequestTrace & { [SPAN]?: Span };

/**
 * OpenTelemetry instrumentation for Gale: a SERVER span for every request that reaches JavaScript (routes, middleware,
 * fetch handlers, WebSocket upgrades), named `GET /users/:id`, with the stable HTTP semantic-convention attributes
 * (`http.request.method`, `url.path`, `url.scheme`, `http.route`, `http.response.status_code`, `server.address`,
 * `server.port`, `network.protocol.version`, `user_agent.original`, `client.address`), continuing the trace of an
 * incoming `traceparent` through the registered propagator, and active while the request's middleware and handler
 * run, so spans they create are its children. 5xx answers and responses that did not complete get an error status;
 * thrown errors are recorded on the span. Answers the engine gives without JavaScript (static files, `app.fixed`,
 * 404/405 with no fallback) make no span. Works with `registerInstrumentations` and the Node SDK's
 * `instrumentations` list; it needs a context manager (the SDK's AsyncLocalStorage one) for the active span.
 *
 * @example
 * import { context, propagation, trace } from '@opentelemetry/api';
 * import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
 * import { W3CTraceContextPropagator } from '@opentelemetry/core';
 * import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
 * import { GaleInstrumentation } from '@gale-http/otel';
 * import { gale } from 'gale';
 *
 * context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
 * propagation.setGlobalPropagator(new W3CTraceContextPropagator());
 * trace.setGlobalTracerProvider(
 *   new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }),
 * );
 * new GaleInstrumentation();
 *
 * const app = gale();
 * app.get('/users/:id', (req) => ({ id: req.params.id })); // a span "GET /users/:id"
 * await app.listen(3000);
 */
export class GaleInstrumentation {
  /** This package's name, as OpenTelemetry instrumentations report it. */
  readonly instrumentationName = NAME;
  /** This package's version. */
  readonly instrumentationVersion = VERSION;
  private config: GaleInstrumentationConfig;
  private tracer: Tracer;
  private enabled = false;
  private readonly channel = tracingChannel<unknown, RequestTrace>('gale.request');
  private readonly store = activatingStore();
  private readonly onEnd = (message: unknown) => this.end(message as Carrier);
  private readonly onError = (message: unknown) => this.error(message as Carrier);

  constructor(config: GaleInstrumentationConfig = {}) {
    this.config = { ...config };
    this.tracer = trace.getTracer(NAME, VERSION);
    if (config.enabled !== false) this.enable();
  }

  /** Starts making spans (the constructor does, unless `enabled: false`). */
  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    this.channel.start.bindStore(this.store, (t) => this.start(t as Carrier) as unknown);
    this.channel.asyncEnd.subscribe(this.onEnd);
    this.channel.error.subscribe(this.onError);
  }

  /** Stops making spans (spans of requests still in flight are dropped: they never end, so they are not exported). */
  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    this.channel.start.unbindStore(this.store);
    this.channel.asyncEnd.unsubscribe(this.onEnd);
    this.channel.error.unsubscribe(this.onError);
  }

  /** Use this provider's tracer instead of the global one. */
  setTracerProvider(provider: TracerProvider): void {
    this.tracer = provider.getTracer(NAME, VERSION);
  }

  /** Part of OpenTelemetry's Instrumentation interface; Gale's instrumentation records no metrics. */
  setMeterProvider(_provider: MeterProvider): void {}

  /** Replaces the configuration (`enabled` is read by `registerInstrumentations`). */
  setConfig(config: GaleInstrumentationConfig): void {
    this.config = { ...config };
  }

  /** The configuration. */
  getConfig(): GaleInstrumentationConfig {
    return { ...this.config, enabled: this.enabled };
  }

  /** gale.request start: the span, and the context it is active in for the rest of the request's JavaScript. */
  private start(t: Carrier): Context {
    try {
      if (this.config.ignore?.(t) === true) return context.active();
      const req = t.request;
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const span = this.tracer.startSpan(
        spanName(t),
        { kind: SpanKind.SERVER, attributes: startAttributes(t) },
        parent,
      );
      t[SPAN] = span;
      const active = trace.setSpan(parent, span);
      try {
        this.config.requestHook?.(span, t);
      } catch {
        // The hook's mistake must not lose the span or fail the request.
      }
      return active;
    } catch {
      // A throw here would reach Node as an uncaught exception (diagnostics_channel's bindStore): never fail a request.
      return context.active();
    }
  }

  private error(t: Carrier): void {
    const span = t[SPAN];
    if (span === undefined) return;
    const err = t.error;
    if (err instanceof Error) span.recordException(err);
    else span.recordException(String(err));
  }

  /** gale.request asyncEnd: the response is done. */
  private end(t: Carrier): void {
    const span = t[SPAN];
    if (span === undefined) return;
    t[SPAN] = undefined;
    const status = t.status;
    if (status !== undefined) span.setAttribute('http.response.status_code', status);
    if (status !== undefined && status >= 500) {
      span.setAttribute('error.type', t.error === undefined ? String(status) : errorType(t.error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (t.aborted) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the response did not complete' });
    }
    try {
      this.config.responseHook?.(span, t);
    } finally {
      span.end();
    }
  }
}
