// HTTP/2 with other clients than Node's: curl (nghttp2) with `--http2` over TLS (ALPN) and
// `--http2-prior-knowledge` in cleartext, uploads and downloads; and a short h2load run (Debian nghttp2-client) in
// both modes, every response counted as a success with a 2xx status.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { App } from '../helpers.js';
import { ensureCommand } from '../system-tools.js';
import { fileTempDir } from '../temp.js';
import { h2App, testPki } from './h2.js';

const run = promisify(execFile);
const T = { timeout: 60_000 };
const dir = fileTempDir('gale-h2-tools-');
const upload = join(dir, 'upload.bin');
const payload = Buffer.alloc(2 * 1024 * 1024 + 3);
for (let i = 0; i < payload.length; i++) payload[i] = (i * 13) & 0xff;
writeFileSync(upload, payload);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function routes(app: App): void {
  app.get('/hello', (req) => `Hello over ${req.httpVersion}`);
  app.post('/sha', async (req) => sha(Buffer.from(await req.arrayBuffer())));
  app.get('/gen', (_req, res) => {
    res.type('application/octet-stream');
    res.end(payload);
  });
}

for (const secure of [true, false]) {
  const kind = secure ? 'curl --http2 over TLS' : 'curl --http2-prior-knowledge';
  test(`${kind}: requests, an upload and a download over HTTP/2`, T, async (t) => {
    const curl = ensureCommand('curl', 'curl');
    const s = await h2App(t, routes, { secure, gale: { bodyLimit: 8 * 1024 * 1024 } });
    const { pki } = testPki();
    const base = secure ? `https://a.test:${s.port}` : `http://127.0.0.1:${s.port}`;
    const common = secure
      ? ['--http2', '--cacert', pki.caPath, '--resolve', `a.test:${s.port}:127.0.0.1`]
      : ['--http2-prior-knowledge'];
    const get = await run(curl, [...common, '-sS', '-w', '\n%{http_version} %{http_code}', `${base}/hello`]);
    assert.equal(get.stdout, 'Hello over 2.0\n2 200');
    const post = await run(curl, [
      ...common,
      '-sS',
      '--data-binary',
      `@${upload}`,
      '-H',
      'content-type: application/octet-stream',
      '-w',
      '\n%{http_version}',
      `${base}/sha`,
    ]);
    assert.equal(post.stdout, `${sha(payload)}\n2`);
    const out = join(dir, `download-${secure}.bin`);
    const down = await run(curl, [
      ...common,
      '-sS',
      '-o',
      out,
      '-w',
      '%{http_version} %{size_download}',
      `${base}/gen`,
    ]);
    assert.equal(down.stdout, `2 ${payload.length}`);
    assert.equal(sha(readFileSync(out)), sha(payload));
    if (secure) {
      // Several URLs in one curl, in parallel: multiplexed on one connection.
      const many = await run(curl, [
        ...common,
        '-sS',
        '--parallel',
        '-w',
        '%{num_connects}\n',
        ...Array.from({ length: 6 }, () => ['-o', '/dev/null', `${base}/hello`]).flat(),
      ]);
      const connects = many.stdout.trim().split('\n').map(Number);
      assert.equal(connects.length, 6);
      assert.equal(
        connects.reduce((a, b) => a + b, 0),
        1,
        `six requests, one connection: ${many.stdout}`,
      );
    } else {
      // curl 7.88 fails a second transfer on a prior-knowledge connection (against node:http2 as well), so the
      // multiplexed requests come from nghttp (nghttp2-client): three streams on one connection.
      const nghttp = ensureCommand('nghttp', 'nghttp2-client');
      const { stdout } = await run(nghttp, ['-n', '--stat', `${base}/hello`, `${base}/hello?b`, `${base}/hello?c`]);
      const rows = stdout.split('\n').filter((l) => /^\s*\d+\s+\+\S+\s+\+\S+\s+\S+\s+200\s+14\s+\/hello/.test(l));
      assert.equal(rows.length, 3, stdout);
    }
  });
}

for (const secure of [false, true]) {
  test(`h2load ${secure ? 'over TLS' : 'h2c'}: a short load, every response a 2xx`, T, async (t) => {
    const h2load = ensureCommand('h2load', 'nghttp2-client');
    const s = await h2App(t, routes, { secure });
    const url = `${secure ? 'https' : 'http'}://127.0.0.1:${s.port}/hello`;
    const { stdout } = await run(h2load, ['-n', '4000', '-c', '4', '-m', '16', url], { timeout: 30_000 });
    assert.match(stdout, /requests: 4000 total, 4000 started, 4000 done, 4000 succeeded, 0 failed, 0 errored/);
    assert.match(stdout, /status codes: 4000 2xx, 0 3xx, 0 4xx, 0 5xx/);
    if (secure) assert.match(stdout, /Application protocol: h2/);
  });
}
