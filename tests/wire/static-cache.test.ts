// app.static() memory cache: a cached file is re-checked against the disk at most once a second
// (a size or mtime change reloads it); without the cache every request sees the disk; files over
// maxFileSize (or past maxSize) are still served, from disk. Cached answers behave like disk ones.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { sleep, T, withApp } from '../helpers.js';
import {
  assertFile,
  assertNotFound,
  describe,
  etagFor,
  get,
  MTIME,
  makeTree,
  patternBytes,
} from './static-fixtures.js';

const tree = makeTree({ 'root/keep.txt': 'unchanging', 'root/docs/index.html': '<p>docs</p>' });
const ROOT = tree.p('root');
const TXT = 'text/plain; charset=utf-8';
const SLOW = { timeout: 15_000 } as const;

let counter = 0;
/** A fresh file name per test, so tests never see each other's cache entries. */
function fresh(content: string | Buffer, ext = 'txt'): string {
  const name = `f${++counter}.${ext}`;
  tree.write(`root/${name}`, content);
  return name;
}

test('cache on: a change is picked up after the once-a-second re-check (same size, new mtime)', SLOW, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: true }));
  const name = fresh('version-1');
  const first = Date.now();
  assertFile(await get(port, `/static/${name}`), 'version-1', TXT);
  tree.write(`root/${name}`, 'version-2', MTIME + 100); // same size, mtime differs
  const soon = await get(port, `/static/${name}`);
  if (Date.now() - first < 800) {
    // within the second: still the cached bytes, with their validators (proves a cache is in use)
    assertFile(soon, 'version-1', TXT);
  }
  await sleep(1200);
  const later = await get(port, `/static/${name}`);
  assertFile(later, 'version-2', TXT, { mtime: MTIME + 100 });
  // and the new validators work
  const nm = await get(port, `/static/${name}`, { 'If-None-Match': etagFor(9, MTIME + 100) });
  assert.equal(nm.status, 304, describe(nm));
});

test('cache on: a size change (same mtime) is picked up too, and a deleted file becomes 404', SLOW, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: true }));
  const name = fresh('short');
  assertFile(await get(port, `/static/${name}`), 'short', TXT);
  await sleep(1200);
  tree.write(`root/${name}`, 'a much longer content'); // mtime stays MTIME
  assertFile(await get(port, `/static/${name}`), 'a much longer content', TXT);
  await sleep(1200);
  fs.rmSync(tree.p(`root/${name}`));
  assertNotFound(await get(port, `/static/${name}`), 'deleted file after the re-check');
});

test('cache off: every request sees the current bytes immediately', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/static', ROOT);
    app.static('/off', ROOT, { cache: false });
  });
  for (const prefix of ['/static', '/off']) {
    const name = fresh('first-content');
    assertFile(await get(port, `${prefix}/${name}`), 'first-content', TXT);
    tree.write(`root/${name}`, 'second-content', MTIME + 5);
    assertFile(await get(port, `${prefix}/${name}`), 'second-content', TXT, { mtime: MTIME + 5 });
    tree.write(`root/${name}`, 'third', MTIME + 6);
    assertFile(await get(port, `${prefix}/${name}`), 'third', TXT, { mtime: MTIME + 6 });
  }
});

test('cache: a file over maxFileSize is served from disk (changes visible immediately)', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: { maxFileSize: 1024 } }));
  const bigA = patternBytes(4096, 21);
  const bigB = patternBytes(4096, 22);
  const name = fresh(bigA, 'bin');
  assertFile(await get(port, `/static/${name}`), bigA, 'application/octet-stream');
  tree.write(`root/${name}`, bigB, MTIME + 1);
  assertFile(await get(port, `/static/${name}`), bigB, 'application/octet-stream', { mtime: MTIME + 1 });
  // a range of the uncached file
  const part = await get(port, `/static/${name}`, { Range: 'bytes=1000-1999' });
  assert.equal(part.status, 206, describe(part));
  assert.ok(part.body.equals(bigB.subarray(1000, 2000)));
  // a small file on the same mount is still served
  const small = fresh('tiny');
  assertFile(await get(port, `/static/${small}`), 'tiny', TXT);
});

test('cache: files that do not fit in maxSize are still served, from disk', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: { maxSize: 3000 } }));
  const a = fresh(patternBytes(2000, 31), 'bin');
  const b = fresh(patternBytes(2000, 32), 'bin');
  assertFile(await get(port, `/static/${a}`), patternBytes(2000, 31), 'application/octet-stream');
  assertFile(await get(port, `/static/${b}`), patternBytes(2000, 32), 'application/octet-stream');
  // b did not fit beside a: it is read from disk, so a change shows at once
  tree.write(`root/${b}`, patternBytes(2000, 33), MTIME + 2);
  assertFile(await get(port, `/static/${b}`), patternBytes(2000, 33), 'application/octet-stream', { mtime: MTIME + 2 });
  assertFile(await get(port, `/static/${a}`), patternBytes(2000, 31), 'application/octet-stream');
});

test('cached answers: 304, 206, multipart, HEAD and 416 are the same as from disk', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/mem', ROOT, { cache: true });
    app.static('/disk', ROOT);
  });
  const data = patternBytes(5000, 41);
  const name = fresh(data, 'bin');
  const requests: Array<[Record<string, string>, string]> = [
    [{}, 'GET'],
    [{ 'If-None-Match': etagFor(5000) }, 'GET'],
    [{ 'If-Modified-Since': new Date(MTIME * 1000).toUTCString() }, 'GET'],
    [{ Range: 'bytes=10-4009' }, 'GET'],
    [{ Range: 'bytes=0-1,-2' }, 'GET'],
    [{ Range: 'bytes=6000-' }, 'GET'],
    [{}, 'HEAD'],
  ];
  await get(port, `/mem/${name}`); // load it into the cache
  for (const [headers, method] of requests) {
    const mem = await get(port, `/mem/${name}`, headers, { method });
    const disk = await get(port, `/disk/${name}`, headers, { method });
    const strip = (h: Array<[string, string]>) => h.filter(([k]) => k.toLowerCase() !== 'date');
    const what = `${method} ${JSON.stringify(headers)}`;
    assert.equal(mem.status, disk.status, `${what}: ${describe(mem)} vs ${describe(disk)}`);
    assert.deepEqual(strip(mem.headers), strip(disk.headers), what);
    assert.ok(mem.body.equals(disk.body), `${what}: bodies differ`);
  }
  const r = await get(port, `/mem/${name}`, { Range: 'bytes=10-4009' });
  assert.ok(r.body.equals(data.subarray(10, 4010)));
});

test('cache on: a file asked for as a directory (trailing slash) is 404, cached or not', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: true }));
  assertNotFound(await get(port, '/static/keep.txt/'), '/static/keep.txt/ (cold)');
  assertFile(await get(port, '/static/keep.txt'), 'unchanging', TXT);
  assertNotFound(await get(port, '/static/keep.txt/'), '/static/keep.txt/ after keep.txt was cached');
});

test('cache on: a directory without its slash still redirects after its index was cached', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: true }));
  assertFile(await get(port, '/static/docs/'), '<p>docs</p>', 'text/html; charset=utf-8');
  const redir = await get(port, '/static/docs');
  assert.equal(redir.status, 301, `/static/docs after docs/ was cached: ${describe(redir)}`);
  assert.equal(redir.get('location'), '/static/docs/');
});
