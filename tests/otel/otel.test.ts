// @gale-http/otel with the real OpenTelemetry SDK (sdk-trace-base's BasicTracerProvider and InMemorySpanExporter, the
// AsyncLocalStorage context manager, the W3C propagator) over real sockets: the server span's name, kind and
// semantic-convention attributes; a continued `traceparent`; a child span made in the handler after an await; a
// thrown handler's error span; the fallback without http.route; `ignore`; registerInstrumentations; disable().
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { type TestContext, test } from 'node:test';
import { GaleInstrumentation } from '@gale-http/otel';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { HttpError } from 'gale';
import { testPki } from '../h2/h2.js';
import { h3Requests } from '../h3/aioquic.js';
import { h3App } from '../h3/server.js';
import { sleep, T, withApp } from '../helpers.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

/** An instrumentation writing to its own in-memory exporter, disabled when the test ends. */
function setup(t: TestContext, config: ConstructorParameters<typeof GaleInstrumentation>[0] = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const instrumentation = new GaleInstrumentation(config);
  instrumentation.setTracerProvider(provider);
  t.after(() => instrumentation.disable());
  return { exporter, provider, instrumentation };
}

/** Waits (bounded) for `n` finished spans. */
async function spans(exporter: InMemorySpanExporter, n = 1): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 3000;
  while (exporter.getFinishedSpans().length < n) {
    if (Date.now() > deadline) throw new Error(`${exporter.getFinishedSpans().length} spans, wanted ${n}`);
    await sleep(5);
  }
  return exporter.getFinishedSpans();
}

const serverSpan = (all: ReadableSpan[]) => all.find((s) => s.kind === SpanKind.SERVER) as ReadableSpan;

test('a server span named after the route, with the stable HTTP semantic-convention attributes', T, async (t) => {
  const { exporter } = setup(t);
  const { url, port } = await withApp(t, (app) => {
    app.get('/users/:id', (req) => ({ id: req.params.id }));
  });
  const r = await fetch(`${url}/users/42?fields=name`, { headers: { 'user-agent': 'otel-test/1.0' } });
  assert.deepEqual(await r.json(), { id: '42' });
  const [span] = await spans(exporter);
  assert.ok(span);
  assert.equal(span.name, 'GET /users/:id');
  assert.equal(span.kind, SpanKind.SERVER);
  assert.equal(span.instrumentationScope.name, '@gale-http/otel');
  assert.deepEqual(span.attributes, {
    'http.request.method': 'GET',
    'url.path': '/users/42',
    'url.query': 'fields=name',
    'url.scheme': 'http',
    'http.route': '/users/:id',
    'server.address': '127.0.0.1',
    'server.port': port,
    'network.protocol.version': '1.1',
    'user_agent.original': 'otel-test/1.0',
    'client.address': '127.0.0.1',
    'network.peer.address': '127.0.0.1',
    'network.peer.port': span.attributes['network.peer.port'],
    'http.response.status_code': 200,
  });
  assert.equal(typeof span.attributes['network.peer.port'], 'number');
  assert.equal(span.status.code, SpanStatusCode.UNSET);
  assert.equal(span.parentSpanContext, undefined, 'no traceparent: a root span');
});

test('a request over HTTP/3 is network.protocol.version "3", its scheme https', T, async (t) => {
  const { exporter } = setup(t);
  const { port } = await h3App(t, (app) => {
    app.get('/v', (req) => req.httpVersion);
  });
  const { responses } = await h3Requests(port, testPki().pki.caPath, [{ path: '/v' }]);
  assert.equal(responses[0].body.toString(), '3.0');
  const span = serverSpan(await spans(exporter));
  assert.equal(span.attributes['network.protocol.version'], '3');
  assert.equal(span.attributes['url.scheme'], 'https');
});

test(
  'an incoming traceparent is continued, and a span made in the handler after an await is its child',
  T,
  async (t) => {
    const { exporter, provider } = setup(t);
    const tracer = provider.getTracer('app');
    const { url } = await withApp(t, (app) => {
      app.use(async (_req, res, next) => {
        res.header('x-active', trace.getActiveSpan()?.spanContext().spanId ?? 'none');
        await next();
      });
      app.get('/orders/:id', async (req) => {
        await sleep(5);
        return tracer.startActiveSpan('load order', (child) => {
          child.setAttribute('order.id', req.params.id);
          child.end();
          return { ok: true };
        });
      });
    });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const r = await fetch(`${url}/orders/9`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    assert.deepEqual(await r.json(), { ok: true });
    const all = await spans(exporter, 2);
    const server = serverSpan(all);
    const child = all.find((s) => s.name === 'load order') as ReadableSpan;
    assert.equal(server.spanContext().traceId, traceId, 'the trace continues');
    assert.equal(server.parentSpanContext?.spanId, parentId);
    assert.equal(server.parentSpanContext?.isRemote, true);
    assert.equal(child.spanContext().traceId, traceId);
    assert.equal(child.parentSpanContext?.spanId, server.spanContext().spanId, 'the handler’s span is a child');
    assert.equal(child.attributes['order.id'], '9');
    assert.equal(r.headers.get('x-active'), server.spanContext().spanId, 'active in middleware too');
  },
);

test('a thrown handler: error status, error.type, the exception recorded, status code 500', T, async (t) => {
  const { exporter } = setup(t);
  const quiet = t.mock.method(console, 'error', () => {});
  class PaymentFailed extends Error {}
  const { url } = await withApp(t, (app) => {
    app.post('/pay', async () => {
      await sleep(1);
      throw new PaymentFailed('card declined');
    });
    app.get('/teapot', () => {
      throw new HttpError(418, 'short and stout');
    });
  });
  assert.equal((await fetch(`${url}/pay`, { method: 'POST' })).status, 500);
  const [span] = await spans(exporter);
  assert.ok(span);
  assert.equal(span.name, 'POST /pay');
  assert.equal(span.attributes['http.response.status_code'], 500);
  assert.equal(span.attributes['error.type'], 'PaymentFailed');
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  const ev = span.events.find((e) => e.name === 'exception');
  assert.equal(ev?.attributes?.['exception.message'], 'card declined');
  exporter.reset();
  // A 4xx is the client's error: recorded, but the server span's status stays unset.
  assert.equal((await fetch(`${url}/teapot`)).status, 418);
  const [teapot] = await spans(exporter);
  assert.equal(teapot?.attributes['http.response.status_code'], 418);
  assert.equal(teapot?.status.code, SpanStatusCode.UNSET);
  assert.equal(teapot?.attributes['error.type'], undefined);
  assert.equal(teapot?.events.filter((e) => e.name === 'exception').length, 1);
  quiet.mock.restore();
});

test('no route matched: the span has the method alone as its name and no http.route', T, async (t) => {
  const { exporter } = setup(t);
  const { url } = await withApp(t, (app) => {
    app.notFound((_req, res) => res.status(404).send('none'));
  });
  assert.equal((await fetch(`${url}/missing`, { method: 'DELETE' })).status, 404);
  const [span] = await spans(exporter);
  assert.equal(span?.name, 'DELETE');
  assert.equal(span?.attributes['http.route'], undefined);
  assert.equal(span?.attributes['http.response.status_code'], 404);
});

test('ignore and the hooks', T, async (t) => {
  const { exporter } = setup(t, {
    ignore: (r) => r.path === '/health',
    requestHook: (span, r) => span.setAttribute('app.tenant', r.request.get('x-tenant') ?? 'none'),
    responseHook: (span, r) => span.setAttribute('app.status', String(r.status)),
  });
  const { url } = await withApp(t, (app) => {
    app.get('/health', () => 'ok');
    app.get('/work', () => 'done');
  });
  await (await fetch(`${url}/health`)).text();
  await (await fetch(`${url}/work`, { headers: { 'x-tenant': 'acme' } })).text();
  const all = await spans(exporter);
  await sleep(20);
  assert.equal(exporter.getFinishedSpans().length, 1);
  assert.equal(all[0]?.name, 'GET /work');
  assert.equal(all[0]?.attributes['app.tenant'], 'acme');
  assert.equal(all[0]?.attributes['app.status'], '200');
});

test(
  'registerInstrumentations takes it (the Instrumentation interface); disable() leaves no subscriber',
  T,
  async (t) => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const instrumentation: Instrumentation = new GaleInstrumentation({ enabled: false });
    const unregister = registerInstrumentations({ instrumentations: [instrumentation], tracerProvider: provider });
    t.after(unregister);
    assert.equal(instrumentation.getConfig().enabled, true);
    const { url } = await withApp(t, (app) => {
      app.get('/x', () => 'x');
    });
    await (await fetch(`${url}/x`)).text();
    assert.equal((await spans(exporter))[0]?.name, 'GET /x');
    instrumentation.disable();
    assert.equal(tracingChannel('gale.request').hasSubscribers, false);
    exporter.reset();
    await (await fetch(`${url}/x`)).text();
    await sleep(20);
    assert.equal(exporter.getFinishedSpans().length, 0);
  },
);
