// adapter-gale's build-time plan (packages/adapter-gale/layout.js): which files get native mounts, which go through
// the catch-all route, and how a route below a file's path keeps it off a mount. On a temporary directory.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error plain JavaScript module with JSDoc types
import { planStatic, routeReachesBelow } from '../../packages/adapter-gale/layout.js';

type Seg = { content: string; dynamic: boolean; rest: boolean };
const seg = (content: string): Seg => ({
  content,
  dynamic: content.includes('['),
  rest: content.startsWith('[...') || content.startsWith('[[...'),
});
const route = (id: string) => ({ segments: id.split('/').filter(Boolean).map(seg) });

test('routeReachesBelow: literal, param, optional and rest segments', () => {
  const below = (id: string, path: string) => routeReachesBelow(route(id).segments, path);
  assert.equal(below('/blog/[slug]', '/blog'), true);
  assert.equal(below('/blog', '/blog'), false); // the path itself, not below it
  assert.equal(below('/news/[slug]', '/blog'), false);
  assert.equal(below('/[lang]/about', '/en'), true);
  assert.equal(below('/[...rest]', '/anything.txt'), true);
  assert.equal(below('/[[lang]]', '/about'), false);
  assert.equal(below('/[[lang]]/docs/[page]', '/docs'), true);
  assert.equal(below('/api/items', '/robots.txt'), false);
  assert.equal(below('/', '/x'), false);
});

test('planStatic: mounts, aliases, the catch-all list and hard links', (t) => {
  const out = mkdtempSync(join(tmpdir(), 'adapter-gale-layout-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const write = (rel: string, body: string) => {
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    writeFileSync(join(out, rel), body);
  };
  write('client/_app/immutable/entry/start.js', 'js');
  write('client/_app/version.json', '{}');
  write('client/robots.txt', 'robots');
  write('client/robots.txt.br', 'br');
  write('client/docs/index.html', 'docs');
  write('client/hello world.txt', 'space');
  write('client/.env', 'secret');
  write('prerendered/index.html', 'home');
  write('prerendered/blog.html', 'blog');
  write('prerendered/about.html', 'about');
  const layout = planStatic({
    out,
    appPath: '_app',
    prerenderedPaths: ['/', '/blog', '/about'],
    routes: [route('/blog/[slug]'), route('/api/items')],
  });
  assert.deepEqual(layout.immutable, { prefix: '/_app/immutable', dir: 'client/_app/immutable' });
  const mounted = Object.fromEntries(layout.mounts.map(([url, dir, name]: string[]) => [url, `${dir}/${name}`]));
  assert.deepEqual(Object.keys(mounted).sort(), [
    '/_app/version.json',
    '/about',
    '/docs/index',
    '/docs/index.html',
    '/robots.txt',
  ]);
  // /docs owns /docs/index(.html) only if nothing else lives below it: here its own aliases do, so it is not a mount.
  const files = Object.fromEntries(layout.files);
  assert.equal(files['/docs'], 'client/docs/index.html');
  assert.equal(files['/'], 'prerendered/index.html');
  assert.equal(files['/blog'], 'prerendered/blog.html'); // /blog/[slug] is below it
  assert.equal(files['/hello world.txt'], 'client/hello world.txt'); // not a literal route path
  assert.equal(files['/.env'], undefined);
  assert.equal(mounted['/.env'], undefined);
  // A mount's directory holds its file alone (hard-linked: same inode), with the precompressed sibling.
  const robots = join(out, mounted['/robots.txt'] as string);
  assert.equal(readFileSync(robots, 'utf8'), 'robots');
  assert.equal(statSync(robots).ino, statSync(join(out, 'client/robots.txt')).ino);
  assert.equal(readFileSync(`${robots}.br`, 'utf8'), 'br');
  assert.deepEqual(layout.prerendered, ['/', '/blog', '/about']);
});
