// express-session on @gale-http/express with its MemoryStore and with connect-redis against a real
// redis-server started here: the session survives across requests (and, in Redis, across servers).
// biome-ignore-all lint/suspicious/noExplicitAny: express-session's types name Express's own req
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { after, test } from 'node:test';
import express from '@gale-http/express';
import { RedisStore } from 'connect-redis';
import session from 'express-session';
import { createClient } from 'redis';
import { cookieFetch, start } from './helpers.js';

const T = { timeout: 20_000 };

function sessionApp(store?: session.Store): ReturnType<typeof express> {
  const app = express();
  app.use(
    session({
      secret: 'keyboard cat',
      resave: false,
      saveUninitialized: false,
      store,
      cookie: { httpOnly: true, maxAge: 60_000 },
    }) as any,
  );
  app.post('/login/:name', (req: any, res) => {
    req.session.user = req.params.name;
    req.session.views = 0;
    res.send(`hello ${req.params.name}`);
  });
  app.get('/me', (req: any, res) => {
    if (!req.session.user) return res.status(401).send('who are you?');
    req.session.views += 1;
    res.json({ user: req.session.user, views: req.session.views, id: req.sessionID });
  });
  app.post('/logout', (req: any, res, next) =>
    req.session.destroy((err: unknown) => (err ? next(err) : res.send('bye'))),
  );
  return app;
}

test(
  'express-session (MemoryStore): the session cookie carries state across requests, destroy ends it',
  T,
  async () => {
    const s = await start(sessionApp());
    try {
      const f = cookieFetch();
      assert.equal((await f(`${s.url}/me`)).status, 401);
      const login = await f(`${s.url}/login/ada`, { method: 'POST' });
      assert.equal(await login.text(), 'hello ada');
      const cookie = login.headers.getSetCookie()[0] ?? '';
      assert.match(cookie, /^connect\.sid=s%3A[^;]+; Path=\/; Expires=[^;]+; HttpOnly$/);
      const a = await (await f(`${s.url}/me`)).json();
      const b = await (await f(`${s.url}/me`)).json();
      assert.equal(a.user, 'ada');
      assert.deepEqual([a.views, b.views], [1, 2]);
      assert.equal(a.id, b.id);
      assert.equal(await (await f(`${s.url}/logout`, { method: 'POST' })).text(), 'bye');
      assert.equal((await f(`${s.url}/me`)).status, 401);
      // Another client has no session.
      assert.equal((await fetch(`${s.url}/me`)).status, 401);
    } finally {
      await s.close();
    }
  },
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

let redis: ChildProcess | undefined;
after(() => {
  redis?.kill('SIGKILL');
});

async function startRedis(): Promise<number> {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new Error('redis-server was not found: install it with `apt-get install -y redis-server`');
  }
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return port;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not accept connections on port ${port} within 5 s`);
}

test('express-session with connect-redis: sessions live in a real Redis and survive a server restart', T, async () => {
  const port = await startRedis();
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  try {
    const f = cookieFetch();
    const s1 = await start(sessionApp(new RedisStore({ client, prefix: 'gale:' }) as unknown as session.Store));
    let id: string;
    try {
      assert.equal(await (await f(`${s1.url}/login/grace`, { method: 'POST' })).text(), 'hello grace');
      const me = await (await f(`${s1.url}/me`)).json();
      assert.equal(me.user, 'grace');
      id = me.id;
    } finally {
      await s1.close();
    }
    const stored = JSON.parse((await client.get(`gale:${id}`)) as string);
    assert.equal(stored.user, 'grace');
    assert.equal(stored.views, 1);
    // A new server (new store object) finds the session in Redis from the same cookie.
    const s2 = await start(sessionApp(new RedisStore({ client, prefix: 'gale:' }) as unknown as session.Store));
    try {
      const me = await (await f(`${s2.url}/me`)).json();
      assert.deepEqual([me.user, me.views, me.id], ['grace', 2, id]);
      assert.equal(await (await f(`${s2.url}/logout`, { method: 'POST' })).text(), 'bye');
      assert.equal(await client.get(`gale:${id}`), null);
    } finally {
      await s2.close();
    }
  } finally {
    await client.quit();
  }
});
