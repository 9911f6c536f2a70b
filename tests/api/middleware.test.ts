// Middleware, routers, error handlers and notFound over real sockets: order, `await next()` timing,
// Express-style next()/next(err), prefixes, nesting, scoped onError, and the unmatched-path chain.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError, router } from 'gale';
import { sleep, T, withApp } from '../helpers.js';

async function get(port: number, path: string, init?: RequestInit) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, init);
  return { status: r.status, headers: r.headers, text: await r.text() };
}

test('use() runs in declaration order around the handler; await next() resumes after it', T, async (t) => {
  const order: string[] = [];
  const { port } = await withApp(t, (app) => {
    app.use(async (_req, _res, next) => {
      order.push('a>');
      await next();
      order.push('a<');
    });
    app.use(async (_req, _res, next) => {
      order.push('b>');
      await next();
      order.push('b<');
    });
    app.get('/x', async () => {
      await sleep(5);
      order.push('handler');
      return 'ok';
    });
  });
  const r = await get(port, '/x');
  assert.equal(r.text, 'ok');
  assert.deepEqual(order, ['a>', 'b>', 'handler', 'b<', 'a<']);
});

test('a timing middleware sees the status set by the handler after await next()', T, async (t) => {
  let seen = 0;
  const { port } = await withApp(t, (app) => {
    app.use(async (_req, res, next) => {
      await next();
      seen = res.statusCode;
    });
    app.post('/made', (_req, res) => res.status(201).json({ ok: true }));
  });
  const r = await get(port, '/made', { method: 'POST' });
  assert.equal(r.status, 201);
  assert.equal(seen, 201);
});

test('Express-style sync middleware with next() and per-route middleware', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use((_req, res, next) => {
      res.header('x-global', '1');
      next();
    });
    const auth = (req: { get(n: string): string | undefined }, _res: unknown, next: (e?: unknown) => unknown) =>
      req.get('authorization') === 'secret' ? next() : next(new HttpError(401, 'no token'));
    app.get('/private', auth, () => 'welcome');
  });
  const denied = await get(port, '/private');
  assert.equal(denied.status, 401);
  assert.equal(denied.text, 'no token');
  assert.equal(denied.headers.get('x-global'), '1');
  const ok = await get(port, '/private', { headers: { authorization: 'secret' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.text, 'welcome');
});

test('a middleware that answers stops the chain', T, async (t) => {
  let reached = false;
  const { port } = await withApp(t, (app) => {
    app.use((_req, res) => res.status(503).send('maintenance'));
    app.get('/x', () => {
      reached = true;
      return 'x';
    });
  });
  const r = await get(port, '/x');
  assert.equal(r.status, 503);
  assert.equal(r.text, 'maintenance');
  assert.equal(reached, false);
});

test('use(prefix) applies under the prefix only (segment boundary), not to other routes', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use('/api', (_req, res, next) => {
      res.header('x-api', 'yes');
      next();
    });
    app.get('/api', () => 'root');
    app.get('/api/users/:id', (req) => req.params.id);
    app.get('/apix', () => 'apix');
    app.get('/other', () => 'other');
  });
  assert.equal((await get(port, '/api')).headers.get('x-api'), 'yes');
  assert.equal((await get(port, '/api/users/9')).headers.get('x-api'), 'yes');
  assert.equal((await get(port, '/apix')).headers.get('x-api'), null);
  assert.equal((await get(port, '/other')).headers.get('x-api'), null);
});

test('a use() declared after a route does not run for it (Express order semantics)', T, async (t) => {
  let late = 0;
  const { port } = await withApp(t, (app) => {
    app.get('/early', () => 'early');
    app.use((_req, _res, next) => {
      late++;
      next();
    });
    app.get('/late', () => 'late');
  });
  await get(port, '/early');
  assert.equal(late, 0);
  await get(port, '/late');
  assert.equal(late, 1);
});

test('a prefix decided at run time: use("/users/5") before get("/users/:id")', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use('/users/5', (_req, res, next) => {
      res.header('x-five', 'yes');
      next();
    });
    app.get('/users/:id', (req) => req.params.id);
  });
  assert.equal((await get(port, '/users/5')).headers.get('x-five'), 'yes');
  assert.equal((await get(port, '/users/6')).headers.get('x-five'), null);
});

test('routers mount at a prefix, nest, and keep their own middleware', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    const v1 = router();
    v1.use((_req, res, next) => {
      res.header('x-v1', '1');
      next();
    });
    v1.get('/items/:id', (req) => ({ v: 1, id: req.params.id }));
    const api = router();
    api.use((_req, res, next) => {
      res.header('x-api', '1');
      next();
    });
    api.use('/v1', v1);
    api.get('/health', () => 'ok');
    app.use('/api', api);
    app.get('/', () => 'home');
  });
  const item = await get(port, '/api/v1/items/7');
  assert.equal(item.text, '{"v":1,"id":"7"}');
  assert.equal(item.headers.get('x-api'), '1');
  assert.equal(item.headers.get('x-v1'), '1');
  const health = await get(port, '/api/health');
  assert.equal(health.text, 'ok');
  assert.equal(health.headers.get('x-v1'), null);
  assert.equal((await get(port, '/')).headers.get('x-api'), null);
});

test('routes added to a router after it was mounted are served', T, async (t) => {
  const r = router();
  const { port } = await withApp(t, (app) => {
    app.use('/late', r);
  });
  r.get('/added', () => 'added later');
  assert.equal((await get(port, '/late/added')).text, 'added later');
});

test('error handlers: router onError first, then app onError, then the default 500', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    const r = router();
    r.get('/handled', () => {
      throw new Error('router-handled');
    });
    r.get('/rethrown', () => {
      throw new Error('to-app');
    });
    r.onError((err, _req, res) => {
      if ((err as Error).message === 'router-handled') return res.status(502).send('router');
      throw err;
    });
    app.use('/r', r);
    app.get('/async', async () => {
      await sleep(1);
      throw new HttpError(409, 'async conflict');
    });
    app.onError((err, _req, res) => {
      const status = err instanceof HttpError ? err.status : 500;
      res.status(status).send(`app: ${(err as Error).message}`);
    });
  });
  assert.deepEqual(await get(port, '/r/handled').then((r) => [r.status, r.text]), [502, 'router']);
  assert.deepEqual(await get(port, '/r/rethrown').then((r) => [r.status, r.text]), [500, 'app: to-app']);
  assert.deepEqual(await get(port, '/async').then((r) => [r.status, r.text]), [409, 'app: async conflict']);
});

test('an error handler may return a value, and Express 4-argument error middleware works', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/a', () => {
      throw new Error('a');
    });
    app.use((err: unknown, _req: never, _res: never, _next: never) => ({ caught: (err as Error).message }));
  });
  const r = await get(port, '/a');
  assert.equal(r.status, 200);
  assert.equal(r.text, '{"caught":"a"}');
});

test('an async middleware that rejects reaches the error handler; the server keeps serving', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use('/bad', async () => {
      await sleep(1);
      throw new HttpError(418, 'short and stout');
    });
    app.get('/bad/x', () => 'never');
    app.get('/fine', () => 'fine');
  });
  const r = await get(port, '/bad/x');
  assert.equal(r.status, 418);
  assert.equal(r.text, 'short and stout');
  assert.equal((await get(port, '/fine')).text, 'fine');
});

test('calling next() twice rejects the second call and the response is unaffected', T, async (t) => {
  let second: unknown;
  const { port } = await withApp(t, (app) => {
    app.use(async (_req, _res, next) => {
      await next();
      second = await next().catch((e: unknown) => e);
    });
    app.get('/x', () => 'x');
  });
  assert.equal((await get(port, '/x')).text, 'x');
  await sleep(10);
  assert.equal((second as { code?: string }).code, 'GALE_ERR_NEXT_TWICE');
});

test('notFound: unmatched paths go through middleware, then the notFound handler', T, async (t) => {
  const seen: string[] = [];
  const { port } = await withApp(t, (app) => {
    app.use((req, _res, next) => {
      seen.push(req.path);
      next();
    });
    app.get('/known', () => 'known');
    app.notFound((req, res) => res.status(404).json({ missing: req.path }));
  });
  const r = await get(port, '/unknown/deep?x=1');
  assert.equal(r.status, 404);
  assert.equal(r.text, '{"missing":"/unknown/deep"}');
  assert.deepEqual(seen, ['/unknown/deep']);
  // 405 stays the engine's: the path exists.
  const m = await get(port, '/known', { method: 'DELETE' });
  assert.equal(m.status, 405);
  assert.equal(m.headers.get('allow'), 'GET, HEAD');
});

test('without middleware or notFound, unmatched paths stay native 404s', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/known', () => 'known');
  });
  const r = await get(port, '/nope');
  assert.equal(r.status, 404);
  assert.equal(r.text, 'Not Found');
});

test('use() rejects things that are not middleware', T, async (t) => {
  await withApp(t, (app) => {
    assert.throws(() => app.use(42 as never), /not a middleware or router/);
    assert.throws(() => app.use('no-slash', () => {}), /must start with '\/'/);
    assert.throws(() => app.use('/x'), /at least one/);
  });
});
