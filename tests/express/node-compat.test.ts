// @gale-http/express's req/res as Node's IncomingMessage/ServerResponse, over real sockets: body as a
// stream (events, pipe, for-await), res events and patching, piping into res, client aborts,
// listen()'s server object, and routes added after listen (native routes and the fallback).
// biome-ignore-all lint/suspicious/noExplicitAny: raw Node-style handlers
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough, Readable, Stream } from 'node:stream';
import { test } from 'node:test';
import express from '@gale-http/express';
import express4 from '@gale-http/express/4';
import request from 'supertest';
import { start } from './helpers.js';

const T = { timeout: 15_000 };

test('req is a readable body stream: data/end events, pipe, async iteration, headers and socket', T, async () => {
  const app = express();
  app.post('/events', (req: any, res: any) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () =>
      res.json({
        body: Buffer.concat(parts).toString(),
        complete: req.complete,
        readable: req.readable,
        httpVersion: req.httpVersion,
        raw: req.rawHeaders.includes('x-test'),
        remote: req.socket.remoteAddress,
        sameSocket: req.connection === req.socket,
        encrypted: Boolean(req.socket.encrypted),
      }),
    );
  });
  app.post('/pipe', (req: any, res: any) => {
    const through = new PassThrough();
    const out: Buffer[] = [];
    through.on('data', (c) => out.push(c));
    through.on('end', () => res.send(`piped ${Buffer.concat(out).length}`));
    req.pipe(through);
  });
  app.post('/iterate', async (req: any, res: any) => {
    let n = 0;
    for await (const chunk of req) n += chunk.length;
    res.send(`iterated ${n}`);
  });
  app.get('/rewrite', (req: any, _res: any, next: any) => {
    req.url = '/target?from=rewrite';
    next();
  });
  app.get('/target', (req: any, res: any) => res.json({ url: req.url, originalUrl: req.originalUrl, q: req.query }));
  const s = await start(app);
  try {
    const r = await fetch(`${s.url}/events`, { method: 'POST', headers: { 'x-test': '1' }, body: 'hello body' });
    assert.deepEqual(await r.json(), {
      body: 'hello body',
      complete: true,
      readable: false,
      httpVersion: '1.1',
      raw: true,
      remote: '127.0.0.1',
      sameSocket: true,
      encrypted: false,
    });
    const big = 'x'.repeat(200_000);
    assert.equal(await (await fetch(`${s.url}/pipe`, { method: 'POST', body: big })).text(), 'piped 200000');
    assert.equal(await (await fetch(`${s.url}/iterate`, { method: 'POST', body: big })).text(), 'iterated 200000');
    assert.deepEqual(await (await fetch(`${s.url}/rewrite`)).json(), {
      url: '/target?from=rewrite',
      originalUrl: '/rewrite',
      q: { from: 'rewrite' },
    });
  } finally {
    await s.close();
  }
});

test('res as a ServerResponse: writeHead/write/end, events, patched methods, a Readable piped into it', T, async () => {
  const events: string[] = [];
  const app = express();
  app.use((_req: any, res: any, next: any) => {
    // What compression/morgan-style middleware does: wrap the instance's methods.
    const write = res.write;
    const end = res.end;
    let bytes = 0;
    res.write = function (chunk: any, ...rest: any[]) {
      bytes += Buffer.byteLength(chunk);
      return write.call(this, chunk, ...rest);
    };
    res.end = function (chunk: any, ...rest: any[]) {
      if (chunk && typeof chunk !== 'function') bytes += Buffer.byteLength(chunk);
      if (!res.headersSent) res.setHeader('x-bytes', String(bytes));
      return end.call(this, chunk, ...rest);
    };
    res.on('finish', () => events.push(`finish ${res.statusCode} ${res.writableEnded} ${res.headersSent}`));
    res.on('close', () => events.push('close'));
    next();
  });
  app.get('/node', (_req: any, res: any) => {
    assert.ok((res as unknown) instanceof Stream);
    res.statusCode = 202;
    res.setHeader('X-A', ['1', '2']);
    assert.deepEqual(res.getHeaderNames().sort(), ['x-a', 'x-powered-by']);
    assert.equal(res.hasHeader('x-a'), true);
    res.removeHeader('x-powered-by');
    res.end('node style');
    assert.throws(() => res.setHeader('x-late', '1'), /Cannot set headers after they are sent/);
  });
  app.get('/piped', (_req: any, res: any) => {
    res.type('text');
    Readable.from(['one ', 'two ', 'three']).pipe(res);
  });
  app.get('/bad-header', (_req: any, res: any) => {
    assert.throws(() => res.setHeader('bad header', 'x'), { code: 'ERR_INVALID_HTTP_TOKEN' });
    assert.throws(() => res.setHeader('x-ok', 'line\nbreak'), { code: 'ERR_INVALID_CHAR' });
    assert.throws(() => res.status(1000), RangeError);
    res.sendStatus(200);
  });
  const s = await start(app);
  try {
    const r = await fetch(`${s.url}/node`);
    assert.equal(r.status, 202);
    assert.equal(r.headers.get('x-a'), '1, 2');
    assert.equal(r.headers.get('x-powered-by'), null);
    assert.equal(r.headers.get('x-bytes'), '10', 'set by the patched end before the head went out');
    assert.equal(await r.text(), 'node style');
    const p = await fetch(`${s.url}/piped`);
    assert.equal(await p.text(), 'one two three');
    assert.equal((await fetch(`${s.url}/bad-header`)).status, 200);
    for (let i = 0; i < 50 && events.length < 6; i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(events, [
      'finish 202 true true',
      'close',
      'finish 200 true true',
      'close',
      'finish 200 true true',
      'close',
    ]);
  } finally {
    await s.close();
  }
});

test('a client that goes away: res and req.socket emit close, the handler can stop its work', T, async () => {
  let resolveClosed: (v: string) => void = () => {};
  const closed = new Promise<string>((r) => {
    resolveClosed = r;
  });
  const app = express();
  app.get('/slow', (req: any, res: any) => {
    res.write('started\n');
    const timer = setInterval(() => res.write('tick\n'), 20);
    res.on('close', () => {
      clearInterval(timer);
      resolveClosed(`closed writableEnded=${res.writableEnded} socketGone=${!req.socket.writable}`);
    });
  });
  const s = await start(app);
  try {
    const sock = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => sock.once('data', r));
    sock.destroy();
    assert.equal(await closed, 'closed writableEnded=false socketGone=true');
  } finally {
    await s.close();
  }
});

test(
  'listen(): address(), listening/close events, EADDRINUSE reaches the callback; routes added after listen work',
  T,
  async () => {
    const app = express();
    app.get('/a', (_req: any, res: any) => res.send('a'));
    const s = await start(app);
    try {
      // Routes and middleware added while serving: native routes, plans and the fallback see them.
      app.get('/late/:id', (req: any, res: any) => res.send(`late ${req.params.id}`));
      app.get(/^\/re-\d+$/, (req: any, res: any) => res.send(`regex ${req.path}`));
      app.use((req: any, res: any) => res.status(404).send(`custom 404 ${req.path}`));
      assert.equal(await (await fetch(`${s.url}/late/7`)).text(), 'late 7');
      assert.equal(await (await fetch(`${s.url}/re-42`)).text(), 'regex /re-42');
      const missing = await fetch(`${s.url}/zzz`);
      assert.equal(missing.status, 404);
      assert.equal(await missing.text(), 'custom 404 /zzz');
      // A second server on the same port: Express 5 passes the error to the callback.
      const err = await new Promise<Error>((resolve) => {
        express().listen(s.port, '127.0.0.1', (e?: Error) => resolve(e as Error));
      });
      assert.match(String((err as NodeJS.ErrnoException)?.message), /in use|EADDRINUSE/i);
      // Express 4 reports it as the server's 'error' event.
      const err4 = await new Promise<Error>((resolve) => {
        express4().listen(s.port, '127.0.0.1').on('error', resolve);
      });
      assert.match(String(err4.message), /in use|EADDRINUSE/i);
    } finally {
      await s.close();
    }
    const app2 = express();
    const server = app2.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    assert.equal(server.listening, true);
    assert.equal((server.address() as { address: string }).address, '127.0.0.1');
    await new Promise<void>((r) => server.close(() => r()));
    assert.equal(server.listening, false);
  },
);

test("the Express layer imports only gale's public entry (../index.js), never Gale internals", () => {
  const dir = path.join(import.meta.dirname, '../../packages/express/src');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && statSync(path.join(dir, f)).isFile());
  assert.ok(files.length > 5);
  for (const f of files) {
    const src = readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/from '(\.\.\/[^']+)'/g)) {
      assert.equal(m[1], '../index.js', `${f} imports ${m[1]}`);
    }
  }
});

test('supertest(app): the app as a node:http request listener, with a JSON body and a cookie', T, async () => {
  const app = express();
  app.use(express.json());
  app.post('/users', (req: any, res: any) => res.status(201).cookie('sid', 'abc').json({ created: req.body.name }));
  app.get('/users/:id', (req: any, res: any) => res.json({ id: req.params.id }));
  const created = await request(app as any)
    .post('/users')
    .send({ name: 'ada' })
    .expect(201)
    .expect('content-type', /json/);
  assert.deepEqual(created.body, { created: 'ada' });
  assert.match(String(created.headers['set-cookie']), /^sid=abc; Path=\//);
  const got = await request(app as any)
    .get('/users/7')
    .expect(200);
  assert.deepEqual(got.body, { id: '7' });
  await request(app as any)
    .get('/nope')
    .expect(404, /Cannot GET \/nope/);
});
