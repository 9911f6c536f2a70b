// app.request() against the same app over a real socket: for each route (JSON, params, query, headers both ways,
// several Set-Cookie, JSON/form/multipart/stream bodies, 404, 405, thrown errors, 413/414/431, streaming, static
// files, sendFile, HEAD, 304, Range, redirects, compression, Connection: close) fetch() and app.request() must see
// the same status, reason, headers (but Date) and body bytes. The app listens while app.request runs beside it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync, inflateSync } from 'node:zlib';
import { type App, HttpError } from 'gale';
import { T, withApp } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'gale-app-request-'));
writeFileSync(join(dir, 'index.html'), '<h1>home</h1>');
writeFileSync(join(dir, 'a.txt'), 'static text\n');
// Over the in-memory pipe's 256 KiB: the file goes through it in pieces, as sendfile does through a socket.
const bigFile = Buffer.alloc(700_000, 'abcdefghij');
writeFileSync(join(dir, 'big.bin'), bigFile);
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** What undici's fetch() sends by itself (Node 20–24), given to app.request so both requests are the same. */
const FETCH_DEFAULTS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

function routes(app: App): void {
  app.get('/json', () => ({ hello: 'world', n: [1, 2, 3] }));
  app.get('/users/:id', (req) => ({ id: req.params.id }));
  app.get('/query', (req) => ({ query: req.query }));
  app.get('/headers', (req, res) => {
    res.header('x-seen', String(req.get('x-custom')));
    res.cookie('a', '1', { httpOnly: true });
    res.cookie('b', '2', { path: '/x' });
    res.append('x-multi', 'one');
    res.append('x-multi', 'two');
    return 'ok';
  });
  app.post('/json', async (req) => ({ got: await req.json() }));
  app.post('/form', async (req) => ({ form: await req.form() }));
  app.post('/multipart', async (req) => {
    const parts: unknown[] = [];
    for await (const part of req.multipart()) {
      parts.push(part.kind === 'file' ? [part.name, part.filename, part.buffer?.toString()] : [part.name, part.value]);
    }
    return { parts };
  });
  app.post('/upload', async (req) => ({ length: (await req.arrayBuffer()).byteLength }));
  app.put('/only-put', () => 'put');
  app.get('/throws', () => {
    throw new Error('boom');
  });
  app.get('/http-error', () => {
    throw new HttpError(422, 'bad input', { headers: { 'x-why': 'because' } });
  });
  app.get('/async-throws', async () => {
    await new Promise((r) => setTimeout(r, 5));
    throw new HttpError(409, 'conflict');
  });
  app.get('/stream', (_req, res) => {
    res.type('text');
    res.write('one ');
    setTimeout(() => {
      res.write('two ');
      res.end('three');
    }, 10);
  });
  app.get('/big', () => 'y'.repeat(600_000));
  app.get('/redirect', (_req, res) => res.redirect('/json'));
  app.get('/see-other', (_req, res) => res.redirect(303, 'https://example.com/elsewhere'));
  app.get('/file', (_req, res) => res.sendFile(join(dir, 'a.txt')));
  app.get('/big-file', (_req, res) => res.sendFile(join(dir, 'big.bin')));
  app.get('/empty', (_req, res) => res.status(204).end());
  app.get('/reason', (_req, res) => res.status(299).end('custom'));
  app.get('/close', (_req, res) => res.set('connection', 'close').send('bye'));
  app.static('/static', dir);
}

/** The parts of a response that must agree: status, reason, headers (Date aside), body bytes. */
async function snapshot(res: Response, inflate = false) {
  const headers = [...res.headers].filter(([name]) => name !== 'date');
  let body = Buffer.from(await res.arrayBuffer());
  // fetch() decompresses; app.request hands over the bytes as sent.
  const coding = res.headers.get('content-encoding');
  if (inflate && coding === 'gzip') body = gunzipSync(body);
  else if (inflate && coding === 'deflate') body = inflateSync(body);
  return { status: res.status, statusText: res.statusText, headers, body: body.toString('latin1') };
}

interface Case {
  path: string;
  init?: () => RequestInit;
}

async function compare(app: App, url: string, c: Case, inflate = false): Promise<void> {
  const init = c.init?.() ?? {};
  const overSocket = await fetch(url + c.path, { ...init, redirect: 'manual' });
  const again = c.init?.() ?? {};
  const headers = new Headers(again.headers);
  for (const [k, v] of Object.entries(FETCH_DEFAULTS)) if (!headers.has(k)) headers.set(k, v);
  // undici closes the connection after a HEAD (it cannot tell a body that should not be there), and says so.
  if (again.method === 'HEAD' && !headers.has('connection')) headers.set('connection', 'close');
  const inProcess = await app.request(c.path, { ...again, headers });
  const label = `${init.method ?? 'GET'} ${c.path}`;
  const [a, b] = [await snapshot(overSocket), await snapshot(inProcess, inflate)];
  assert.deepEqual(b, a, label);
}

function stream(...pieces: string[]): () => RequestInit {
  return () =>
    ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of pieces) c.enqueue(new TextEncoder().encode(p));
          c.close();
        },
      }),
      duplex: 'half',
    }) as RequestInit;
}

test('app.request answers as the same app does over a socket', T, async (t) => {
  const { app, url } = await withApp(t, routes, { bodyLimit: 64 * 1024, maxUriLength: 512, maxHeaderSize: 4096 });
  const form = () => {
    const f = new FormData();
    f.append('name', 'Ada');
    f.append('file', new Blob(['file body'], { type: 'text/plain' }), 'notes.txt');
    return f;
  };
  const cases: Case[] = [
    { path: '/json' },
    { path: '/users/42' },
    { path: '/users/%C3%A9t%C3%A9' },
    { path: '/query?a=1&b=two&b=three&c=%20x' },
    { path: '/headers', init: () => ({ headers: { 'x-custom': 'from the client' } }) },
    {
      path: '/json',
      init: () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' }),
    },
    { path: '/json', init: () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }) },
    { path: '/json', init: stream('{"streamed"', ': true}') },
    { path: '/form', init: () => ({ method: 'POST', body: new URLSearchParams({ x: '1', y: 'é' }) }) },
    { path: '/multipart', init: () => ({ method: 'POST', body: form() }) },
    { path: '/upload', init: () => ({ method: 'POST', body: new Uint8Array(64 * 1024) }) },
    { path: '/upload', init: () => ({ method: 'POST', body: new Uint8Array(64 * 1024 + 1) }) },
    { path: '/upload', init: stream('x'.repeat(40_000), 'y'.repeat(40_000)) },
    { path: '/nope' },
    { path: '/only-put' },
    { path: '/only-put', init: () => ({ method: 'DELETE' }) },
    { path: '/throws' },
    { path: '/http-error' },
    { path: '/async-throws' },
    { path: `/users/${'x'.repeat(600)}` },
    { path: '/json', init: () => ({ headers: { 'x-big': 'v'.repeat(5000) } }) },
    { path: '/stream' },
    { path: '/big' },
    { path: '/redirect' },
    { path: '/see-other' },
    { path: '/file' },
    { path: '/big-file' },
    { path: '/empty' },
    { path: '/reason' },
    { path: '/close' },
    { path: '/json', init: () => ({ headers: { connection: 'close' } }) },
    { path: '/json', init: () => ({ method: 'HEAD' }) },
    { path: '/static/a.txt' },
    { path: '/static/a.txt', init: () => ({ method: 'HEAD' }) },
    { path: '/static/' },
    { path: '/static' },
    { path: '/static/big.bin' },
    { path: '/static/a.txt', init: () => ({ headers: { range: 'bytes=2-7' } }) },
    { path: '/static/a.txt', init: () => ({ headers: { range: 'bytes=2-3,5-6' } }) },
    { path: '/static/missing.txt' },
    { path: '/static/..%2f..%2fetc%2fpasswd' },
  ];
  for (const c of cases) await compare(app, url, c);
  // A validator the first answer gave: 304 both ways.
  const etag = (await app.request('/static/a.txt')).headers.get('etag') as string;
  await compare(app, url, { path: '/static/a.txt', init: () => ({ headers: { 'if-none-match': etag } }) });
  await compare(app, url, { path: '/static/a.txt', init: () => ({ headers: { 'if-match': '"other"' } }) });
});

test('app.request and sockets agree with compression on (the body compared once inflated)', T, async (t) => {
  const big = { items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}` })) };
  const { app, url } = await withApp(
    t,
    (a) => {
      a.get('/big', () => big);
      a.get('/small', () => ({ ok: true }));
    },
    { compression: true },
  );
  const res = await app.request('/big', { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(res.headers.get('content-encoding'), 'gzip');
  assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(await res.arrayBuffer())).toString()), big);
  for (const path of ['/big', '/small']) await compare(app, url, { path }, true);
  const plain = await app.request('/big');
  assert.equal(plain.headers.get('content-encoding'), null, 'no Accept-Encoding, no compression');
});
