// res.send()'s and res.json()'s Content-Type, Content-Length and ETag on @gale-http/express against real Express 5:
// stored directly when the header methods are the package's own, through set()/setHeader() when an app or middleware
// replaced one. Either way the same setHeader calls (when wrapped), headers at 'finish' and bytes on the wire.
// biome-ignore-all lint/suspicious/noExplicitAny: apps come from @gale-http/express and real Express
import assert from 'node:assert/strict';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from '@gale-http/express';
import realExpress from 'express';
import { start } from './helpers.js';

/** How the app touches the header methods before its routes run. */
type Variant = 'pristine' | 'wrapped setHeader' | 'wrapped getHeader' | 'app.response.set' | 'app.response.get';
const VARIANTS: Variant[] = [
  'pristine',
  'wrapped setHeader',
  'wrapped getHeader',
  'app.response.set',
  'app.response.get',
];

interface Seen {
  status: number;
  wire: Record<string, string | null>;
  body: string;
  /** setHeader calls the wrapper saw, in order (wrapped setHeader only). */
  calls: string[];
  /** res.getHeaders() in a 'finish' listener, names sorted. */
  atFinish: string;
}

function makeApp(ex: any, variant: Variant, log: Map<string, { calls: string[]; atFinish: string }>): any {
  const app = ex();
  app.disable('x-powered-by');
  if (variant === 'app.response.set') {
    const orig = app.response.set;
    app.response.set = function (this: any, ...a: unknown[]) {
      return orig.apply(this, a);
    };
  }
  if (variant === 'app.response.get') {
    const orig = app.response.get;
    app.response.get = function (this: any, ...a: unknown[]) {
      return orig.apply(this, a);
    };
  }
  app.use((req: any, res: any, next: any) => {
    const entry = { calls: [] as string[], atFinish: '' };
    log.set(req.url, entry);
    if (variant === 'wrapped setHeader') {
      const orig = res.setHeader;
      res.setHeader = function (name: string, value: unknown) {
        entry.calls.push(`${name}=${Array.isArray(value) ? value.join('|') : String(value)}`);
        return orig.call(this, name, value);
      };
    }
    if (variant === 'wrapped getHeader') {
      const orig = res.getHeader;
      res.getHeader = function (name: string) {
        return orig.call(this, name);
      };
    }
    res.on('finish', () => {
      const h = res.getHeaders();
      entry.atFinish = Object.keys(h)
        .sort()
        .map((k) => `${k}=${String(h[k])}`)
        .join('; ');
    });
    next();
  });
  app.get('/text', (_req: any, res: any) => res.send('hello'));
  app.get('/json/:id', (req: any, res: any) => res.json({ id: req.params.id, emoji: 'é😀' }));
  app.get('/bytes', (_req: any, res: any) => res.send(Buffer.from([1, 2, 3])));
  app.get('/preset', (_req: any, res: any) => res.set('ETag', '"mine"').send('preset'));
  app.get('/te', (_req: any, res: any) => res.set('Transfer-Encoding', 'chunked').send('chunks'));
  app.get('/empty', (_req: any, res: any) => res.send(''));
  app.get('/status', (_req: any, res: any) => res.status(201).send('made'));
  app.get('/typed', (_req: any, res: any) => res.type('text/plain; format=flowed').send('typed'));
  app.get('/vnd', (_req: any, res: any) => res.set('Content-Type', 'application/vnd.api+json').json({ v: 1 }));
  app.get('/html', (_req: any, res: any) => res.send('<p>hi</p>'));
  app.get('/destroyed', (req: any, res: any) => {
    // json() after the socket is gone: node:http takes the headers and drops the response, without an error.
    req.socket.destroy();
    try {
      res.json({ late: true });
      log.get(req.url)!.calls.push('sent');
    } catch (err) {
      log.get(req.url)!.calls.push(`threw ${(err as Error).message}`);
    }
  });
  const noTag = ex.Router();
  noTag.get('/x', (_req: any, res: any) => res.send('x'));
  app.use('/r', noTag);
  return app;
}

const PATHS = [
  '/text',
  '/json/7',
  '/json/8',
  '/bytes',
  '/preset',
  '/te',
  '/empty',
  '/status',
  '/typed',
  '/vnd',
  '/html',
  '/r/x',
];
const WIRE = ['content-type', 'content-length', 'etag', 'transfer-encoding'];

async function run(ex: any, variant: Variant, onGale: boolean): Promise<Seen[]> {
  const log = new Map<string, { calls: string[]; atFinish: string }>();
  const app = makeApp(ex, variant, log);
  let url: string;
  let close: () => Promise<void>;
  if (onGale) ({ url, close } = await start(app));
  else {
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
  }
  try {
    const out: Seen[] = [];
    for (const p of PATHS) {
      const res = await fetch(url + p);
      const body = await res.text();
      // 'finish' comes on the next tick after the end: wait for it.
      for (let i = 0; i < 50 && log.get(p)?.atFinish === ''; i++) await new Promise((r) => setTimeout(r, 5));
      const wire: Record<string, string | null> = {};
      for (const h of WIRE) wire[h] = res.headers.get(h);
      const entry = log.get(p);
      assert.ok(entry, `the middleware ran for ${p}`);
      out.push({ status: res.status, wire, body, calls: entry.calls, atFinish: entry.atFinish });
    }
    // json() after req.socket.destroy(): the request fails on the client; the handler ran without an error.
    await fetch(`${url}/destroyed`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    for (let i = 0; i < 50 && (log.get('/destroyed')?.calls.length ?? 0) === 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    out.push({ status: 0, wire: {}, body: '', calls: log.get('/destroyed')?.calls ?? [], atFinish: '' });
    // Conditional GETs with the ETag just received: 304 on both (the tag the engine made is the one compared).
    for (const p of ['/text', '/json/7', '/bytes']) {
      const first = await fetch(url + p);
      await first.arrayBuffer();
      const tag = first.headers.get('etag') ?? 'none';
      // node:http, not fetch: fetch answers a 304 to a conditional request it did not make itself as a 200.
      const again = await new Promise<{ status: number; etag: string | null }>((resolve, reject) => {
        get(url + p, { headers: { 'if-none-match': tag } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: (res.headers.etag as string) ?? null }));
        }).on('error', reject);
      });
      out.push({ status: again.status, wire: { etag: again.etag }, body: '', calls: [], atFinish: '' });
    }
    return out;
  } finally {
    await close();
  }
}

for (const variant of VARIANTS) {
  test(`res.send's headers with ${variant} header methods: as Express 5's`, { timeout: 20_000 }, async () => {
    const gale = await run(express, variant, true);
    const real = await run(realExpress, variant, false);
    const destroyed = gale[PATHS.length] as Seen;
    const destroyedReal = real[PATHS.length] as Seen;
    assert.deepEqual(destroyedReal.calls.slice(-1), ['sent'], 'Express: json() after destroy() does not throw');
    assert.deepEqual(destroyed.calls.slice(-1), ['sent'], 'json() after destroy() does not throw');
    assert.deepEqual(
      gale.slice(PATHS.length + 1).map((s) => s.status),
      [304, 304, 304],
    );
    assert.deepEqual(
      gale.slice(PATHS.length + 1).map((s) => s.wire.etag),
      real.slice(PATHS.length + 1).map((s) => s.wire.etag),
    );
    for (let i = 0; i < PATHS.length; i++) {
      const g = gale[i] as Seen;
      const r = real[i] as Seen;
      const p = PATHS[i];
      assert.equal(g.status, r.status, `${p}: status`);
      assert.equal(g.body, r.body, `${p}: body`);
      // A Transfer-Encoding the app set is framed by each server as it frames: compare the headers that say content.
      assert.equal(g.wire['content-type'], r.wire['content-type'], `${p}: content-type`);
      assert.equal(g.wire.etag, r.wire.etag, `${p}: etag`);
      if (p !== '/te') assert.equal(g.wire['content-length'], r.wire['content-length'], `${p}: content-length`);
      assert.deepEqual(g.calls, r.calls, `${p}: the setHeader calls the wrapper saw`);
      assert.equal(g.atFinish, r.atFinish, `${p}: res.getHeaders() at 'finish'`);
    }
    if (variant === 'wrapped setHeader') {
      // The wrapper really sees send()'s own headers (the test would pass vacuously otherwise).
      assert.deepEqual(
        (gale[0] as Seen).calls.map((c) => c.split('=')[0]),
        ['Content-Type', 'Content-Length', 'ETag'],
      );
    }
    assert.match((gale[0] as Seen).atFinish, /etag=W\/"5-/);
  });
}
