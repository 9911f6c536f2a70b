// Benchmark app: Gale (packages/gale, must be built: dist/index.js). A returned object is sent as JSON (through the
// route's compiled serializer on /json-schema), a returned string as text/plain; charset=utf-8; files are answered by
// the native engine (app.static), with the memory cache unless STATIC_CACHE=0 (the `gale-nocache` server).
// GALE_BENCH_TRACE=subscriber subscribes do-nothing handlers to every event of Gale's TracingChannels
// (`gale-trace-sub`); =otel runs @gale-http/otel with the OpenTelemetry SDK exporting to memory (`gale-otel`).
// Serves the HTTP scenarios of bench/lib/scenarios.ts on 127.0.0.1:$PORT.
import { gale } from 'gale';
import { ensureLargeFile, prerenderedDir, publicDir } from '../../examples/demo/assets.mjs';
import { JSON_SCHEMA } from './json-schema.mjs';

ensureLargeFile();
const trace = process.env.GALE_BENCH_TRACE ?? 'none';
if (trace === 'subscriber') {
  const { tracingChannel } = await import('node:diagnostics_channel');
  const none = () => {};
  for (const name of ['gale.request', 'gale.handler']) {
    tracingChannel(name).subscribe({ start: none, end: none, asyncStart: none, asyncEnd: none, error: none });
  }
} else if (trace === 'otel') {
  const { context, propagation, trace: traceApi } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } = await import(
    '@opentelemetry/sdk-trace-base'
  );
  const { GaleInstrumentation } = await import('@gale-http/otel');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = new InMemorySpanExporter();
  // The SDK's usual batching, with a queue large enough that spans are exported rather than dropped at bench rates;
  // what was exported is forgotten every second, so memory stays flat.
  const processor = new BatchSpanProcessor(exporter, {
    maxQueueSize: 65_536,
    maxExportBatchSize: 8192,
    scheduledDelayMillis: 200,
  });
  traceApi.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
  setInterval(() => exporter.reset(), 1000).unref();
  new GaleInstrumentation();
} else if (trace !== 'none') {
  throw new Error(`GALE_BENCH_TRACE is none, subscriber or otel; got ${JSON.stringify(trace)}`);
}
const app = gale();

app.get('/', () => ({ hello: 'world' }));
app.get('/json', () => ({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
// json-schema: the same object written by the serializer compiled from the route's response schema.
app.get('/json-schema', { response: { 200: JSON_SCHEMA } }, () => ({
  foo: 'bar',
  one: [2, 'three'],
  bar: { baz: 'quux' },
}));
app.get('/text', () => 'Hello 世界');
app.get('/hello/:name', (req) => `Hello ${req.params.name}`);
// middleware: five no-op async middlewares (await next()) and an error handler.
const noop = async (_req, _res, next) => {
  await next();
};
app.get('/mw', noop, noop, noop, noop, noop, () => ({ hello: 'world' }));
// middleware-sync: five Express-style synchronous steps.
const pass = (_req, _res, next) => next();
app.get('/mw-sync', pass, pass, pass, pass, pass, () => ({ hello: 'world' }));
// async / async-io: the handler awaits an already-resolved promise, or one setImmediate (an I/O-like resume).
app.get('/async', async () => {
  await Promise.resolve();
  return { hello: 'world' };
});
app.get('/async-io', async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return { hello: 'world' };
});
app.onError((_err, _req, res) => res.status(500).json({ error: 'internal' }));
app.static('/static', publicDir, { cache: process.env.STATIC_CACHE !== '0' });
app.static('/', prerenderedDir);

await app.listen(Number(process.env.PORT), '127.0.0.1');
