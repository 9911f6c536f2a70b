// The docs' runnable examples run: each TypeScript block below (found by a line of its code in its markdown file) is
// written as a module of a temp directory, as `npm run check:docs` writes it, started with tsx on a free port (the
// free-port.mjs preload binds every app.listen to port 0 and prints the port), and asked what the docs say it answers.
// Every block that listens (or calls serve()) is either run here or listed in NOT_RUN with the reason.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Socket as EioClient } from 'engine.io-client';
import { io as ioClient } from 'socket.io-client';
import WebSocket from 'ws';
import { h3Requests } from '../h3/aioquic.js';
import { makePki } from '../tls/certs.js';
import { closeCapsule, streamText, wtClient } from '../webtransport/wt.js';

const root = join(import.meta.dirname, '..', '..');
const { docFiles, extractBlocks } = (await import(pathToFileURL(join(root, 'scripts', 'check-docs.mjs')).href)) as {
  docFiles(): string[];
  extractBlocks(markdown: string): { line: number; code: string }[];
};

interface Example {
  /** The markdown file, relative to the repo root. */
  file: string;
  /** A line of the block's code that no other TypeScript block of the file has. */
  match: string;
  /** Files the example reads, relative to its directory. */
  files?: Record<string, string>;
  /** Environment variables it reads. */
  env?: Record<string, string>;
  /** Asks the running example what the docs say it answers; `base` is `http://127.0.0.1:<port>`. */
  check(base: string): Promise<void>;
  /** Stop it with SIGTERM (a cluster's primary stops its workers) rather than SIGKILL. */
  gracefulStop?: boolean;
  /** A client example of the same file, run against this one (its localhost:3000 is this port); what it prints. */
  client?: { match: string; output: RegExp[] };
  /** What the example itself prints once `check` has run (each waited for up to 5 s). */
  stdout?: RegExp[];
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Opens a WebSocket; resolves once open, with the messages it gets (as text) collected in `got`. */
async function connect(url: string, options?: WebSocket.ClientOptions): Promise<{ ws: WebSocket; got: string[] }> {
  const ws = new WebSocket(url, options);
  const got: string[] = [];
  ws.on('message', (m) => got.push(String(m)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  return { ws, got };
}

/** Waits until `test` holds (checked every 10 ms, for up to 5 s). */
async function until(what: string, test: () => boolean, ms = 5000): Promise<void> {
  for (let i = 0; i < ms / 10 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(test(), `timed out waiting for ${what}`);
}

/** GET over HTTPS with the test CA (and SNI name); the body and the certificate's serial number. */
function httpsGet(url: string, ca: string, servername?: string): Promise<{ body: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, servername }, (res) => {
      const serial = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().serialNumber.toLowerCase();
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d;
      });
      res.on('end', () => resolve({ body, serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET / over HTTP/2 (TLS with `ca`, or cleartext with prior knowledge). */
function http2Get(base: string, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(base, ca ? { ca } : {});
    session.on('error', reject);
    const stream = session.request({ ':path': '/' });
    let body = '';
    stream.on('data', (d: Buffer) => {
      body += d;
    });
    stream.on('end', () => {
      session.close();
      resolve(body);
    });
    stream.on('error', reject);
  });
}

// Certificates for the TLS examples (a test CA; the examples read them as files).
const pki = makePki();
after(() => pki.remove());
const site = pki.leaf('localhost');
const api = pki.leaf('api.example.com');
const wild = pki.leaf('*.example.com');

const EXAMPLES: Example[] = [
  {
    file: 'README.md',
    match: "app.get('/users/:name', (req) => {",
    async check(base) {
      assert.equal(await (await fetch(`${base}/hello/gale`)).text(), 'Hello gale');
      assert.deepEqual(await (await fetch(`${base}/json`)).json(), { hello: 'world' });
      const created = await fetch(`${base}/users`, json({ name: 'ada' }));
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('location'), '/users/ada');
      assert.deepEqual(await (await fetch(`${base}/users/ada`)).json(), { name: 'ada' });
      const refused = await fetch(`${base}/users`, json({}));
      assert.equal(refused.status, 400);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      const problem = (await refused.json()) as { code: string; errors: { in: string; pointer: string }[] };
      assert.equal(problem.code, 'GALE_ERR_VALIDATION');
      assert.deepEqual(
        problem.errors.map((e) => `${e.in} ${e.pointer}`),
        ['body #/name'],
      );
      assert.equal((await fetch(`${base}/users`, { method: 'POST', body: '{' })).status, 400);
      assert.equal((await fetch(`${base}/users/bob`)).status, 404);
      assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
      const events = await fetch(`${base}/events`);
      const reader = (events.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      assert.match(new TextDecoder().decode(first.value), /^tick \d+\n/);
      await reader.cancel();
    },
  },
  {
    file: 'docs/guides/requests-and-responses.md',
    match: "app.get('/teapot', () => {",
    async check(base) {
      assert.equal(await (await fetch(`${base}/text`)).text(), 'Hello 世界');
      const bytes = await fetch(`${base}/bytes`);
      assert.equal(bytes.headers.get('content-type'), 'application/octet-stream');
      assert.deepEqual([...new Uint8Array(await bytes.arrayBuffer())], [1, 2, 3]);
      const web = await fetch(`${base}/web`);
      assert.equal(web.status, 202);
      assert.deepEqual(await web.json(), { from: 'a Web Response' });
      const teapot = await fetch(`${base}/teapot`);
      assert.equal(teapot.status, 418);
      assert.equal(await teapot.text(), "I'm a teapot");
      const byHand = await fetch(`${base}/by-hand?x=1`);
      assert.equal(byHand.headers.get('cache-control'), 'no-store');
      assert.deepEqual(await byHand.json(), { path: '/by-hand', query: { x: '1' } });
    },
  },
  {
    file: 'docs/guides/requests-and-responses.md',
    match: "app.post('/upload', async (req) => {",
    async check(base) {
      const notes = await fetch(`${base}/notes`, json({ a: 1 }));
      assert.deepEqual(await notes.json(), { type: 'application/json', body: { a: 1 } });
      const login = await fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({ user: 'ada' }) });
      assert.equal(await login.text(), 'welcome, ada');
      assert.equal((await fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({}) })).status, 400);
      assert.equal((await fetch(`${base}/login`, json({ user: 'ada' }))).status, 415);
      const form = new FormData();
      form.append('note', 'hi');
      form.append('doc', new Blob(['12345']), 'a.txt');
      const upload = await fetch(`${base}/upload`, { method: 'POST', body: form });
      assert.deepEqual(await upload.json(), { files: [{ field: 'doc', name: 'a.txt', bytes: 5 }] });
      const blob = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
      const put = await fetch(`${base}/blobs/b1`, { method: 'PUT', body: blob });
      assert.deepEqual(await put.json(), {
        name: 'b1',
        size: blob.length,
        sha256: createHash('sha256').update(blob).digest('hex'),
      });
      const who = await fetch(`${base}/whoami`, { headers: { accept: 'text/html', 'accept-language': 'fr' } });
      assert.deepEqual(await who.json(), { ip: '127.0.0.1', secure: false, accepts: 'html', language: 'fr' });
    },
  },
  {
    file: 'docs/guides/requests-and-responses.md',
    match:
      "app.get('/export', (req, res) => res.type('csv').stream(rowsAsCsv())); // async iterable, Readable, ReadableStream",
    files: { 'views/home.eta': '<h1><%= it.title %></h1>', 'reports/q3.pdf': '%PDF-1.4', 'app.log': 'a line\n' },
    env: { SECRET: 'docs test secret' },
    async check(base) {
      const old = await fetch(`${base}/old`, { redirect: 'manual' });
      assert.equal(old.status, 301);
      assert.equal(old.headers.get('location'), '/new');
      const login = await fetch(`${base}/login`, { redirect: 'manual' });
      assert.equal(login.status, 302);
      assert.match(login.headers.get('set-cookie') ?? '', /^sid=s%3A42\.[^;]+; Max-Age=86400; .*HttpOnly; Secure/);
      const report = await fetch(`${base}/report`);
      assert.equal(report.headers.get('content-disposition'), 'attachment; filename="Q3 report.pdf"');
      assert.equal(await report.text(), '%PDF-1.4');
      const csv = await fetch(`${base}/export`);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.equal(await csv.text(), 'id,name\n1,user 1\n2,user 2\n3,user 3\n');
      assert.equal(await (await fetch(`${base}/log`)).text(), 'a line\n');
      assert.equal(await (await fetch(`${base}/hi/%3Cb%3E`)).text(), '<h1>Hello &lt;b&gt;</h1>');
      const clock = await fetch(`${base}/clock`);
      const reader = (clock.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('event: tick')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      assert.equal(await (await fetch(`${base}/`)).text(), '<h1>Gale</h1>');
    },
  },
  {
    file: 'docs/guides/middleware-and-errors.md',
    match: "app.get('/admin', requireAdmin, (req, res) => res.send('hi')); // per-route middleware",
    async check(base) {
      const key = { headers: { 'x-key': 'secret' } };
      assert.deepEqual(await (await fetch(`${base}/api/users/7`, key)).json(), { id: '7', mountedAt: '/api' });
      const unauthorized = await fetch(`${base}/api/users/7`);
      assert.equal(unauthorized.status, 401);
      assert.equal(await unauthorized.text(), 'Unauthorized');
      const upstream = await fetch(`${base}/api/upstream`, key);
      assert.equal(upstream.status, 502);
      assert.equal(await upstream.text(), 'upstream failed');
      assert.equal(await (await fetch(`${base}/admin`, { headers: { 'x-role': 'admin' } })).text(), 'hi');
      const refused = await fetch(`${base}/admin`);
      assert.equal(refused.status, 403);
      assert.equal(await refused.text(), 'admins only');
      const missing = await fetch(`${base}/nowhere`);
      assert.equal(missing.status, 404);
      assert.deepEqual(await missing.json(), { missing: '/nowhere' });
    },
  },
  {
    file: 'docs/guides/middleware-and-errors.md',
    match: 'class OutOfStock extends Error {',
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/orders`, json({ sku: 'a1' }))).json(), { ordered: 'a1' });
      const noSku = await fetch(`${base}/orders`, json({}));
      assert.equal(noSku.status, 422);
      assert.deepEqual(await noSku.json(), { error: 'sku is required', code: 'ORDER_SKU' });
      const bad = await fetch(`${base}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { code: string }).code, 'GALE_ERR_INVALID_JSON');
      const gone = await fetch(`${base}/orders`, json({ sku: 'gone' }));
      assert.equal(gone.status, 409);
      assert.deepEqual(await gone.json(), { error: 'gone is out of stock', sku: 'gone' });
      const slow = await fetch(`${base}/slow-down`);
      assert.equal(slow.status, 429);
      assert.equal(slow.headers.get('retry-after'), '30');
    },
  },
  {
    file: 'docs/guides/middleware-and-errors.md',
    match: "app.get('/boom', () => {",
    async check(base) {
      const boom = await fetch(`${base}/boom`);
      assert.equal(boom.status, 500);
      assert.equal(await boom.text(), 'caught: boom');
    },
  },
  {
    file: 'docs/guides/static-files.md',
    match: "app.static('/', './dist', { fallback: 'index.html' }); // SPA: unknown paths get index.html",
    files: {
      'public/app.0123abcd.js': 'console.log(1);',
      'public/logo.txt': 'logo',
      'docs/intro.html': '<h1>intro</h1>',
      'files/report.pdf': '%PDF-1.4',
      'dist/index.html': '<div id="app"></div>',
    },
    async check(base) {
      const hashed = await fetch(`${base}/assets/app.0123abcd.js`);
      assert.equal(hashed.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(hashed.headers.get('content-type') ?? '', /javascript/);
      const plain = await fetch(`${base}/assets/logo.txt`);
      assert.equal(plain.headers.get('cache-control'), 'public, max-age=3600');
      const etag = plain.headers.get('etag') ?? '';
      assert.equal((await fetch(`${base}/assets/logo.txt`, { headers: { 'if-none-match': etag } })).status, 304);
      assert.equal(await (await fetch(`${base}/docs/intro`)).text(), '<h1>intro</h1>');
      assert.equal(await (await fetch(`${base}/report`)).text(), '%PDF-1.4');
      const spa = await fetch(`${base}/some/client/route`);
      assert.equal(spa.status, 200);
      assert.equal(await spa.text(), '<div id="app"></div>');
      assert.equal((await fetch(`${base}/assets/missing.js`)).status, 404);
    },
  },
  {
    file: 'docs/guides/websockets.md',
    match: "app.ws('/chat/:room', {",
    async check(base) {
      const wsBase = base.replace('http:', 'ws:');
      const echo = await connect(`${wsBase}/echo`);
      echo.ws.send('ping');
      await until('the echo', () => echo.got.length === 1);
      assert.deepEqual(echo.got, ['ping']);
      echo.ws.close();
      await assert.rejects(connect(`${wsBase}/chat/lobby`), /HTTP 401/);
      const login = async (user: string) => {
        const res = await fetch(`${base}/login/${user}`);
        assert.equal(await res.text(), `logged in as ${user}`);
        return { headers: { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] as string } };
      };
      const ada = await connect(`${wsBase}/chat/lobby`, await login('ada'));
      const bob = await connect(`${wsBase}/chat/lobby`, await login('bob'));
      await until('the join', () => ada.got.includes('bob joined'));
      bob.ws.send('hi all');
      await until('the message', () => ada.got.includes('hi all'));
      assert.ok(!bob.got.includes('hi all'), 'ws.publish leaves the sender out');
      bob.ws.close();
      await until('the leave', () => ada.got.some((m) => /^bob left \(\d+\)$/.test(m)));
      ada.ws.close();
    },
  },
  {
    file: 'docs/guides/websockets.md',
    match: "app.ws('/legacy', requireKey, (ws, req) => {",
    async check(base) {
      const wsBase = base.replace('http:', 'ws:');
      await assert.rejects(connect(`${wsBase}/legacy`), /HTTP 401/);
      const c = await connect(`${wsBase}/legacy?key=secret`);
      await until('the greeting', () => c.got.length === 1);
      assert.equal(c.got[0], 'hello 127.0.0.1');
      c.ws.send('again');
      await until('the echo', () => c.got.length === 2);
      assert.equal(c.got[1], 'again');
      c.ws.close();
    },
  },
  {
    file: 'docs/guides/websockets.md',
    match: "client.on('echo', (evt) => evt.reply(evt.data)); // a reply goes back to the emit that asked for one",
    async check() {},
    client: {
      match:
        "const client = new FastWsClient('ws://localhost:3000/fws'); // Node 20: new FastWsClient(url, { WebSocket }) from 'ws'",
      output: [
        /^\{ hello: 'world' \}$/m,
        /^\{ joined: 'lobby' \}$/m,
        /^news: welcome to lobby$/m,
        /^round trip: \d+ ms$/m,
      ],
    },
  },
  {
    file: 'docs/guides/socket-io.md',
    match: 'io.use((socket, next) => {',
    env: { TOKEN: 'docs token' },
    async check(base) {
      const refused = ioClient(base, { auth: { token: 'wrong' }, transports: ['websocket'], reconnection: false });
      const err = await new Promise<Error & { data?: unknown }>((resolve) => refused.on('connect_error', resolve));
      assert.equal(err.message, 'unauthorized');
      assert.deepEqual(err.data, { hint: 'send auth.token' });
      refused.close();
      const a = ioClient(base, { auth: { token: 'docs token' }, reconnection: false }); // polling, then upgrade
      const b = ioClient(base, { auth: { token: 'docs token' }, transports: ['websocket'], reconnection: false });
      const joined: string[] = [];
      a.on('joined', (id: string) => joined.push(id));
      a.on('read?', (ack: (v: string) => void) => ack('a read it'));
      b.on('read?', (ack: (v: string) => void) => ack('b read it'));
      assert.deepEqual(await a.emitWithAck('join', 'r1'), { rooms: [a.id, 'r1'] });
      assert.deepEqual(await b.emitWithAck('join', 'r1'), { rooms: [b.id, 'r1'] });
      await until('the joined event', () => joined.length === 1);
      assert.equal(joined[0], b.id);
      const said = new Promise((resolve) => a.once('said', resolve));
      const readBy = new Promise((resolve) => b.once('read by', resolve));
      b.emit('say', 'r1', 'hello');
      assert.equal(await said, 'hello');
      assert.deepEqual(((await readBy) as string[]).sort(), ['a read it', 'b read it']);
      a.close();
      b.close();
      const game = ioClient(`${base}/game-7`, {
        auth: { token: 'docs token' },
        transports: ['websocket'],
        reconnection: false,
      });
      assert.equal(await new Promise((resolve) => game.once('welcome', resolve)), '/game-7');
      game.close();
    },
  },
  {
    file: 'docs/guides/socket-io.md',
    match: "socket.on('chat', (text: string) => io.to('lobby').emit('chat', text));",
    async check(base) {
      const a = ioClient(base, { transports: ['websocket'], reconnection: false });
      const b = ioClient(base, { reconnection: false });
      await Promise.all([a, b].map((c) => new Promise<void>((resolve) => c.once('connect', () => resolve()))));
      const got = new Promise((resolve) => b.once('chat', resolve));
      a.emit('chat', 'hi lobby');
      assert.equal(await got, 'hi lobby');
      a.close();
      b.close();
    },
  },
  {
    file: 'docs/guides/socket-io.md',
    match: "socket.on('chat', (text: string) => io.emit('chat', text));",
    async check(base) {
      // Socket.IO on a node:http server with an Express app: the bundle, then a chat message over WebSocket.
      const bundle = await fetch(`${base}/socket.io/socket.io.js`);
      assert.equal(bundle.status, 200);
      await bundle.arrayBuffer();
      const a = ioClient(base, { reconnection: false });
      const b = ioClient(base, { transports: ['websocket'], reconnection: false });
      await Promise.all([a, b].map((c) => new Promise<void>((resolve) => c.once('connect', () => resolve()))));
      const got = new Promise((resolve) => a.once('chat', resolve));
      b.emit('chat', 'over node:http');
      assert.equal(await got, 'over node:http');
      a.close();
      b.close();
    },
  },
  {
    file: 'docs/guides/socket-io.md',
    match: "engine.on('connection', (socket) => {",
    async check(base) {
      const socket = new EioClient(base, { path: '/engine.io' });
      const got: unknown[] = [];
      socket.on('message', (m: unknown) => got.push(m));
      await until('the hello', () => got.length === 1);
      assert.equal(got[0], 'hello');
      socket.send('echo me');
      await until('the echo', () => got.length === 2);
      assert.equal(got[1], 'echo me');
      socket.close();
    },
  },
  {
    file: 'docs/guides/hooks-and-plugins.md',
    match: 'await app.listen(3000); // waits for both plugins; `await app.ready()` waits without listening',
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users`)).json(), { names: ['ada', 'alan'], caller: 'anonymous' });
      const named = await fetch(`${base}/users`, { headers: { 'x-user': 'grace' } });
      assert.deepEqual(await named.json(), { names: ['ada', 'alan'], caller: 'grace' });
      assert.equal(await (await fetch(`${base}/motd`)).text(), 'hello');
      assert.equal((await fetch(`${base}/nope`)).status, 404);
    },
  },
  {
    file: 'docs/guides/express.md',
    match: "app.use('/blog', blog); // sub-apps, routers, 4-argument error handlers, next('route')…",
    async check(base) {
      const user = await fetch(`${base}/users/7`, { headers: { origin: 'https://a.example' } });
      assert.deepEqual(await user.json(), { id: '7' });
      assert.equal(user.headers.get('access-control-allow-origin'), '*'); // cors()
      assert.equal(user.headers.get('x-content-type-options'), 'nosniff'); // helmet()
      assert.deepEqual(await (await fetch(`${base}/echo`, json({ a: [1] }))).json(), { a: [1] });
      assert.equal(await (await fetch(`${base}/blog`)).text(), 'the blog, mounted at /blog');
      assert.equal(await (await fetch(`${base}/blog/hello`)).text(), 'post hello');
      const draft = await fetch(`${base}/blog/draft`);
      assert.equal(draft.status, 404);
      assert.equal(await draft.text(), 'not published yet');
      const fail = await fetch(`${base}/fail`);
      assert.equal(fail.status, 500);
      assert.deepEqual(await fail.json(), { error: 'boom' });
    },
  },
  {
    file: 'docs/guides/express.md',
    match: "app.get('/health', (_req, res) => res.json({ ok: true })); // answered by the engine after the first GET",
    async check(base) {
      // The same bytes whether the handler or the engine answers (tests/express/native-answers.test.ts compares them).
      for (let i = 0; i < 3; i++) {
        const health = await fetch(`${base}/health`);
        assert.deepEqual(await health.json(), { ok: true });
        assert.equal(health.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(health.headers.get('x-powered-by'), 'Express');
      }
      assert.deepEqual(await (await fetch(`${base}/users/7`)).json(), { id: '7' });
    },
  },
  {
    file: 'docs/guides/express.md',
    match: 'Module({})(AppModule); // @Module({}) class AppModule {} (your module, with its controllers)',
    async check(base) {
      // Nest answers (its 404 for a module without routes), through Express on the engine.
      const res = await fetch(`${base}/nothing-here`);
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { message: 'Cannot GET /nothing-here', error: 'Not Found', statusCode: 404 });
      assert.equal(res.headers.get('x-powered-by'), 'Express');
    },
  },
  {
    file: 'docs/guides/express.md',
    match: "app.use(helmet(), morgan('tiny'), responseTime()); // the same middleware functions an Express app uses",
    async check(base) {
      const res = await fetch(base);
      assert.equal(await res.text(), 'hello');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('x-response-time') ?? '', /^\d+(\.\d+)?ms$/);
      // express-rate-limit at the route: five in the window, then 429.
      const codes = [];
      for (let i = 0; i < 6; i++) {
        const login = await fetch(`${base}/login`, { method: 'POST' });
        codes.push(login.status);
        if (login.status === 200) assert.equal(await login.text(), 'hello from /login');
        else await login.arrayBuffer();
      }
      assert.deepEqual(codes, [200, 200, 200, 200, 200, 429]);
    },
  },
  {
    file: 'docs/guides/fetch-and-hono.md',
    match: 'const server = await serve(hono, { port: 3000 }); // a Hono app, unchanged (its `fetch` method)',
    async check(base) {
      const user = await fetch(`${base}/api/users/7`, { headers: { origin: 'https://a.example' } });
      assert.deepEqual(await user.json(), { id: '7' });
      assert.equal(user.headers.get('access-control-allow-origin'), '*');
      const events = await fetch(`${base}/events`);
      assert.equal(events.headers.get('content-type'), 'text/event-stream');
      assert.equal(await events.text(), 'data: hi\n\n');
    },
  },
  {
    file: 'docs/guides/fetch-and-hono.md',
    match: 'port: 3001,',
    async check(base) {
      const res = await fetch(`${base}/x?y=1`, { method: 'POST', body: 'hello' });
      const got = (await res.json()) as { url: string; method: string; body: string };
      assert.equal(new URL(got.url).pathname + new URL(got.url).search, '/x?y=1');
      assert.deepEqual([got.method, got.body], ['POST', 'hello']);
    },
  },
  {
    file: 'docs/guides/fetch-and-hono.md',
    match: "app.fetch('/hono', hono); // every method under /hono; Hono sees /api/users/7",
    async check(base) {
      assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
      assert.deepEqual(await (await fetch(`${base}/hono/api/users/7`)).json(), { id: '7', path: '/api/users/7' });
      const missing = await fetch(`${base}/elsewhere`);
      assert.equal(missing.status, 404);
      assert.equal(await missing.text(), 'nothing at /elsewhere');
    },
  },
  {
    file: 'docs/guides/batteries.md',
    match: 'app.use(requestId()); // X-Request-Id in and out, = req.id and reqId in logs',
    env: { SESSION_SECRET: 'docs test secret' },
    async check(base) {
      const form = await fetch(`${base}/form`);
      assert.equal(form.headers.get('x-content-type-options'), 'nosniff'); // security: true
      const id = form.headers.get('x-request-id') ?? '';
      assert.match(id, /^[0-9a-f-]{36}$/);
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const refused = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { cookie },
        body: new URLSearchParams({}),
      });
      assert.equal(refused.status, 403);
      const login = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { cookie },
        body: new URLSearchParams({ _csrf: token }),
      });
      assert.equal(await login.text(), 'ok');
      const session = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const me = await fetch(`${base}/api/me`, {
        headers: { cookie: session, origin: 'https://app.example.com', 'x-request-id': 'docs-1' },
      });
      assert.deepEqual(await me.json(), { user: 'ada', requestId: 'docs-1' });
      assert.equal(me.headers.get('access-control-allow-origin'), 'https://app.example.com');
      assert.equal(me.headers.get('access-control-allow-credentials'), 'true');
      const first = await fetch(`${base}/count`);
      const counted = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
      assert.deepEqual(await first.json(), { count: 1 });
      assert.deepEqual(await (await fetch(`${base}/count`, { headers: { cookie: counted } })).json(), { count: 2 });
    },
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: '// server.ts: the app, exactly as for one process',
    async check(base) {
      const { pid } = (await (await fetch(base)).json()) as { pid: number };
      assert.ok(Number.isInteger(pid));
    },
  },
  {
    file: 'docs/guides/scaling-out.md',
    match:
      "const c = cluster(new URL('./server.ts', import.meta.url), { workers: 'auto' }); // one per core; or a number",
    files: {
      'server.ts': blockCode('docs/guides/scaling-out.md', '// server.ts: the app, exactly as for one process'),
    },
    gracefulStop: true,
    async check(base) {
      const { pid } = (await (await fetch(base)).json()) as { pid: number };
      assert.ok(Number.isInteger(pid));
    },
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: 'if (cluster.isPrimary && process.env.WORKERS) {',
    env: { WORKERS: '2' },
    gracefulStop: true,
    async check(base) {
      const got = (await (await fetch(base)).json()) as { worker: number | null; pid: number };
      assert.ok(got.worker === 0 || got.worker === 1, JSON.stringify(got));
    },
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: 'const stop = () => void app.close({ timeout: 10_000 }).then(() => process.exit(0));',
    gracefulStop: true,
    async check(base) {
      const { pid } = (await (await fetch(base)).json()) as { pid: number };
      assert.ok(Number.isInteger(pid));
    },
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: 'const db = { connected: true }; // your database client',
    async check(base) {
      assert.equal(await (await fetch(`${base}/healthz`)).text(), 'ok\n');
      assert.match(await (await fetch(`${base}/readyz`)).text(), /^ready\n?$/);
      assert.equal(await (await fetch(base)).text(), 'hello');
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, /^gale_requests_total \d+$/m);
      assert.match(metrics, /^gale_connections \d+$/m);
    },
  },
  {
    file: 'docs/guides/tls-and-http2.md',
    match: "app.get('/', (req) => ({ httpVersion: req.httpVersion, secure: req.secure, protocol: req.protocol }));",
    files: { 'site.crt': site.cert, 'site.key': site.key },
    async check(base) {
      const https = base.replace('http:', 'https:');
      const h1 = await httpsGet(https, pki.ca);
      assert.deepEqual(JSON.parse(h1.body), { httpVersion: '1.1', secure: true, protocol: 'https' });
      assert.deepEqual(JSON.parse(await http2Get(https, pki.ca)), {
        httpVersion: '2.0',
        secure: true,
        protocol: 'https',
      });
    },
  },
  {
    file: 'docs/guides/tls-and-http2.md',
    match: "minVersion: 'TLSv1.3',",
    files: {
      'default.crt': site.cert,
      'default.key': site.key,
      'intermediate.pem': pki.ca,
      'api.crt': api.cert,
      'api.key': api.key,
      'wild.crt': wild.cert,
      'wild.key': wild.key,
    },
    async check(base) {
      const https = base.replace('http:', 'https:');
      const byDefault = await httpsGet(https, pki.ca, 'localhost');
      assert.equal(byDefault.serial, site.serial);
      assert.equal(byDefault.body, 'hello 127.0.0.1');
      assert.equal((await httpsGet(https, pki.ca, 'api.example.com')).serial, api.serial);
      assert.equal((await httpsGet(https, pki.ca, 'www.example.com')).serial, wild.serial);
    },
  },
  {
    file: 'docs/guides/tls-and-http2.md',
    match:
      'await app.listen({ port: 8080, http2: true }); // cleartext: HTTP/1.1, and HTTP/2 for clients with prior knowledge',
    async check(base) {
      assert.equal(await (await fetch(base)).text(), 'HTTP/1.1');
      assert.equal(await http2Get(base), 'HTTP/2.0');
    },
  },
  {
    file: 'docs/guides/tls-and-http2.md',
    match: 'http3: { maxConcurrentStreams: 100, idleTimeout: 30_000 },',
    files: { 'site.crt': site.cert, 'site.key': site.key },
    async check(base) {
      const port = Number(new URL(base).port);
      const h3 = await h3Requests(port, pki.caPath, [{ path: '/' }], { servername: 'localhost' });
      assert.equal(h3.alpn, 'h3');
      assert.deepEqual(JSON.parse(h3.responses[0].body.toString()), { version: '3.0' });
      assert.deepEqual(JSON.parse(await http2Get(base.replace('http:', 'https:'), pki.ca)), { version: '2.0' });
    },
  },
  {
    file: 'docs/guides/webtransport.md',
    match: "(req, _res, next) => (req.headers.authorization === 'Bearer s3cret' ? next() : next(new HttpError(401))),",
    files: { 'site.crt': site.cert, 'site.key': site.key },
    async check(base) {
      const port = Number(new URL(base).port);
      const tls = { ca: pki.caPath, servername: 'localhost' };
      const refused = await wtClient(
        port,
        [
          { do: 'connect', path: '/game/lobby' },
          { do: 'wait', for: 'status' },
        ],
        30,
        tls,
      );
      assert.equal(refused.find((e) => e.kind === 'status')?.status, 401);
      const ev = await wtClient(
        port,
        [
          { do: 'connect', path: '/game/lobby', headers: [['authorization', 'Bearer s3cret']] },
          { do: 'wait', for: 'datagram' },
          { do: 'datagram', data: 'ping' },
          { do: 'bidi', name: 'a', data: 'echo me', fin: true },
          { do: 'wait', for: 'end:a' },
          { do: 'capsule', hex: closeCapsule(0, 'bye'), fin: true },
          { do: 'wait', for: 'connect-end' },
        ],
        30,
        tls,
      );
      assert.deepEqual(
        ev.filter((e) => e.kind === 'datagram').map((e) => e.data),
        ['welcome to lobby', 'ping'],
      );
      assert.deepEqual(streamText(ev, 'a'), { text: 'echo me', end: true });
    },
    stdout: [/^closed lobby 0 bye$/m],
  },
  {
    file: 'docs/guides/webtransport.md',
    match: "app.webtransport('/live', { datagram: (s, d) => s.sendDatagram(d) });",
    files: { 'site.crt': site.cert, 'site.key': site.key },
    async check(base) {
      const tls = { ca: pki.caPath, servername: 'localhost' };
      const steps = [
        { do: 'connect', path: '/live' },
        // Datagrams for a session not open yet are dropped (the draft allows it): wait for its 200 first.
        { do: 'wait', for: 'status' },
        { do: 'datagram', data: 'hi' },
        { do: 'wait', for: 'datagram' },
      ] as const;
      const ev = await wtClient(Number(new URL(base).port), [...steps], 30, tls);
      assert.equal(ev.find((e) => e.kind === 'datagram')?.data, 'hi');
    },
  },
  {
    file: 'docs/guides/socket-io.md',
    match: "const io = new Server(app, { transports: ['polling', 'websocket', 'webtransport'] });",
    files: { 'site.crt': site.cert, 'site.key': site.key },
    async check(base) {
      // Engine.IO over WebTransport as engine.io-client opens it: a session at the path, its first bidirectional
      // stream, the framed open packet '0' (1 byte), answered with the server's open packet '0{"sid":…}'.
      const tls = { ca: pki.caPath, servername: 'localhost' };
      const steps = [
        { do: 'connect', path: '/socket.io/' },
        { do: 'wait', for: 'status' },
        { do: 'bidi', name: 'eio', data: '\x010' },
        { do: 'wait', for: 'data' },
      ] as const;
      const ev = await wtClient(Number(new URL(base).port), [...steps], 30, tls);
      assert.match(streamText(ev, 'eio').text, /^.0\{"sid":"[^"]+","upgrades":\[\]/);
    },
  },
  {
    file: 'docs/guides/options.md',
    match: "trustProxy: 'loopback', // behind a proxy on this machine: req.ip is the X-Forwarded-For client",
    async check(base) {
      const res = await fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify({ a: 1 }),
      });
      assert.deepEqual(await res.json(), { ip: '203.0.113.9', body: { a: 1 } });
      const big = await fetch(`${base}/echo`, json({ pad: 'x'.repeat(200 * 1024) }));
      assert.equal(big.status, 413);
    },
  },
  {
    file: 'docs/guides/options.md',
    match: "await app.listen({ port: 3000, io: 'uring' });",
    async check(base) {
      assert.equal(await (await fetch(base)).text(), 'hello');
    },
    // This machine's kernel has io_uring (tests/io/backend.test.ts says so when it does not).
    stdout: [/^uring$/m],
  },
  {
    file: 'docs/guides/requests-and-responses.md',
    match: "// A later turn: the request's fields still read what the client sent.",
    async check(base) {
      const res = await fetch(`${base}/events`, { method: 'POST', headers: { 'user-agent': 'audit-test' } });
      assert.equal(res.status, 202);
      assert.equal(await res.text(), 'accepted');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the example reads the request 100 ms later
      const audit = (await (await fetch(`${base}/audit`)).json()) as { path: string; ip: string; agent: string }[];
      assert.deepEqual([audit[0]?.path, audit[0]?.ip, audit[0]?.agent], ['/events', '127.0.0.1', 'audit-test']);
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match:
      "app.use('/docs', openApiUi({ url: '/openapi.json', title: 'Pet store' })); // the UI at http://localhost:3000/docs",
    async check(base) {
      const page = await fetch(`${base}/docs`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>Pet store<\/title>[\s\S]*src="\/docs\/swagger-ui-bundle\.js"/);
      assert.equal((await fetch(`${base}/docs/swagger-ui-bundle.js`)).status, 200);
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.deepEqual(Object.keys(doc.paths), ['/pets/{id}']);
    },
  },
  {
    file: 'packages/gale/README.md',
    match: "app.static('/assets', './public', { cache: true });",
    files: { 'public/a.txt': 'asset' },
    async check(base) {
      assert.equal(await (await fetch(`${base}/hello/npm`)).text(), 'Hello npm');
      const created = await fetch(`${base}/users`, json({ name: 'ada', extra: true }));
      assert.equal(created.status, 201);
      assert.deepEqual(await created.json(), { name: 'ada' });
      assert.equal((await fetch(`${base}/users`, json({ name: 7 }))).status, 422);
      assert.equal(await (await fetch(`${base}/assets/a.txt`)).text(), 'asset');
      const echo = await connect(`${base.replace('http:', 'ws:')}/echo`);
      echo.ws.send('hi');
      await until('the echo', () => echo.got.length === 1);
      echo.ws.close();
    },
  },
  {
    file: 'packages/cluster/README.md',
    match: "app.get('/', () => ({ worker: cluster.worker?.slot ?? null }));",
    async check(base) {
      assert.deepEqual(await (await fetch(base)).json(), { worker: null }); // without WORKERS: one process
    },
  },
  {
    file: 'packages/engine.io/README.md',
    match: "socket.on('message', (data: string | Buffer) => socket.send(data));",
    async check(base) {
      const socket = new EioClient(base, { path: '/engine.io/' });
      const got: unknown[] = [];
      socket.on('message', (m: unknown) => got.push(m));
      socket.on('open', () => socket.send('echo me'));
      await until('the echo', () => got.length === 1);
      assert.equal(got[0], 'echo me');
      socket.close();
    },
  },
  {
    file: 'packages/express/README.md',
    match: "app.listen(3000, () => console.log('listening'));",
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users/7`)).json(), { id: '7' });
    },
  },
  {
    file: 'packages/socket.io/README.md',
    match: 'io.listen(3000);',
    async check(base) {
      const a = ioClient(base, { transports: ['websocket'], reconnection: false });
      const b = ioClient(base, { reconnection: false });
      await Promise.all([a, b].map((c) => new Promise<void>((resolve) => c.once('connect', () => resolve()))));
      // The sender is in the lobby too; the event names who sent it (auth.name, else 'guest') and the ack says delivered.
      const got = new Promise<string[]>((resolve) =>
        a.once('chat', (from: string, text: string) => resolve([from, text])),
      );
      const acked = await b.timeout(2000).emitWithAck('chat', 'hello');
      assert.equal(acked, true);
      assert.deepEqual(await got, ['guest', 'hello']);
      a.close();
      b.close();
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: "app.get('/users/:id{/:tab}', (req) => {",
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users/7`)).json(), { id: '7', tab: 'profile' });
      assert.deepEqual(await (await fetch(`${base}/users/7/repos`)).json(), { id: '7', tab: 'repos' });
      const banned = await fetch(`${base}/orgs/banned/repos/x`);
      assert.equal(banned.status, 403);
      assert.equal(await (await fetch(`${base}/orgs/gale/repos/engine`)).text(), 'gale/engine');
      assert.deepEqual(await (await fetch(`${base}/items/3`, { method: 'DELETE' })).json(), { id: '3' });
      assert.deepEqual(await (await fetch(`${base}/api/items/9`)).json(), { item: '9' });
      const { ws } = await connect(`${base.replace('http', 'ws')}/rooms/lobby`);
      ws.close();
    },
    stdout: [/^touching 3$/m],
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: 'const timing = derive(() => ({ startedAt: Date.now() }));',
    async check(base) {
      assert.equal((await fetch(`${base}/me`)).status, 401);
      const me = (await (await fetch(`${base}/me`, { headers: { authorization: 'token-1' } })).json()) as {
        name: string;
        since: number;
      };
      assert.equal(me.name, 'Ada');
      assert.equal(typeof me.since, 'number');
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: "admin.get('/stats', (req) => ({ by: req.state.user }));",
    async check(base) {
      assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
      assert.equal(await (await fetch(`${base}/dashboard`)).text(), 'hello anonymous');
      assert.equal(await (await fetch(`${base}/dashboard`, { headers: { 'x-user': 'ada' } })).text(), 'hello ada');
      assert.deepEqual(await (await fetch(`${base}/admin/stats`, { headers: { 'x-user': 'bo' } })).json(), {
        by: 'bo',
      });
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: "// app.get('/org', org, …) would not compile: nothing before org added `user`.",
    async check(base) {
      assert.equal(await (await fetch(`${base}/org`, { headers: { 'x-user-id': '4' } })).text(), '4 is in org-of-4');
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: '    params: z.object({ teamId: z.coerce.number().int() }),',
    async check(base) {
      const id = '0b5e8a36-2f4e-4c1b-9a57-0a3f0c2d9e11';
      const ok = await fetch(`${base}/teams/5/users?notify=no`, {
        ...json({ name: 'Ada', email: 'ada@example.com' }),
        headers: { 'content-type': 'application/json', 'x-request-id': id },
      });
      assert.equal(ok.status, 201);
      assert.deepEqual(await ok.json(), { team: 5, name: 'Ada', notify: false });
      const bad = await fetch(`${base}/teams/x/users`, {
        ...json({ name: '', email: 'nope' }),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      });
      assert.equal(bad.status, 400);
      assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const problem = (await bad.json()) as { errors: { in: string; pointer: string }[] };
      const where = problem.errors.map((e) => `${e.in}${e.pointer}`);
      for (const w of ['params#/teamId', 'headers#/x-request-id', 'body#/name', 'body#/email']) {
        assert.ok(where.includes(w), `the problem names ${w}: ${where.join(', ')}`);
      }
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: "import { type } from 'arktype';",
    async check(base) {
      const note = await fetch(`${base}/notes`, json({ title: 'hi', tags: ['a', 'b'] }));
      assert.deepEqual(await note.json(), { title: 'hi', tags: 2 });
      assert.equal((await fetch(`${base}/notes`, json({ title: '', tags: [] }))).status, 400);
      const put = await fetch(`${base}/notes/12`, { ...json({ title: 'x' }), method: 'PUT' });
      assert.deepEqual(await put.json(), { id: 12, title: 'x' });
      assert.equal((await fetch(`${base}/notes/abc`, { ...json({ title: 'x' }), method: 'PUT' })).status, 400);
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: 'if (!(err instanceof ValidationError)) throw err;',
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/items/4`)).json(), { id: 4 });
      const bad = await fetch(`${base}/items/four`);
      assert.equal(bad.status, 422);
      assert.deepEqual(await bad.json(), { invalid: ['params/id'] });
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: 'const PublicUser = Type.Object({ id: Type.Integer(), name: Type.String() });',
    async check(base) {
      assert.equal(await (await fetch(`${base}/users/1`)).text(), '{"id":1,"name":"Ada"}');
      const missing = await fetch(`${base}/users/2`);
      assert.equal(missing.status, 404);
      assert.deepEqual(await missing.json(), { error: 'no such user' });
    },
  },
  {
    file: 'docs/guides/routing-and-validation.md',
    match: "    operationId: 'getPet',",
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/pets/3`)).json(), { id: 3, name: 'Rex' });
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
        openapi: string;
        paths: Record<string, { get?: { operationId?: string } }>;
      };
      assert.match(doc.openapi, /^3\.1/);
      assert.equal(doc.paths['/pets/{id}']?.get?.operationId, 'getPet');
      assert.equal(doc.paths['/openapi.json'], undefined, 'hidden');
    },
  },
  {
    file: 'docs/guides/observability.md',
    match: 'const started = new WeakMap<RequestTrace, number>();',
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users/7`)).json(), { id: '7' });
    },
    stdout: [/^GET \/users\/:id 200 \d+\.\d ms$/m],
  },
  {
    file: 'docs/guides/observability.md',
    match: 'const current = new AsyncLocalStorage<RequestInfo>();',
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users/3`)).json(), { id: '3' });
    },
    stdout: [/^loading user 3 for request \S+$/m],
  },
  {
    file: 'docs/guides/observability.md',
    match: "const tracer = trace.getTracer('shop');",
    async check(base) {
      assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
      const res = await fetch(`${base}/orders/5`, { headers: { 'x-tenant': 'acme' } });
      assert.deepEqual(await res.json(), { id: '5', total: 42 });
    },
    // The console exporter prints both spans once the batch goes out (its default delay is 5 s).
    stdout: [/name: 'load order'/, /'app\.tenant': 'acme'/],
  },
  {
    file: 'packages/otel/README.md',
    match: "new GaleInstrumentation({ ignore: (request) => request.path === '/health' });",
    async check(base) {
      assert.deepEqual(await (await fetch(`${base}/users/1`)).json(), { id: '1' });
    },
    stdout: [/'http\.route': '\/users\/:id'/],
  },
  {
    file: 'packages/fast-ws/README.md',
    match: "open: (client) => client.on('echo', (evt) => evt.reply(evt.data)),",
    async check() {},
    client: { match: 'await client.connected;', output: [/^\{ hello: 'world' \}$/m] },
  },
];

/** Blocks that listen but are not started here, and why. */
const NOT_RUN: { file: string; match: string; why: string }[] = [
  {
    file: 'docs/guides/nestjs.md',
    match: "await app.listen(3000); // on Gale's engine",
    why:
      "NestJS code needs TypeScript's legacy decorators and their metadata, which tsx does not emit: tests/nest runs " +
      'a Nest app of the same kind compiled by TypeScript (tests/nest/fixture), on GaleExpressAdapter',
  },
  {
    file: 'docs/guides/nestjs.md',
    match: 'app.useWebSocketAdapter(socketIo ? new GaleIoAdapter(app) : new GaleWsAdapter(app));',
    why: 'NestJS decorators, as above: tests/nest/gateways.test.ts runs a ws and a Socket.IO gateway on these adapters',
  },
  {
    file: 'docs/guides/testing.md',
    match: "test('an aborted request, then the app beside its socket', async () => {",
    why: 'a node:test file: run as one (and it must pass) by "docs/guides/testing.md: every node:test block passes"',
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: "await bus.publish('chat', 'hello'); // resolves once Redis took it; rejects if it could not",
    why: 'needs a Redis server (tests/scale runs pub/sub over a real one)',
  },
  {
    file: 'docs/guides/scaling-out.md',
    match: "io.to('room').emit('news', 'reaches the room on every server');",
    why: 'needs a Redis server (tests/socketio and tests/scale run the adapter against a real one)',
  },
];

// One directory for every example: ES modules resolving packages through the repo's node_modules, as check-docs.
const dir = mkdtempSync(join(tmpdir(), 'gale-docs-examples-'));
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'junction');
after(() => rmSync(dir, { recursive: true, force: true }));

function blocksOf(file: string): { line: number; code: string }[] {
  return extractBlocks(readFileSync(join(root, file), 'utf8'));
}

function blockCode(file: string, match: string): string {
  return findBlock(file, match).code;
}

function findBlock(file: string, match: string): { line: number; code: string } {
  const found = blocksOf(file).filter((b) => b.code.split('\n').some((l) => l.trim() === match.trim()));
  assert.equal(found.length, 1, `${file}: one TypeScript block has the line ${JSON.stringify(match)}`);
  return found[0] as { line: number; code: string };
}

/** Starts the module; resolves to its port once it listens. */
function start(
  file: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const preload = pathToFileURL(join(import.meta.dirname, 'free-port.mjs')).href;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', preload, file], {
    cwd,
    env: { ...process.env, ...env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not listen within 30 s\n${out}\n${err}`));
    }, 30_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d;
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d;
      const m = /GALE_DOCS_PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code}) before listening\n${out}\n${err}`));
    });
  });
}

/** Runs a client example to its end. */
function run(
  file: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const preload = pathToFileURL(join(import.meta.dirname, 'free-port.mjs')).href;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', preload, file], {
    cwd,
    // A node:test file run here reports as a program of its own (TAP), not to this test runner.
    env: { ...process.env, ...env, NODE_ENV: 'test', NODE_TEST_CONTEXT: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d;
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function stop(child: ChildProcess, graceful = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(graceful ? 'SIGTERM' : 'SIGKILL');
  });
}

// DOCS_EXAMPLES=<part of a file name> runs only the examples of the matching files.
const only = process.env.DOCS_EXAMPLES;
for (const ex of EXAMPLES.filter((e) => !only || e.file.includes(only))) {
  const block = findBlock(ex.file, ex.match);
  test(`${ex.file}:${block.line} runs as the docs say`, async () => {
    const cwd = join(dir, `${ex.file.replace(/[^A-Za-z0-9]/g, '_')}_L${block.line}`);
    mkdirSync(cwd, { recursive: true });
    for (const [name, content] of Object.entries(ex.files ?? {})) {
      mkdirSync(join(cwd, name, '..'), { recursive: true });
      writeFileSync(join(cwd, name), content);
    }
    writeFileSync(join(cwd, 'example.ts'), block.code);
    const { child, port, output } = await start('example.ts', cwd, ex.env ?? {});
    try {
      await ex.check(`http://127.0.0.1:${port}`);
      for (const line of ex.stdout ?? []) await until(`the example printing ${line}`, () => line.test(output()), 8000);
      if (ex.client) {
        writeFileSync(join(cwd, 'client.ts'), findBlock(ex.file, ex.client.match).code);
        const r = await run('client.ts', cwd, { GALE_DOCS_SERVER_PORT: String(port) });
        assert.equal(r.code, 0, r.stderr);
        for (const line of ex.client.output) assert.match(r.stdout, line);
      }
    } finally {
      await stop(child, ex.gracefulStop);
    }
  });
}

// The testing guide's examples are test files: each block that imports node:test runs as one and must pass.
test('docs/guides/testing.md: every node:test block passes', async () => {
  const blocks = blocksOf('docs/guides/testing.md').filter((b) => /from 'node:test'/.test(b.code));
  assert.ok(blocks.length >= 3, `the guide's test files (${blocks.length})`);
  for (const b of blocks) {
    const cwd = join(dir, `testing_guide_L${b.line}`);
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'example.test.ts'), b.code);
    const r = await run('example.test.ts', cwd, {});
    assert.equal(r.code, 0, `docs/guides/testing.md:${b.line}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^(# |ℹ )pass [1-9]/m, `docs/guides/testing.md:${b.line} ran its tests`);
    assert.match(r.stdout, /^(# |ℹ )fail 0$/m);
  }
});

test('every docs example that listens is run above or listed in NOT_RUN with a reason', () => {
  const covered = new Set<string>();
  for (const e of [...EXAMPLES, ...NOT_RUN]) covered.add(`${e.file}:${findBlock(e.file, e.match).line}`);
  const missing: string[] = [];
  for (const file of docFiles()) {
    for (const b of blocksOf(file)) {
      if (/\.listen\(|\bserve\(/.test(b.code) && !covered.has(`${file}:${b.line}`)) missing.push(`${file}:${b.line}`);
    }
  }
  assert.deepEqual(missing, [], 'blocks that listen but are neither run nor listed in NOT_RUN');
});
