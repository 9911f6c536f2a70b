// app.static(): precompressed siblings (foo.js.br / foo.js.gz) chosen from Accept-Encoding, with
// Content-Encoding and Vary; identity bytes for ranges; on-the-fly compression with the cache.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';
import { assertFile, describe, etagFor, get, MTIME_HTTP, makeTree, patternBytes } from './static-fixtures.js';

const JS_TEXT = `${'export const answer = 42; // padding the file so that it compresses\n'.repeat(80)}`;
const JS_BR = zlib.brotliCompressSync(JS_TEXT);
const JS_GZ = zlib.gzipSync(JS_TEXT);
const CSS_TEXT = `${'.item { color: red; margin: 0 auto; }\n'.repeat(120)}`; // ~4.7 KiB
const SMALL_CSS = 'a{b:c}'.repeat(100); // 600 bytes, under 1 KiB
const PNG = patternBytes(4096, 9);
// Siblings above the engine's inline size (64 KiB) are sent from the descriptor the lookup opened.
const BIG_JS = patternBytes(300 * 1024, 3);
const BIG_JS_BR = patternBytes(100 * 1024, 5);
const BIG_JS_GZ = patternBytes(120 * 1024, 7);
const tree = makeTree({
  'root/big.js': BIG_JS,
  'root/big.js.br': BIG_JS_BR,
  'root/big.js.gz': BIG_JS_GZ,
  'root/app.js': JS_TEXT,
  'root/app.js.br': JS_BR,
  'root/app.js.gz': JS_GZ,
  'root/only-gz.css': CSS_TEXT,
  'root/only-gz.css.gz': zlib.gzipSync(CSS_TEXT),
  'root/plain.css': CSS_TEXT,
  'root/small.css': SMALL_CSS,
  'root/pic.png': PNG,
});
const ROOT = tree.p('root');
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

function assertEncoded(
  res: Awaited<ReturnType<typeof get>>,
  encoding: 'br' | 'gzip',
  bytes: Buffer,
  what: string,
  opts: { head?: boolean; type?: string } = {},
): void {
  const d = `${what}: ${describe(res, 300)}`;
  assert.equal(res.status, 200, d);
  assert.equal(res.get('content-encoding'), encoding, d);
  assert.equal(res.get('vary'), 'Accept-Encoding', d);
  assert.deepEqual(res.getAll('content-type'), [opts.type ?? JS], d);
  assert.equal(res.get('content-length'), String(bytes.length), d);
  assert.equal(res.get('content-range'), undefined, d);
  assert.equal(res.get('last-modified'), MTIME_HTTP, d);
  if (opts.head) assert.equal(res.body.length, 0, d);
  else assert.ok(res.body.equals(bytes), `${what}: body is not the ${encoding} variant`);
}

function assertIdentityWithVary(res: Awaited<ReturnType<typeof get>>, body: string, type: string, what: string): void {
  assertFile(res, body, type);
  assert.equal(res.get('vary'), 'Accept-Encoding', `${what}: ${describe(res, 300)}`);
}

test('precompressed: br and gzip siblings by Accept-Encoding, with Content-Encoding and Vary', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  assertEncoded(await get(port, '/static/app.js', { 'Accept-Encoding': 'br' }), 'br', JS_BR, 'br');
  assertEncoded(await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip' }), 'gzip', JS_GZ, 'gzip');
  assertEncoded(await get(port, '/static/app.js', { 'Accept-Encoding': 'br;q=0, gzip' }), 'gzip', JS_GZ, 'br;q=0');
  assertEncoded(await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip;q=0.4, br;q=0.8' }), 'br', JS_BR, 'q');
  const both = await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip, deflate, br' });
  assert.ok(['br', 'gzip'].includes(both.get('content-encoding') ?? ''), describe(both, 300));
  assertEncoded(
    both,
    both.get('content-encoding') as 'br' | 'gzip',
    both.get('content-encoding') === 'br' ? JS_BR : JS_GZ,
    'both',
  );
});

test('precompressed: large siblings are sent whole, each request from its own lookup', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (let i = 0; i < 3; i++) {
    assertEncoded(await get(port, '/static/big.js', { 'Accept-Encoding': 'br' }), 'br', BIG_JS_BR, `br #${i}`);
    assertEncoded(await get(port, '/static/big.js', { 'Accept-Encoding': 'gzip' }), 'gzip', BIG_JS_GZ, `gzip #${i}`);
    const plain = await get(port, '/static/big.js');
    assert.ok(plain.body.equals(BIG_JS), `identity #${i}: ${describe(plain, 200)}`);
  }
});

test('precompressed: identity (still with Vary) when the client accepts no available coding', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  assertIdentityWithVary(await get(port, '/static/app.js'), JS_TEXT, JS, 'no Accept-Encoding');
  assertIdentityWithVary(await get(port, '/static/app.js', { 'Accept-Encoding': 'identity' }), JS_TEXT, JS, 'identity');
  assertIdentityWithVary(await get(port, '/static/app.js', { 'Accept-Encoding': 'deflate' }), JS_TEXT, JS, 'deflate');
  assertIdentityWithVary(
    await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip;q=0, br;q=0' }),
    JS_TEXT,
    JS,
    'all q=0',
  );
  assertIdentityWithVary(
    await get(port, '/static/only-gz.css', { 'Accept-Encoding': 'br' }),
    CSS_TEXT,
    CSS,
    'only .gz',
  );
  assertEncoded(
    await get(port, '/static/only-gz.css', { 'Accept-Encoding': 'br, gzip' }),
    'gzip',
    zlib.gzipSync(CSS_TEXT),
    'only .gz, br+gzip accepted',
    { type: CSS },
  );
});

test('precompressed: the ETag and Last-Modified are those of the original file', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const res = await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip' });
  assert.equal(res.get('etag'), etagFor(Buffer.byteLength(JS_TEXT)), describe(res, 300));
  const nm = await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip', 'If-None-Match': res.get('etag') ?? '' });
  assert.equal(nm.status, 304, describe(nm));
  assert.equal(nm.get('vary'), 'Accept-Encoding', `a 304 keeps Vary: ${describe(nm)}`);
  assert.equal(nm.body.length, 0);
});

test('precompressed: HEAD answers the encoded length without a body', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const res = await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip' }, { method: 'HEAD' });
  assertEncoded(res, 'gzip', JS_GZ, 'HEAD gzip', { head: true });
});

test('precompressed: a Range is served from the identity bytes, never the compressed ones', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const size = Buffer.byteLength(JS_TEXT);
  for (const ae of ['gzip', 'br', 'gzip, br']) {
    const res = await get(port, '/static/app.js', { 'Accept-Encoding': ae, Range: 'bytes=7-19' });
    const d = `${ae}: ${describe(res, 300)}`;
    assert.equal(res.status, 206, d);
    assert.equal(res.get('content-encoding'), undefined, d);
    assert.equal(res.get('content-range'), `bytes 7-19/${size}`, d);
    assert.equal(res.text, JS_TEXT.slice(7, 20), d);
  }
  const multi = await get(port, '/static/app.js', { 'Accept-Encoding': 'gzip', Range: 'bytes=0-5,10-15' });
  assert.equal(multi.status, 206, describe(multi, 300));
  assert.equal(multi.get('content-encoding'), undefined, describe(multi, 300));
  assert.ok(multi.text.includes(JS_TEXT.slice(0, 6)) && multi.text.includes(JS_TEXT.slice(10, 16)));
  assert.ok(!multi.body.includes(JS_GZ.subarray(0, 6)), 'multipart carries gzip bytes');
});

test('precompressed: false ignores the siblings (no Content-Encoding, no Vary)', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { precompressed: false }));
  for (const ae of ['gzip', 'br', 'gzip, br']) {
    const res = await get(port, '/static/app.js', { 'Accept-Encoding': ae });
    assertFile(res, JS_TEXT, JS);
    assert.equal(res.get('vary'), undefined, `${ae}: ${describe(res, 300)}`);
  }
  // the sibling itself is still a file of its own
  const gz = await get(port, '/static/app.js.gz');
  assert.equal(gz.status, 200, describe(gz, 300));
  assert.ok(gz.body.equals(JS_GZ));
});

test('compress + cache: gzip and br on the fly for compressible types of at least 1 KiB', T, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: true, compress: true }));
  for (let round = 0; round < 2; round++) {
    const gz = await get(port, '/static/plain.css', { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.status, 200, describe(gz, 300));
    assert.equal(gz.get('content-encoding'), 'gzip', describe(gz, 300));
    assert.equal(gz.get('vary'), 'Accept-Encoding', describe(gz, 300));
    assert.deepEqual(gz.getAll('content-type'), [CSS]);
    assert.equal(gz.get('etag'), etagFor(Buffer.byteLength(CSS_TEXT)));
    assert.ok(gz.body.length < Buffer.byteLength(CSS_TEXT) / 2, `gzip body of ${gz.body.length} bytes`);
    assert.equal(zlib.gunzipSync(gz.body).toString(), CSS_TEXT);
    const br = await get(port, '/static/plain.css', { 'Accept-Encoding': 'br' });
    assert.equal(br.get('content-encoding'), 'br', describe(br, 300));
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), CSS_TEXT);
  }
  const id = await get(port, '/static/plain.css');
  assertIdentityWithVary(id, CSS_TEXT, CSS, 'compress, no Accept-Encoding');
  const range = await get(port, '/static/plain.css', { 'Accept-Encoding': 'gzip', Range: 'bytes=0-11' });
  assert.equal(range.status, 206, describe(range));
  assert.equal(range.get('content-encoding'), undefined, describe(range));
  assert.equal(range.text, CSS_TEXT.slice(0, 12));
});

test('compress: not for small files, incompressible types, or without the cache', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.static('/cached', ROOT, { cache: true, compress: true });
    app.static('/nocache', ROOT, { compress: true });
  });
  const small = await get(port, '/cached/small.css', { 'Accept-Encoding': 'gzip, br' });
  assertFile(small, SMALL_CSS, CSS);
  assert.equal(small.get('vary'), undefined, describe(small));
  const png = await get(port, '/cached/pic.png', { 'Accept-Encoding': 'gzip, br' });
  assertFile(png, PNG, 'image/png');
  const nocache = await get(port, '/nocache/plain.css', { 'Accept-Encoding': 'gzip, br' });
  assertFile(nocache, CSS_TEXT, CSS);
});

test('pipelined on one connection: files and siblings of every size come back complete and in order', T, async (t) => {
  // On Linux over plain TCP a body over 4 KiB leaves by sendfile behind a head sent with MSG_MORE, a smaller one
  // inside the head's write; a 304 and a HEAD in between have no body. Each answer must end where the next begins.
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  const br = { 'Accept-Encoding': 'br' };
  await conn.write(
    Buffer.concat([
      buildRequest({ path: '/static/app.js', headers: br }),
      buildRequest({ path: '/static/plain.css' }),
      buildRequest({ path: '/static/small.css' }),
      buildRequest({ path: '/static/pic.png', headers: { 'If-None-Match': etagFor(PNG.length) } }),
      buildRequest({ method: 'HEAD', path: '/static/plain.css' }),
      buildRequest({ path: '/static/big.js', headers: br }),
      buildRequest({ path: '/static/pic.png', headers: { Connection: 'close' } }),
    ]),
  );
  const first = await conn.readResponse();
  assert.equal(first.get('content-encoding'), 'br', describe(first));
  assert.ok(first.body.equals(JS_BR), 'app.js.br bytes');
  assertFile(await conn.readResponse(), CSS_TEXT, CSS);
  assertFile(await conn.readResponse(), SMALL_CSS, CSS);
  assert.equal((await conn.readResponse()).status, 304);
  assertFile(await conn.readResponse({ head: true }), CSS_TEXT, CSS, { head: true });
  const big = await conn.readResponse({ timeoutMs: 10_000 });
  assert.ok(big.body.equals(BIG_JS_BR), `big.js.br bytes: ${describe(big, 200)}`);
  assertFile(await conn.readResponse(), PNG, 'image/png');
  assert.equal(await conn.waitForClose(2000), true);
  assert.equal(conn.buf.length, 0, 'bytes after the last pipelined response');
});
