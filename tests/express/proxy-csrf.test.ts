// http-proxy-middleware (to a second real server, streamed both ways) and csrf-csrf on @gale-http/express.
// biome-ignore-all lint/suspicious/noExplicitAny: these packages' types name Express's own req/res
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from '@gale-http/express';
import cookieParser from 'cookie-parser';
import { doubleCsrf } from 'csrf-csrf';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { cookieFetch, start } from './helpers.js';

const T = { timeout: 20_000 };

test(
  'http-proxy-middleware: forwards method, path, headers and body upstream and streams the answer back',
  T,
  async () => {
    // The upstream: a plain node:http server that echoes and streams.
    const upstream = http.createServer((req, res) => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let i = 0;
        const t = setInterval(() => {
          res.write(`chunk ${i}\n`);
          if (++i === 5) {
            clearInterval(t);
            res.end('done\n');
          }
        }, 10);
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            header: req.headers['x-client'],
            forwardedFor: req.headers['x-forwarded-for'] ?? null,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const app = express();
    app.use('/api', createProxyMiddleware({ target, changeOrigin: true, xfwd: true }) as any);
    app.get('/local', (_req, res) => res.send('not proxied'));
    const s = await start(app);
    try {
      const r = await fetch(`${s.url}/api/items?x=1`, {
        method: 'PUT',
        headers: { 'x-client': 'c1', 'content-type': 'text/plain' },
        body: 'payload',
      });
      assert.equal(r.status, 201);
      assert.equal(r.headers.get('x-upstream'), 'yes');
      assert.deepEqual(await r.json(), {
        method: 'PUT',
        url: '/items?x=1',
        header: 'c1',
        forwardedFor: '127.0.0.1',
        body: 'payload',
      });
      const streamed = await fetch(`${s.url}/api/stream`);
      assert.equal(streamed.status, 200);
      const reader = (streamed.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      let reads = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        reads++;
        text += Buffer.from(value).toString();
      }
      assert.equal(text, 'chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\ndone\n');
      assert.ok(reads > 1, 'the answer arrived in pieces, as the upstream wrote it');
      assert.equal(await (await fetch(`${s.url}/local`)).text(), 'not proxied');
    } finally {
      await s.close();
      await new Promise((r) => upstream.close(r));
    }
  },
);

test(
  'csrf-csrf: a state-changing request needs the token from the CSRF cookie pair; forged ones get 403',
  T,
  async () => {
    const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
      getSecret: () => 'a very secret secret',
      getSessionIdentifier: (req: any) => req.cookies.sid ?? '',
      cookieName: 'x-csrf',
      cookieOptions: { secure: false, sameSite: 'lax' },
      getCsrfTokenFromRequest: (req: any) => req.headers['x-csrf-token'],
    });
    const app = express();
    app.use(cookieParser());
    app.get('/form', (req: any, res) => {
      res.cookie('sid', 'session-1');
      req.cookies.sid = 'session-1';
      res.json({ token: generateCsrfToken(req, res as any) });
    });
    app.use(doubleCsrfProtection as any);
    app.post('/transfer', (_req, res) => res.send('transferred'));
    app.use((err: any, _req: any, res: any, _next: any) => res.status(err.statusCode ?? 500).send(err.code ?? 'error'));
    const s = await start(app);
    try {
      const f = cookieFetch();
      const { token } = await (await f(`${s.url}/form`)).json();
      assert.equal(typeof token, 'string');
      const ok = await f(`${s.url}/transfer`, { method: 'POST', headers: { 'x-csrf-token': token } });
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), 'transferred');
      const missing = await f(`${s.url}/transfer`, { method: 'POST' });
      assert.equal(missing.status, 403);
      assert.equal(await missing.text(), 'EBADCSRFTOKEN');
      const forged = await f(`${s.url}/transfer`, { method: 'POST', headers: { 'x-csrf-token': `${token}x` } });
      assert.equal(forged.status, 403);
      // The token is bound to the cookie: a client without the CSRF cookie cannot use it.
      const stranger = await fetch(`${s.url}/transfer`, { method: 'POST', headers: { 'x-csrf-token': token } });
      assert.equal(stranger.status, 403);
    } finally {
      await s.close();
    }
  },
);
