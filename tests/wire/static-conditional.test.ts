// app.static(): conditional requests (If-None-Match, If-Modified-Since, If-Match,
// If-Unmodified-Since → 304 / 412) and byte ranges (206, 416, multipart/byteranges, If-Range),
// checked byte for byte against the file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, show, T, withApp } from '../helpers.js';
import {
  assertFile,
  describe,
  etagFor,
  get,
  httpDate,
  MTIME,
  MTIME_HTTP,
  makeTree,
  parseMultipart,
  patternBytes,
} from './static-fixtures.js';

const SIZE = 10_000;
const DATA = patternBytes(SIZE, 3);
const tree = makeTree({ 'root/data.bin': DATA, 'root/empty.txt': '', 'root/page.html': '<p>conditional</p>' });
const ROOT = tree.p('root');
const BIN = 'application/octet-stream';
const ETAG = etagFor(SIZE);
const STRONG_LOOKALIKE = ETAG.slice(2); // "2710-5f5e1000" without W/

async function app(t: Parameters<typeof withApp>[0]): Promise<number> {
  const { port } = await withApp(t, (a) => a.static('/static', ROOT));
  return port;
}

function assert304(res: Awaited<ReturnType<typeof get>>, what: string): void {
  const d = `${what}: ${describe(res)}`;
  assert.equal(res.status, 304, d);
  assert.equal(res.get('etag'), ETAG, d);
  assert.equal(res.get('last-modified'), MTIME_HTTP, d);
  assert.equal(res.body.length, 0, d);
}

function assertWhole(res: Awaited<ReturnType<typeof get>>, what: string): void {
  assert.equal(res.status, 200, `${what}: ${describe(res, 300)}`);
  assert.equal(res.get('content-range'), undefined, `${what}: ${describe(res, 300)}`);
  assertFile(res, DATA, BIN);
}

function assert206(res: Awaited<ReturnType<typeof get>>, start: number, end: number, what: string): void {
  const d = `${what}: ${describe(res, 400)}`;
  assert.equal(res.status, 206, d);
  assert.equal(res.get('content-range'), `bytes ${start}-${end}/${SIZE}`, d);
  assert.equal(res.get('content-length'), String(end - start + 1), d);
  assert.deepEqual(res.getAll('content-type'), [BIN], d);
  assert.equal(res.get('etag'), ETAG, d);
  assert.ok(res.body.equals(DATA.subarray(start, end + 1)), `wrong bytes for ${what}`);
}

test('If-None-Match: exact, listed, strong-form and * all give 304 with validators and no body', T, async (t) => {
  const port = await app(t);
  const matching = [ETAG, `"nope", ${ETAG}`, `W/"a", W/"b",${ETAG}`, STRONG_LOOKALIKE, '*'];
  for (const v of matching) assert304(await get(port, '/static/data.bin', { 'If-None-Match': v }), `INM ${v}`);
  for (const v of ['"nope"', 'W/"2710-0"', etagFor(SIZE + 1), '"*"']) {
    assertWhole(await get(port, '/static/data.bin', { 'If-None-Match': v }), `INM ${v}`);
  }
});

test('a 304 on a keep-alive connection carries no body bytes: the next response follows directly', T, async (t) => {
  const port = await app(t);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(buildRequest({ path: '/static/data.bin', headers: { 'If-None-Match': ETAG } }));
  await conn.write(buildRequest({ path: '/static/page.html', headers: { Connection: 'close' } }));
  assert.equal(await conn.waitForClose(3000), true, 'server did not close after Connection: close');
  const all = conn.all();
  const first = all.toString('latin1').split('\r\n\r\n')[0] ?? '';
  assert.match(first, /^HTTP\/1\.1 304 /, show(all));
  const rest = all.subarray(first.length + 4);
  assert.match(
    rest.toString('latin1'),
    /^HTTP\/1\.1 200 OK\r\n/,
    `bytes between the 304 and the next response: ${show(all)}`,
  );
  assert.ok(rest.toString('latin1').endsWith('\r\n\r\n<p>conditional</p>'), show(all));
});

test('If-Modified-Since: same or later date → 304, earlier → 200, garbage ignored', T, async (t) => {
  const port = await app(t);
  assert304(await get(port, '/static/data.bin', { 'If-Modified-Since': MTIME_HTTP }), 'IMS equal');
  assert304(await get(port, '/static/data.bin', { 'If-Modified-Since': httpDate(MTIME + 3600) }), 'IMS later');
  // the obsolete RFC 850 and asctime forms are HTTP-dates too
  assert304(await get(port, '/static/data.bin', { 'If-Modified-Since': 'Sunday, 13-Sep-20 12:26:40 GMT' }), 'RFC 850');
  assert304(await get(port, '/static/data.bin', { 'If-Modified-Since': 'Sun Sep 13 12:26:40 2020' }), 'asctime');
  assertWhole(await get(port, '/static/data.bin', { 'If-Modified-Since': httpDate(MTIME - 1) }), 'IMS earlier');
  assertWhole(await get(port, '/static/data.bin', { 'If-Modified-Since': 'not a date' }), 'IMS garbage');
});

test('If-None-Match takes precedence over If-Modified-Since', T, async (t) => {
  const port = await app(t);
  assertWhole(
    await get(port, '/static/data.bin', { 'If-None-Match': '"other"', 'If-Modified-Since': httpDate(MTIME + 60) }),
    'INM mismatch + IMS later',
  );
  assert304(
    await get(port, '/static/data.bin', { 'If-None-Match': ETAG, 'If-Modified-Since': httpDate(MTIME - 60) }),
    'INM match + IMS earlier',
  );
});

test('If-Match compares strongly: our weak ETag never matches (412), * does (200)', T, async (t) => {
  const port = await app(t);
  for (const v of [ETAG, STRONG_LOOKALIKE, `"x", ${ETAG}`, '"other"']) {
    const res = await get(port, '/static/data.bin', { 'If-Match': v });
    assert.equal(res.status, 412, `If-Match ${v}: ${describe(res)}`);
    assert.ok(!res.body.equals(DATA), 'a 412 must not carry the file');
  }
  assertWhole(await get(port, '/static/data.bin', { 'If-Match': '*' }), 'If-Match *');
});

test('If-Unmodified-Since: an older date → 412; same or later → 200; garbage ignored', T, async (t) => {
  const port = await app(t);
  const res = await get(port, '/static/data.bin', { 'If-Unmodified-Since': httpDate(MTIME - 1) });
  assert.equal(res.status, 412, describe(res));
  assertWhole(await get(port, '/static/data.bin', { 'If-Unmodified-Since': MTIME_HTTP }), 'IUS equal');
  assertWhole(await get(port, '/static/data.bin', { 'If-Unmodified-Since': httpDate(MTIME + 99) }), 'IUS later');
  assertWhole(await get(port, '/static/data.bin', { 'If-Unmodified-Since': 'yesterday' }), 'IUS garbage');
});

test('HEAD honours conditionals: 304 without a body', T, async (t) => {
  const port = await app(t);
  assert304(await get(port, '/static/data.bin', { 'If-None-Match': ETAG }, { method: 'HEAD' }), 'HEAD INM');
});

test('Range: single, open-ended, suffix, clipped end; exact bytes and Content-Range', T, async (t) => {
  const port = await app(t);
  const cases: Array<[string, number, number]> = [
    ['bytes=0-99', 0, 99],
    ['bytes=0-0', 0, 0],
    ['bytes=1234-5677', 1234, 5677],
    ['bytes=9999-9999', 9999, 9999],
    ['bytes=500-', 500, SIZE - 1],
    ['bytes=-500', SIZE - 500, SIZE - 1],
    ['bytes=-1', SIZE - 1, SIZE - 1],
    ['bytes=9000-20000', 9000, SIZE - 1],
    ['bytes=-20000', 0, SIZE - 1],
    ['Bytes=10-19', 10, 19],
  ];
  for (const [range, start, end] of cases) {
    assert206(await get(port, '/static/data.bin', { Range: range }), start, end, range);
  }
});

test('Range not satisfiable: start at or past the size → 416 with Content-Range: bytes */size', T, async (t) => {
  const port = await app(t);
  for (const range of [`bytes=${SIZE}-`, 'bytes=20000-30000', `bytes=${SIZE}-${SIZE + 5}`, 'bytes=-0']) {
    const res = await get(port, '/static/data.bin', { Range: range });
    assert.equal(res.status, 416, `${range}: ${describe(res)}`);
    assert.equal(res.get('content-range'), `bytes */${SIZE}`, `${range}: ${describe(res)}`);
    assert.ok(res.body.length < 100, `${range}: a 416 carries no file bytes`);
  }
  const empty = await get(port, '/static/empty.txt', { Range: 'bytes=0-10' });
  assert.equal(empty.status, 416, describe(empty));
  assert.equal(empty.get('content-range'), 'bytes */0', describe(empty));
});

test(
  'several ranges → 206 multipart/byteranges; each part has its Content-Type, Content-Range and bytes',
  T,
  async (t) => {
    const port = await app(t);
    const res = await get(port, '/static/data.bin', { Range: 'bytes=0-9, 100-199,-5' });
    assert.equal(res.status, 206, describe(res, 300));
    assert.equal(res.get('content-range'), undefined, 'a multipart 206 has no top-level Content-Range');
    assert.equal(res.get('content-length'), String(res.body.length));
    assert.equal(res.get('etag'), ETAG);
    const parts = parseMultipart(res);
    const want: Array<[number, number]> = [
      [0, 9],
      [100, 199],
      [SIZE - 5, SIZE - 1],
    ];
    assert.equal(parts.length, want.length, show(res.body, 800));
    want.forEach(([s, e], i) => {
      const p = parts[i];
      assert.ok(p);
      assert.equal(p.get('content-type'), BIN, `part ${i}`);
      assert.equal(p.get('content-range'), `bytes ${s}-${e}/${SIZE}`, `part ${i}`);
      assert.ok(p.body.equals(DATA.subarray(s, e + 1)), `part ${i} bytes: ${show(p.body, 100)}`);
    });
  },
);

test('multipart on a text file: parts carry the file Content-Type with its charset', T, async (t) => {
  const port = await app(t);
  const res = await get(port, '/static/page.html', { Range: 'bytes=0-2,4-5' });
  assert.equal(res.status, 206, describe(res));
  const parts = parseMultipart(res);
  assert.deepEqual(
    parts.map((p) => [p.get('content-type'), p.get('content-range'), p.body.toString()]),
    [
      ['text/html; charset=utf-8', 'bytes 0-2/18', '<p>'],
      ['text/html; charset=utf-8', 'bytes 4-5/18', 'on'],
    ],
  );
});

test('too many ranges or overlapping ranges → 200 with the whole file', T, async (t) => {
  const port = await app(t);
  const many = Array.from({ length: 40 }, (_, i) => `${i * 100}-${i * 100 + 9}`).join(',');
  for (const range of [`bytes=${many}`, 'bytes=0-99,50-149', 'bytes=0-99,99-100', 'bytes=-100,9950-']) {
    assertWhole(await get(port, '/static/data.bin', { Range: range }), range.slice(0, 40));
  }
});

test('syntactically bad Range → 200 with the whole file', T, async (t) => {
  const port = await app(t);
  for (const range of [
    'bytes=abc',
    'bytes=5-1',
    'items=0-5',
    'bytes 0-5',
    'bytes=--5',
    'bytes=0-5-',
    'bytes=',
    'bytes=1-2,x',
  ]) {
    assertWhole(await get(port, '/static/data.bin', { Range: range }), range);
  }
});

test('If-Range: the Last-Modified date → 206; another date or any ETag (ours are weak) → 200 whole', T, async (t) => {
  const port = await app(t);
  assert206(
    await get(port, '/static/data.bin', { Range: 'bytes=10-19', 'If-Range': MTIME_HTTP }),
    10,
    19,
    'If-Range date',
  );
  for (const v of [httpDate(MTIME - 1), httpDate(MTIME + 1), ETAG, STRONG_LOOKALIKE, '"other"']) {
    assertWhole(await get(port, '/static/data.bin', { Range: 'bytes=10-19', 'If-Range': v }), `If-Range ${v}`);
  }
});

test('HEAD with Range: the 206 head, no body', T, async (t) => {
  const port = await app(t);
  const res = await get(port, '/static/data.bin', { Range: 'bytes=100-199' }, { method: 'HEAD' });
  assert.equal(res.status, 206, describe(res));
  assert.equal(res.get('content-range'), `bytes 100-199/${SIZE}`);
  assert.equal(res.get('content-length'), '100');
  assert.equal(res.body.length, 0);
});

test('a satisfied precondition does not stop the Range: If-Match * + Range → 206', T, async (t) => {
  const port = await app(t);
  assert206(await get(port, '/static/data.bin', { Range: 'bytes=5-9', 'If-Match': '*' }), 5, 9, 'If-Match * + Range');
  const nm = await get(port, '/static/data.bin', { Range: 'bytes=5-9', 'If-None-Match': ETAG });
  assert304(nm, 'INM match + Range');
});
