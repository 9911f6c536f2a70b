// Differential test: one middleware/router/error script run on Express 5 and on Gale; every request
// must get the same status and body from both. (Content-Type defaults differ by design: Express sends
// strings as text/html, Gale as text/plain, so headers other than custom ones are not compared.)
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import { gale, router } from 'gale';

type Req = { path: string; params: Record<string, string>; get(n: string): string | undefined };
type Res = {
  status(n: number): Res;
  send(b: string): unknown;
  setHeader(k: string, v: string): unknown;
  statusCode: number;
};
type Next = (err?: unknown) => unknown;
type AnyApp = {
  use(...a: unknown[]): unknown;
  get(p: string, ...h: unknown[]): unknown;
};

/** The script, written once against the API both frameworks share. */
function script(app: AnyApp, makeRouter: () => AnyApp): void {
  const trail = (tag: string) => (req: Req, res: Res, next: Next) => {
    res.setHeader(`x-${tag}`, req.path);
    next();
  };
  app.use(trail('global'));
  app.use('/api', trail('api'));
  const users = makeRouter();
  users.use(trail('users'));
  users.get('/:id', (req: Req, res: Res) => res.send(`user ${req.params.id}`));
  users.get('/:id/fail', (_req: Req, _res: Res, next: Next) => next(new Error('user failed')));
  app.use('/api/users', users);
  app.get('/api/ping', (_req: Req, res: Res) => res.send('pong'));
  app.get(
    '/guarded',
    (req: Req, res: Res, next: Next) => (req.get('x-key') === 'k' ? next() : res.status(403).send('forbidden')),
    (_req: Req, res: Res) => res.send('inside'),
  );
  app.get('/throws', () => {
    throw new Error('thrown');
  });
  app.use((req: Req, res: Res) => res.status(404).send(`no ${req.path}`));
  app.use((err: Error, _req: Req, res: Res, _next: Next) => res.status(500).send(`handled: ${err.message}`));
}

const requests: Array<[string, Record<string, string>?]> = [
  ['/api/ping'],
  ['/api/users/42'],
  ['/api/users/42/fail'],
  ['/guarded'],
  ['/guarded', { 'x-key': 'k' }],
  ['/throws'],
  ['/nowhere'],
  ['/api/nowhere'],
];

async function collect(port: number) {
  const out: Array<{ status: number; body: string; global: string | null; api: string | null; users: string | null }> =
    [];
  for (const [path, headers] of requests) {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    out.push({
      status: r.status,
      body: await r.text(),
      global: r.headers.get('x-global'),
      api: r.headers.get('x-api'),
      users: r.headers.get('x-users'),
    });
  }
  return out;
}

test('Express 5 and Gale answer the same middleware/router/error script identically', { timeout: 15_000 }, async () => {
  const e = express();
  script(e as unknown as AnyApp, () => express.Router() as unknown as AnyApp);
  const server = e.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const expected = await collect((server.address() as AddressInfo).port);
  server.close();

  const g = gale({ logger: { error() {}, warn() {}, info() {} }, requestLogging: false });
  script(g as unknown as AnyApp, () => router() as unknown as AnyApp);
  const { port } = await g.listen(0, '127.0.0.1');
  try {
    const actual = await collect(port);
    for (let i = 0; i < requests.length; i++) {
      assert.deepEqual(actual[i], expected[i], `GET ${requests[i]?.[0]}`);
    }
  } finally {
    await g.close();
  }
});
