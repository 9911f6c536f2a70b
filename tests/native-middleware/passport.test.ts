// passport with passport-local on Gale's native API: reading a req.body nobody set is refused (not a silent 400);
// with a middleware that sets req.body and Gale's own session(), the whole login flow works over real sockets.
// biome-ignore-all lint/suspicious/noExplicitAny: passport is typed for Express's req/res
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { session } from 'gale';
import { Passport } from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { T, withApp } from '../helpers.js';
import { assertRefused, memoryLogger, request } from './helpers.js';

const USERS = new Map([['ada', { id: '1', username: 'ada', password: 'lovelace' }]]);

function makePassport(): InstanceType<typeof Passport> {
  const passport = new Passport();
  passport.use(
    new LocalStrategy((username, password, done) => {
      const u = USERS.get(username);
      return u && u.password === password ? done(null, u) : done(null, false, { message: 'bad credentials' });
    }),
  );
  passport.serializeUser((user: any, done) => done(null, user.id));
  passport.deserializeUser((id: string, done) => done(null, [...USERS.values()].find((u) => u.id === id) ?? false));
  return passport;
}

const form = (body: string) => ({ 'content-type': 'application/x-www-form-urlencoded', body });

test('passport-local without anything setting req.body: refused at its first use, not a silent 400', T, async (t) => {
  const logger = memoryLogger();
  const passport = makePassport();
  const { port } = await withApp(
    t,
    (app) => {
      app.post('/login', passport.authenticate('local', { session: false }) as any, () => 'in');
    },
    { logger, requestLogging: false },
  );
  const { body, ...headers } = form('username=ada&password=lovelace');
  const a = await request(port, 'POST', '/login', headers, body);
  assertRefused(a, logger.lines, /req\.body.*passport-local.*req\.parseBody\(\)/s);
});

test('passport-local with req.body set and Gale’s session(): bad password, login, session, logout', T, async (t) => {
  const passport = makePassport();
  const { port } = await withApp(t, (app) => {
    app.use(async (req, _res, next) => {
      if (req.method === 'POST') (req as any).body = await req.form();
      return next();
    });
    app.use(session({ secret: 'a secret long enough for hmac' }));
    app.use(passport.initialize() as any);
    app.use(passport.session() as any);
    app.post('/login', passport.authenticate('local', { failureRedirect: '/login?failed=1' }) as any, (_req, res) =>
      res.redirect('/profile'),
    );
    app.get('/profile', (req: any, res) =>
      req.isAuthenticated() ? res.json({ user: req.user.username }) : res.status(401).send('log in first'),
    );
    app.post('/logout', (req: any, res, next) => req.logout((err: unknown) => (err ? next(err) : res.send('out'))));
  });
  let cookie = '';
  const send = async (method: string, path: string, body?: string) => {
    const headers: Record<string, string> = cookie ? { cookie } : {};
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const a = await request(port, method, path, headers, body);
    const set = a.headers['set-cookie']?.[0];
    if (set) cookie = set.split(';')[0] as string;
    return a;
  };
  const bad = await send('POST', '/login', 'username=ada&password=wrong');
  assert.equal(bad.status, 302);
  assert.equal(bad.headers.location, '/login?failed=1');
  assert.equal((await send('GET', '/profile')).status, 401);
  const good = await send('POST', '/login', 'username=ada&password=lovelace');
  assert.equal(good.status, 302);
  assert.equal(good.headers.location, '/profile');
  assert.deepEqual(JSON.parse((await send('GET', '/profile')).body.toString()), { user: 'ada' });
  assert.equal((await send('POST', '/logout', '')).body.toString(), 'out');
  assert.equal((await send('GET', '/profile')).status, 401);
});
