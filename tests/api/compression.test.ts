// Dynamic compression in the engine (the `compression` option), over raw sockets: brotli or gzip by
// Accept-Encoding, Vary, weak ETags, and every case it must leave alone (small bodies, HEAD, no Accept-Encoding,
// the app's own Content-Encoding, no-transform, images, 304/206, streams); fetch() inflates the same bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';

const big = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}` })) };
const bigText = JSON.stringify(big);

test('compression: brotli or gzip by Accept-Encoding, with Vary, only where it may', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/big', () => big);
      app.get('/small', () => ({ ok: true }));
      app.get('/etag', (_req, res) => res.set('ETag', '"v1"').json(big));
      app.get('/encoded', (_req, res) => res.set('Content-Encoding', 'identity').json(big));
      app.get('/no-transform', (_req, res) => res.set('Cache-Control', 'no-transform').json(big));
      app.get('/png', (_req, res) => res.type('png').send(Buffer.from(bigText)));
      app.get('/stream', (_req, res) => {
        res.type('json');
        res.write(bigText.slice(0, 100));
        res.end(bigText.slice(100));
      });
      app.get('/created', (_req, res) => res.status(201).json(big));
      app.get('/partial', (_req, res) => res.status(206).json(big));
    },
    { compression: true },
  );
  const conn = await RawConn.open(port);
  const get = async (path: string, ae?: string, method = 'GET') => {
    await conn.write(buildRequest({ method, path, headers: ae === undefined ? [] : [['Accept-Encoding', ae]] }));
    return conn.readResponse({ head: method === 'HEAD' });
  };
  const br = await get('/big', 'gzip, deflate, br');
  assert.equal(br.get('content-encoding'), 'br');
  assert.equal(br.get('vary'), 'Accept-Encoding');
  assert.equal(Number(br.get('content-length')), br.body.length);
  assert.ok(br.body.length < bigText.length / 3, `brotli ${br.body.length} of ${bigText.length}`);
  assert.equal(brotliDecompressSync(br.body).toString(), bigText);
  const gz = await get('/big', 'gzip');
  assert.equal(gz.get('content-encoding'), 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), bigText);
  const created = await get('/created', 'br');
  assert.equal(created.status, 201);
  assert.equal(created.get('content-encoding'), 'br');
  const etag = await get('/etag', 'br');
  assert.equal(etag.get('etag'), 'W/"v1"', 'a strong ETag names other bytes once compressed');
  for (const [path, ae, why] of [
    ['/small', 'br', 'under the threshold'],
    ['/big', undefined, 'no Accept-Encoding'],
    ['/big', 'identity', 'identity only'],
    ['/big', 'br;q=0, gzip;q=0', 'both refused'],
    ['/encoded', 'br', "the app's own Content-Encoding"],
    ['/no-transform', 'br', 'Cache-Control: no-transform'],
    ['/png', 'br', 'not a compressible type'],
    ['/stream', 'br', 'a streamed body'],
    ['/partial', 'br', 'a 206'],
  ] as const) {
    const r = await get(path, ae);
    assert.notEqual(r.get('content-encoding'), 'br', `${path}: ${why}`);
    assert.notEqual(r.get('content-encoding'), 'gzip', `${path}: ${why}`);
  }
  const head = await get('/big', 'br', 'HEAD');
  assert.equal(head.get('content-encoding'), undefined);
  assert.equal(head.get('content-length'), String(Buffer.byteLength(bigText)));
  conn.socket.destroy();
  // A real client asks for compression and inflates it.
  const r = await fetch(`http://127.0.0.1:${port}/big`);
  assert.deepEqual(await r.json(), big);
});

test('compression is off by default, and options pick the codings and threshold', T, async (t) => {
  const off = await withApp(t, (app) => app.get('/big', () => big));
  const a = await fetch(`${off.url}/big`, { headers: { 'accept-encoding': 'br' } });
  assert.equal(a.headers.get('content-encoding'), null);
  const gzipOnly = await withApp(t, (app) => app.get('/big', () => big), {
    compression: { brotli: false, threshold: 10 },
  });
  const conn = await RawConn.open(gzipOnly.port);
  await conn.write(buildRequest({ path: '/big', headers: [['Accept-Encoding', 'br, gzip']] }));
  assert.equal((await conn.readResponse()).get('content-encoding'), 'gzip');
  conn.socket.destroy();
});
