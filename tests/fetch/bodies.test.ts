// Every body kind both ways through a fetch handler: Response bodies (null, string, bytes, ArrayBuffer, DataView,
// Blob small and large, FormData, URLSearchParams, ReadableStream, async iterables, undici's own Response,
// Response.json/redirect) and Request bodies (text, json, arrayBuffer, bytes, blob, formData urlencoded and
// multipart, the stream, clone, new Request(request), chunked uploads, large bodies). Real sockets.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { simpleRequest, T } from '../helpers.js';
import { withServe } from './util.js';

/** undici's own Response class (serve() puts Gale's cheap one in its place as the global). */
function undiciResponse(): typeof Response {
  const parent = Object.getPrototypeOf(Response) as typeof Response;
  return parent === Function.prototype ? Response : parent;
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const big = (n: number): Uint8Array<ArrayBuffer> => {
  const b = new Uint8Array(n);
  const view = new DataView(b.buffer);
  for (let i = 0; i < n; i += 4) view.setUint32(i, i, true);
  return b;
};

const LARGE = big(3 * 1024 * 1024);

async function* chunks(): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode('async ');
  yield new TextEncoder().encode('iterable');
}

const responses: Record<string, () => Response> = {
  null: () => new Response(null, { status: 201, headers: { 'x-k': 'null' } }),
  empty: () => new Response(''),
  string: () => new Response('héllo'),
  bytes: () => new Response(new Uint8Array([1, 2, 3, 250])),
  buffer: () => new Response(Buffer.from('buf')),
  arraybuffer: () => new Response(new Uint8Array([9, 8, 7]).buffer),
  dataview: () => new Response(new DataView(new Uint8Array([5, 6, 7, 8]).buffer, 1, 2)),
  blob: () => new Response(new Blob(['<b>blob</b>'], { type: 'text/html' })),
  'blob-large': () => new Response(new Blob([LARGE], { type: 'application/x-large' })),
  formdata: () => {
    const f = new FormData();
    f.append('field', 'value');
    f.append('file', new Blob(['file body'], { type: 'text/plain' }), 'a.txt');
    return new Response(f);
  },
  params: () => new Response(new URLSearchParams({ a: '1', b: 'two words' })),
  stream: () =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(new TextEncoder().encode('one,'));
          await new Promise((r) => setTimeout(r, 5));
          c.enqueue(new TextEncoder().encode('two'));
          c.close();
        },
      }),
      { headers: { 'content-type': 'text/csv' } },
    ),
  iterable: () => new Response(chunks() as unknown as BodyInit),
  undici: () => new (undiciResponse())('from undici', { status: 202, headers: { 'x-from': 'undici' } }),
  'undici-stream': () =>
    new (undiciResponse())(
      new ReadableStream({
        async pull(c) {
          await new Promise((r) => setTimeout(r, 2));
          c.enqueue(new Uint8Array([65, 66]));
          c.close();
        },
      }),
    ),
  json: () => Response.json({ ok: [1, 'two'] }, { status: 207, headers: { 'x-j': '1' } }),
  redirect: () => Response.redirect('https://example.com/next', 308),
  'typed-text': () => new Response('{"x":1}', { headers: [['Content-Type', 'application/json']] }),
  'no-content': () => new Response(null, { status: 204 }),
  large: () => new Response(LARGE),
};

test('Response bodies of every kind: status, type, length and bytes on the wire', { timeout: 20_000 }, async (t) => {
  const { port, url } = await withServe(t, {
    fetch: (req) => (responses[new URL(req.url).pathname.slice(1)] as () => Response)(),
  });
  const get = (path: string) => simpleRequest(port, { path: `/${path}` });

  const nul = await get('null');
  assert.equal(nul.status, 201);
  assert.equal(nul.get('content-length'), '0');
  assert.equal(nul.get('content-type'), undefined);
  assert.equal(nul.get('x-k'), 'null');
  assert.equal((await get('empty')).get('content-type'), 'text/plain;charset=UTF-8');
  const str = await get('string');
  assert.equal(str.text, 'héllo');
  assert.equal(str.get('content-length'), '6');
  assert.equal(str.get('content-type'), 'text/plain;charset=UTF-8');
  const bytes = await get('bytes');
  assert.deepEqual([...bytes.body], [1, 2, 3, 250]);
  assert.equal(bytes.get('content-type'), undefined, 'bytes carry no type, as undici');
  assert.equal((await get('buffer')).text, 'buf');
  assert.deepEqual([...(await get('arraybuffer')).body], [9, 8, 7]);
  assert.deepEqual([...(await get('dataview')).body], [6, 7]);
  const blob = await get('blob');
  assert.equal(blob.text, '<b>blob</b>');
  assert.equal(blob.get('content-type'), 'text/html');
  assert.equal(blob.get('content-length'), '11');
  const large = await get('blob-large');
  assert.equal(large.get('content-type'), 'application/x-large');
  assert.equal(sha(large.body), sha(LARGE), 'a large Blob is streamed whole');
  const params = await get('params');
  assert.equal(params.text, 'a=1&b=two+words');
  assert.equal(params.get('content-type'), 'application/x-www-form-urlencoded;charset=UTF-8');
  const stream = await get('stream');
  assert.equal(stream.chunked, true);
  assert.equal(stream.text, 'one,two');
  assert.equal(stream.get('content-type'), 'text/csv');
  assert.equal((await get('iterable')).text, 'async iterable');
  const undici = await get('undici');
  assert.equal(undici.status, 202);
  assert.equal(undici.text, 'from undici');
  assert.equal(undici.get('content-length'), '11', "undici's one-chunk body goes out with Content-Length");
  assert.equal(undici.get('x-from'), 'undici');
  assert.equal((await get('undici-stream')).text, 'AB');
  const json = await get('json');
  assert.equal(json.status, 207);
  assert.equal(json.text, '{"ok":[1,"two"]}');
  assert.equal(json.get('content-type'), 'application/json');
  assert.equal(json.get('x-j'), '1');
  const redirect = await get('redirect');
  assert.equal(redirect.status, 308);
  assert.equal(redirect.get('location'), 'https://example.com/next');
  assert.equal((await get('typed-text')).get('content-type'), 'application/json');
  const none = await get('no-content');
  assert.equal(none.status, 204);
  assert.equal(none.body.length, 0);
  assert.equal(sha((await get('large')).body), sha(LARGE));

  // FormData: undici writes the multipart body; a client parses it back.
  const form = await (await fetch(`${url}/formdata`)).formData();
  assert.equal(form.get('field'), 'value');
  const file = form.get('file') as File;
  assert.equal(file.name, 'a.txt');
  assert.equal(await file.text(), 'file body');
});

test(
  'Request bodies: text, json, arrayBuffer, bytes, blob, formData (urlencoded, multipart) and the stream',
  T,
  async (t) => {
    const { url } = await withServe(t, {
      fetch: async (req) => {
        const how = new URL(req.url).pathname.slice(1);
        switch (how) {
          case 'text':
            return new Response(await req.text());
          case 'json':
            return Response.json({ got: await req.json() });
          case 'arrayBuffer':
            return new Response(String((await req.arrayBuffer()).byteLength));
          case 'bytes':
            return new Response((await req.bytes()).reverse());
          case 'blob': {
            const b = await req.blob();
            return new Response(`${b.type} ${b.size} ${await b.text()}`);
          }
          case 'formData': {
            const f = await req.formData();
            const file = f.get('file');
            return Response.json({
              name: f.get('name'),
              tags: f.getAll('tag'),
              file: file instanceof File ? [file.name, await file.text()] : null,
            });
          }
          case 'stream': {
            const reader = (req.body as ReadableStream<Uint8Array>).getReader();
            let n = 0;
            let total = 0;
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              n++;
              total += value.length;
            }
            return Response.json({ total, sawChunks: n > 0, used: req.bodyUsed });
          }
          default:
            return new Response('?', { status: 404 });
        }
      },
    });
    const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
      fetch(`${url}/${path}`, { method: 'POST', body, headers });
    assert.equal(await (await post('text', 'plain text ✓')).text(), 'plain text ✓');
    assert.deepEqual(await (await post('json', '{"a":[1,2]}', { 'content-type': 'application/json' })).json(), {
      got: { a: [1, 2] },
    });
    assert.equal(await (await post('arrayBuffer', new Uint8Array(1000))).text(), '1000');
    assert.deepEqual(
      [...new Uint8Array(await (await post('bytes', new Uint8Array([1, 2, 3]))).arrayBuffer())],
      [3, 2, 1],
    );
    assert.equal(await (await post('blob', 'xyz', { 'content-type': 'text/x-thing' })).text(), 'text/x-thing 3 xyz');
    const urlencoded = new URLSearchParams([
      ['name', 'Ada'],
      ['tag', 'a'],
      ['tag', 'b'],
    ]);
    assert.deepEqual(await (await post('formData', urlencoded)).json(), { name: 'Ada', tags: ['a', 'b'], file: null });
    const multipart = new FormData();
    multipart.append('name', 'Grace');
    multipart.append('tag', 'x');
    multipart.append('file', new Blob(['contents']), 'notes.txt');
    assert.deepEqual(await (await post('formData', multipart)).json(), {
      name: 'Grace',
      tags: ['x'],
      file: ['notes.txt', 'contents'],
    });
    const streamed = await post('stream', new Uint8Array(200_000));
    assert.deepEqual(await streamed.json(), { total: 200_000, sawChunks: true, used: true });
  },
);

test(
  'Request body rules: read once, clone first, null for GET and bodiless POST, new Request(request) works',
  T,
  async (t) => {
    const { port } = await withServe(t, {
      fetch: async (req) => {
        const out: Record<string, unknown> = { hasBody: req.body !== null, used: req.bodyUsed };
        const url = new URL(req.url);
        if (req.method === 'POST' && req.body !== null) {
          const copy = req.clone();
          if (url.pathname === '/wrap') {
            // new Request(request) takes the body over, as the standard says
            const wrapped = new Request(req, { headers: { 'x-added': '1' } });
            out.wrapped = `${wrapped.method} ${wrapped.headers.get('x-added')} ${await wrapped.text()}`;
          } else out.first = await req.text();
          out.used = req.bodyUsed;
          out.second = await req.text().then(
            () => 'read twice',
            (e: Error) => e.name,
          );
          out.clone = await copy.text();
          const rebuilt = new Request(req.url, { method: 'PUT', body: 'new body' });
          out.rebuilt = `${rebuilt.method} ${await rebuilt.text()}`;
          return Response.json(out);
        }
        const wrapped = new Request(req);
        out.wrapped = wrapped.url === req.url && wrapped.method === req.method;
        out.wrappedInstance = wrapped instanceof Request && req instanceof Request;
        return Response.json(out);
      },
    });
    const get = JSON.parse((await simpleRequest(port)).text);
    assert.deepEqual(get, { hasBody: false, used: false, wrapped: true, wrappedInstance: true });
    const bodiless = JSON.parse((await simpleRequest(port, { method: 'POST' })).text);
    assert.equal(bodiless.hasBody, false);
    const post = JSON.parse((await simpleRequest(port, { method: 'POST', body: 'the body' })).text);
    assert.deepEqual(post, {
      hasBody: true,
      used: true,
      first: 'the body',
      second: 'TypeError',
      clone: 'the body',
      rebuilt: 'PUT new body',
    });
    const wrap = JSON.parse((await simpleRequest(port, { method: 'POST', path: '/wrap', body: 'moved' })).text);
    assert.deepEqual(wrap, {
      hasBody: true,
      used: true,
      wrapped: 'POST 1 moved',
      second: 'TypeError',
      clone: 'moved',
      rebuilt: 'PUT new body',
    });
  },
);

test('large and chunked uploads: 8 MiB text(), a chunked body, and bodyLimit answered with 413', {
  timeout: 20_000,
}, async (t) => {
  const { port, url } = await withServe(
    t,
    {
      fetch: async (req) => {
        const b = new Uint8Array(await req.arrayBuffer());
        return Response.json({ size: b.length, sha: sha(b) });
      },
    },
    { bodyLimit: 16 * 1024 * 1024 },
  );
  const eight = big(8 * 1024 * 1024);
  const r = await fetch(url, { method: 'POST', body: eight });
  assert.deepEqual(await r.json(), { size: eight.length, sha: sha(eight) });
  const chunked = await simpleRequest(port, {
    method: 'POST',
    headers: { 'transfer-encoding': 'chunked' },
    body: '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
  });
  assert.deepEqual(JSON.parse(chunked.text), { size: 11, sha: sha(Buffer.from('hello world')) });
  const tooBig = await simpleRequest(port, {
    method: 'POST',
    headers: { 'content-length': String(17 * 1024 * 1024) },
  });
  assert.equal(tooBig.status, 413);
});
