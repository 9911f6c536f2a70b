// res.sendFile(path, { root, dotfiles }): a file answered by the engine from a JS handler, with the
// static path's validators, conditionals, ranges and precompressed siblings; 404 (a thrown
// HttpError) for missing files, escapes from root and dotfiles; headers set on res are kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { ErrorCodes, GaleError, HttpError } from 'gale';
import type { App } from '../helpers.js';
import { buildRequest, RawConn, sleep, T, withApp } from '../helpers.js';
import {
  assertFile,
  describe,
  etagFor,
  get,
  MTIME_HTTP,
  makeTree,
  parseMultipart,
  patternBytes,
} from '../wire/static-fixtures.js';

const BIG = patternBytes(3 * 1024 * 1024 + 5, 51);
const REPORT = patternBytes(2000, 52);
const JS_TEXT = 'const x = 1;\n'.repeat(200);
const tree = makeTree({
  'secret.txt': 'OUTSIDE-ROOT',
  'files/report.pdf': REPORT,
  'files/notes.txt': 'some notes',
  'files/sub/deep.html': '<p>deep</p>',
  'files/.env': 'DOT=ENV',
  'files/sub/.git/config': '[git]',
  'files/.hidden/inside.txt': 'inside a dot directory',
  'files/big.bin': BIG,
  'files/app.js': JS_TEXT,
  'files/app.js.gz': zlib.gzipSync(JS_TEXT),
  'dotroot/.cfg/settings.txt': 'root below a dot directory',
});
const FILES = tree.p('files');
const TXT = 'text/plain; charset=utf-8';
const PDF = 'application/pdf';

/** A route that reports what sendFile threw instead of letting it become the answer. */
function catching(app: App, route: string, send: (res: Parameters<Parameters<App['get']>[1]>[1]) => void): void {
  app.get(route, (_req, res) => {
    try {
      send(res);
    } catch (e) {
      const status = e instanceof HttpError ? e.status : undefined;
      const code = e instanceof GaleError ? e.code : undefined;
      res.status(299).json({ name: (e as Error).name, status, code });
    }
  });
}

function routes(app: App): void {
  app.get('/abs', (_req, res) => res.sendFile(path.join(FILES, 'report.pdf')));
  app.get('/rooted/*rest', (req, res) => res.sendFile(String(req.params.rest), { root: FILES }));
  app.get('/abs-missing', (_req, res) => res.sendFile(path.join(FILES, 'nope.txt')));
  app.get('/abs-dir', (_req, res) => res.sendFile(path.join(FILES, 'sub')));
  app.get('/escape', (_req, res) => res.sendFile('../secret.txt', { root: FILES }));
  app.get('/escape-deep', (_req, res) => res.sendFile('sub/../../secret.txt', { root: FILES }));
  app.get('/inner-dots', (_req, res) => res.sendFile('sub/../notes.txt', { root: FILES }));
  app.get('/slash-rel', (_req, res) => res.sendFile('/notes.txt', { root: FILES }));
  app.get('/dot-abs', (_req, res) => res.sendFile(path.join(FILES, '.env')));
  app.get('/dot-abs-allow', (_req, res) => res.sendFile(path.join(FILES, '.env'), { dotfiles: 'allow' }));
  app.get('/dot-rooted', (_req, res) => res.sendFile('sub/.git/config', { root: FILES }));
  app.get('/dot-rooted-allow', (_req, res) => res.sendFile('sub/.git/config', { root: FILES, dotfiles: 'allow' }));
  app.get('/dot-rooted-ignore', (_req, res) => res.sendFile('.env', { root: FILES, dotfiles: 'ignore' }));
  app.get('/dot-dir-abs', (_req, res) => res.sendFile(path.join(FILES, '.hidden', 'inside.txt')));
  app.get('/dot-dir-rooted', (_req, res) => res.sendFile('.hidden/inside.txt', { root: FILES }));
  app.get('/dot-in-root', (_req, res) => res.sendFile('settings.txt', { root: path.join(tree.p('dotroot'), '.cfg') }));
  app.get('/headers', (_req, res) => {
    res.header('X-Custom', 'kept').header('Cache-Control', 'no-cache');
    res.sendFile(path.join(FILES, 'notes.txt'));
  });
  app.get('/typed', (_req, res) => {
    res.header('Content-Type', 'text/x-custom');
    res.sendFile(path.join(FILES, 'notes.txt'));
  });
  app.get('/async', async (_req, res) => {
    await sleep(20);
    res.sendFile('notes.txt', { root: FILES });
  });
  app.get('/big', (_req, res) => res.sendFile('big.bin', { root: FILES }));
  app.get('/js', (_req, res) => res.sendFile('app.js', { root: FILES }));
  catching(app, '/catch-missing', (res) => res.sendFile(path.join(FILES, 'nope.txt')));
  catching(app, '/catch-escape', (res) => res.sendFile('../secret.txt', { root: FILES }));
  catching(app, '/catch-dot', (res) => res.sendFile(path.join(FILES, '.env')));
  catching(app, '/catch-relative', (res) => res.sendFile('notes.txt'));
  app.get('/after-throw', () => 'after');
}

function assert404(res: Awaited<ReturnType<typeof get>>, what: string): void {
  assert.equal(res.status, 404, `${what}: ${describe(res)}`);
  assert.ok(!res.text.includes('OUTSIDE-ROOT') && !res.text.includes('DOT=ENV'), `${what} leaked: ${describe(res)}`);
  assert.equal(res.get('etag'), undefined, `${what}: ${describe(res)}`);
}

test('an absolute path: the file with Content-Type, ETag, Last-Modified, Accept-Ranges', T, async (t) => {
  const { port } = await withApp(t, routes);
  assertFile(await get(port, '/abs'), REPORT, PDF);
});

test(
  'a path relative to root (nested, with a leading slash, or with inner dot-segments that stay inside)',
  T,
  async (t) => {
    const { port } = await withApp(t, routes);
    assertFile(await get(port, '/rooted/notes.txt'), 'some notes', TXT);
    assertFile(await get(port, '/rooted/sub/deep.html'), '<p>deep</p>', 'text/html; charset=utf-8');
    assertFile(await get(port, '/slash-rel'), 'some notes', TXT);
    assertFile(await get(port, '/inner-dots'), 'some notes', TXT);
  },
);

test('a missing file, a directory, or a path escaping root → 404 answer', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const target of ['/abs-missing', '/abs-dir', '/escape', '/escape-deep', '/rooted/nothing.txt', '/rooted/sub']) {
    assert404(await get(port, target), target);
  }
  // a route param with encoded dot-segments cannot climb out of root either
  // (the param arrives decoded: '../secret.txt')
  for (const target of [
    '/rooted/%2e%2e/secret.txt',
    '/rooted/..%2fsecret.txt',
    '/rooted/sub/%2e%2e/%2e%2e/secret.txt',
  ]) {
    assert404(await get(port, target), target);
  }
});

test('the 404 is a thrown HttpError(404) the handler can catch', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const target of ['/catch-missing', '/catch-escape', '/catch-dot']) {
    const res = await get(port, target);
    assert.equal(res.status, 299, `${target}: ${describe(res)}`);
    assert.deepEqual(JSON.parse(res.text), { name: 'HttpError', status: 404 }, target);
  }
  // and the server carries on
  assert.equal((await get(port, '/after-throw')).text, 'after');
});

test('a relative path without root is a GaleError (GALE_ERR_INVALID_PATH)', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await get(port, '/catch-relative');
  assert.equal(res.status, 299, describe(res));
  assert.deepEqual(JSON.parse(res.text), { name: 'GaleError', code: ErrorCodes.INVALID_PATH });
});

test('sendFile after streaming started is a GaleError (GALE_ERR_HEADERS_SENT)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/twice', (_req, res) => {
      res.write('streaming;');
      let code = 'none';
      try {
        res.sendFile(path.join(FILES, 'notes.txt'));
      } catch (e) {
        code = e instanceof GaleError ? e.code : String(e);
      }
      res.end(code);
    });
  });
  const res = await get(port, '/twice');
  assert.equal(res.status, 200, describe(res));
  assert.equal(res.text, `streaming;${ErrorCodes.HEADERS_SENT}`);
});

test('dotfiles: a dotfile name or a dot-segment below root → 404 unless dotfiles: allow', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const target of ['/dot-abs', '/dot-rooted', '/dot-rooted-ignore', '/dot-dir-rooted', '/rooted/.env']) {
    assert404(await get(port, target), target);
  }
  assertFile(await get(port, '/dot-abs-allow'), 'DOT=ENV', 'application/octet-stream');
  assertFile(await get(port, '/dot-rooted-allow'), '[git]', 'application/octet-stream');
  // only what the caller did not choose is checked: a dot directory in an absolute path or in root is fine
  assertFile(await get(port, '/dot-dir-abs'), 'inside a dot directory', TXT);
  assertFile(await get(port, '/dot-in-root'), 'root below a dot directory', TXT);
});

test('headers set on res before sendFile are sent with the file', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await get(port, '/headers');
  assertFile(res, 'some notes', TXT);
  assert.deepEqual(res.getAll('x-custom'), ['kept'], describe(res));
  assert.deepEqual(res.getAll('cache-control'), ['no-cache'], describe(res));
  const nm = await get(port, '/headers', { 'If-None-Match': etagFor(10) });
  assert.equal(nm.status, 304, describe(nm));
  assert.deepEqual(nm.getAll('x-custom'), ['kept'], describe(nm));
});

test('a Content-Type set on res before sendFile is the one Content-Type sent', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await get(port, '/typed');
  assert.equal(res.status, 200, describe(res));
  assert.deepEqual(res.getAll('content-type'), ['text/x-custom'], describe(res));
  assert.equal(res.text, 'some notes');
});

test('conditionals: If-None-Match / If-Modified-Since → 304; If-Match → 412', T, async (t) => {
  const { port } = await withApp(t, routes);
  const etag = etagFor(REPORT.length);
  const conds: Array<Record<string, string>> = [
    { 'If-None-Match': etag },
    { 'If-None-Match': '*' },
    { 'If-Modified-Since': MTIME_HTTP },
  ];
  for (const h of conds) {
    const res = await get(port, '/abs', h);
    assert.equal(res.status, 304, `${JSON.stringify(h)}: ${describe(res)}`);
    assert.equal(res.get('etag'), etag);
    assert.equal(res.body.length, 0);
  }
  const pre = await get(port, '/abs', { 'If-Match': etag });
  assert.equal(pre.status, 412, describe(pre));
  assertFile(await get(port, '/abs', { 'If-None-Match': '"other"' }), REPORT, PDF);
});

test('ranges: single, suffix, 416, multipart, If-Range', T, async (t) => {
  const { port } = await withApp(t, routes);
  const one = await get(port, '/abs', { Range: 'bytes=100-199' });
  assert.equal(one.status, 206, describe(one));
  assert.equal(one.get('content-range'), `bytes 100-199/${REPORT.length}`);
  assert.ok(one.body.equals(REPORT.subarray(100, 200)));
  const suffix = await get(port, '/abs', { Range: 'bytes=-10' });
  assert.equal(suffix.get('content-range'), `bytes 1990-1999/${REPORT.length}`);
  assert.ok(suffix.body.equals(REPORT.subarray(1990)));
  const bad = await get(port, '/abs', { Range: 'bytes=5000-' });
  assert.equal(bad.status, 416, describe(bad));
  assert.equal(bad.get('content-range'), `bytes */${REPORT.length}`);
  const multi = await get(port, '/abs', { Range: 'bytes=0-4,1000-1004' });
  assert.equal(multi.status, 206, describe(multi));
  const parts = parseMultipart(multi);
  assert.deepEqual(
    parts.map((p) => [p.get('content-type'), p.get('content-range')]),
    [
      [PDF, `bytes 0-4/${REPORT.length}`],
      [PDF, `bytes 1000-1004/${REPORT.length}`],
    ],
  );
  assert.ok(parts[0]?.body.equals(REPORT.subarray(0, 5)) && parts[1]?.body.equals(REPORT.subarray(1000, 1005)));
  const ifr = await get(port, '/abs', { Range: 'bytes=0-9', 'If-Range': MTIME_HTTP });
  assert.equal(ifr.status, 206, describe(ifr));
  assertFile(await get(port, '/abs', { Range: 'bytes=0-9', 'If-Range': etagFor(REPORT.length) }), REPORT, PDF);
});

test('HEAD on a sendFile route: the headers, no body', T, async (t) => {
  const { port } = await withApp(t, routes);
  assertFile(await get(port, '/abs', {}, { method: 'HEAD' }), REPORT, PDF, { head: true });
});

test('precompressed sibling: app.js.gz to a gzip client, identity bytes for a Range', T, async (t) => {
  const { port } = await withApp(t, routes);
  const gz = await get(port, '/js', { 'Accept-Encoding': 'gzip' });
  assert.equal(gz.status, 200, describe(gz, 300));
  assert.equal(gz.get('content-encoding'), 'gzip');
  assert.equal(gz.get('vary'), 'Accept-Encoding');
  assert.equal(zlib.gunzipSync(gz.body).toString(), JS_TEXT);
  const range = await get(port, '/js', { 'Accept-Encoding': 'gzip', Range: 'bytes=0-4' });
  assert.equal(range.status, 206, describe(range));
  assert.equal(range.get('content-encoding'), undefined);
  assert.equal(range.text, 'const');
});

test('from an async handler, and a 3 MiB file streams exactly', { timeout: 20_000 }, async (t) => {
  const { port } = await withApp(t, routes);
  assertFile(await get(port, '/async'), 'some notes', TXT);
  const res = await get(port, '/big');
  assert.equal(res.status, 200, describe(res, 300));
  assert.equal(res.body.length, BIG.length);
  assert.ok(res.body.equals(BIG), 'big file bytes differ');
});

test(
  'sendFile in an async handler (after an await) returns normally: no error after the file is sent',
  T,
  async (t) => {
    let outcome = 'not run';
    const { port } = await withApp(t, (app) => {
      app.get('/later', async (_req, res) => {
        await sleep(10);
        try {
          res.sendFile('notes.txt', { root: FILES });
          outcome = 'returned';
        } catch (e) {
          outcome = `threw ${(e as Error).name}: ${(e as Error).message}`;
        }
      });
      app.get('/outcome', () => outcome);
    });
    assertFile(await get(port, '/later'), 'some notes', TXT);
    const res = await get(port, '/outcome');
    assert.equal(res.text, 'returned');
  },
);

test('pipelined: sendFile answers and JS answers on one connection stay in order', T, async (t) => {
  const { port } = await withApp(t, routes);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(
    Buffer.concat([
      buildRequest({ path: '/abs' }),
      buildRequest({ path: '/after-throw' }),
      buildRequest({ path: '/abs-missing' }),
      buildRequest({ path: '/async' }),
      buildRequest({ path: '/abs', headers: { 'If-None-Match': etagFor(REPORT.length) } }),
      buildRequest({ path: '/big', headers: { Connection: 'close' } }),
    ]),
  );
  assertFile(await conn.readResponse(), REPORT, PDF);
  assert.equal((await conn.readResponse()).text, 'after');
  assert.equal((await conn.readResponse()).status, 404);
  assertFile(await conn.readResponse(), 'some notes', TXT);
  assert.equal((await conn.readResponse()).status, 304);
  const big = await conn.readResponse({ timeoutMs: 10_000 });
  assert.ok(big.body.equals(BIG), 'pipelined big file bytes');
  assert.equal(await conn.waitForClose(2000), true);
  assert.equal(conn.buf.length, 0);
});

test('the file is read when the request is answered: a change on disk shows at once', T, async (t) => {
  tree.write('files/changing.txt', 'before');
  const { port } = await withApp(t, (app) =>
    app.get('/changing', (_req, res) => res.sendFile(path.join(FILES, 'changing.txt'))),
  );
  assertFile(await get(port, '/changing'), 'before', TXT);
  fs.writeFileSync(tree.p('files/changing.txt'), 'after!!');
  const res = await get(port, '/changing');
  assert.equal(res.status, 200, describe(res));
  assert.equal(res.text, 'after!!', describe(res));
});
