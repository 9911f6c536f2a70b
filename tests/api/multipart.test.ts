// req.multipart() over real sockets: fields and files in order (async iterator and callback),
// files in memory or on disk, every limit (413 naming it), wrong type (415), malformed bodies (400),
// clean-up of written files, and a large upload streamed to disk.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MultipartOptions } from 'gale';
import type { App } from '../helpers.js';
import { chunked, simpleRequest, T, withApp } from '../helpers.js';

const BOUNDARY = 'gale-test-boundary';
const MP_CT = `multipart/form-data; boundary=${BOUNDARY}`;

type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer | string };

/** Builds a multipart/form-data body by hand (so tests control every byte). */
function multipartBody(parts: Part[], { close = true } = {}): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) {
      out.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    } else {
      out.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\n` +
            `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data),
        Buffer.from('\r\n'),
      );
    }
  }
  if (close) out.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(out);
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gale-mp-'));
}

/** One route per option set; parts come back as JSON (file bytes as sha + text). */
function routes(options: MultipartOptions = {}) {
  return (app: App): void => {
    app.onError((err, _req, res) => {
      const e = err as { status?: number; code?: string; message: string };
      res.status(e.status ?? 500).json({ code: e.code, message: e.message });
    });
    app.post('/parts', async (req) => {
      const out: unknown[] = [];
      for await (const part of req.multipart(options)) {
        if (part.kind === 'field') out.push(part);
        else {
          const bytes = part.buffer ?? readFileSync(part.path as string);
          out.push({
            kind: part.kind,
            name: part.name,
            filename: part.filename,
            mimeType: part.mimeType,
            size: part.size,
            sha: sha(bytes),
            text: bytes.length < 100 ? bytes.toString('utf8') : undefined,
            inDest: part.path === undefined ? null : part.path.startsWith(options.dest as string),
            inMemory: part.buffer !== undefined,
          });
        }
      }
      return out;
    });
    app.post('/callback', async (req) => {
      const names: string[] = [];
      await req.multipart(options, async (part) => {
        await new Promise((r) => setTimeout(r, 1));
        names.push(`${part.kind}:${part.name}`);
      });
      return names;
    });
    app.post('/first', async (req) => {
      for await (const part of req.multipart(options)) return { first: part.name };
      return { first: null };
    });
  };
}

async function send(url: string, path: string, body: Buffer | FormData, ct: string | null = MP_CT) {
  const headers: Record<string, string> = {};
  if (ct !== null && !(body instanceof FormData)) headers['content-type'] = ct;
  const r = await fetch(`${url}${path}`, { method: 'POST', body: body as unknown as BodyInit, headers });
  return { status: r.status, body: (await r.json()) as unknown };
}

test('fields and in-memory files arrive in order, with names, file names and types', T, async (t) => {
  const { url } = await withApp(t, routes());
  const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const body = multipartBody([
    { name: 'title', value: 'Hello wörld' },
    { name: 'doc', filename: 'naïve résumé.txt', type: 'text/plain', data: 'file one' },
    { name: 'title', value: 'second' },
    { name: 'bin', filename: 'bytes.bin', data: binary },
  ]);
  const r = await send(url, '/parts', body);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, [
    { kind: 'field', name: 'title', value: 'Hello wörld', mimeType: 'text/plain', encoding: '7bit' },
    {
      kind: 'file',
      name: 'doc',
      filename: 'naïve résumé.txt',
      mimeType: 'text/plain',
      size: 8,
      sha: sha(Buffer.from('file one')),
      text: 'file one',
      inDest: null,
      inMemory: true,
    },
    { kind: 'field', name: 'title', value: 'second', mimeType: 'text/plain', encoding: '7bit' },
    {
      kind: 'file',
      name: 'bin',
      filename: 'bytes.bin',
      mimeType: 'application/octet-stream',
      size: 256,
      sha: sha(binary),
      inDest: null,
      inMemory: true,
    },
  ]);
});

test('a FormData body from fetch; the callback form handles parts one at a time', T, async (t) => {
  const { url } = await withApp(t, routes());
  const fd = new FormData();
  fd.append('a', '1');
  fd.append('upload', new Blob(['content'], { type: 'image/png' }), 'pic.png');
  fd.append('b', '2');
  const r = await send(url, '/callback', fd);
  assert.deepEqual(r, { status: 200, body: ['field:a', 'file:upload', 'field:b'] });
});

test('dest: files are written to the directory (created if missing) under random names', T, async (t) => {
  const root = tempDir();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dest = join(root, 'uploads', 'nested');
  const { url } = await withApp(t, routes({ dest }));
  const big = Buffer.alloc(200_000, 7);
  const r = await send(
    url,
    '/parts',
    multipartBody([
      { name: 'f1', filename: '../../etc/passwd', data: 'not really' },
      { name: 'f2', filename: 'big.bin', data: big },
    ]),
  );
  assert.equal(r.status, 200);
  const parts = r.body as Array<Record<string, unknown>>;
  assert.equal(parts.length, 2);
  // busboy strips directory parts from the file name; the file on disk never uses it
  assert.equal(parts[0]?.filename, 'passwd');
  assert.equal(parts[0]?.inDest, true);
  assert.equal(parts[0]?.text, 'not really');
  assert.equal(parts[1]?.size, 200_000);
  assert.equal(parts[1]?.sha, sha(big));
  assert.equal(parts[1]?.inMemory, false);
  const files = readdirSync(dest);
  assert.equal(files.length, 2);
  for (const f of files) assert.match(f, /^[0-9a-f-]{36}$/);
});

test('limits.fileSize → 413 naming it; with dest the partial files are removed', T, async (t) => {
  const dest = tempDir();
  t.after(() => rmSync(dest, { recursive: true, force: true }));
  const { url } = await withApp(t, routes({ dest, limits: { fileSize: 1000 } }));
  const r = await send(
    url,
    '/parts',
    multipartBody([
      { name: 'ok', filename: 'small.txt', data: 'x'.repeat(1000) },
      { name: 'big', filename: 'big.txt', data: 'y'.repeat(1001) },
    ]),
  );
  assert.deepEqual(r, {
    status: 413,
    body: {
      code: 'GALE_ERR_BODY_TOO_LARGE',
      message: 'File "big.txt" is larger than 1000 bytes (the limits.fileSize option)',
    },
  });
  assert.deepEqual(readdirSync(dest), []);
});

test('count and size limits: files, fields, parts, fieldSize, fieldNameSize, total → 413 naming each', T, async (t) => {
  const cases: Array<[MultipartOptions['limits'], Part[], number, string, string]> = [
    [
      { files: 1 },
      [
        { name: 'a', filename: 'a', data: 'a' },
        { name: 'b', filename: 'b', data: 'b' },
      ],
      413,
      'GALE_ERR_FORM_LIMIT',
      'Multipart body has more files than 1 (the limits.files option)',
    ],
    [
      { fields: 2 },
      [
        { name: 'a', value: '1' },
        { name: 'b', value: '2' },
        { name: 'c', value: '3' },
      ],
      413,
      'GALE_ERR_FORM_LIMIT',
      'Multipart body has more fields than 2 (the limits.fields option)',
    ],
    [
      { parts: 2 },
      [
        { name: 'a', value: '1' },
        { name: 'f', filename: 'f', data: 'f' },
        { name: 'c', value: '3' },
      ],
      413,
      'GALE_ERR_FORM_LIMIT',
      'Multipart body has more parts than 2 (the limits.parts option)',
    ],
    [
      { fieldSize: 5 },
      [{ name: 'long', value: '123456' }],
      413,
      'GALE_ERR_BODY_TOO_LARGE',
      'Field "long" is larger than 5 bytes (the limits.fieldSize option)',
    ],
    [
      { fieldNameSize: 4 },
      [{ name: 'abcdefgh', value: '1' }],
      413,
      'GALE_ERR_BODY_TOO_LARGE',
      'Multipart body has a field name longer than 4 bytes (the limits.fieldNameSize option)',
    ],
    [
      { total: 100 },
      [{ name: 'f', filename: 'f', data: 'z'.repeat(200) }],
      413,
      'GALE_ERR_BODY_TOO_LARGE',
      'Multipart body is larger than 100 bytes (the limits.total option)',
    ],
  ];
  for (const [limits, parts, status, code, message] of cases) {
    const { url, close } = await withApp(t, routes({ limits }));
    assert.deepEqual(await send(url, '/parts', multipartBody(parts)), { status, body: { code, message } }, message);
    await close();
  }
});

test('limits.total is also enforced on a chunked body (no Content-Length)', T, async (t) => {
  const { port } = await withApp(t, routes({ limits: { total: 100 } }));
  const body = multipartBody([{ name: 'f', filename: 'f', data: 'z'.repeat(200) }]);
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/parts',
    headers: { 'Content-Type': MP_CT, 'Transfer-Encoding': 'chunked' },
    body: chunked([body.subarray(0, 60), body.subarray(60, 120), body.subarray(120)]),
  });
  assert.equal(res.status, 413);
  assert.deepEqual(JSON.parse(res.text), {
    code: 'GALE_ERR_BODY_TOO_LARGE',
    message: 'Multipart body is larger than 100 bytes (the limits.total option)',
  });
});

test('another Content-Type → 415; no boundary or a truncated body → 400', T, async (t) => {
  const { url } = await withApp(t, routes());
  assert.deepEqual(await send(url, '/parts', Buffer.from('a=1'), 'application/x-www-form-urlencoded'), {
    status: 415,
    body: {
      code: 'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
      message:
        'req.multipart() reads multipart/form-data bodies; this request\'s Content-Type is "application/x-www-form-urlencoded"',
    },
  });
  assert.deepEqual(await send(url, '/parts', Buffer.from('x'), null), {
    status: 415,
    body: {
      code: 'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
      message: "req.multipart() reads multipart/form-data bodies; this request's Content-Type is missing",
    },
  });
  assert.deepEqual(await send(url, '/parts', multipartBody([{ name: 'a', value: '1' }]), 'multipart/form-data'), {
    status: 400,
    body: {
      code: 'GALE_ERR_INVALID_MULTIPART',
      message: 'Multipart body cannot be parsed: Multipart: Boundary not found',
    },
  });
  const truncated = multipartBody([{ name: 'a', value: '1' }], { close: false });
  assert.deepEqual(await send(url, '/parts', truncated), {
    status: 400,
    body: { code: 'GALE_ERR_INVALID_MULTIPART', message: 'Multipart body is malformed: Unexpected end of form' },
  });
});

test('stopping early keeps the files handed out and removes the rest', T, async (t) => {
  const dest = tempDir();
  t.after(() => rmSync(dest, { recursive: true, force: true }));
  const { url } = await withApp(t, routes({ dest }));
  const r = await send(
    url,
    '/first',
    multipartBody([
      { name: 'one', filename: 'one.txt', data: '1' },
      { name: 'two', filename: 'two.txt', data: '2' },
      { name: 'three', filename: 'three.txt', data: '3' },
    ]),
  );
  assert.deepEqual(r, { status: 200, body: { first: 'one' } });
  const left = readdirSync(dest);
  assert.equal(left.length, 1);
  assert.equal(readFileSync(join(dest, left[0] as string), 'utf8'), '1');
});

test('a 3 MiB upload sent in small chunks streams to disk intact', T, async (t) => {
  const dest = tempDir();
  t.after(() => rmSync(dest, { recursive: true, force: true }));
  const { port } = await withApp(t, routes({ dest }), { bodyLimit: 8 * 1024 * 1024 });
  const data = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < data.length; i++) data[i] = (i * 131 + (i >> 9)) & 0xff;
  const body = multipartBody([
    { name: 'before', value: 'x' },
    { name: 'file', filename: 'big.bin', data },
  ]);
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += 64 * 1024) pieces.push(body.subarray(i, i + 64 * 1024));
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/parts',
    headers: { 'Content-Type': MP_CT, 'Transfer-Encoding': 'chunked' },
    body: chunked(pieces),
  });
  assert.equal(res.status, 200, res.text);
  const parts = JSON.parse(res.text) as Array<Record<string, unknown>>;
  assert.equal(parts[1]?.size, data.length);
  assert.equal(parts[1]?.sha, sha(data));
});

test('requireLength applies to multipart', T, async (t) => {
  const { port } = await withApp(t, routes(), { requireLength: true });
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/parts',
    headers: { 'Content-Type': MP_CT, 'Transfer-Encoding': 'chunked' },
    body: chunked([multipartBody([{ name: 'a', value: '1' }])]),
  });
  assert.equal(res.status, 411);
  assert.deepEqual(JSON.parse(res.text), {
    code: 'GALE_ERR_LENGTH_REQUIRED',
    message: 'This endpoint needs a Content-Length header; send the body with a known length',
  });
});
