// Benchmark app for the express-app and express-bare scenarios: one ordinary Express app run unchanged by the Express
// EXPRESS_IMPL names — 'express' (Express 5, default), 'express4', '@gale-http/express', or the peers on uWebSockets.js
// 'fulmine' and 'ultimate-express' (apps/peers.mjs; GALE_BENCH_DECLARATIVE=0 turns their compiled responses off, and
// @gale-http/express's native answers too: they all read 'declarative responses').
// EXPRESS_MW=1 adds cors(), helmet() and express.json() in front of the routes. On 127.0.0.1:$PORT.
import cors from 'cors';
import helmet from 'helmet';
import { loadPeer, reportCompiledRoutes } from './peers.mjs';

const impl = process.env.EXPRESS_IMPL ?? 'express';
const express =
  impl === 'fulmine'
    ? loadPeer('fulmine', process.env.GALE_BENCH_FULMINE)
    : impl === 'ultimate-express'
      ? loadPeer('ultimate-express', process.env.GALE_BENCH_UEXPRESS)
      : (await import(impl)).default;

const app = express();
app.disable('x-powered-by');
if (process.env.GALE_BENCH_DECLARATIVE === '0') app.set('declarative responses', false);
if (process.env.EXPRESS_MW === '1') {
  app.use(cors());
  app.use(helmet());
  app.use(express.json());
}
// The handlers are written as an application would write them (a peer may compile such a handler into a response
// answered without running it: the server's notes say which).
app.get('/', (_req, res) => res.json({ hello: 'world' }));
app.get('/u/:id', (req, res) => res.send(`user ${req.params.id}`));
app.get('/a', async (_req, res) => {
  await Promise.resolve();
  res.json({ hello: 'world' });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  if (impl === 'fulmine') reportCompiledRoutes(impl, process.env.GALE_BENCH_FULMINE, app);
  if (impl === 'ultimate-express') reportCompiledRoutes(impl, process.env.GALE_BENCH_UEXPRESS, app);
});
// @gale-http/express keeps a route's answer in the engine at its first GET (declarative responses): which routes that
// happened to is known once the load ran, so it is said when the harness stops the server.
if (impl === '@gale-http/express' || impl.endsWith('.js')) {
  process.once('SIGTERM', () => {
    const list = (server._nativeAnswers ?? []).map((p) => `GET ${p}`).join(', ') || 'no route';
    process.stderr.write(`bench-note: @gale-http/express answers without running JavaScript: ${list}\n`);
    process.exit(0);
  });
}
