// ETags the engine makes: with `etag` on and nothing to compare a tag with (no If-None-Match/If-Modified-Since), send
// and json leave the tag to the engine's end, which hashes the bytes it sends. Checked here on the wire (the `etag`
// package's value, exactly once) and through every way JS can still read it: getHeader in 'finish' and in a later
// turn, getHeaderNames, a patched writeHead running before the head, and route answers kept by the engine.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { App, GaleOptions } from '../helpers.js';
import { buildRequest, parseResponses, rawRequest, simpleRequest, T, withApp } from '../helpers.js';

/** The `etag` package's (and Express's) tag for a body. */
function tagOf(body: string | Buffer, weak = true): string {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const t = `"${b.length.toString(16)}-${createHash('sha1').update(b).digest('base64').slice(0, 27)}"`;
  return weak ? `W/${t}` : t;
}

const LONG = `${'é€😀'.repeat(700)}end`; // 6 301 UTF-8 bytes: past the engine's one-call string path
const seen: Record<string, unknown> = {};

function routes(app: App): void {
  app.get('/text', (_req, res) => {
    res.on('finish', () => {
      seen.finish = res.getHeader('etag');
      setTimeout(() => {
        seen.later = res.getHeader('ETag');
        seen.names = res.getHeaderNames();
      }, 5);
    });
    res.send('hello etag');
  });
  app.get('/json/:n', (req) => ({ n: req.params.n }));
  app.get('/long', (_req, res) => res.send(LONG));
  app.get('/bytes', (_req, res) => res.send(new Uint8Array([1, 2, 3, 4])));
  app.get('/ordered', (_req, res) => {
    res.header('X-Before', '1');
    res.send('ordered');
  });
  app.get('/hooked', (_req, res) => {
    // A node:http-style writeHead patch (on-headers) runs just before the head and reads what will be sent.
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...a: Parameters<typeof res.writeHead>) {
      seen.hook = this.getHeader('etag');
      this.header('X-After-Tag', 'yes');
      return writeHead.apply(this, a);
    } as typeof res.writeHead;
    res.send('hooked');
  });
  app.get('/empty', (_req, res) => res.status(204).send('gone'));
}

async function start(t: Parameters<typeof withApp>[0], opts: GaleOptions) {
  return withApp(t, routes, { requestLogging: false, ...opts });
}

test('the engine tags what it sends: the etag value, once, for short, long, byte and JSON bodies', T, async (t) => {
  const { port } = await start(t, { etag: 'weak' });
  for (const [path, body] of [
    ['/text', 'hello etag'],
    ['/long', LONG],
    ['/bytes', Buffer.from([1, 2, 3, 4])],
    ['/json/7', '{"n":"7"}'],
  ] as const) {
    const r = await simpleRequest(port, { path });
    assert.equal(r.status, 200, path);
    assert.deepEqual(r.getAll('etag'), [tagOf(body)], path);
    assert.equal(r.body.toString('latin1'), Buffer.from(body).toString('latin1'), path);
  }
  const head = await simpleRequest(port, { method: 'HEAD', path: '/long' });
  assert.deepEqual(head.getAll('etag'), [tagOf(LONG)], 'HEAD carries the tag of the body GET sends');
  const ordered = await simpleRequest(port, { path: '/ordered' });
  const names = ordered.headers.map(([k]) => k.toLowerCase());
  assert.ok(names.indexOf('x-before') < names.indexOf('etag'), `the ETag after the headers set before: ${names}`);
  const empty = await simpleRequest(port, { path: '/empty' });
  assert.equal(empty.status, 204);
  assert.deepEqual(empty.getAll('etag'), [tagOf('gone')], 'as Express: a 204 keeps the tag of what it would send');
});

test('pipelined: each response tagged as its own, same body again and different bodies alternating', T, async (t) => {
  const { port } = await start(t, { etag: 'weak' });
  const paths = ['/json/1', '/json/1', '/json/22', '/json/1', '/text', '/json/333', '/json/333'];
  const raw = Buffer.concat(
    paths.map((path, i) => buildRequest({ path, headers: i === paths.length - 1 ? { Connection: 'close' } : {} })),
  );
  const r = await rawRequest(port, raw, { waitForClose: true, timeoutMs: 5000 });
  const got = parseResponses(r.data);
  assert.equal(got.length, paths.length);
  got.forEach((res, i) => {
    assert.equal(res.status, 200);
    assert.deepEqual(res.getAll('etag'), [tagOf(res.body)], `${paths[i]}: the tag of its own body`);
  });
});

test('a tag the engine made reads the same from JS: in finish, a later turn, getHeaderNames, a hook', T, async (t) => {
  const { port } = await start(t, { etag: 'weak' });
  const r = await simpleRequest(port, { path: '/text' });
  for (let i = 0; i < 100 && seen.names === undefined; i++) await new Promise((ok) => setTimeout(ok, 5));
  assert.equal(seen.finish, r.get('etag'));
  assert.equal(seen.later, tagOf('hello etag'));
  assert.ok((seen.names as string[]).includes('etag'), `getHeaderNames(): ${seen.names}`);
  const hooked = await simpleRequest(port, { path: '/hooked' });
  assert.equal(seen.hook, tagOf('hooked'), 'the hook reads the tag before the head goes');
  assert.deepEqual(hooked.getAll('etag'), [tagOf('hooked')]);
  const names = hooked.headers.map(([k]) => k.toLowerCase());
  assert.ok(names.indexOf('etag') < names.indexOf('x-after-tag'), `a header the hook adds comes after: ${names}`);
});

test('strong tags, and with compression a strong tag is weakened as before', T, async (t) => {
  const strong = await start(t, { etag: 'strong' });
  const r = await simpleRequest(strong.port, { path: '/text' });
  assert.deepEqual(r.getAll('etag'), [tagOf('hello etag', false)]);
  const squeezed = await start(t, { etag: 'strong', compression: { threshold: 16 } });
  const z = await simpleRequest(squeezed.port, { path: '/long', headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(z.get('content-encoding'), 'gzip');
  assert.deepEqual(z.getAll('etag'), [`W/${tagOf(LONG, false)}`]);
});
