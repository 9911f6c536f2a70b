// app.static(): large files (1–8 MiB) stream completely and exactly, to fast and to stalled
// readers, without holding up other connections; pipelined file answers stay complete and in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, sleep, withApp, within } from '../helpers.js';
import { assertFile, describe, etagFor, get, makeTree, patternBytes } from './static-fixtures.js';

const MIB = 1024 * 1024;
const BIG8 = patternBytes(8 * MIB, 11);
const BIG1 = patternBytes(MIB + 7, 12); // odd size: no block-aligned luck
const BIG3 = patternBytes(3 * MIB, 13);
const tree = makeTree({
  'root/big8.bin': BIG8,
  'root/big1.bin': BIG1,
  'root/big3.bin': BIG3,
  'root/small.txt': 'small file',
});
const ROOT = tree.p('root');
const BIN = 'application/octet-stream';
const LONG = { timeout: 30_000 } as const;

function firstDiff(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

function assertBig(res: Awaited<ReturnType<typeof get>>, want: Buffer, what: string): void {
  assert.equal(res.status, 200, `${what}: ${describe(res, 300)}`);
  assert.equal(res.get('content-length'), String(want.length), what);
  assert.equal(res.body.length, want.length, `${what}: got ${res.body.length} of ${want.length} bytes`);
  const at = firstDiff(res.body, want);
  assert.equal(at, -1, `${what}: bytes differ from offset ${at}`);
}

for (const cached of [false, true]) {
  const label = cached ? 'cache on' : 'cache off';
  test(`large files stream completely and exactly (1 MiB+7, 3 MiB, 8 MiB; ${label})`, LONG, async (t) => {
    const { port } = await withApp(t, (app) =>
      app.static('/static', ROOT, cached ? { cache: { maxFileSize: 16 * MIB, maxSize: 64 * MIB } } : {}),
    );
    const conn = await RawConn.open(port);
    t.after(() => conn.destroy());
    for (const [name, want] of [
      ['big1.bin', BIG1],
      ['big3.bin', BIG3],
      ['big8.bin', BIG8],
      ['big8.bin', BIG8],
    ] as const) {
      await conn.write(buildRequest({ path: `/static/${name}` }));
      const res = await conn.readResponse({ timeoutMs: 15_000 });
      assertBig(res, want, `${name} (${label})`);
      assert.equal(res.get('etag'), etagFor(want.length));
      assert.equal(res.get('content-type'), BIN);
    }
  });
}

test('large file: a range in the middle, a suffix, and HEAD (with the connection reused after)', LONG, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(buildRequest({ path: '/static/big8.bin', headers: { Range: 'bytes=4194300-6291455' } }));
  const mid = await conn.readResponse({ timeoutMs: 10_000 });
  assert.equal(mid.status, 206, describe(mid, 300));
  assert.equal(mid.get('content-range'), `bytes 4194300-6291455/${BIG8.length}`);
  assert.equal(firstDiff(mid.body, BIG8.subarray(4194300, 6291456)), -1, 'middle range bytes');
  await conn.write(buildRequest({ path: '/static/big8.bin', headers: { Range: 'bytes=-100000' } }));
  const tail = await conn.readResponse({ timeoutMs: 10_000 });
  assert.equal(tail.status, 206);
  assert.equal(firstDiff(tail.body, BIG8.subarray(BIG8.length - 100000)), -1, 'suffix range bytes');
  await conn.write(buildRequest({ method: 'HEAD', path: '/static/big8.bin' }));
  const head = await conn.readResponse({ head: true });
  assertFile(head, BIG8, BIN, { head: true });
  await conn.write(buildRequest({ path: '/static/small.txt', headers: { Connection: 'close' } }));
  assertFile(await conn.readResponse(), 'small file', 'text/plain; charset=utf-8');
  assert.equal(await conn.waitForClose(2000), true);
  assert.equal(conn.buf.length, 0, 'bytes after the last response (HEAD sent a body?)');
});

test('a stalled reader does not block the server; the download completes exactly when it resumes', LONG, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/ping', () => 'pong');
    app.static('/static', ROOT);
  });
  const slow = await RawConn.open(port);
  t.after(() => slow.destroy());
  await slow.write(buildRequest({ path: '/static/big8.bin' }));
  await slow.waitFor(() => (slow.receivedBytes > 0 ? true : undefined), 3000, 'first bytes of the download');
  slow.pause();
  await sleep(300); // let the socket buffers fill: the engine now has bytes it cannot write
  const pausedAt = slow.receivedBytes;
  // meanwhile other connections are served promptly: a JS route, a small file, another big file
  const started = Date.now();
  const ping = await get(port, '/ping');
  assert.equal(ping.text, 'pong', describe(ping));
  assertFile(await get(port, '/static/small.txt'), 'small file', 'text/plain; charset=utf-8');
  const other = await RawConn.open(port);
  t.after(() => other.destroy());
  await other.write(buildRequest({ path: '/static/big3.bin', headers: { Connection: 'close' } }));
  assertBig(await other.readResponse({ timeoutMs: 10_000 }), BIG3, 'concurrent big3');
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 3000, `other requests took ${elapsed} ms while a reader was stalled`);
  await sleep(700);
  assert.equal(slow.receivedBytes, pausedAt, 'paused socket received data (pause did not work)');
  assert.ok(slow.receivedBytes < BIG8.length, 'the stalled download was already complete: not a stall');
  slow.resume();
  const res = await slow.readResponse({ timeoutMs: 15_000 });
  assertBig(res, BIG8, 'stalled big8 after resume');
  // the connection is still usable afterwards
  await slow.write(buildRequest({ path: '/static/small.txt', headers: { Connection: 'close' } }));
  assertFile(await slow.readResponse(), 'small file', 'text/plain; charset=utf-8');
});

test('a slowly draining reader (small reads with pauses) still gets every byte', LONG, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(buildRequest({ path: '/static/big1.bin', headers: { Connection: 'close' } }));
  let rounds = 0;
  while (!conn.closed && rounds < 200) {
    conn.pause();
    await sleep(20);
    conn.resume();
    await conn.nextEvent(20);
    rounds++;
  }
  assert.equal(await conn.waitForClose(10_000), true, 'download did not finish');
  const res = await conn.readResponse();
  assertBig(res, BIG1, 'slowly drained big1');
});

test('a client that disconnects mid-download does not disturb the server', LONG, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT));
  for (let i = 0; i < 3; i++) {
    const conn = await RawConn.open(port);
    await conn.write(buildRequest({ path: '/static/big8.bin' }));
    await conn.waitFor(() => (conn.receivedBytes > 100_000 ? true : undefined), 5000, 'some bytes');
    conn.destroy();
  }
  const res = await get(port, '/static/big3.bin');
  assertBig(res, BIG3, 'big3 after aborted downloads');
});

test(
  'pipelined: a large file, a 304, a small file, a range and a HEAD come back complete and in order',
  LONG,
  async (t) => {
    const { port } = await withApp(t, (app) => app.static('/static', ROOT));
    const conn = await RawConn.open(port);
    t.after(() => conn.destroy());
    const smallTag = etagFor('small file'.length);
    await conn.write(
      Buffer.concat([
        buildRequest({ path: '/static/big3.bin' }),
        buildRequest({ path: '/static/small.txt', headers: { 'If-None-Match': smallTag } }),
        buildRequest({ path: '/static/small.txt' }),
        buildRequest({ path: '/static/big8.bin', headers: { Range: 'bytes=100-199' } }),
        buildRequest({ method: 'HEAD', path: '/static/big1.bin' }),
        buildRequest({ path: '/static/big1.bin' }),
        buildRequest({ path: '/static/small.txt', headers: { Connection: 'close' } }),
      ]),
    );
    assertBig(await conn.readResponse({ timeoutMs: 10_000 }), BIG3, 'pipelined #1 big3');
    const nm = await conn.readResponse();
    assert.equal(nm.status, 304, describe(nm));
    assert.equal(nm.get('etag'), smallTag);
    assertFile(await conn.readResponse(), 'small file', 'text/plain; charset=utf-8');
    const part = await conn.readResponse();
    assert.equal(part.status, 206, describe(part));
    assert.ok(part.body.equals(BIG8.subarray(100, 200)), 'pipelined range bytes');
    assertFile(await conn.readResponse({ head: true }), BIG1, BIN, { head: true });
    assertBig(await conn.readResponse({ timeoutMs: 10_000 }), BIG1, 'pipelined big1 after HEAD');
    assertFile(await conn.readResponse(), 'small file', 'text/plain; charset=utf-8');
    assert.equal(await conn.waitForClose(2000), true);
    assert.equal(conn.buf.length, 0, 'bytes after the last pipelined response');
  },
);

test('many connections download the same large file at once, each exactly', LONG, async (t) => {
  const { port } = await withApp(t, (app) => app.static('/static', ROOT, { cache: { maxFileSize: 4 * MIB } }));
  const results = await Promise.all(Array.from({ length: 6 }, () => get(port, '/static/big3.bin')));
  for (const [i, r] of results.entries()) assertBig(r, BIG3, `parallel #${i}`);
  assert.equal(await within(get(port, '/static/small.txt'), 2000), true);
});
