// The fetch layer's `origin` option (app.fetch, toHandler) and toHandler() in routers: the URL the handler sees,
// refusals (an origin function that throws HttpError, targets that would change the host), static mounts and
// routes beside a catch-all. Real sockets on 127.0.0.1.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HttpError, router, toHandler } from 'gale';
import { simpleRequest, T, withApp } from '../helpers.js';
import { tempDir } from '../temp.js';

const echoUrl = (request: Request) => new Response(request.url);

test('app.fetch({ origin: string }) gives every request that origin, whatever the Host', T, async (t) => {
  const s = await withApp(t, (app) => app.fetch(echoUrl, { origin: 'https://shop.example' }));
  const r = await simpleRequest(s.port, { path: '/a/b?c=1', headers: { Host: 'evil.example' } });
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), 'https://shop.example/a/b?c=1');
  // Dot segments and escapes are normalized by URL, and the origin stays.
  const dots = await simpleRequest(s.port, { path: '/a/../b/%7e' });
  assert.equal(dots.body.toString(), 'https://shop.example/b/%7e');
  // "//host" in the path is a path, not another host.
  const slashes = await simpleRequest(s.port, { path: '//other.example/x' });
  assert.equal(slashes.body.toString(), 'https://shop.example//other.example/x');
});

test('origin as a function sees Gale’s request; an HttpError it throws is the answer', T, async (t) => {
  const origin = (req: { get(name: string): string | undefined }) => {
    const proto = req.get('x-proto') ?? 'https';
    if (proto.includes(':')) throw new HttpError(400, 'Bad Request');
    return `${proto}://${req.get('host')}`;
  };
  const s = await withApp(t, (app) => app.fetch('/kit', echoUrl, { origin, stripPrefix: false }));
  const ok = await simpleRequest(s.port, { path: '/kit/page', headers: { 'X-Proto': 'http' } });
  assert.equal(ok.body.toString(), 'http://127.0.0.1/kit/page');
  const bad = await simpleRequest(s.port, { path: '/kit/page', headers: { 'X-Proto': 'http://x' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.toString(), 'Bad Request');
  // An origin that is not one (a path in it) is refused with 400 instead of building a URL on another base.
  const s2 = await withApp(t, (app) => app.fetch(echoUrl, { origin: () => 'http://a b' }));
  const refused = await simpleRequest(s2.port, { path: '/x' });
  assert.equal(refused.status, 400);
  assert.match(refused.body.toString(), /origin/);
});

test('toHandler() in a router: a catch-all beside static mounts and routes, which win', T, async (t) => {
  const dir = tempDir(t, 'gale-tohandler-');
  writeFileSync(join(dir, 'file.txt'), 'from disk');
  const seen: string[] = [];
  const fetchHandler = async (request: Request) => {
    seen.push(`${request.method} ${request.url}`);
    return new Response(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`, {
      headers: [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ],
    });
  };
  const h = toHandler(fetchHandler, { origin: 'http://site.test' });
  const pages = router().all('/', h).all('/*path', h);
  const s = await withApp(t, (app) => {
    app.static('/assets', dir);
    app.use(pages);
    app.get('/health', () => 'ok');
  });
  assert.equal((await simpleRequest(s.port, { path: '/assets/file.txt' })).body.toString(), 'from disk');
  assert.equal((await simpleRequest(s.port, { path: '/health' })).body.toString(), 'ok');
  const root = await simpleRequest(s.port, { path: '/' });
  assert.equal(root.body.toString(), 'GET / ');
  const post = await simpleRequest(s.port, { method: 'POST', path: '/deep/path', body: 'hi' });
  assert.equal(post.body.toString(), 'POST /deep/path hi');
  assert.deepEqual(post.getAll('set-cookie'), ['a=1', 'b=2']);
  // A method the route does not have falls through to the catch-all (not a 405).
  const other = await simpleRequest(s.port, { method: 'DELETE', path: '/health' });
  assert.equal(other.body.toString(), 'DELETE /health ');
  assert.deepEqual(seen, [
    'GET http://site.test/',
    'POST http://site.test/deep/path',
    'DELETE http://site.test/health',
  ]);
  assert.throws(() => toHandler(42 as never), /toHandler\(\): give a \(request\) => Response function/);
});
