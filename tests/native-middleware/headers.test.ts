// Express middleware that works unchanged on Gale's native API, compared with the same middleware on Express 5
// (node:http) on the same requests: helmet, cors, serve-favicon, cookie-parser. Real packages, real sockets.
// biome-ignore-all lint/suspicious/noExplicitAny: Express middleware is typed for Express's req/res
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import cookieParser from 'cookie-parser';
import signature from 'cookie-signature';
import cors from 'cors';
import realExpress from 'express';
import helmet from 'helmet';
import favicon from 'serve-favicon';
import { T, withApp } from '../helpers.js';
import { fileTempDir } from '../temp.js';
import { pick, request, startExpress } from './helpers.js';

const DIR = fileTempDir('gale-native-mw-');
const ICON = Buffer.from('00000100010010100000010020006804000016000000', 'hex');
writeFileSync(path.join(DIR, 'favicon.ico'), ICON);

test('helmet: the same security headers as on Express, on send(), json() and returned values', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(helmet({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", 'cdn.example'] } } }) as any);
    app.get('/send', (_req, res) => res.send('hi'));
    app.get('/json', (_req, res) => res.json({ a: 1 }));
    app.get('/value', () => 'returned');
  });
  const ref = realExpress();
  ref.use(helmet({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", 'cdn.example'] } } }));
  ref.get('/*path', (_req, res) => res.send('x'));
  const e = await startExpress(ref);
  t.after(() => e.close());
  const expected = pick(
    await request(e.port, 'GET', '/send'),
    /^(?!date|etag|content-type|content-length|x-powered-by|connection|keep-alive)/,
  );
  assert.ok(Object.keys(expected).length >= 12, JSON.stringify(expected));
  assert.match(String(expected['content-security-policy']), /script-src 'self' cdn\.example/);
  for (const p of ['/send', '/json', '/value']) {
    const a = await request(port, 'GET', p);
    assert.equal(a.status, 200);
    assert.deepEqual(pick(a, /^(?!date|etag|content-type|content-length|connection|keep-alive)/), expected, p);
  }
});

test('cors: simple requests and preflights (through an OPTIONS route) answered as on Express', T, async (t) => {
  const options = { origin: ['https://app.example'], credentials: true, exposedHeaders: ['X-Total'], maxAge: 600 };
  const { port } = await withApp(t, (app) => {
    app.use(cors(options) as any);
    // The engine answers a method a path has no route for with 405, so preflights need their route.
    app.options('/*path', cors(options) as any);
    app.get('/data', () => ({ ok: true }));
    app.put('/data', () => 'put');
  });
  const ref = realExpress();
  ref.use(cors(options));
  ref.get('/data', (_req, res) => res.json({ ok: true }));
  const e = await startExpress(ref);
  t.after(() => e.close());
  const corsHeaders = /^(access-control-|vary)/;
  const simple = { origin: 'https://app.example' };
  const ours = await request(port, 'GET', '/data', simple);
  const theirs = await request(e.port, 'GET', '/data', simple);
  assert.equal(ours.status, 200);
  assert.equal(ours.headers['access-control-allow-origin'], 'https://app.example');
  assert.deepEqual(pick(ours, corsHeaders), pick(theirs, corsHeaders));
  assert.equal(ours.body.toString(), '{"ok":true}');
  const stranger = await request(port, 'GET', '/data', { origin: 'https://evil.example' });
  assert.deepEqual(
    pick(stranger, corsHeaders),
    pick(await request(e.port, 'GET', '/data', { origin: 'https://evil.example' }), corsHeaders),
  );
  assert.equal(stranger.headers['access-control-allow-origin'], undefined);
  const pre = {
    origin: 'https://app.example',
    'access-control-request-method': 'PUT',
    'access-control-request-headers': 'x-token',
  };
  const ourPre = await request(port, 'OPTIONS', '/data', pre);
  const theirPre = await request(e.port, 'OPTIONS', '/data', pre);
  assert.equal(ourPre.status, 204);
  assert.equal(theirPre.status, 204);
  assert.deepEqual(pick(ourPre, corsHeaders), pick(theirPre, corsHeaders));
  assert.equal(ourPre.headers['access-control-max-age'], '600');
  assert.equal(ourPre.body.length, 0);
});

test("cors: app.use(cors()) alone answers preflights of routed paths, as Gale's own cors() does", T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(cors() as any);
    app.put('/items/:id', () => 'put');
    app.all('/any', () => 'any method');
  });
  const ref = realExpress();
  ref.use(cors());
  ref.put('/items/:id', (_req, res) => res.send('put'));
  const e = await startExpress(ref);
  t.after(() => e.close());
  const pre = { origin: 'https://app.example', 'access-control-request-method': 'PUT' };
  const ours = await request(port, 'OPTIONS', '/items/7', pre);
  const theirs = await request(e.port, 'OPTIONS', '/items/7', pre);
  assert.equal(ours.status, 204);
  assert.equal(theirs.status, 204);
  assert.deepEqual(pick(ours, /^(access-control-|vary)/), pick(theirs, /^(access-control-|vary)/));
  assert.equal(ours.headers['access-control-allow-methods'], 'GET,HEAD,PUT,PATCH,POST,DELETE');
  assert.equal((await request(port, 'PUT', '/items/7', { origin: 'https://app.example' })).body.toString(), 'put');
  // A path with an ALL route still has it run for an OPTIONS request cors() passes on (no preflight headers).
  assert.equal((await request(port, 'OPTIONS', '/any', pre)).status, 204);
  const plain = await request(port, 'OPTIONS', '/any');
  assert.equal(plain.status, 204); // cors() answers every OPTIONS by default (preflightContinue false), as on Express
  // A path without routes reaches cors() through the app's middleware, as on Express.
  assert.equal((await request(port, 'OPTIONS', '/nothing', pre)).status, 204);
  assert.equal((await request(e.port, 'OPTIONS', '/nothing', pre)).status, 204);
});

test(
  'serve-favicon: /favicon.ico from memory with its caching headers, 304, 405 with Allow, as on Express',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.use(favicon(path.join(DIR, 'favicon.ico'), { maxAge: 86_400_000 }) as any);
      app.get('/', () => 'page');
    });
    const ref = realExpress();
    ref.use(favicon(path.join(DIR, 'favicon.ico'), { maxAge: 86_400_000 }));
    const e = await startExpress(ref);
    t.after(() => e.close());
    const ours = await request(port, 'GET', '/favicon.ico');
    const theirs = await request(e.port, 'GET', '/favicon.ico');
    assert.equal(ours.status, 200);
    assert.deepEqual(ours.body, ICON);
    const served = /^(content-type|content-length|cache-control|etag)$/;
    assert.deepEqual(pick(ours, served), pick(theirs, served));
    const again = await request(port, 'GET', '/favicon.ico', { 'if-none-match': String(ours.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    for (const method of ['POST', 'OPTIONS']) {
      const a = await request(port, method, '/favicon.ico');
      const b = await request(e.port, method, '/favicon.ico');
      assert.equal(a.status, b.status, method);
      assert.equal(a.headers.allow, b.headers.allow, method);
    }
    assert.equal((await request(port, 'GET', '/')).body.toString(), 'page');
  },
);

test(
  'cookie-parser: finds req.cookies built in and steps aside; with cookieSecret, cookies and signed cookies as on Express',
  T,
  async (t) => {
    const { port } = await withApp(
      t,
      (app) => {
        app.use(cookieParser('s3cret') as any);
        app.get('/read', (req) => ({ cookies: req.cookies, signed: req.signedCookies }));
      },
      { cookieSecret: 's3cret' },
    );
    const ref = realExpress();
    ref.use(cookieParser('s3cret'));
    ref.get('/read', (req, res) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
    const e = await startExpress(ref);
    t.after(() => e.close());
    const signed = `s:${signature.sign('ada', 's3cret')}`;
    const forged = `s:${signature.sign('eve', 'guess')}`;
    for (const cookie of [
      `theme=dark; user=${encodeURIComponent(signed)}`,
      `theme=dark; user=${encodeURIComponent(forged)}`,
      'a=1; b=hello%20world',
    ]) {
      const ours = await request(port, 'GET', '/read', { cookie });
      const theirs = await request(e.port, 'GET', '/read', { cookie });
      assert.deepEqual(JSON.parse(ours.body.toString()), JSON.parse(theirs.body.toString()), cookie);
    }
  },
);

test(
  'cookie-parser with its secret but no cookieSecret: a signed cookie makes req.signedCookies refuse, naming cookieSecret',
  T,
  async (t) => {
    const errors: unknown[] = [];
    const { port } = await withApp(
      t,
      (app) => {
        app.use(cookieParser('s3cret') as any);
        app.get('/read', (req) => ({ signed: req.signedCookies }));
      },
      { logger: { error: (o: unknown) => errors.push(o), info: () => {}, warn: () => {} } as never },
    );
    // Without a signed cookie there is nothing to verify: an empty object, as cookie-parser gives.
    assert.deepEqual(JSON.parse((await request(port, 'GET', '/read', { cookie: 'a=1' })).body.toString()), {
      signed: {},
    });
    const signed = `s:${signature.sign('ada', 's3cret')}`;
    const res = await request(port, 'GET', '/read', { cookie: `user=${encodeURIComponent(signed)}` });
    assert.equal(res.status, 500);
    const logged = JSON.stringify(errors, (_k, v) =>
      v instanceof Error ? { message: v.message, code: (v as { code?: string }).code } : v,
    );
    assert.match(logged, /GALE_ERR_NODE_MIDDLEWARE/);
    assert.match(logged, /cookieSecret/);
    assert.match(logged, /@gale-http\/express/);
  },
);
