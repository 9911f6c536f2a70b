// multer (disk and memory storage) and passport with passport-local on @gale-http/express, over real
// sockets: the uploaded bytes land on disk / in memory intact, and login state follows the session.
// biome-ignore-all lint/suspicious/noExplicitAny: these packages' types name Express's own req/res
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import express from '@gale-http/express';
import session from 'express-session';
import multer from 'multer';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { tempDir } from '../temp.js';
import { cookieFetch, start } from './helpers.js';

const T = { timeout: 20_000 };

test('multer: disk storage writes the file, memory storage holds it; fields and limits work', T, async (t) => {
  // multer's disk storage writes the uploads here; they go with the dir.
  const dir = tempDir(t, 'gale-multer-');
  const disk = multer({ dest: dir });
  const memory = multer({ storage: multer.memoryStorage(), limits: { fileSize: 1000 } });
  const app = express();
  app.post('/disk', disk.single('doc') as any, (req: any, res: any) =>
    res.json({ field: req.body.title, name: req.file.originalname, size: req.file.size, path: req.file.path }),
  );
  app.post('/memory', memory.array('pics', 3) as any, (req: any, res: any) =>
    res.json(req.files.map((f: any) => ({ name: f.originalname, type: f.mimetype, hex: f.buffer.toString('hex') }))),
  );
  app.use((err: any, _req: any, res: any, _next: any) => res.status(413).json({ code: err.code }));
  const s = await start(app);
  try {
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const form = new FormData();
    form.append('title', 'quarterly');
    form.append('doc', new Blob([big], { type: 'application/pdf' }), 'report.pdf');
    const r = await fetch(`${s.url}/disk`, { method: 'POST', body: form });
    assert.equal(r.status, 200);
    const out = await r.json();
    assert.equal(out.field, 'quarterly');
    assert.equal(out.name, 'report.pdf');
    assert.equal(out.size, big.length);
    assert.ok(out.path.startsWith(dir));
    assert.ok(readFileSync(out.path).equals(big), 'the file on disk has the uploaded bytes');

    const m = new FormData();
    m.append('pics', new Blob([Buffer.from([1, 2, 3])], { type: 'image/png' }), 'a.png');
    m.append('pics', new Blob([Buffer.from([4, 5])], { type: 'image/gif' }), 'b.gif');
    const mem = await fetch(`${s.url}/memory`, { method: 'POST', body: m });
    assert.deepEqual(await mem.json(), [
      { name: 'a.png', type: 'image/png', hex: '010203' },
      { name: 'b.gif', type: 'image/gif', hex: '0405' },
    ]);
    const tooBig = new FormData();
    tooBig.append('pics', new Blob([Buffer.alloc(5000)]), 'big.bin');
    const limited = await fetch(`${s.url}/memory`, { method: 'POST', body: tooBig });
    assert.equal(limited.status, 413);
    assert.deepEqual(await limited.json(), { code: 'LIMIT_FILE_SIZE' });
  } finally {
    await s.close();
  }
});

test('passport-local: a bad password is refused, a good one logs in, the session keeps the user', T, async () => {
  const users = new Map([['ada', { id: '1', username: 'ada', password: 'lovelace' }]]);
  passport.use(
    new LocalStrategy((username, password, done) => {
      const u = users.get(username);
      if (!u || u.password !== password) return done(null, false, { message: 'bad credentials' });
      return done(null, u);
    }),
  );
  passport.serializeUser((user: any, done) => done(null, user.id));
  passport.deserializeUser((id: string, done) => done(null, [...users.values()].find((u) => u.id === id) ?? false));
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.use(session({ secret: 'passport test', resave: false, saveUninitialized: false }) as any);
  app.use(passport.initialize() as any);
  app.use(passport.session() as any);
  app.post(
    '/login',
    passport.authenticate('local', { failureRedirect: '/login?failed=1' }) as any,
    (_req: any, res: any) => res.redirect('/profile'),
  );
  app.get('/profile', (req: any, res) =>
    req.isAuthenticated() ? res.json({ user: req.user.username }) : res.status(401).send('log in first'),
  );
  app.post('/logout', (req: any, res, next) => req.logout((err: unknown) => (err ? next(err) : res.send('out'))));
  const s = await start(app);
  try {
    const f = cookieFetch();
    const form = (u: string, p: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${u}&password=${p}`,
    });
    const bad = await f(`${s.url}/login`, form('ada', 'wrong'));
    assert.equal(bad.status, 302);
    assert.equal(bad.headers.get('location'), '/login?failed=1');
    assert.equal((await f(`${s.url}/profile`)).status, 401);
    const good = await f(`${s.url}/login`, form('ada', 'lovelace'));
    assert.equal(good.status, 302);
    assert.equal(good.headers.get('location'), '/profile');
    assert.deepEqual(await (await f(`${s.url}/profile`)).json(), { user: 'ada' });
    assert.equal(await (await f(`${s.url}/logout`, { method: 'POST' })).text(), 'out');
    assert.equal((await f(`${s.url}/profile`)).status, 401);
  } finally {
    await s.close();
  }
});
