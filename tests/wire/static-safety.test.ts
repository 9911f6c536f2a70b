// app.static() safety: every form of path traversal, encoded separator, NUL, bad escape and
// symlink escape is a 404 that never carries a byte from outside the root. Requests are sent
// verbatim over a raw socket (fetch would normalize them).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { buildRequest, parseResponses, rawRequest, show, T, withApp } from '../helpers.js';
import { assertFile, assertNotFound, describe, get, makeTree } from './static-fixtures.js';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-ROOT';
const tree = makeTree({
  'secret.txt': SECRET,
  'outside/index.html': `<p>${SECRET} index</p>`,
  'outside/inner.txt': `${SECRET} inner`,
  'root2/secret.txt': `${SECRET} sibling root2`,
  'root/index.html': '<p>home</p>',
  'root/index.html.txt': 'decoy',
  'root/hello.txt': 'hello',
  'root/a/b.txt': 'a-b',
  'root/real/target.txt': 'inside target',
  'root/.env': `${SECRET} dotenv`,
  'root/shell.html': '<p>shell</p>',
  'root/%2e%2e/secret.txt': 'a directory literally named %2e%2e',
});
const ROOT = tree.p('root');
fs.symlinkSync(tree.p('secret.txt'), tree.p('root/leak.txt'));
fs.symlinkSync('../root2/secret.txt', tree.p('root/sibling.txt'));
fs.symlinkSync(tree.p('outside'), tree.p('root/outdir'));
fs.symlinkSync('real/target.txt', tree.p('root/good.txt'));
fs.symlinkSync(tree.p('root/real'), tree.p('root/gooddir'));

/** Refused request targets below the /static mount. */
const REFUSED = [
  '/static/../secret.txt',
  '/static/%2e%2e/secret.txt',
  '/static/%2E%2e%2fsecret.txt',
  '/static/.%2e/secret.txt',
  '/static/%2e./secret.txt',
  '/static/a%2f..%2f..%2fsecret.txt',
  '/static/a/../../secret.txt',
  '/static/a/%2e%2e/%2e%2e/secret.txt',
  '/static/..%2fsecret.txt',
  '/static/..%5csecret.txt',
  '/static/a\\..\\secret.txt',
  '/static/..\\secret.txt',
  '/static/%5c..%5csecret.txt',
  '/static/%00',
  '/static/index.html%00.txt',
  '/static/hello.txt%00',
  '/static/%zz',
  '/static/%',
  '/static/%2',
  '/static/%c0%ae%c0%ae/secret.txt',
  '/static/..',
  '/static/%2e%2e',
  '/static/a/..',
  '/static/%2fsecret.txt',
  '/static/%2f..%2fsecret.txt',
  '/static//../secret.txt',
  '/static/../root2/secret.txt',
  '/static/%2e%2e/root2/secret.txt',
  '/static/hello%0a.txt',
  '/static/hello%1f.txt',
];

async function rawGet(port: number, target: string): Promise<ReturnType<typeof parseResponses>[number]> {
  const bytes = buildRequest({ path: target, headers: { Connection: 'close' } });
  const r = await rawRequest(port, bytes, { waitForClose: true, timeoutMs: 4000 });
  const what = `${show(bytes, 200)} → ${show(r.data, 400)}`;
  assert.ok(!r.data.includes(SECRET), `LEAK: ${what}`);
  const all = parseResponses(r.data);
  assert.equal(all.length, 1, what);
  return all[0] as ReturnType<typeof parseResponses>[number];
}

test('traversal, encoded separators, NUL and bad escapes below a mount: all 404, nothing leaks', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (const target of REFUSED) assertNotFound(await rawGet(port, target), target);
  // the same server still serves the real files
  assertFile(await get(port, '/static/hello.txt'), 'hello', 'text/plain; charset=utf-8');
  assertFile(await get(port, '/static/a/b.txt'), 'a-b', 'text/plain; charset=utf-8');
});

test('the refused forms are 404 with every policy: fallback, dotfiles allow, extensions, cache', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/fb', ROOT, { fallback: 'shell.html' });
    app.static('/allow', ROOT, { dotfiles: 'allow', extensions: ['txt'], cache: true });
  });
  for (const prefix of ['/fb', '/allow']) {
    for (const target of REFUSED) {
      const t2 = target.replace('/static', prefix);
      assertNotFound(await rawGet(port, t2), t2);
    }
  }
  // .. in an extension lookup: /allow/../secret with extensions ['txt'] must not find secret.txt
  assertNotFound(await rawGet(port, '/allow/../secret'), '/allow/../secret');
  assertNotFound(await rawGet(port, '/allow/%2e%2e/secret'), '/allow/%2e%2e/secret');
});

test('percent-decoding happens once: %252e%252e names a directory called "%2e%2e", not ..', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT);
    app.static('/fb', ROOT, { fallback: 'shell.html' });
  });
  for (const prefix of ['/static', '/fb']) {
    const res = await rawGet(port, `${prefix}/%252e%252e/secret.txt`);
    assertFile(res, 'a directory literally named %2e%2e', 'text/plain; charset=utf-8');
  }
  assertNotFound(await rawGet(port, '/static/%252e%252e/%252e%252e/secret.txt'), 'double-encoded twice');
});

test('a root mount refuses the same forms (and the JS route on "/" is untouched)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/', () => 'js root');
    app.static('/', ROOT);
  });
  for (const target of REFUSED) {
    const t2 = target.replace('/static', '');
    if (t2 === '') continue;
    assertNotFound(await rawGet(port, t2), t2);
  }
  for (const target of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/..\\secret.txt']) {
    assertNotFound(await rawGet(port, target), target);
  }
  assert.equal((await get(port, '/')).text, 'js root');
});

test('symlinks: pointing outside the root → 404 (files and directories); inside → served', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT);
    app.static('/cached', ROOT, { cache: true });
  });
  for (const prefix of ['/static', '/cached']) {
    for (const target of ['/leak.txt', '/sibling.txt', '/outdir/inner.txt', '/outdir/', '/outdir/index.html']) {
      assertNotFound(await rawGet(port, prefix + target), prefix + target);
    }
    assertFile(await get(port, `${prefix}/good.txt`), 'inside target', 'text/plain; charset=utf-8');
    assertFile(await get(port, `${prefix}/gooddir/target.txt`), 'inside target', 'text/plain; charset=utf-8');
  }
});

test('a root given through a symlink still serves its files and still refuses escapes', T, async (t) => {
  fs.symlinkSync(ROOT, tree.p('root-link'));
  const { port } = await withApp(t, (app) => app.static('/static', tree.p('root-link')));
  assertFile(await get(port, '/static/hello.txt'), 'hello', 'text/plain; charset=utf-8');
  assertFile(await get(port, '/static/good.txt'), 'inside target', 'text/plain; charset=utf-8');
  assertNotFound(await rawGet(port, '/static/leak.txt'), '/static/leak.txt via linked root');
  assertNotFound(await rawGet(port, '/static/../secret.txt'), '/static/../secret.txt via linked root');
});

test('no open redirect: a directory reached through "//" never gets a protocol-relative Location', T, async (t) => {
  fs.mkdirSync(tree.p('root/evil.example'), { recursive: true });
  const { port } = await withApp(t, (app) => app.static('/', ROOT));
  const bad: string[] = [];
  for (const target of ['//evil.example', '///evil.example', '/%2fevil.example', '/\\evil.example']) {
    const res = await rawGet(port, target);
    const loc = res.get('location');
    const offSite = loc !== undefined && (!loc.startsWith('/') || loc.startsWith('//') || loc.startsWith('/\\'));
    if (offSite || ![301, 404].includes(res.status)) bad.push(`${JSON.stringify(target)} → ${describe(res)}`);
  }
  assert.deepEqual(bad, [], `redirects off-site:\n${bad.join('\n')}`);
  // the same directory through a single slash still redirects, to a same-site path
  const ok = await rawGet(port, '/evil.example');
  assert.equal(ok.status, 301, describe(ok));
  assert.equal(ok.get('location'), '/evil.example/');
});
