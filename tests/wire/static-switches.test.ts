// app.static()'s serve-static switches `etag`, `lastModified` and `acceptRanges`: what a mount with each one off
// sends and which conditionals it still honours, over a real socket and byte for byte against the file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StaticOptions } from 'gale';
import { T, withApp } from '../helpers.js';
import { describe, etagFor, get, httpDate, MTIME, MTIME_HTTP, makeTree, patternBytes } from './static-fixtures.js';

const SIZE = 10_000;
const DATA = patternBytes(SIZE, 5);
const tree = makeTree({ 'root/data.bin': DATA });
const ROOT = tree.p('root');
const ETAG = etagFor(SIZE);
const FILE = '/static/data.bin';

async function mount(t: Parameters<typeof withApp>[0], options: StaticOptions): Promise<number> {
  const { port } = await withApp(t, (a) => a.static('/static', ROOT, options));
  return port;
}

type Res = Awaited<ReturnType<typeof get>>;

function whole(res: Res, what: string): void {
  const d = `${what}: ${describe(res, 300)}`;
  assert.equal(res.status, 200, d);
  assert.equal(res.get('content-range'), undefined, d);
  assert.ok(res.body.equals(DATA), `${what}: not the file's bytes`);
}

test(
  'all three off: no ETag, Last-Modified or Accept-Ranges; Range and the date conditionals are ignored',
  T,
  async (t) => {
    const port = await mount(t, { etag: false, lastModified: false, acceptRanges: false });
    const plain = await get(port, FILE);
    whole(plain, 'GET');
    for (const name of ['etag', 'last-modified', 'accept-ranges']) {
      assert.equal(plain.get(name), undefined, `${name} sent: ${describe(plain, 300)}`);
    }
    // Ranges: a satisfiable one, an unsatisfiable one (416 when ranges are on) and one under If-Range.
    for (const range of ['bytes=0-9', 'bytes=20000-', 'bytes=0-1,5-6']) {
      whole(await get(port, FILE, { Range: range }), `Range ${range}`);
    }
    whole(await get(port, FILE, { Range: 'bytes=0-9', 'If-Range': MTIME_HTTP }), 'Range + If-Range date');
    // The validator a mount with defaults would send matches nothing here; `*` still means "any representation".
    whole(await get(port, FILE, { 'If-None-Match': ETAG }), 'If-None-Match with the default ETag');
    const star = await get(port, FILE, { 'If-None-Match': '*' });
    assert.equal(star.status, 304, `If-None-Match *: ${describe(star)}`);
    assert.equal(star.get('etag'), undefined, describe(star));
    assert.equal(star.get('last-modified'), undefined, describe(star));
    whole(await get(port, FILE, { 'If-Modified-Since': httpDate(MTIME + 3600) }), 'If-Modified-Since later');
    whole(await get(port, FILE, { 'If-Unmodified-Since': httpDate(MTIME - 3600) }), 'If-Unmodified-Since earlier');
    const match = await get(port, FILE, { 'If-Match': ETAG });
    assert.equal(match.status, 412, `If-Match with a tag: ${describe(match)}`);
    whole(await get(port, FILE, { 'If-Match': '*' }), 'If-Match *');
  },
);

test('etag: false alone: Last-Modified and its 304 stay, Range stays, a tag never matches', T, async (t) => {
  const port = await mount(t, { etag: false });
  const plain = await get(port, FILE);
  whole(plain, 'GET');
  assert.equal(plain.get('etag'), undefined, describe(plain, 300));
  assert.equal(plain.get('last-modified'), MTIME_HTTP, describe(plain, 300));
  assert.equal(plain.get('accept-ranges'), 'bytes', describe(plain, 300));
  const ims = await get(port, FILE, { 'If-Modified-Since': MTIME_HTTP });
  assert.equal(ims.status, 304, `If-Modified-Since: ${describe(ims)}`);
  assert.equal(ims.get('etag'), undefined, describe(ims));
  assert.equal(ims.get('last-modified'), MTIME_HTTP, describe(ims));
  whole(await get(port, FILE, { 'If-None-Match': ETAG }), 'If-None-Match with the default ETag');
  const ranged = await get(port, FILE, { Range: 'bytes=10-19', 'If-Range': MTIME_HTTP });
  assert.equal(ranged.status, 206, `Range + If-Range date: ${describe(ranged)}`);
  assert.ok(ranged.body.equals(DATA.subarray(10, 20)), describe(ranged));
});

test(
  'lastModified: false alone: the ETag and its 304 stay; dates match nothing, an If-Range date included',
  T,
  async (t) => {
    const port = await mount(t, { lastModified: false });
    const plain = await get(port, FILE);
    whole(plain, 'GET');
    assert.equal(plain.get('etag'), ETAG, describe(plain, 300));
    assert.equal(plain.get('last-modified'), undefined, describe(plain, 300));
    const inm = await get(port, FILE, { 'If-None-Match': ETAG });
    assert.equal(inm.status, 304, `If-None-Match: ${describe(inm)}`);
    assert.equal(inm.get('etag'), ETAG, describe(inm));
    assert.equal(inm.get('last-modified'), undefined, describe(inm));
    whole(await get(port, FILE, { 'If-Modified-Since': httpDate(MTIME + 3600) }), 'If-Modified-Since later');
    whole(await get(port, FILE, { Range: 'bytes=10-19', 'If-Range': MTIME_HTTP }), 'Range + If-Range date');
    const ranged = await get(port, FILE, { Range: 'bytes=10-19' });
    assert.equal(ranged.status, 206, `Range: ${describe(ranged)}`);
  },
);

test('acceptRanges: false alone: validators and their 304 stay, every Range gets the whole file', T, async (t) => {
  const port = await mount(t, { acceptRanges: false });
  const plain = await get(port, FILE);
  whole(plain, 'GET');
  assert.equal(plain.get('accept-ranges'), undefined, describe(plain, 300));
  assert.equal(plain.get('etag'), ETAG, describe(plain, 300));
  whole(await get(port, FILE, { Range: 'bytes=10-19' }), 'Range');
  const inm = await get(port, FILE, { 'If-None-Match': ETAG, Range: 'bytes=10-19' });
  assert.equal(inm.status, 304, `If-None-Match + Range: ${describe(inm)}`);
});

test('a cached mount keeps the switches (the memory path answers as the disk path does)', T, async (t) => {
  const port = await mount(t, { cache: true, etag: false, lastModified: false, acceptRanges: false });
  for (let i = 0; i < 2; i++) {
    const res = await get(port, FILE, { Range: 'bytes=0-9', 'If-Modified-Since': httpDate(MTIME + 3600) });
    whole(res, `cached GET ${i + 1}`);
    for (const name of ['etag', 'last-modified', 'accept-ranges']) {
      assert.equal(res.get(name), undefined, `${name} sent: ${describe(res, 300)}`);
    }
  }
});
