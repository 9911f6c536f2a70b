// Benchmark app: Gale (packages/gale, must be built: dist/index.js). A returned object is sent as JSON, a returned
// string as text/plain; charset=utf-8; files are answered by the native engine (app.static), with the memory cache
// unless STATIC_CACHE=0 (the `gale-nocache` server). Serves the HTTP scenarios of bench/lib/scenarios.ts on
// 127.0.0.1:$PORT.
import { gale } from 'gale';
import { ensureLargeFile, prerenderedDir, publicDir } from '../../examples/demo/assets.mjs';

ensureLargeFile();
const app = gale();

app.get('/', () => ({ hello: 'world' }));
app.get('/json', () => ({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
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
app.onError((_err, _req, res) => res.status(500).json({ error: 'internal' }));
app.static('/static', publicDir, { cache: process.env.STATIC_CACHE !== '0' });
app.static('/', prerenderedDir);

await app.listen(Number(process.env.PORT), '127.0.0.1');
