// adapter-gale's built server on its own: native static files (validators, 304, Range, br, immutable assets), the
// environment variables adapter-node documents (ADDRESS_HEADER/XFF_DEPTH, PROTOCOL_HEADER/HOST_HEADER/PORT_HEADER,
// BODY_SIZE_LIMIT, SHUTDOWN_TIMEOUT, KEEP_ALIVE_TIMEOUT, and clear refusals for what Gale cannot do yet), graceful
// shutdown, the WebSocket route of the setup module, and build/handler.js mounted in a Gale app of one's own.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { built, type KitServer, request, startServer } from './servers.js';

const T = { timeout: 60_000 };

function rawExchange(port: number, bytes: string, ms = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => {
      out += d.toString('latin1');
    });
    s.on('error', reject);
    s.on('close', () => resolve(out));
    s.write(bytes);
    setTimeout(() => {
      s.destroy();
      resolve(out);
    }, ms);
  });
}

describe('the built server', { timeout: 600_000 }, () => {
  let s: KitServer;
  before(async () => {
    s = await startServer('gale');
  });
  after(() => s?.stop());

  test('_app/immutable assets are immutable; other files are revalidated', T, async () => {
    const page = await request(`${s.url}/`);
    const js = /import\("\.\/(_app\/immutable\/entry\/[^"]+\.js)"\)/.exec(page.text)?.[1];
    assert.ok(js, 'the page links its entry script');
    const a = await request(`${s.url}/${js}`);
    assert.equal(a.status, 200);
    assert.equal(a.headers['cache-control'], 'public, max-age=31536000, immutable');
    const version = await request(`${s.url}/_app/version.json`);
    assert.equal(version.headers['cache-control'], undefined);
    assert.ok(version.headers.etag);
  });

  test('static and prerendered files: 304, Range, precompressed variants', T, async () => {
    for (const path of ['/static.html', '/prerendered.html', '/blog']) {
      const first = await request(s.url + path);
      assert.equal(first.status, 200, path);
      const etag = first.headers.etag as string;
      assert.match(etag, /^W\//);
      const again = await request(s.url + path, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304, path);
      assert.equal(again.body.length, 0);
      const part = await request(s.url + path, { headers: { range: 'bytes=0-9' } });
      assert.equal(part.status, 206, path);
      assert.equal(part.text, first.text.slice(0, 10));
      const br = await request(s.url + path, { headers: { 'accept-encoding': 'gzip, br' } });
      assert.equal(br.headers['content-encoding'], 'br', path);
      assert.equal(br.headers.vary, 'Accept-Encoding');
      assert.ok(br.body.length < first.body.length);
    }
  });

  test('the setup module’s WebSocket route runs beside SvelteKit', T, async () => {
    const url = `${s.url.replace('http', 'ws')}/ws`;
    const a = new WebSocket(url);
    const b = new WebSocket(url);
    await Promise.all([a, b].map((w) => new Promise((r, j) => w.once('open', r).once('error', j))));
    const got = new Promise<string>((r) => b.once('message', (d) => r(d.toString())));
    a.send('hello from a');
    assert.deepEqual(JSON.parse(await got), { text: 'hello from a' });
    a.close();
    b.close();
    // The page at the same origin still renders.
    assert.equal((await request(`${s.url}/websocket`)).status, 200);
  });
});

describe('environment variables', { timeout: 600_000 }, () => {
  before(() => built('gale'));

  test('ADDRESS_HEADER and XFF_DEPTH choose the client address, as adapter-node', T, async (t) => {
    const s = await startServer('gale', { env: { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '2' } });
    t.after(() => s.stop());
    const xff = { 'x-forwarded-for': '203.0.113.9, 198.51.100.7, 10.0.0.1' };
    const ok = await request(`${s.url}/address`, { headers: xff });
    assert.match(ok.text, /id="address">198\.51\.100\.7</);
    // Too few addresses, or no header at all: SvelteKit's 500 (the reason is logged, not shown).
    assert.equal((await request(`${s.url}/address`, { headers: { 'x-forwarded-for': '1.2.3.4' } })).status, 500);
    assert.equal((await request(`${s.url}/address`)).status, 500);
    assert.match(s.output(), /XFF_DEPTH is 2, but only found 1 addresses/);
    const s2 = await startServer('gale', { env: { ADDRESS_HEADER: 'true-client-ip' } });
    t.after(() => s2.stop());
    const other = await request(`${s2.url}/address`, { headers: { 'true-client-ip': '192.0.2.44' } });
    assert.match(other.text, /id="address">192\.0\.2\.44</);
  });

  test('without ORIGIN the protocol is https unless PROTOCOL_HEADER says otherwise', T, async (t) => {
    const plain = await startServer('gale', { env: { ORIGIN: '' } });
    t.after(() => plain.stop());
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: plain.url, accept: 'text/html' };
    // SvelteKit compares Origin with the URL it was given: https://127.0.0.1:port ≠ http://…
    assert.equal((await request(`${plain.url}/form`, { method: 'POST', headers: form, body: 'text=a' })).status, 403);

    const s = await startServer('gale', {
      env: { ORIGIN: '', PROTOCOL_HEADER: 'x-forwarded-proto', HOST_HEADER: 'x-forwarded-host', PORT_HEADER: 'x-port' },
    });
    t.after(() => s.stop());
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      origin: 'http://shop.example:8080',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'shop.example',
      'x-port': '8080',
    };
    assert.equal((await request(`${s.url}/form`, { method: 'POST', headers, body: 'text=b' })).status, 200);
    const bad = await request(`${s.url}/`, { headers: { 'x-forwarded-proto': 'http://evil' } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /includes ':'/);
    const badPort = await request(`${s.url}/`, { headers: { 'x-port': 'eighty' } });
    assert.equal(badPort.status, 400);
    assert.match(badPort.text, /not a port/);
    // HTTP/1.0 without Host: no origin can be made (adapter-node answers 400 too).
    const out = await rawExchange(plain.port, 'GET /address HTTP/1.0\r\n\r\n');
    assert.match(out, /^HTTP\/1\.1 400 [\s\S]*Could not determine host/);
  });

  test('BODY_SIZE_LIMIT: larger bodies get 413 from the engine; a bad value stops the start', T, async (t) => {
    const s = await startServer('gale', { env: { BODY_SIZE_LIMIT: '1K' } });
    t.after(() => s.stop());
    const json = { 'content-type': 'application/json' };
    const small = await request(`${s.url}/api/items`, { method: 'POST', headers: json, body: '{"name":"ok"}' });
    assert.equal(small.status, 201);
    const big = `{"name":"${'x'.repeat(2000)}"}`;
    assert.equal((await request(`${s.url}/api/items`, { method: 'POST', headers: json, body: big })).status, 413);
    const chunked = { ...json, 'transfer-encoding': 'chunked' };
    const r = await request(`${s.url}/api/items`, { method: 'POST', headers: chunked, body: big });
    assert.equal(r.status, 413);
    const bad = await startServer('gale', { env: { BODY_SIZE_LIMIT: 'lots' }, wait: false });
    assert.equal(await bad.exited, 1);
    assert.match(bad.output(), /Invalid BODY_SIZE_LIMIT: 'lots'/);
  });

  test('what Gale cannot do yet fails at start, saying so', T, async () => {
    for (const [env, message] of [
      [{ SOCKET_PATH: '/tmp/kit.sock' }, /cannot listen on a Unix socket yet/],
      [{ WORKERS: 'many' }, /Invalid WORKERS: 'many'/],
      [{ PORT: 'http' }, /Invalid PORT: 'http'/],
      [{ SHUTDOWN_TIMEOUT: '-1' }, /SHUTDOWN_TIMEOUT: "-1" \(should be a non-negative integer\)/],
      [{ ORIGIN: 'ftp://x' }, /Only http:\/\/ and https:\/\/ protocols are supported/],
    ] as const) {
      const s = await startServer('gale', { env, wait: false });
      assert.equal(await s.exited, 1, JSON.stringify(env));
      assert.match(s.output(), message);
    }
  });

  test('WORKERS=2: two processes serve the port, and SIGTERM stops them all', T, async () => {
    const s = await startServer('gale', { env: { WORKERS: '2' } });
    const deadline = Date.now() + 20_000;
    while ((s.output().match(/Listening on/g) ?? []).length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal((s.output().match(/Listening on/g) ?? []).length, 2, s.output());
    assert.match(s.output(), /starting 2 workers/);
    const pages = await Promise.all(Array.from({ length: 8 }, () => request(`${s.url}/`)));
    for (const p of pages) assert.match(p.text, /SvelteKit on Gale/);
    s.proc.kill('SIGTERM');
    assert.equal(await s.exited, 0);
  });

  test('SIGTERM: in-flight requests finish, then the process exits by itself', T, async () => {
    const s = await startServer('gale');
    const slow = request(`${s.url}/stream?delay=800`);
    await new Promise((r) => setTimeout(r, 200));
    s.proc.kill('SIGTERM');
    const page = await slow;
    assert.equal(page.status, 200);
    assert.match(page.text, /arrived later/);
    assert.equal(await s.exited, 0);
  });

  test('SHUTDOWN_TIMEOUT cuts what is still running at the deadline', T, async () => {
    const s = await startServer('gale', { env: { SHUTDOWN_TIMEOUT: '1' } });
    const slow = request(`${s.url}/stream?delay=3000`).then(
      () => 'finished',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    s.proc.kill('SIGTERM');
    assert.equal(await slow, 'cut');
    const cutAfter = Date.now() - t0;
    assert.ok(cutAfter >= 900 && cutAfter < 2500, `cut after ${cutAfter} ms`);
    // The process ends once the load's own timer is done, as adapter-node's does (neither calls process.exit).
    assert.equal(await s.exited, 0);
  });

  test('KEEP_ALIVE_TIMEOUT closes idle connections after that many seconds', T, async (t) => {
    const s = await startServer('gale', { env: { KEEP_ALIVE_TIMEOUT: '1' } });
    t.after(() => s.stop());
    const t0 = Date.now();
    const out = await rawExchange(s.port, 'GET /robots.txt HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    assert.match(out, /^HTTP\/1\.1 200 /);
    const idle = Date.now() - t0;
    assert.ok(idle >= 900 && idle < 4000, `closed after ${idle} ms`);
  });
});

test('build/handler.js is a router for a Gale app of one’s own', { timeout: 600_000 }, async (t) => {
  const dir = await built('gale');
  const script = join(dir, 'own-server.mjs');
  writeFileSync(
    script,
    `import { gale } from 'gale';
import { handler } from './build/handler.js';
const app = gale();
const hits = [];
// Runs for every request that enters JavaScript; native static mounts never do.
app.use((req, _res, next) => {
  hits.push(req.path);
  return next();
});
app.get('/hits', () => hits);
app.get('/healthz', () => 'ok');
app.use(handler);
app.get('/after', () => 'declared after the handler');
const { port } = await app.listen(0, '127.0.0.1');
console.log('PORT=' + port);
process.on('SIGTERM', () => app.close({ timeout: 1000 }));
`,
  );
  const proc = spawn(process.execPath, [script], {
    cwd: dir,
    env: { ...process.env, ORIGIN: 'http://127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => proc.kill('SIGKILL'));
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /PORT=(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.stderr.on('data', (d) => {
      out += d;
    });
    proc.once('exit', () => reject(new Error(`exited:\n${out}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  assert.equal((await request(`${url}/healthz`)).text, 'ok');
  assert.equal((await request(`${url}/after`)).text, 'declared after the handler');
  const home = await request(`${url}/`);
  assert.equal(home.status, 200);
  assert.match(home.text, /SvelteKit on Gale/);
  assert.equal((await request(`${url}/static.html`)).headers['content-type'], 'text/html; charset=utf-8');
  assert.equal((await request(`${url}/nope`)).status, 404);
  // Client files, prerendered pages and immutable assets were answered without entering JavaScript; SSR pages and
  // the prerendered /blog (a route lives below it, so it has no mount) went through the router.
  const js = /import\("\.\/(_app\/immutable\/entry\/[^"]+\.js)"\)/.exec(home.text)?.[1];
  for (const path of ['/prerendered.html', '/robots.txt', '/static', `/${js}`, '/blog']) {
    assert.equal((await request(url + path)).status, 200, path);
  }
  const hits = JSON.parse((await request(`${url}/hits`)).text) as string[];
  assert.deepEqual(
    hits.filter((p) => p !== '/hits'),
    ['/healthz', '/after', '/', '/nope', '/blog'],
  );
});
