// Express middleware that needs node:http's streams or routing, on Gale's native API: the packages Gale recognises
// (body-parser, express-session, multer, compression) are refused where they are registered; wrapped in a function of
// the app's own (or not recognised: method-override, http-proxy-middleware) the first request through one gets the
// app's error answer (500, logged) for a GaleError GALE_ERR_NODE_MIDDLEWARE naming @gale-http/express, and nothing
// wrong goes out (no Content-Encoding on a plain body, no session cookie, no request upstream, no handler).
// biome-ignore-all lint/suspicious/noExplicitAny: Express middleware is typed for Express's req/res
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import compression from 'compression';
import { RedisStore } from 'connect-redis';
import express from 'express';
import session from 'express-session';
import { ErrorCodes, type GaleError, gale } from 'gale';
import { createProxyMiddleware } from 'http-proxy-middleware';
import methodOverride from 'method-override';
import morgan from 'morgan';
import multer from 'multer';
import { createClient } from 'redis';
import { withRedis } from '../batteries/redis.js';
import { sleep, T, withApp } from '../helpers.js';
import { assertRefused, memoryLogger, request } from './helpers.js';

/** `mw` inside a function of the app's own, which registration cannot recognise: refused at its first use. */
const wrapped =
  (mw: any): any =>
  (req: unknown, res: unknown, next: unknown) =>
    mw(req, res, next);

test('body-parser, express-session, multer and compression are refused at registration, with what to use', () => {
  const cases: [string, () => void, RegExp][] = [
    ['express.json()', () => gale().use(express.json() as any), /express\.json\(\).*body schema.*req\.parseBody\(\)/],
    ['express.urlencoded()', () => gale().use(express.urlencoded() as any), /express\.urlencoded\(\)/],
    ['express.text()', () => gale().use('/api', express.text() as any), /express\.text\(\)/],
    ['express.raw() on a route', () => gale().post('/in', express.raw() as any, () => 'x'), /express\.raw\(\)/],
    [
      'express-session',
      () => gale().use(session({ secret: 's', resave: false, saveUninitialized: false }) as any),
      /express-session.*Gale’s own session\(\)/s,
    ],
    ['multer', () => gale().post('/up', multer().single('f') as any, () => 'x'), /multer.*req\.multipart\(\)/],
    ['compression', () => gale().use(compression() as any), /compression.*gale\(\{ compression: true \}\)/],
  ];
  for (const [name, register, what] of cases) {
    assert.throws(
      register,
      (err: GaleError) => {
        assert.equal(err.code, ErrorCodes.NODE_MIDDLEWARE, name);
        assert.match(err.message, what, name);
        assert.match(err.message, /npm install @gale-http\/express/, name);
        return true;
      },
      name,
    );
  }
  // What is not recognised registers as before (a function of the app's own named like one of them included).
  const app = gale();
  app.use(function session(_req: unknown, _res: unknown, next: () => void) {
    next();
  } as any);
  app.use(morgan('tiny') as any);
});

const BIG = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ i, name: `item number ${i}` })));

test('compression: refused at its first use; the answer carries no Content-Encoding', T, async (t) => {
  const logger = memoryLogger();
  let ran = false;
  const { port } = await withApp(
    t,
    (app) => {
      app.use(wrapped(compression({ threshold: 0 })));
      app.get('/big', (_req, res) => {
        ran = true;
        res.type('json').send(BIG);
      });
    },
    { logger, requestLogging: false },
  );
  const a = await request(port, 'GET', '/big', { 'accept-encoding': 'gzip' });
  assert.equal(a.headers['content-encoding'], undefined);
  assert.equal(a.headers.vary, undefined);
  assertRefused(a, logger.lines, /res\.write\/res\.end/);
  assert.equal(ran, false, 'the handler never ran');
});

test(
  'compression after morgan (writeHead already patched): refused when the head is due, nothing encoded',
  T,
  async (t) => {
    const logger = memoryLogger();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const { port } = await withApp(
      t,
      (app) => {
        app.use(morgan(':status', { stream }) as any);
        app.use(wrapped(compression({ threshold: 0 })));
        app.get('/big', (_req, res) => res.type('json').send(BIG));
        app.get('/written', (_req, res) => {
          res.write(BIG); // compression's own write: refused through node:http's _implicitHeader
          res.end();
        });
      },
      { logger, requestLogging: false },
    );
    for (const p of ['/big', '/written']) {
      logger.lines.length = 0;
      const a = await request(port, 'GET', p, { 'accept-encoding': 'gzip' });
      assert.equal(a.headers['content-encoding'], undefined, p);
      assertRefused(a, logger.lines, /compression/);
    }
    for (let i = 0; i < 50 && lines.length < 2; i++) await sleep(10);
    assert.deepEqual(lines, ['500\n', '500\n'], 'morgan still logs the error answers');
  },
);

test('express-session (MemoryStore): refused at its first use; no session cookie goes out', T, async (t) => {
  const logger = memoryLogger();
  let ran = false;
  const { port } = await withApp(
    t,
    (app) => {
      app.use(wrapped(session({ secret: 'keyboard cat', resave: false, saveUninitialized: true })));
      app.get('/', () => {
        ran = true;
        return 'hi';
      });
    },
    { logger, requestLogging: false },
  );
  const a = await request(port, 'GET', '/');
  assert.equal(a.headers['set-cookie'], undefined);
  assertRefused(a, logger.lines, /express-session.*session\(\)/s);
  assert.equal(ran, false);
});

test('express-session with connect-redis: refused at its first use; nothing is written to Redis', T, async (t) => {
  const redis = await withRedis(t);
  const client = createClient({ url: `redis://127.0.0.1:${redis.port}` });
  await client.connect();
  const logger = memoryLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.use(
        wrapped(session({ secret: 's', resave: false, saveUninitialized: true, store: new RedisStore({ client }) })),
      );
      app.post('/login', (req: any) => {
        req.session.user = 'ada';
        return 'in';
      });
    },
    { logger, requestLogging: false },
  );
  try {
    const a = await request(port, 'POST', '/login');
    assert.equal(a.headers['set-cookie'], undefined);
    assertRefused(a, logger.lines, /express-session/);
    assert.deepEqual(await client.keys('*'), []);
  } finally {
    await client.quit(); // before the server stops (t.after), which node-redis would report as an error
  }
});

test(
  'method-override: an override is refused (the engine routed by the real method); none leaves it alone',
  T,
  async (t) => {
    const logger = memoryLogger();
    const ran: string[] = [];
    const { port } = await withApp(
      t,
      (app) => {
        app.use(methodOverride() as any);
        app.post('/items/:id', (req) => {
          ran.push(`POST ${req.params.id}`);
          return 'posted';
        });
        app.delete('/items/:id', (req) => {
          ran.push(`DELETE ${req.params.id}`);
          return 'deleted';
        });
      },
      { logger, requestLogging: false },
    );
    const a = await request(port, 'POST', '/items/7', { 'x-http-method-override': 'DELETE' });
    assertRefused(a, logger.lines, /req\.method.*method-override/);
    assert.deepEqual(ran, [], 'neither the POST nor the DELETE handler answered it');
    const plain = await request(port, 'POST', '/items/8');
    assert.equal(plain.body.toString(), 'posted');
    assert.deepEqual(ran, ['POST 8']);
  },
);

test(
  'multer: a multipart upload is refused at its first use; the handler never sees a half-read body',
  T,
  async (t) => {
    const logger = memoryLogger();
    let ran = false;
    const { port, url } = await withApp(
      t,
      (app) => {
        app.post('/upload', wrapped(multer({ storage: multer.memoryStorage() }).single('doc')), () => {
          ran = true;
          return 'stored';
        });
      },
      { logger, requestLogging: false },
    );
    const form = new FormData();
    form.append('title', 'report');
    form.append('doc', new Blob([Buffer.alloc(20_000, 7)], { type: 'application/pdf' }), 'r.pdf');
    const r = await fetch(`${url}/upload`, { method: 'POST', body: form });
    const a = { status: r.status, headers: {}, body: Buffer.from(await r.arrayBuffer()) };
    assertRefused(a, logger.lines, /req\.pipe\(\).*multer/);
    assert.equal(ran, false);
    assert.equal((await request(port, 'GET', '/upload')).status, 405);
  },
);

test('http-proxy-middleware: refused at its first use; the upstream never gets the request', T, async (t) => {
  const seen: string[] = [];
  let connections = 0;
  const upstream = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.end('from upstream');
  });
  upstream.on('connection', () => connections++);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        upstream.closeAllConnections();
        upstream.close(() => r());
      }),
  );
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const logger = memoryLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.use('/api', createProxyMiddleware({ target, changeOrigin: true, xfwd: true }) as any);
      app.get('/local', () => 'local');
    },
    { logger, requestLogging: false },
  );
  const a = await request(port, 'PUT', '/api/items?x=1', { 'content-type': 'text/plain' }, 'payload');
  assertRefused(a, logger.lines, /req\.pipe\(\).*http-proxy-middleware/);
  await sleep(100);
  assert.deepEqual(seen, [], 'no request reached the upstream');
  assert.ok(connections <= 1, `${connections} connections`);
  assert.equal((await request(port, 'GET', '/local')).body.toString(), 'local');
});
