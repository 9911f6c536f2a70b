// Real npm middleware on @gale-http/express over real sockets: cors, helmet, morgan, compression,
// cookie-parser, body-parser, serve-static, serve-favicon, express-rate-limit. Each test checks what
// the middleware actually does on the wire.
// biome-ignore-all lint/suspicious/noExplicitAny: handlers after a non-Express-typed middleware are untyped
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import zlib from 'node:zlib';
import express, { type Response as ERes } from '@gale-http/express';
import bodyParser from 'body-parser';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import { rateLimit } from 'express-rate-limit';
import helmet from 'helmet';
import morgan from 'morgan';
import favicon from 'serve-favicon';
import serveStatic from 'serve-static';
import { fileTempDir } from '../temp.js';
import { start } from './helpers.js';

const T = { timeout: 15_000 };
const DIR = fileTempDir('gale-express-mw-');
writeFileSync(path.join(DIR, 'file.txt'), 'static file body\n');
// A valid 16x16 .ico is not needed: serve-favicon serves the bytes it read with an ETag.
const ICON = Buffer.from('00000100010010100000010020006804000016000000', 'hex');
writeFileSync(path.join(DIR, 'favicon.ico'), ICON);

/** A request with node:http (no automatic decompression or cache headers); `parts` are written as chunks. */
function send(
  port: number,
  method: string,
  p: string,
  headers: Record<string, string>,
  parts: Buffer[] = [],
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    (async () => {
      for (const part of parts) {
        req.write(part);
        await new Promise((r) => setTimeout(r, 5));
      }
      req.end();
    })();
  });
}
const rawGet = (port: number, p: string, headers: Record<string, string>) => send(port, 'GET', p, headers);

test('cors: simple requests get Access-Control-Allow-Origin, preflights get the allowed methods', T, async () => {
  const app = express();
  app.use(cors({ origin: 'https://app.example', credentials: true }));
  app.get('/data', (_req, res) => res.json({ ok: true }));
  const s = await start(app);
  try {
    const r = await fetch(`${s.url}/data`, { headers: { origin: 'https://app.example' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
    assert.match(r.headers.get('vary') ?? '', /Origin/);
    assert.deepEqual(await r.json(), { ok: true });
    const pre = await fetch(`${s.url}/data`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-methods'), 'GET,HEAD,PUT,PATCH,POST,DELETE');
    assert.equal(await pre.text(), '');
  } finally {
    await s.close();
  }
});

test('helmet: its security headers are set and X-Powered-By is removed', T, async () => {
  const app = express();
  app.use(helmet());
  app.get('/', (_req, res) => res.send('safe'));
  const s = await start(app);
  try {
    const r = await fetch(`${s.url}/`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-powered-by'), null);
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(r.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
    assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(await r.text(), 'safe');
  } finally {
    await s.close();
  }
});

test('morgan: one log line per request with method, url, status, length and response time', T, async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const app = express();
  app.use(morgan(':method :url :status :res[content-length] :response-time ms :remote-addr', { stream }));
  app.get('/hello', (_req, res) => res.send('hello world'));
  app.get('/missing', (_req, res) => res.status(404).send('nope'));
  const s = await start(app);
  try {
    assert.equal(await (await fetch(`${s.url}/hello?x=1`)).text(), 'hello world');
    assert.equal((await fetch(`${s.url}/missing`)).status, 404);
    for (let i = 0; i < 50 && lines.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(lines.length, 2, lines.join(''));
    assert.match(lines[0] as string, /^GET \/hello\?x=1 200 11 \d+\.\d+ ms 127\.0\.0\.1\n$/);
    assert.match(lines[1] as string, /^GET \/missing 404 4 \d+\.\d+ ms 127\.0\.0\.1\n$/);
  } finally {
    await s.close();
  }
});

test('compression: large bodies are gzipped (and inflate to the original), small ones are not', T, async () => {
  const big = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ i, name: `item number ${i}` })) });
  const app = express();
  app.use(compression({ threshold: 1024 }));
  app.get('/big', (_req, res) => res.type('json').send(big));
  app.get('/small', (_req, res) => res.send('tiny'));
  app.get('/stream', (_req, res) => {
    res.type('text');
    for (let i = 0; i < 100; i++) res.write(`line ${i} ${'x'.repeat(50)}\n`);
    res.end();
  });
  const s = await start(app);
  try {
    const r = await rawGet(s.port, '/big', { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.match(String(r.headers.vary), /Accept-Encoding/);
    assert.ok(r.body.length < big.length / 3, `compressed ${r.body.length} bytes of ${big.length}`);
    assert.equal(zlib.gunzipSync(r.body).toString(), big);
    const br = await rawGet(s.port, '/big', { 'accept-encoding': 'br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), big);
    const small = await rawGet(s.port, '/small', { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.body.toString(), 'tiny');
    const streamed = await rawGet(s.port, '/stream', { 'accept-encoding': 'gzip' });
    assert.equal(streamed.headers['content-encoding'], 'gzip');
    const text = zlib.gunzipSync(streamed.body).toString();
    assert.equal(text.split('\n').length, 101);
    assert.ok(text.startsWith('line 0 xxx'));
  } finally {
    await s.close();
  }
});

test('cookie-parser: plain and signed cookies are parsed; a tampered signature reads false', T, async () => {
  const app = express();
  app.use(cookieParser('s3cret'));
  app.get('/set', (_req, res) => res.cookie('user', 'ada', { signed: true }).cookie('theme', 'dark').send('set'));
  app.get('/read', (req, res) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
  const s = await start(app);
  try {
    const set = await fetch(`${s.url}/set`);
    const cookies = set.headers.getSetCookie().map((c) => c.split(';')[0]);
    const r = await fetch(`${s.url}/read`, { headers: { cookie: cookies.join('; ') } });
    assert.deepEqual(await r.json(), { cookies: { theme: 'dark' }, signed: { user: 'ada' } });
    const forged = cookies.map((c) => (c?.startsWith('user=') ? c.replace(/\.[^.]+$/, '.AAAA') : c));
    const bad = await fetch(`${s.url}/read`, { headers: { cookie: forged.join('; ') } });
    assert.deepEqual(await bad.json(), { cookies: { theme: 'dark' }, signed: { user: false } });
  } finally {
    await s.close();
  }
});

test('body-parser (and express.json/urlencoded/text/raw): bodies, limits and malformed JSON', T, async () => {
  const app = express();
  app.post('/json', bodyParser.json({ limit: '1kb' }), (req: any, res: any) => res.json({ got: req.body }));
  app.post('/form', express.urlencoded({ extended: true }), (req: any, res: any) => res.json(req.body));
  app.post('/text', express.text(), (req: any, res: any) => res.send(`text:${req.body}`));
  app.post('/raw', express.raw({ type: 'application/octet-stream' }), (req: any, res: any) =>
    res.json({ isBuffer: Buffer.isBuffer(req.body), length: (req.body as Buffer).length }),
  );
  app.use((err: { status?: number; type?: string }, _req: unknown, res: ERes, _next: unknown) =>
    res.status(err.status ?? 500).json({ type: err.type }),
  );
  const s = await start(app);
  try {
    const json = await fetch(`${s.url}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: [1, 2] }),
    });
    assert.deepEqual(await json.json(), { got: { a: [1, 2] } });
    const bad = await fetch(`${s.url}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { type: 'entity.parse.failed' });
    const big = await fetch(`${s.url}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(2000) }),
    });
    assert.equal(big.status, 413);
    assert.deepEqual(await big.json(), { type: 'entity.too.large' });
    const form = await fetch(`${s.url}/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user[name]=ada&tags=a&tags=b',
    });
    assert.deepEqual(await form.json(), { user: { name: 'ada' }, tags: ['a', 'b'] });
    const text = await fetch(`${s.url}/text`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'héllo',
    });
    assert.equal(await text.text(), 'text:héllo');
    // A streamed (chunked) body arrives in pieces through req.on('data').
    const parts = Array.from({ length: 5 }, (_, i) => Buffer.alloc(10_000, i));
    const raw = await send(s.port, 'POST', '/raw', { 'content-type': 'application/octet-stream' }, parts);
    assert.deepEqual(JSON.parse(raw.body.toString()), { isBuffer: true, length: 50_000 });
  } finally {
    await s.close();
  }
});

test(
  'serve-static and express.static: files with validators, 304, directory fallthrough to the next handler',
  T,
  async () => {
    const app = express();
    app.use('/s', serveStatic(DIR, { maxAge: 60_000 }));
    app.use('/e', express.static(DIR));
    app.use((_req, res) => res.status(404).send('fell through'));
    const s = await start(app);
    try {
      const r = await fetch(`${s.url}/s/file.txt`);
      assert.equal(r.status, 200);
      assert.equal(await r.text(), 'static file body\n');
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(r.headers.get('cache-control'), 'public, max-age=60');
      assert.equal(r.headers.get('content-length'), '17');
      const etag = r.headers.get('etag') as string;
      assert.ok(etag);
      const again = await rawGet(s.port, '/e/file.txt', { 'if-none-match': etag });
      assert.equal(again.status, 304);
      const range = await fetch(`${s.url}/e/file.txt`, { headers: { range: 'bytes=0-5' } });
      assert.equal(range.status, 206);
      assert.equal(await range.text(), 'static');
      const missing = await fetch(`${s.url}/s/nope.txt`);
      assert.equal(missing.status, 404);
      assert.equal(await missing.text(), 'fell through');
    } finally {
      await s.close();
    }
  },
);

test('serve-favicon: /favicon.ico is answered from memory with caching headers', T, async () => {
  const app = express();
  app.use(favicon(path.join(DIR, 'favicon.ico'), { maxAge: 86_400_000 }));
  app.get('/', (_req, res) => res.send('page'));
  const s = await start(app);
  try {
    const r = await fetch(`${s.url}/favicon.ico`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/x-icon');
    assert.equal(r.headers.get('cache-control'), 'public, max-age=86400');
    assert.deepEqual(Buffer.from(await r.arrayBuffer()), ICON);
    const etag = r.headers.get('etag') as string;
    assert.equal((await rawGet(s.port, '/favicon.ico', { 'if-none-match': etag })).status, 304);
    assert.equal((await fetch(`${s.url}/favicon.ico`, { method: 'POST' })).status, 405);
    assert.equal(await (await fetch(`${s.url}/`)).text(), 'page');
  } finally {
    await s.close();
  }
});

test('express-rate-limit: the request after the limit gets 429 with RateLimit headers', T, async () => {
  const app = express();
  app.use(rateLimit({ windowMs: 60_000, limit: 3, standardHeaders: 'draft-7', legacyHeaders: false }));
  app.get('/', (_req, res) => res.send('ok'));
  const s = await start(app);
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${s.url}/`);
      statuses.push(r.status);
      if (i === 0) assert.match(r.headers.get('ratelimit') ?? '', /limit=3, remaining=2/);
      await r.text();
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  } finally {
    await s.close();
  }
});
