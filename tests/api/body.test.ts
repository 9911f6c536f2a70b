// Body readers: text(), json(), arrayBuffer(), stream(), one after another; invalid JSON; body limit through the API.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { buildRequest, RawConn, simpleRequest, sleep, T, withApp } from '../helpers.js';

function sha(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

function routes(app: App): void {
  app.post('/text', async (req) => {
    const s = await req.text();
    return { type: typeof s, value: s };
  });
  app.post('/json', async (req) => ({ received: await req.json() }));
  app.post('/ab', async (req) => {
    const ab = await req.arrayBuffer();
    const bytes = new Uint8Array(ab);
    return {
      isArrayBuffer: ab instanceof ArrayBuffer,
      length: bytes.length,
      sha: createHash('sha256').update(bytes).digest('hex'),
    };
  });
  app.post('/stream', async (req) => {
    const hash = createHash('sha256');
    let length = 0;
    let chunks = 0;
    for await (const chunk of req.stream()) {
      const b = chunk as Buffer;
      hash.update(b);
      length += b.length;
      chunks++;
    }
    return { length, chunks, sha: hash.digest('hex') };
  });
  app.post('/text-then-bytes', async (req) => {
    // text() takes a body that came whole as a string; the readers after it still see the bytes received.
    const text = await req.text();
    const again = await req.text();
    const bytes = new Uint8Array(await req.arrayBuffer());
    const streamed: Buffer[] = [];
    for await (const c of req.stream()) streamed.push(c as Buffer);
    return {
      text,
      again: again === text,
      hex: Buffer.from(bytes).toString('hex'),
      streamed: sha(Buffer.concat(streamed)),
    };
  });
  app.post('/json-then-text', async (req) => ({ json: await req.json(), text: await req.text() }));
  app.post('/stream-events', (req) => {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      const s = req.stream();
      s.on('data', (c: Buffer) => parts.push(Buffer.from(c)));
      s.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      s.on('error', reject);
    });
  });
}

test('req.text() returns the UTF-8 decoded body', T, async (t) => {
  const { url } = await withApp(t, routes);
  const body = 'héllo wörld — ✓ 🚀';
  const r = await fetch(`${url}/text`, { method: 'POST', body });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { type: 'string', value: body });
});

test('req.text() of a multi-byte character split across chunks', T, async (t) => {
  const { port } = await withApp(t, routes);
  // "é" = C3 A9: the two bytes arrive in different chunks
  const res = await simpleRequest(port, {
    method: 'POST',
    path: '/text',
    headers: { 'Transfer-Encoding': 'chunked' },
    body: Buffer.concat([Buffer.from('3\r\ncaf\r\n1\r\n\xc3\r\n1\r\n\xa9\r\n0\r\n\r\n', 'latin1')]),
  });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.text), { type: 'string', value: 'café' });
});

test('req.json() parses the body', T, async (t) => {
  const { url } = await withApp(t, routes);
  const value = { a: 1, b: [true, null, 'x'], c: { d: 'ü' } };
  const r = await fetch(`${url}/json`, {
    method: 'POST',
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { received: value });
});

test('req.json() with invalid JSON → 400, and the server keeps serving', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/json`, {
    method: 'POST',
    body: '{"a": 1,',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(r.status, 400);
  await r.arrayBuffer();
  const ok = await fetch(`${url}/json`, { method: 'POST', body: '[1]' });
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { received: [1] });
});

test('req.arrayBuffer() returns the exact bytes (300 KiB binary)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const body = new Uint8Array(300 * 1024);
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + 7) & 0xff;
  const r = await fetch(`${url}/ab`, { method: 'POST', body });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { isArrayBuffer: true, length: body.length, sha: sha(body) });
});

test('req.arrayBuffer() of an empty body', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/ab`, { method: 'POST', body: '' });
  assert.deepEqual(await r.json(), { isArrayBuffer: true, length: 0, sha: sha(new Uint8Array(0)) });
});

test('req.stream() yields the whole body (Content-Length, 512 KiB)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const body = new Uint8Array(512 * 1024);
  for (let i = 0; i < body.length; i++) body[i] = (i ^ (i >> 9)) & 0xff;
  const r = await fetch(`${url}/stream`, { method: 'POST', body });
  assert.equal(r.status, 200);
  const out = (await r.json()) as { length: number; chunks: number; sha: string };
  assert.equal(out.length, body.length);
  assert.equal(out.sha, sha(body));
  assert.ok(out.chunks >= 1);
});

test(
  'a streamed body is received to its last byte and no further: the request after it on the connection is answered',
  T,
  async (t) => {
    // The handler starts on the first piece, so the rest is received straight into the request's buffer, in receives
    // bounded by what is left of the body; the next request's bytes arrive in the same write as the body's end.
    const { port } = await withApp(t, routes, { bodyLimit: 8 << 20 });
    const body = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31 + (i >> 11)) & 0xff;
    const first = buildRequest({ method: 'POST', path: '/stream', body });
    const cut = first.length - body.length + 1000;
    const conn = await RawConn.open(port);
    t.after(() => conn.destroy());
    await conn.write(first.subarray(0, cut));
    await sleep(30);
    await conn.write(first.subarray(cut, cut + 1024 * 1024));
    await sleep(30);
    await conn.write(
      Buffer.concat([first.subarray(cut + 1024 * 1024), buildRequest({ method: 'POST', path: '/text', body: 'next' })]),
    );
    const a = await conn.readResponse({ timeoutMs: 5000 });
    const b = await conn.readResponse({ timeoutMs: 5000 });
    const out = JSON.parse(a.body.toString()) as { length: number; chunks: number; sha: string };
    assert.equal(out.length, body.length);
    assert.equal(out.sha, sha(body));
    assert.ok(out.chunks > 1, `${out.chunks} chunk(s)`);
    assert.deepEqual(JSON.parse(b.body.toString()), { type: 'string', value: 'next' });
  },
);

test('req.stream() with a chunked request body from a streaming client', T, async (t) => {
  const { url } = await withApp(t, routes);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < 20; i++) parts.push(new Uint8Array(5000).fill(i));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = parts.shift();
      if (next) {
        controller.enqueue(next);
        await new Promise((r) => setTimeout(r, 2));
      } else controller.close();
    },
  });
  const all = new Uint8Array(100_000);
  for (let i = 0; i < 20; i++) all.fill(i, i * 5000, (i + 1) * 5000);
  const r = await fetch(`${url}/stream`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
  assert.equal(r.status, 200);
  const out = (await r.json()) as { length: number; sha: string };
  assert.equal(out.length, 100_000);
  assert.equal(out.sha, sha(all));
});

test("req.stream() 'data'/'end' events", T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/stream-events`, { method: 'POST', body: 'event based body' });
  assert.equal(await r.text(), 'event based body');
});

test('bodyLimit applies to text(): 413 for a body over the limit, fine at the limit', T, async (t) => {
  const { url } = await withApp(t, routes, { bodyLimit: 1000 });
  const ok = await fetch(`${url}/text`, { method: 'POST', body: 'a'.repeat(1000) });
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as { value: string }).value.length, 1000);
  let status = 0;
  try {
    const big = await fetch(`${url}/text`, { method: 'POST', body: 'a'.repeat(5000) });
    status = big.status;
    await big.arrayBuffer().catch(() => undefined);
  } catch (e) {
    assert.fail(`fetch failed instead of receiving 413: ${String(e)}`);
  }
  assert.equal(status, 413);
  const after = await fetch(`${url}/text`, { method: 'POST', body: 'still fine' });
  assert.equal(after.status, 200);
});

test('text() then text(), arrayBuffer() and stream(): every reader sees the bytes received', T, async (t) => {
  const { url } = await withApp(t, routes);
  const cases: [string, Uint8Array<ArrayBuffer>][] = [
    ['UTF-8 with a BOM', new Uint8Array(Buffer.from('\ufeffhéllo ✓', 'utf8'))],
    ['invalid UTF-8', Uint8Array.from([0x61, 0xff, 0xfe, 0x62, 0xc3])],
    ['empty', new Uint8Array(0)],
  ];
  for (const [name, body] of cases) {
    const r = await fetch(`${url}/text-then-bytes`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(r.status, 200, name);
    const out = (await r.json()) as { text: string; again: boolean; hex: string; streamed: string };
    assert.equal(
      out.text,
      new TextDecoder().decode(body),
      `${name}: decoded as WHATWG's UTF-8 decoder does (BOM dropped)`,
    );
    assert.ok(out.again, `${name}: text() twice gives the same`);
    assert.equal(out.hex, Buffer.from(body).toString('hex'), `${name}: arrayBuffer() after text() is the bytes sent`);
    assert.equal(out.streamed, sha(body), `${name}: stream() after text() is the bytes sent`);
  }
});

test('json() then text() of the same body; an empty or malformed JSON body still answers 400', T, async (t) => {
  const { url } = await withApp(t, routes);
  const doc = '{"a":[1,"é"]}';
  const r = await fetch(`${url}/json-then-text`, {
    method: 'POST',
    body: doc,
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual(await r.json(), { json: { a: [1, 'é'] }, text: doc });
  for (const body of ['', '{"a":']) {
    const bad = await fetch(`${url}/json`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400, JSON.stringify(body));
  }
});
