// Sessions over real sockets: cookie sessions, MemoryStore and RedisStore (a real redis-server) keep data across
// requests, expire, refuse tampered cookies, rotate secrets, regenerate and destroy; a store write finishes
// before the answer goes out; data too large for a cookie is a clear 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Logger, MemoryStore, RedisStore, type SessionOptions, type SessionStore, session } from 'gale';
import { type App, simpleRequest, sleep, T, withApp } from '../helpers.js';
import { withRedis } from './redis.js';

const SECRET = 'a long random secret for tests';

function quietLogger(): Logger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  const l = { errors, info: () => {}, warn: () => {}, error: (...a: unknown[]) => errors.push(a), child: () => l };
  return l;
}

function routes(app: App, options: SessionOptions): void {
  app.use(session(options));
  app.get('/count', (req) => {
    const n = Number(req.session.count ?? 0) + 1;
    req.session.count = n;
    return { count: n, id: req.session.id ?? null };
  });
  app.get('/peek', (req) => ({ count: req.session.count ?? null, id: req.session.id ?? null }));
  app.post('/login', async (req) => {
    const before = req.session.id;
    await req.session.regenerate();
    req.session.user = 'ada';
    return { before: before ?? null };
  });
  app.post('/logout', async (req) => {
    await req.session.destroy();
    return 'bye';
  });
  app.get('/stream', (req, res) => {
    req.session.streamed = true;
    res.write('a');
    res.end('b');
  });
  app.get('/big', (req) => {
    req.session.blob = 'x'.repeat(5000);
    return 'too big';
  });
}

/** A tiny cookie jar: the session cookie as the server last set it. */
class Client {
  cookie: string | undefined;
  constructor(
    private readonly port: number,
    private readonly name = 'gale.sid',
  ) {}
  async request(path: string, method = 'GET') {
    const r = await simpleRequest(this.port, { method, path, headers: this.cookie ? { cookie: this.cookie } : {} });
    for (const c of r.getAll('set-cookie')) {
      if (!c.startsWith(`${this.name}=`)) continue;
      const [pair] = c.split(';');
      this.cookie = /Expires=Thu, 01 Jan 1970/.test(c) || pair === `${this.name}=` ? undefined : pair;
    }
    return r;
  }
  async json(path: string, method = 'GET'): Promise<Record<string, unknown>> {
    const r = await this.request(path, method);
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text);
  }
}

/** The behaviour every kind of session shares. */
async function lifecycle(port: number, store: boolean): Promise<void> {
  const c = new Client(port);
  assert.equal((await c.request('/peek')).getAll('set-cookie').length, 0, 'an untouched session sends no cookie');
  assert.equal((await c.json('/count')).count, 1);
  assert.ok(c.cookie, 'the first write sets the cookie');
  const cookie = c.cookie as string;
  assert.match((await c.request('/count')).getAll('set-cookie')[0] ?? '', /HttpOnly; SameSite=Lax/);
  assert.equal((await c.json('/count')).count, 3);
  assert.equal((await c.json('/peek')).count, 3);
  // another client has its own session
  assert.equal((await new Client(port).json('/count')).count, 1);
  // tampering: flip a character of the value
  const bad = new Client(port);
  const v = cookie.slice(cookie.indexOf('=') + 1);
  const flipped = `${v.slice(0, 3)}${v[3] === 'A' ? 'B' : 'A'}${v.slice(4)}`;
  bad.cookie = `gale.sid=${flipped}`;
  assert.equal((await bad.json('/peek')).count, null, 'a tampered cookie is an empty session');
  // regenerate: data kept only as set after it; store sessions get a new id
  const before = (await c.json('/peek')).id;
  const login = await c.json('/login', 'POST');
  assert.equal(login.before, before);
  const after = await c.json('/peek');
  assert.equal(after.count, null);
  if (store) assert.notEqual(after.id, before);
  // destroy: the cookie is cleared, the data gone
  const out = await c.request('/logout', 'POST');
  assert.match(out.getAll('set-cookie')[0] ?? '', /^gale\.sid=; Path=\/; Expires=Thu, 01 Jan 1970/);
  c.cookie = cookie; // a client replaying its old cookie finds nothing
  if (store) assert.equal((await c.json('/peek')).count, null, 'the destroyed (regenerated) session is gone');
}

test('cookie sessions: data across requests, tampering, regenerate, destroy, streams', T, async (t) => {
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET }));
  await lifecycle(port, false);
  const c = new Client(port);
  const streamed = await c.request('/stream');
  assert.equal(streamed.text, 'ab');
  assert.ok(c.cookie, 'a streamed answer carries the cookie with its head');
});

test('cookie sessions expire after maxAge even when the client replays the cookie; secrets rotate', T, async (t) => {
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET, maxAge: 800 }));
  const c = new Client(port);
  await c.json('/count');
  assert.equal((await c.json('/count')).count, 2);
  const cookie = c.cookie;
  await sleep(1000);
  c.cookie = cookie;
  assert.equal((await c.json('/count')).count, 1, 'expired: a new session');
  // Rotation: a cookie signed by an app with the old secret is read by one that lists it second.
  const before = await withApp(t, (app) => routes(app, { secret: SECRET, maxAge: 60_000 }));
  const rotated = await withApp(t, (app) => routes(app, { secret: ['new secret', SECRET], maxAge: 60_000 }));
  const signedWithOld = new Client(before.port);
  await signedWithOld.json('/count');
  const r = new Client(rotated.port);
  r.cookie = signedWithOld.cookie;
  assert.equal((await r.json('/count')).count, 2, 'an older secret still verifies');
  assert.notEqual(r.cookie, signedWithOld.cookie, 're-signed with the first secret');
});

test('cookie sessions: data too large for a cookie is a 500 that says so', T, async (t) => {
  const logger = quietLogger();
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET }), { logger, requestLogging: false });
  const r = await simpleRequest(port, { path: '/big' });
  assert.equal(r.status, 500);
  assert.match(String((logger.errors[0]?.[0] as Error)?.message), /too large for a cookie session.*use a store/);
});

test('MemoryStore: data across requests, regenerate, destroy, expiry, saveUninitialized, rolling', T, async (t) => {
  const store = new MemoryStore();
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET, store }));
  await lifecycle(port, true);
  const short = await withApp(t, (app) => routes(app, { secret: SECRET, store: new MemoryStore(), maxAge: 300 }));
  const c = new Client(short.port);
  await c.json('/count');
  await sleep(450);
  assert.equal((await c.json('/peek')).count, null, 'expired in the store');
  const eager = await withApp(t, (app) =>
    routes(app, { secret: SECRET, store: new MemoryStore(), saveUninitialized: true }),
  );
  assert.equal((await simpleRequest(eager.port, { path: '/peek' })).getAll('set-cookie').length, 1);
  const rolling = await withApp(t, (app) =>
    routes(app, { secret: SECRET, store: new MemoryStore(), rolling: true, maxAge: 1000 }),
  );
  // The store and the cookies read Date.now(): the test moves that clock itself, so a machine too busy to answer
  // within a gap cannot expire the session under it (the server's sockets and timers run for real).
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const r = new Client(rolling.port);
  await r.json('/count');
  for (let i = 0; i < 4; i++) {
    t.mock.timers.tick(350);
    const peek = await r.request('/peek');
    assert.equal(peek.getAll('set-cookie').length, 1, 'rolling: every answer refreshes the cookie');
  }
  assert.equal((await r.json('/peek')).count, 1, 'kept alive past maxAge by activity');
  t.mock.timers.tick(1001);
  assert.equal((await r.json('/peek')).count, null, 'expired after maxAge without activity');
  t.mock.timers.reset();
});

test('a store write finishes before the answer goes out: the next request always sees it', T, async (t) => {
  const inner = new MemoryStore();
  let writes = 0;
  const slow: SessionStore = {
    get: (id) => inner.get(id),
    set: async (id, data, ttl) => {
      await sleep(40);
      writes++;
      inner.set(id, data, ttl);
    },
    destroy: (id) => inner.destroy(id),
  };
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET, store: slow }));
  const c = new Client(port);
  for (let i = 1; i <= 5; i++) {
    const t0 = Date.now();
    assert.equal((await c.json('/count')).count, i);
    assert.ok(Date.now() - t0 >= 35, 'the answer waited for the store');
  }
  assert.equal(writes, 5);
});

test('RedisStore on a real redis-server: data across requests, TTL, regenerate, destroy, expiry', T, async (t) => {
  const { client } = await withRedis(t);
  const store = new RedisStore({ client, prefix: 'test:' });
  const { port } = await withApp(t, (app) => routes(app, { secret: SECRET, store, maxAge: 60_000 }));
  await lifecycle(port, true);
  const c = new Client(port);
  const { id } = await c.json('/count');
  assert.equal(typeof id, 'string');
  assert.deepEqual(JSON.parse((await client.get(`test:${id}`)) as string), { count: 1 });
  const ttl = await client.pttl(`test:${id}`);
  assert.ok(ttl > 50_000 && ttl <= 60_000, `TTL ${ttl} ms`);
  await c.json('/login', 'POST');
  assert.equal(await client.exists(`test:${id}`), 0, 'regenerate removed the old key');
  const short = await withApp(t, (app) => routes(app, { secret: SECRET, store, maxAge: 800 }));
  const s = new Client(short.port);
  await s.json('/count');
  assert.equal((await s.json('/count')).count, 2);
  await sleep(1000);
  assert.equal((await s.json('/peek')).count, null, 'expired by Redis');
  assert.throws(() => new RedisStore({} as never), /ioredis or node-redis/);
  assert.throws(() => session({ secret: '' }), /non-empty secret/);
});
