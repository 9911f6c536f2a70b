// Handler return values → responses (via fetch).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { simpleRequest, sleep, T, withApp } from '../helpers.js';

const JSON_TYPE = /^application\/json(; ?charset=utf-8)?$/i;

function routes(app: App): void {
  app.get('/string', () => 'hello');
  app.get('/unicode', () => 'grüße, 世界 🌍');
  app.get('/empty-string', () => '');
  app.get('/object', () => ({ a: 1, nested: { b: [true, null, 'x'] } }));
  app.get('/array', () => [1, 'two', { three: 3 }]);
  app.get('/empty-array', () => []);
  app.get('/uint8', () => new Uint8Array([0, 1, 2, 253, 254, 255]));
  app.get('/buffer', () => Buffer.from('buffer body'));
  app.get('/uint8-view', () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9, 9]);
    return backing.subarray(2, 5); // only [1, 2, 3] must be sent
  });
  app.get('/async-string', async () => {
    await sleep(10);
    return 'later';
  });
  app.get('/async-object', async () => {
    await sleep(10);
    return { later: true };
  });
  app.get(
    '/response',
    () => new Response('<p>hi</p>', { status: 201, headers: { 'content-type': 'text/html', 'x-custom': 'v1' } }),
  );
  app.get('/response-json', () => Response.json({ ok: true }, { status: 202 }));
  app.get('/response-204', () => new Response(null, { status: 204, headers: { 'x-empty': '1' } }));
  app.get('/response-redirect', () => new Response(null, { status: 302, headers: { location: '/string' } }));
  app.get('/response-stream', () => {
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const part of ['streamed ', 'response ', 'body']) {
          controller.enqueue(enc.encode(part));
          await sleep(5);
        }
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/plain' } });
  });
  app.get('/response-multi-header', () => {
    const h = new Headers();
    h.append('x-multi', 'a');
    h.append('x-multi', 'b');
    return new Response('m', { headers: h });
  });
  app.get('/async-response', async () => {
    await sleep(5);
    return new Response('async response', { status: 203 });
  });
}

test('string → 200 text/plain; charset=utf-8', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/string`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.headers.get('content-length'), '5');
  assert.equal(await r.text(), 'hello');
});

test('non-ASCII string: Content-Length counts UTF-8 bytes', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/unicode`);
  const expected = 'grüße, 世界 🌍';
  assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(expected)));
  assert.equal(await r.text(), expected);
});

test('empty string → 200 with an empty body', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/empty-string' });
  assert.equal(res.status, 200);
  assert.equal(res.get('content-length'), '0');
  assert.equal(res.body.length, 0);
});

test('plain object → application/json', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/object`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', JSON_TYPE);
  const text = await r.text();
  assert.deepEqual(JSON.parse(text), { a: 1, nested: { b: [true, null, 'x'] } });
  assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(text)));
});

test('array → application/json', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/array`);
  assert.match(r.headers.get('content-type') ?? '', JSON_TYPE);
  assert.deepEqual(await r.json(), [1, 'two', { three: 3 }]);
  const e = await fetch(`${url}/empty-array`);
  assert.equal(await e.text(), '[]');
});

test('Uint8Array → application/octet-stream with the exact bytes', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/uint8`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('content-length'), '6');
  assert.deepEqual([...new Uint8Array(await r.arrayBuffer())], [0, 1, 2, 253, 254, 255]);
});

test('Uint8Array view: only the viewed range is sent', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/uint8-view`);
  assert.deepEqual([...new Uint8Array(await r.arrayBuffer())], [1, 2, 3]);
});

test('Buffer → application/octet-stream', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/buffer`);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(await r.text(), 'buffer body');
});

test('promises are awaited (string and object)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const a = await fetch(`${url}/async-string`);
  assert.equal(a.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await a.text(), 'later');
  const b = await fetch(`${url}/async-object`);
  assert.match(b.headers.get('content-type') ?? '', JSON_TYPE);
  assert.deepEqual(await b.json(), { later: true });
});

test('Web Response: status, headers and body sent as is', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/response`);
  assert.equal(r.status, 201);
  assert.equal(r.headers.get('content-type'), 'text/html');
  assert.equal(r.headers.get('x-custom'), 'v1');
  assert.equal(await r.text(), '<p>hi</p>');
  const j = await fetch(`${url}/response-json`);
  assert.equal(j.status, 202);
  assert.match(j.headers.get('content-type') ?? '', JSON_TYPE);
  assert.deepEqual(await j.json(), { ok: true });
  const a = await fetch(`${url}/async-response`);
  assert.equal(a.status, 203);
  assert.equal(await a.text(), 'async response');
});

test('Web Response with a null body: 204 without body, 302 with Location', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/response-204' });
  assert.equal(r.status, 204);
  assert.equal(r.get('x-empty'), '1');
  assert.equal(r.get('transfer-encoding'), undefined, '204 must not be chunked');
  assert.equal(r.get('content-length'), undefined, '204 must not carry Content-Length');
  const redirect = await simpleRequest(port, { path: '/response-redirect' });
  assert.equal(redirect.status, 302);
  assert.equal(redirect.get('location'), '/string');
  assert.equal(redirect.body.length, 0);
});

test('Web Response with a ReadableStream body is streamed completely', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/response-stream`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/plain');
  assert.equal(await r.text(), 'streamed response body');
});

test('Web Response with a repeated header keeps both values', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/response-multi-header' });
  const values = r.getAll('x-multi').flatMap((v) => v.split(',').map((s) => s.trim()));
  assert.deepEqual(values, ['a', 'b']);
  assert.equal(r.text, 'm');
});

test('large return values: 5 MB string and 5 MB Uint8Array', T, async (t) => {
  const big = 'abcdefghij'.repeat(500_000);
  const bytes = new Uint8Array(5_000_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 253;
  const { url } = await withApp(t, (app) => {
    app.get('/big-string', () => big);
    app.get('/big-bytes', () => bytes);
  });
  const a = await fetch(`${url}/big-string`);
  assert.equal(a.headers.get('content-length'), '5000000');
  const text = await a.text();
  assert.equal(text.length, big.length);
  assert.ok(text === big, 'big string body differs');
  const b = await fetch(`${url}/big-bytes`);
  const got = new Uint8Array(await b.arrayBuffer());
  assert.equal(got.length, bytes.length);
  assert.ok(Buffer.from(got).equals(Buffer.from(bytes)), 'big byte body differs');
});
