// The Express middleware matrix on @gale-http/express, each compared with real Express 5 on the same requests: the same
// app is served by @gale-http/express (app.listen, Gale's engine) and by Express (node:http); status, the headers the
// middleware sets and the body (decompressed) must agree. method-override and response-time are new here.
// biome-ignore-all lint/suspicious/noExplicitAny: apps and middleware from two implementations
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import express from '@gale-http/express';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import realExpress from 'express';
import { rateLimit } from 'express-rate-limit';
import session from 'express-session';
import helmet from 'helmet';
import { createProxyMiddleware } from 'http-proxy-middleware';
import methodOverride from 'method-override';
import morgan from 'morgan';
import multer from 'multer';
import { Passport } from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import responseTime from 'response-time';
import favicon from 'serve-favicon';
import { tempDir } from '../temp.js';
import { start } from './helpers.js';

const T = { timeout: 20_000 };

interface Step {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | (() => FormData);
}
interface Got {
  status: number;
  headers: Headers;
  body: string;
}

async function startNode(app: any): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Runs `steps` in order against `make(express)` on @gale-http/express and `make(realExpress)` on Express, each with a
 * cookie jar of its own (fetch decompresses gzip/br bodies). */
async function both(make: (ex: any) => any, steps: Step[]): Promise<{ gale: Got[]; express: Got[] }> {
  const out: Record<string, Got[]> = {};
  for (const [name, ex, serve] of [
    ['gale', express, start],
    ['express', realExpress, startNode],
  ] as const) {
    const s = await serve(make(ex));
    const got: Got[] = [];
    const jar = new Map<string, string>();
    try {
      for (const step of steps) {
        const headers = new Headers(step.headers);
        if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
        const body = typeof step.body === 'function' ? step.body() : step.body;
        const r = await fetch(s.url + step.path, { method: step.method ?? 'GET', headers, body, redirect: 'manual' });
        const raw = Buffer.from(await r.arrayBuffer());
        for (const line of r.headers.getSetCookie()) {
          const pair = line.split(';')[0] as string;
          jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
        }
        got.push({ status: r.status, headers: r.headers, body: raw.toString() });
      }
    } finally {
      await s.close();
    }
    out[name] = got;
  }
  return out as { gale: Got[]; express: Got[] };
}

/** Same statuses and bodies, and the same values of `names` headers, step by step. */
function assertSame(a: { gale: Got[]; express: Got[] }, names: string[] = []): void {
  a.gale.forEach((g, i) => {
    const e = a.express[i] as Got;
    assert.equal(g.status, e.status, `step ${i}`);
    assert.equal(g.body, e.body, `step ${i}`);
    for (const n of names) assert.equal(g.headers.get(n), e.headers.get(n), `step ${i}: ${n}`);
  });
}

test('method-override: header and query overrides re-route as on Express; originalMethod kept', T, async () => {
  const make = (ex: any) => {
    const app = ex();
    app.use(methodOverride());
    app.use(methodOverride('_method'));
    app.post('/items/:id', (req: any, res: any) => res.send(`posted ${req.params.id}`));
    app.delete('/items/:id', (req: any, res: any) => res.send(`deleted ${req.params.id} (was ${req.originalMethod})`));
    app.put('/items/:id', (req: any, res: any) => res.send(`put ${req.params.id} (was ${req.originalMethod})`));
    return app;
  };
  const a = await both(make, [
    { method: 'POST', path: '/items/7', headers: { 'x-http-method-override': 'DELETE' } },
    { method: 'POST', path: '/items/8' },
    { method: 'POST', path: '/items/9?_method=PUT' },
    { method: 'GET', path: '/items/1', headers: { 'x-http-method-override': 'DELETE' } },
  ]);
  assertSame(a, ['vary']);
  assert.deepEqual(
    a.gale.slice(0, 3).map((g) => g.body),
    ['deleted 7 (was POST)', 'posted 8', 'put 9 (was POST)'],
  );
  assert.equal(a.gale[3]?.status, 404, 'only POST is overridden');
});

test('response-time: X-Response-Time on sends, streams and 404s, as on Express', T, async () => {
  const make = (ex: any) => {
    const app = ex();
    app.use(responseTime({ digits: 2, suffix: false }));
    app.get('/send', (_req: any, res: any) => res.send('hi'));
    app.get('/stream', (_req: any, res: any) => {
      res.write('a');
      res.end('b');
    });
    return app;
  };
  const a = await both(make, [{ path: '/send' }, { path: '/stream' }, { path: '/nope' }]);
  assertSame(a);
  for (const side of [a.gale, a.express]) {
    for (const g of side) assert.match(String(g.headers.get('x-response-time')), /^\d+\.\d{2}$/);
  }
});

test('cors, helmet, cookie-parser: the same headers and parsed cookies as on Express', T, async () => {
  const make = (ex: any) => {
    const app = ex();
    app.use(cors({ origin: 'https://app.example', credentials: true }), helmet(), cookieParser('s3cret'));
    app.get('/set', (_req: any, res: any) => res.cookie('user', 'ada', { signed: true }).cookie('n', 'j:1').send('s'));
    app.get('/read', (req: any, res: any) => res.json({ c: req.cookies, s: req.signedCookies }));
    return app;
  };
  const origin = { origin: 'https://app.example' };
  const a = await both(make, [
    { path: '/set', headers: origin },
    { path: '/read', headers: origin },
    { method: 'OPTIONS', path: '/read', headers: { ...origin, 'access-control-request-method': 'PUT' } },
  ]);
  assertSame(a, [
    'access-control-allow-origin',
    'access-control-allow-credentials',
    'access-control-allow-methods',
    'vary',
    'content-security-policy',
    'strict-transport-security',
    'x-frame-options',
    'x-powered-by',
  ]);
  assert.deepEqual(JSON.parse(a.gale[1]?.body as string), { c: { n: 1 }, s: { user: 'ada' } });
});

test('compression: the same encoding and the same decompressed bodies as on Express', T, async () => {
  const big = 'x'.repeat(5000);
  const make = (ex: any) => {
    const app = ex();
    app.use(compression({ threshold: 1024 }));
    app.get('/big', (_req: any, res: any) => res.type('text').send(big));
    app.get('/small', (_req: any, res: any) => res.send('tiny'));
    return app;
  };
  const gz = { 'accept-encoding': 'gzip' };
  const raw = await both(make, [
    { path: '/big', headers: gz },
    { path: '/small', headers: gz },
  ]);
  // fetch inflates bodies itself: the headers say what was sent.
  for (const n of ['content-encoding', 'vary']) {
    assert.equal(raw.gale[0]?.headers.get(n), raw.express[0]?.headers.get(n), n);
    assert.equal(raw.gale[1]?.headers.get(n), raw.express[1]?.headers.get(n), n);
  }
  assert.equal(raw.gale[0]?.headers.get('content-encoding'), 'gzip');
  assertSame(raw);
});

test('express-rate-limit: the same statuses and RateLimit headers as on Express', T, async () => {
  const make = (ex: any) => {
    const app = ex();
    app.use(rateLimit({ windowMs: 60_000, limit: 2, standardHeaders: 'draft-6', legacyHeaders: false }));
    app.get('/', (_req: any, res: any) => res.send('ok'));
    return app;
  };
  const a = await both(make, [{ path: '/' }, { path: '/' }, { path: '/' }]);
  assertSame(a, ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-policy']);
  assert.deepEqual(
    a.gale.map((g) => g.status),
    [200, 200, 429],
  );
});

test('express-session, multer, passport-local: the same login and upload answers as on Express', T, async () => {
  const users = new Map([['ada', { id: '1', username: 'ada', password: 'lovelace' }]]);
  const make = (ex: any) => {
    const passport = new Passport();
    passport.use(
      new LocalStrategy((u, p, done) => {
        const user = users.get(u);
        return user && user.password === p ? done(null, user) : done(null, false);
      }),
    );
    passport.serializeUser((user: any, done) => done(null, user.id));
    passport.deserializeUser((id: string, done) =>
      done(
        null,
        [...users.values()].find((u) => u.id === id),
      ),
    );
    const app = ex();
    app.use(ex.urlencoded({ extended: false }));
    app.use(session({ secret: 'cat', resave: false, saveUninitialized: false }));
    app.use(passport.initialize(), passport.session());
    app.post('/login', passport.authenticate('local', { failureRedirect: '/failed' }), (_q: any, r: any) =>
      r.redirect('/me'),
    );
    app.get('/me', (req: any, res: any) => {
      req.session.views = (req.session.views ?? 0) + 1;
      res.json({ user: req.user?.username ?? null, views: req.session.views });
    });
    app.post('/upload', multer({ storage: multer.memoryStorage() }).single('doc'), (req: any, res: any) =>
      res.json({ title: req.body.title, name: req.file.originalname, size: req.file.size }),
    );
    return app;
  };
  const form = (body: string) => ({ 'content-type': 'application/x-www-form-urlencoded', body });
  const { body: bad, ...h } = form('username=ada&password=no');
  const { body: good } = form('username=ada&password=lovelace');
  const upload = () => {
    const f = new FormData();
    f.append('title', 'q3');
    f.append('doc', new Blob([Buffer.alloc(70_000, 1)]), 'r.pdf');
    return f;
  };
  const a = await both(make, [
    { method: 'POST', path: '/login', headers: h, body: bad },
    { method: 'POST', path: '/login', headers: h, body: good },
    { path: '/me' },
    { method: 'POST', path: '/upload', body: upload },
  ]);
  assertSame(a, ['location']);
  assert.equal(a.gale[1]?.headers.get('location'), '/me');
  assert.deepEqual(JSON.parse(a.gale[2]?.body as string), { user: 'ada', views: 1 });
  assert.deepEqual(JSON.parse(a.gale[3]?.body as string), { title: 'q3', name: 'r.pdf', size: 70_000 });
});

test(
  'morgan, serve-favicon, http-proxy-middleware: the same log lines, icon and proxied answers as on Express',
  T,
  async (t) => {
    const dir = tempDir(t, 'gale-mw-vs-');
    writeFileSync(path.join(dir, 'favicon.ico'), Buffer.from('0000010001001010', 'hex'));
    const upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
        res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString() }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const logs: Record<string, string[]> = { gale: [], express: [] };
    let side = 'gale';
    const make = (ex: any) => {
      const lines = logs[side] as string[];
      side = 'express';
      const stream = new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk).replace(/ \d+\.\d{3} ms/, ' <t> ms'));
          cb();
        },
      });
      const app = ex();
      app.use(morgan(':method :url :status :res[content-length] :response-time ms', { stream }));
      app.use(favicon(path.join(dir, 'favicon.ico')));
      app.use('/api', createProxyMiddleware({ target, changeOrigin: true }));
      app.get('/', (_req: any, res: any) => res.send('home'));
      return app;
    };
    try {
      const a = await both(make, [
        { path: '/' },
        { path: '/favicon.ico' },
        { method: 'PUT', path: '/api/items?x=1', headers: { 'content-type': 'text/plain' }, body: 'payload' },
      ]);
      assertSame(a, ['content-type', 'cache-control', 'etag', 'x-upstream']);
      assert.deepEqual(JSON.parse(a.gale[2]?.body as string), { method: 'PUT', url: '/items?x=1', body: 'payload' });
      for (let i = 0; i < 50 && (logs.gale?.length ?? 0) < 3; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(logs.gale?.length, 3);
      assert.deepEqual(logs.gale, logs.express);
    } finally {
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  },
);
