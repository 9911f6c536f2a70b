// What @gale-http/express adds to @types/express's types, and that they stay @types/express's: `express(options)`,
// `app.listen()` returning Gale's server (`galeApp`, `keepAliveTimeout`, `address()`, `close()`), the named exports
// only this package has, Socket.IO attaching to that server; an app still goes wherever @types/express's Express or
// Application is typed; and the same for @gale-http/express/4. Compiled (never run) by tests/types/express.test.ts
// with app.mts, against @gale-http/express only (none of this is in `express`).
import { createServer } from 'node:http';
import express, {
  type Application,
  application,
  type Express,
  type ExpressOptions,
  ExpressRequest,
  ExpressResponse,
  type ExpressServer,
  json,
  Route,
  Router,
  request,
  response,
  serveStatic,
  urlencoded,
} from '@gale-http/express';
import express4, { type ExpressServer as ExpressServer4, query } from '@gale-http/express/4';
import { Server } from '@gale-http/socket.io';
import type * as upstream from 'express';
import type { App } from 'gale';

const options: ExpressOptions = { server: { keepAliveTimeout: 10_000, maxHeaderSize: 32 * 1024 } };
const app: Express = express(options);
app.use(json(), urlencoded({ extended: true }), serveStatic('public'));
const router: Router = Router({ caseSensitive: true });
app.use('/r', router);

const server: ExpressServer = app.listen(0, '127.0.0.1', (err) => {
  if (err) throw err;
  const port: number | undefined = server.address()?.port;
  console.log(`listening on ${port}`);
});
server.keepAliveTimeout = 1_000;
const galeApp: App | undefined = server.galeApp;
void galeApp;
const io = new Server(server);
io.on('connection', (socket) => socket.emit('hello'));
server.close((err) => console.log('closed', err?.message));

// Every form Gale serves returns Gale's server: a port (number, or digits as in PORT), host, backlog, callback.
for (const s of [
  app.listen(),
  app.listen(3000),
  app.listen('3000'),
  app.listen(process.env.PORT),
  app.listen(3000, () => {}),
  app.listen(3000, '::1', 511, () => {}),
  app.listen({ port: 0, host: '127.0.0.1' }, () => {}),
]) {
  const g: App | undefined = s.galeApp;
  void g;
}
// @ts-expect-error: Gale listens on TCP ports only (no pipe or socket path)
app.listen({ path: '/tmp/app.sock' });
// @ts-expect-error: not a port
app.listen(true);

// An app is still @types/express's Express (and Application), and a node:http request listener.
const asExpress: upstream.Express = app;
const asApplication: upstream.Application = app;
const sub: Application = express();
app.use('/sub', sub, asExpress, asApplication);
createServer(app);

// The named exports Express has under other names, and Gale's classes.
const routeClass: typeof express.Route = Route;
const req: upstream.Request = request;
const res: upstream.Response = response;
application.set('x', 1);
void [routeClass, req, res, ExpressRequest.prototype, ExpressResponse.prototype];

// Express 4's rules: `express({ compat: 4 })`, or @gale-http/express/4 with its own types (@types/express@4).
const app4 = express4({ server: { keepAliveTimeout: 5_000 } });
app4.use(query({}), express4.json());
const server4: ExpressServer4 = app4.listen(0, () => console.log(server4.address()?.port));
const galeApp4: App | undefined = server4.galeApp;
void [galeApp4, express({ compat: 4 })];

export { app, app4 };
