// Benchmark app: Express 5 with its defaults (res.json / res.send, express.static), or Express 4 with
// BENCH_EXPRESS=express4 (the devDependency express4@npm:express@4), or the same app on Gale's drop-in with
// BENCH_EXPRESS=@gale-http/express (the `gale-express-bare` server). Serves the HTTP scenarios of
// bench/lib/scenarios.ts on 127.0.0.1:$PORT. Prints nothing but errors.
import { ensureLargeFile, prerenderedDir, publicDir } from '../../examples/demo/assets.mjs';

const { default: express } = await import(process.env.BENCH_EXPRESS ?? 'express');

ensureLargeFile();
const app = express();

app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/json', (_req, res) => {
  res.json({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });
});
app.get('/text', (_req, res) => {
  res.set('Content-Type', 'text/plain; charset=utf-8').send('Hello 世界');
});
app.get('/hello/:name', (req, res) => {
  res.set('Content-Type', 'text/plain; charset=utf-8').send(`Hello ${req.params.name}`);
});
// middleware: five no-op async middlewares and an error handler (Express 5 awaits async middleware
// errors; `next()` does not return the rest of the chain, so there is nothing to await).
const noop = async (_req, _res, next) => {
  next();
};
app.get('/mw', noop, noop, noop, noop, noop, (_req, res) => {
  res.json({ hello: 'world' });
});
// middleware-sync: five synchronous `(req, res, next) => next()` steps.
const pass = (_req, _res, next) => next();
app.get('/mw-sync', pass, pass, pass, pass, pass, (_req, res) => {
  res.json({ hello: 'world' });
});
// async / async-io: the handler awaits an already-resolved promise, or one setImmediate (an I/O-like resume).
app.get('/async', async (_req, res) => {
  await Promise.resolve();
  res.json({ hello: 'world' });
});
app.get('/async-io', async (_req, res) => {
  await new Promise((resolve) => setImmediate(resolve));
  res.json({ hello: 'world' });
});
app.use('/static', express.static(publicDir));
app.use(express.static(prerenderedDir));

app.use((_err, _req, res, _next) => {
  res.status(500).json({ error: 'internal' });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1', (err) => {
  // Express 5 passes listen errors here; Express 4 emits them on the server.
  if (err) {
    console.error(err);
    process.exit(1);
  }
});
server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
