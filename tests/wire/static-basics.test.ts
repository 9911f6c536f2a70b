// app.static(): what a plain file answer looks like (Content-Type, validators, HEAD, 405), and the
// options that choose the file or decorate the answer: index, extensions, fallback, dotfiles,
// maxAge, immutable, headers, redirect, and a root mount next to a JS route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, show, T, withApp } from '../helpers.js';
import {
  assertFile,
  assertNotFound,
  describe,
  etagFor,
  get,
  MTIME_HTTP,
  makeTree,
  patternBytes,
} from './static-fixtures.js';

const PNG = patternBytes(300, 7);
const tree = makeTree({
  'root/hello.txt': 'hello world\n',
  'root/index.html': '<h1>home</h1>',
  'root/page.html': '<p>page</p>',
  'root/style.css': 'body{color:red}',
  'root/app.js': 'console.log(1);',
  'root/data.json': '{"a":1}',
  'root/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'root/pic.png': PNG,
  'root/blob.qqzz': 'unknown extension',
  'root/README': 'no extension',
  'root/a b.txt': 'space in name',
  'root/café.txt': 'unicode name',
  'root/about.html': '<p>about</p>',
  'root/about.htm': '<p>about htm</p>',
  'root/contact.htm': '<p>contact htm</p>',
  'root/docs/index.html': '<p>docs index</p>',
  'root/docs/home.htm': '<p>docs home.htm</p>',
  'root/docs/guide.html': '<p>guide</p>',
  'root/nolist/one.txt': 'one',
  'root/nolist/two.txt': 'two',
  'root/app.1a2b3c4d.js': 'hashed();',
  'root/assets/app.1a2b3c4d.js': 'nested hashed();',
  'root/shell.html': '<div id="app"></div>',
  'root/.env': 'SECRET=1',
  'root/sub/.git/config': '[core]',
  'root/sub/visible.txt': 'visible',
});
const ROOT = tree.p('root');

const TXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

test('Content-Type by extension (charset on text types), validators, exact bytes', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const cases: Array<[string, string | Buffer, string]> = [
    ['/static/hello.txt', 'hello world\n', TXT],
    ['/static/page.html', '<p>page</p>', HTML],
    ['/static/style.css', 'body{color:red}', 'text/css; charset=utf-8'],
    ['/static/app.js', 'console.log(1);', 'text/javascript; charset=utf-8'],
    ['/static/data.json', '{"a":1}', 'application/json; charset=utf-8'],
    ['/static/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml; charset=utf-8'],
    ['/static/pic.png', PNG, 'image/png'],
    ['/static/blob.qqzz', 'unknown extension', 'application/octet-stream'],
    ['/static/README', 'no extension', 'application/octet-stream'],
    ['/static/a%20b.txt', 'space in name', TXT],
    ['/static/caf%C3%A9.txt', 'unicode name', TXT],
  ];
  for (const [target, body, type] of cases) {
    const res = await get(port, target);
    assertFile(res, body, type);
    assert.equal(res.get('last-modified'), MTIME_HTTP);
    assert.equal(res.get('cache-control'), undefined, `no Cache-Control without maxAge: ${describe(res)}`);
  }
});

test('HEAD: the GET headers without a body, and the connection stays usable', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(buildRequest({ method: 'HEAD', path: '/static/pic.png' }));
  const head = await conn.readResponse({ head: true });
  await conn.write(buildRequest({ path: '/static/pic.png' }));
  const full = await conn.readResponse();
  assertFile(head, PNG, 'image/png', { head: true });
  assertFile(full, PNG, 'image/png');
  const strip = (h: Array<[string, string]>) => h.filter(([k]) => k.toLowerCase() !== 'date');
  assert.deepEqual(strip(head.headers), strip(full.headers));
  await conn.write(buildRequest({ method: 'HEAD', path: '/static/nope.txt', headers: { Connection: 'close' } }));
  const missing = await conn.readResponse({ head: true });
  assert.equal(missing.status, 404, describe(missing));
  assert.equal(await conn.waitForClose(2000), true);
  assert.equal(conn.buf.length, 0, `bytes after a HEAD answer: ${show(conn.buf)}`);
});

test('methods other than GET and HEAD: 405 with Allow: GET, HEAD', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const res = await get(port, '/static/hello.txt', {}, { method, body: method === 'OPTIONS' ? undefined : 'x' });
    assert.equal(res.status, 405, `${method}: ${describe(res)}`);
    assert.equal(res.get('allow'), 'GET, HEAD', `${method}: ${describe(res)}`);
    assert.ok(!res.text.includes('hello world'), `${method} leaked the file: ${describe(res)}`);
  }
});

test('index: default index.html for the mount and for subdirectories; a list is tried in order', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT);
    app.static('/list', ROOT, { index: ['missing.html', 'home.htm', 'index.html'] });
    app.static('/one', ROOT, { index: 'guide.html' });
  });
  assertFile(await get(port, '/static/'), '<h1>home</h1>', HTML);
  assertFile(await get(port, '/static/docs/'), '<p>docs index</p>', HTML);
  assertFile(await get(port, '/list/docs/'), '<p>docs home.htm</p>', HTML);
  assertFile(await get(port, '/list/'), '<h1>home</h1>', HTML);
  assertFile(await get(port, '/one/docs/'), '<p>guide</p>', HTML);
  assertNotFound(await get(port, '/one/'), '/one/ has no guide.html');
});

test('index: false serves no directory, while the files stay reachable', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { index: false }));
  assertNotFound(await get(port, '/static/'), '/static/ with index false');
  assertNotFound(await get(port, '/static/docs/'), '/static/docs/ with index false');
  assertFile(await get(port, '/static/docs/index.html'), '<p>docs index</p>', HTML);
});

test('no directory listing: a directory without an index file is 404', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (const target of ['/static/nolist/', '/static/sub/']) {
    const res = await get(port, target);
    assertNotFound(res, target);
    assert.ok(!res.text.includes('one.txt') && !res.text.includes('visible'), `listing: ${describe(res)}`);
  }
});

test('extensions: /about serves about.html; the list order decides; the exact name wins', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT);
    app.static('/ext', ROOT, { extensions: ['html'] });
    app.static('/ext2', ROOT, { extensions: ['htm', 'html'] });
  });
  assertNotFound(await get(port, '/static/about'), 'no extensions option');
  assertFile(await get(port, '/ext/about'), '<p>about</p>', HTML);
  assertFile(await get(port, '/ext/about.html'), '<p>about</p>', HTML);
  assertFile(await get(port, '/ext/docs/guide'), '<p>guide</p>', HTML);
  assertNotFound(await get(port, '/ext/contact'), '/ext/contact (only contact.htm exists)');
  assertFile(await get(port, '/ext2/about'), '<p>about htm</p>', HTML);
  assertFile(await get(port, '/ext2/contact'), '<p>contact htm</p>', HTML);
  assertFile(await get(port, '/ext2/about.html'), '<p>about</p>', HTML);
  assertNotFound(await get(port, '/ext/about/'), '/ext/about/ (trailing slash: a directory, not about.html)');
});

test('fallback (SPA): anything unmatched gets the fallback with 200; real files still win', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/app', ROOT, { fallback: 'shell.html' }));
  for (const target of ['/app/anything/deep', '/app/route', '/app/missing.js', '/app/docs/nothing/here/']) {
    assertFile(await get(port, target), '<div id="app"></div>', HTML);
  }
  assertFile(await get(port, '/app/hello.txt'), 'hello world\n', TXT);
  assertFile(await get(port, '/app/'), '<h1>home</h1>', HTML);
  assertFile(await get(port, '/app/docs/'), '<p>docs index</p>', HTML);
  const dot = await get(port, '/app/.env');
  assertNotFound(dot, 'a dotfile is refused, not answered with the fallback');
});

test('dotfiles: ignore (default) → 404, deny → 403, allow → served', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/def', ROOT);
    app.static('/ign', ROOT, { dotfiles: 'ignore' });
    app.static('/deny', ROOT, { dotfiles: 'deny' });
    app.static('/allow', ROOT, { dotfiles: 'allow' });
  });
  for (const prefix of ['/def', '/ign']) {
    for (const target of [`${prefix}/.env`, `${prefix}/sub/.git/config`, `${prefix}/%2eenv`, `${prefix}/sub/.git/`]) {
      assertNotFound(await get(port, target), target);
    }
  }
  for (const target of ['/deny/.env', '/deny/sub/.git/config', '/deny/%2eenv']) {
    const res = await get(port, target);
    assert.equal(res.status, 403, `${target}: ${describe(res)}`);
    assert.equal(res.text, 'Forbidden', `${target}: ${describe(res)}`);
  }
  assertFile(await get(port, '/allow/.env'), 'SECRET=1', 'application/octet-stream');
  assertFile(await get(port, '/allow/sub/.git/config'), '[core]', 'application/octet-stream');
  // a dotted directory does not hide its siblings
  for (const prefix of ['/def', '/deny', '/allow']) {
    assertFile(await get(port, `${prefix}/sub/visible.txt`), 'visible', TXT);
  }
});

test('maxAge: Cache-Control: public, max-age in seconds on 200, 206 and 304', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/hour', ROOT, { maxAge: 3_600_000 });
    app.static('/zero', ROOT, { maxAge: 0 });
  });
  const ok = await get(port, '/hour/hello.txt');
  assertFile(ok, 'hello world\n', TXT);
  assert.equal(ok.get('cache-control'), 'public, max-age=3600', describe(ok));
  const part = await get(port, '/hour/hello.txt', { Range: 'bytes=0-4' });
  assert.equal(part.status, 206, describe(part));
  assert.equal(part.get('cache-control'), 'public, max-age=3600', describe(part));
  const nm = await get(port, '/hour/hello.txt', { 'If-None-Match': etagFor(12) });
  assert.equal(nm.status, 304, describe(nm));
  assert.equal(nm.get('cache-control'), 'public, max-age=3600', describe(nm));
  const zero = await get(port, '/zero/hello.txt');
  assert.equal(zero.get('cache-control'), 'public, max-age=0', describe(zero));
});

test('immutable: matching paths (relative to the directory) get a year and immutable', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT, { immutable: /\.[0-9a-f]{8}\./, maxAge: 60_000 });
    app.static('/anch', ROOT, { immutable: /^app\.[0-9a-f]{8}\.js$/ });
    app.static('/nested', ROOT, { immutable: /^assets\// });
  });
  const IMM = 'public, max-age=31536000, immutable';
  const hashed = await get(port, '/static/app.1a2b3c4d.js');
  assertFile(hashed, 'hashed();', 'text/javascript; charset=utf-8');
  assert.equal(hashed.get('cache-control'), IMM, describe(hashed));
  const plain = await get(port, '/static/app.js');
  assert.equal(plain.get('cache-control'), 'public, max-age=60', `non-matching file keeps maxAge: ${describe(plain)}`);
  // anchored patterns see 'app.1a2b3c4d.js' and 'assets/app.1a2b3c4d.js', not the URL path
  assert.equal((await get(port, '/anch/app.1a2b3c4d.js')).get('cache-control'), IMM);
  assert.equal((await get(port, '/anch/assets/app.1a2b3c4d.js')).get('cache-control'), undefined);
  assert.equal((await get(port, '/nested/assets/app.1a2b3c4d.js')).get('cache-control'), IMM);
  assert.equal((await get(port, '/nested/app.1a2b3c4d.js')).get('cache-control'), undefined);
});

test('headers: extra headers on every file response (200, 206, 304, HEAD)', T, async (t) => {
  const { port } = await withApp(t, (app) =>
    app.static('/static', ROOT, { headers: { 'X-Frame-Options': 'DENY', 'Access-Control-Allow-Origin': '*' } }),
  );
  const answers = [
    await get(port, '/static/hello.txt'),
    await get(port, '/static/hello.txt', { Range: 'bytes=1-3' }),
    await get(port, '/static/hello.txt', { 'If-None-Match': etagFor(12) }),
    await get(port, '/static/hello.txt', {}, { method: 'HEAD' }),
    await get(port, '/static/'),
  ];
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 206, 304, 200, 200],
  );
  for (const res of answers) {
    assert.deepEqual(res.getAll('x-frame-options'), ['DENY'], describe(res));
    assert.deepEqual(res.getAll('access-control-allow-origin'), ['*'], describe(res));
  }
  assert.equal(answers[1]?.text, 'ell');
});

test('redirect (default): a directory without its slash → 301 to the slash form, query kept', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const cases: Array<[string, string]> = [
    ['/static/docs', '/static/docs/'],
    ['/static/docs?a=1&b=two', '/static/docs/?a=1&b=two'],
    ['/static', '/static/'],
    ['/static/nolist', '/static/nolist/'],
  ];
  for (const [target, location] of cases) {
    const res = await get(port, target);
    assert.equal(res.status, 301, `${target}: ${describe(res)}`);
    assert.equal(res.get('location'), location, `${target}: ${describe(res)}`);
    assert.equal(res.get('etag'), undefined, `${target}: ${describe(res)}`);
  }
  assertFile(await get(port, '/static/docs/?a=1'), '<p>docs index</p>', HTML);
});

test('redirect: false — no 301; the directory is answered as with its slash', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { redirect: false }));
  const res = await get(port, '/static/docs');
  assert.equal(res.get('location'), undefined, describe(res));
  assertFile(res, '<p>docs index</p>', HTML);
  assertNotFound(await get(port, '/static/nolist'), '/static/nolist with redirect false');
});

test('root mount: app.get("/") registered before app.static("/") keeps "/"; files and 404 below it', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/', () => 'js root');
    app.get('/api/ping', () => 'pong');
    app.static('/', ROOT);
  });
  const root = await get(port, '/');
  assert.equal(root.status, 200, describe(root));
  assert.equal(root.text, 'js root');
  // The JS answer, not a file: no file validators (its ETag, if any, is the dynamic-body one).
  assert.equal(root.get('last-modified'), undefined, describe(root));
  assert.equal((await get(port, '/api/ping')).text, 'pong');
  assertFile(await get(port, '/hello.txt'), 'hello world\n', TXT);
  assertFile(await get(port, '/docs/'), '<p>docs index</p>', HTML);
  assertFile(await get(port, '/index.html'), '<h1>home</h1>', HTML);
  const redir = await get(port, '/docs');
  assert.equal(redir.status, 301, describe(redir));
  assert.equal(redir.get('location'), '/docs/');
  assertNotFound(await get(port, '/nope.txt'), '/nope.txt');
});

test('root mount without a JS route: "/" serves index.html', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/', ROOT));
  assertFile(await get(port, '/'), '<h1>home</h1>', HTML);
});

test('the mount covers its prefix only: /staticx and /other are not files', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (const target of ['/staticx/hello.txt', '/statichello.txt', '/other/hello.txt', '/hello.txt']) {
    const res = await get(port, target);
    assert.equal(res.status, 404, `${target}: ${describe(res)}`);
    assert.ok(!res.text.includes('hello world'), `${target}: ${describe(res)}`);
  }
});
