// Benchmark app: Fastify 5, logger off, handlers return the value, @fastify/static for files. Serves the HTTP
// scenarios of bench/lib/scenarios.ts on 127.0.0.1:$PORT. Prints nothing but errors.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { ensureLargeFile, prerenderedDir, publicDir } from '../../examples/demo/assets.mjs';
import { JSON_SCHEMA } from './json-schema.mjs';

ensureLargeFile();
const app = Fastify({ logger: false });

app.get('/', async () => ({ hello: 'world' }));
app.get('/json', async () => ({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
// json-schema: the same object written by the serializer Fastify compiles from the route's response schema.
app.get('/json-schema', { schema: { response: { 200: JSON_SCHEMA } } }, async () => ({
  foo: 'bar',
  one: [2, 'three'],
  bar: { baz: 'quux' },
}));
app.get('/text', async (_req, reply) => {
  reply.type('text/plain; charset=utf-8');
  return 'Hello 世界';
});
app.get('/hello/:name', async (req, reply) => {
  reply.type('text/plain; charset=utf-8');
  return `Hello ${req.params.name}`;
});
// middleware: five no-op async preHandler hooks on the route and an error handler.
const noop = async () => {};
app.get('/mw', { preHandler: [noop, noop, noop, noop, noop] }, async () => ({ hello: 'world' }));
// middleware-sync: five callback-style preHandler hooks that call done() at once, and a synchronous handler.
const pass = (_req, _reply, done) => done();
app.get('/mw-sync', { preHandler: [pass, pass, pass, pass, pass] }, (_req, reply) => {
  reply.send({ hello: 'world' });
});
// async / async-io: the handler awaits an already-resolved promise, or one setImmediate (an I/O-like resume).
app.get('/async', async () => {
  await Promise.resolve();
  return { hello: 'world' };
});
app.get('/async-io', async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return { hello: 'world' };
});
app.setErrorHandler(async (_err, _req, reply) => reply.code(500).send({ error: 'internal' }));
await app.register(fastifyStatic, { root: publicDir, prefix: '/static/' });
// A second root at /: its wildcard route /* sits beside the routes above, which are matched first.
await app.register(fastifyStatic, { root: prerenderedDir, prefix: '/', decorateReply: false });

try {
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
} catch (err) {
  console.error(err);
  process.exit(1);
}
