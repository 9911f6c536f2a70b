// A real Hono app (tests/fetch/hono-app.ts) served unchanged by gale's serve(): routing, params, sub-apps,
// built-in middleware, c.json/text/html, streaming and SSE (with abort), cookies, errors, notFound, request bodies,
// HEAD; mounted under a prefix of a Gale app; and the same requests answered identically by @hono/node-server.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { serve as nodeServe } from '@hono/node-server';
import { gale } from 'gale';
import {
  buildRequest,
  HOST,
  type ParsedResponse,
  RawConn,
  type RequestSpec,
  simpleRequest,
  sleep,
  T,
  withApp,
  withTimeout,
} from '../helpers.js';
import { type HonoProbe, honoApp } from './hono-app.js';
import { withServe } from './util.js';

function probe(): HonoProbe {
  return { logs: [], aborted: { sse: false, stream: false } };
}

test('Hono on gale.serve: routing, params, query, sub-apps, c.json/text/html/body/redirect, notFound', T, async (t) => {
  const p = probe();
  const { url } = await withServe(t, honoApp(p));
  const get = async (path: string, init?: RequestInit) => {
    const r = await fetch(`${url}${path}`, { redirect: 'manual', ...init });
    return { r, text: await r.text() };
  };
  let x = await get('/');
  assert.equal(x.text, '{"hello":"world"}');
  assert.equal(x.r.headers.get('content-type'), 'application/json');
  assert.ok(x.r.headers.get('x-response-time') !== null, 'custom middleware after next() set a header');
  // c.text without headers is `new Response(text)`: the Fetch standard's type, as Bun and Deno send it.
  assert.equal((await get('/text')).r.headers.get('content-type'), 'text/plain;charset=UTF-8');
  x = await get('/html');
  assert.equal(x.text, '<h1>Hi</h1>');
  assert.equal(x.r.headers.get('content-type'), 'text/html; charset=UTF-8');
  x = await get('/body');
  assert.equal(x.r.status, 201);
  assert.equal(x.r.headers.get('content-type'), 'application/x-bytes');
  x = await get('/redirect');
  assert.equal(x.r.status, 301);
  assert.equal(x.r.headers.get('location'), '/text');
  x = await get('/users/42?q=find&tag=a&tag=b');
  assert.deepEqual(JSON.parse(x.text), { id: '42', q: 'find', all: ['a', 'b'] });
  assert.equal((await get('/posts/7')).text, 'post 7');
  assert.equal((await get('/posts/abc')).r.status, 404, 'the regex param refuses non-digits');
  assert.equal((await get('/files/a/b/c.txt')).text, 'file /files/a/b/c.txt');
  assert.equal((await get('/optional')).text, 'name=none');
  assert.equal((await get('/optional/ada')).text, 'name=ada');
  x = await get('/headers', { headers: { 'user-agent': 'gale-test', 'x-multi': 'a' } });
  assert.deepEqual(JSON.parse(x.text), { ua: 'gale-test', multi: 'a' });
  x = await get('/env');
  assert.deepEqual(JSON.parse(x.text), { env: 'object', url: `${url}/env` });
  x = await get('/items/9', { method: 'PUT', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
  assert.equal(x.r.status, 202);
  assert.deepEqual(JSON.parse(x.text), { id: '9', body: { n: 1 } });
  assert.equal((await get('/items/9', { method: 'DELETE' })).r.status, 204);
  assert.equal((await get('/any', { method: 'PATCH' })).text, 'PATCH');
  assert.deepEqual(JSON.parse((await get('/api/data')).text), { data: [1, 2, 3] });
  x = await get('/api/data', { method: 'POST', body: '[1]', headers: { 'content-type': 'application/json' } });
  assert.equal(x.r.status, 201);
  x = await get('/nope/deeper');
  assert.equal(x.r.status, 404);
  assert.deepEqual(JSON.parse(x.text), { missing: '/nope/deeper' });
  assert.ok(
    p.logs.some((l) => l.includes('GET /users/42')),
    `hono/logger printed ${JSON.stringify(p.logs.slice(0, 4))}`,
  );
});

test(
  'Hono middleware: cors preflight and actual, secure-headers, etag/304, basic-auth, request-id, body-limit',
  T,
  async (t) => {
    const { port, url } = await withServe(t, honoApp(probe()));
    const pre = await simpleRequest(port, {
      method: 'OPTIONS',
      path: '/api/data',
      headers: {
        origin: 'https://a.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-custom',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.get('access-control-allow-origin'), 'https://a.example');
    assert.equal(pre.get('access-control-allow-credentials'), 'true');
    assert.equal(pre.get('access-control-max-age'), '600');
    assert.equal(pre.get('access-control-allow-headers'), 'X-Custom');
    const actual = await simpleRequest(port, { path: '/api/data', headers: { origin: 'https://evil.example' } });
    assert.equal(actual.get('access-control-allow-origin'), undefined);
    const secure = await simpleRequest(port, { path: '/secure/page' });
    assert.equal(secure.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(secure.get('x-content-type-options'), 'nosniff');
    const tagged = await fetch(`${url}/etag/doc`);
    const etag = tagged.headers.get('etag');
    assert.ok(etag);
    await tagged.text();
    const notModified = await simpleRequest(port, { path: '/etag/doc', headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body.length, 0);
    const denied = await simpleRequest(port, { path: '/admin/panel' });
    assert.equal(denied.status, 401);
    assert.match(denied.get('www-authenticate') ?? '', /^Basic/);
    const auth = `Basic ${Buffer.from('ada:lovelace').toString('base64')}`;
    assert.equal(
      (await simpleRequest(port, { path: '/admin/panel', headers: { authorization: auth } })).text,
      'welcome ada',
    );
    const id = await simpleRequest(port, { path: '/id/me', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(id.text, 'abc-123');
    assert.equal(id.get('x-request-id'), 'abc-123');
    const small = await simpleRequest(port, { method: 'POST', path: '/limited', body: 'tiny' });
    assert.equal(small.text, 'ok 4');
    const large = await simpleRequest(port, { method: 'POST', path: '/limited', body: 'x'.repeat(100) });
    assert.equal(large.status, 413);
    assert.equal(large.text, 'too big');
  },
);

test('Hono request bodies: c.req.json, text, parseBody (urlencoded, multipart with a file), formData', T, async (t) => {
  const { url } = await withServe(t, honoApp(probe()));
  const post = (path: string, body: BodyInit, headers?: Record<string, string>) =>
    fetch(`${url}${path}`, { method: 'POST', body, headers });
  assert.deepEqual(await (await post('/json', '{"a":{"b":[1]}}', { 'content-type': 'application/json' })).json(), {
    got: { a: { b: [1] } },
  });
  assert.equal(await (await post('/text-body', 'shout')).text(), 'SHOUT');
  const form = new URLSearchParams([
    ['name', 'Ada'],
    ['tag', 'x'],
    ['tag', 'y'],
  ]);
  assert.deepEqual(await (await post('/form', form)).json(), { name: 'Ada', tags: ['x', 'y'], file: null });
  const multi = new FormData();
  multi.append('name', 'Grace');
  multi.append('tag', 'only');
  multi.append('file', new Blob(['cobol']), 'compiler.txt');
  assert.deepEqual(await (await post('/form', multi)).json(), {
    name: 'Grace',
    tags: 'only',
    file: { name: 'compiler.txt', text: 'cobol' },
  });
  assert.deepEqual(await (await post('/formdata', new URLSearchParams({ k: 'v' }))).json(), { k: 'v' });
  const bad = await post('/json', '{not json', { 'content-type': 'application/json' });
  assert.equal(bad.status, 500, "c.req.json() throws on malformed JSON; the app's onError answers");
  assert.match(((await bad.json()) as { error: string }).error, /JSON/);
});

test('Hono cookies: setCookie / setSignedCookie as separate Set-Cookie fields, read back, deleted', T, async (t) => {
  const { port } = await withServe(t, honoApp(probe()));
  const set = await simpleRequest(port, { path: '/cookies/set' });
  const cookies = set.getAll('set-cookie');
  assert.equal(cookies.length, 3, JSON.stringify(cookies));
  assert.ok(cookies[0]?.startsWith('plain=value%20one; Path=/; HttpOnly'), cookies[0]);
  assert.ok(cookies[1]?.includes('theme=dark; Max-Age=3600'), cookies[1]);
  const jar = cookies.map((c) => c.split(';')[0]).join('; ');
  const got = JSON.parse((await simpleRequest(port, { path: '/cookies/get', headers: { cookie: jar } })).text);
  assert.equal(got.plain, 'value one');
  assert.equal(got.signed, 'user-42');
  const tampered = jar.replace('user-42', 'user-43');
  const bad = JSON.parse((await simpleRequest(port, { path: '/cookies/get', headers: { cookie: tampered } })).text);
  assert.equal(bad.signed, false);
  const del = await simpleRequest(port, { path: '/cookies/delete', headers: { cookie: jar } });
  assert.match(del.get('set-cookie') ?? '', /^plain=; Max-Age=0; Path=\//);
});

test(
  'Hono streaming: stream, streamText and streamSSE arrive in pieces; a client that leaves aborts them',
  T,
  async (t) => {
    const p = probe();
    const { port } = await withServe(t, honoApp(p));
    const s = await simpleRequest(port, { path: '/stream' });
    assert.equal(s.chunked, true);
    assert.equal(s.text, 'chunk0;chunk1;chunk2;');
    assert.ok(s.chunks.length >= 2, `arrived in ${s.chunks.length} chunk(s)`);
    const txt = await simpleRequest(port, { path: '/stream-text' });
    assert.equal(txt.text, 'line one\nline two');
    assert.equal(txt.get('content-type'), 'text/plain; charset=UTF-8');
    const sse = await simpleRequest(port, { path: '/sse?once' });
    assert.equal(sse.get('content-type'), 'text/event-stream');
    assert.equal(sse.get('cache-control'), 'no-cache');
    assert.equal(
      sse.text,
      'event: tick\ndata: {"n":0}\nid: 0\n\nevent: tick\ndata: {"n":1}\nid: 1\n\nevent: tick\ndata: {"n":2}\nid: 2\n\n',
    );
    for (const [path, key] of [
      ['/sse', 'sse'],
      ['/stream/forever', 'stream'],
    ] as const) {
      const conn = await RawConn.open(port);
      await conn.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
      await conn.readUntil(key === 'sse' ? 'id: 1' : 'tick\n', 3000);
      await conn.readUntil(key === 'sse' ? 'id: 2' : 'tick\n', 3000);
      conn.destroy();
      const deadline = Date.now() + 3000;
      while (!p.aborted[key] && Date.now() < deadline) await sleep(10);
      assert.equal(p.aborted[key], true, `${path}: onAbort ran after the client left`);
    }
  },
);

test('Hono errors: onError answers thrown and rejected errors, HTTPException keeps its status', T, async (t) => {
  const { port } = await withServe(t, honoApp(probe()));
  const boom = await simpleRequest(port, { path: '/boom' });
  assert.equal(boom.status, 500);
  assert.deepEqual(JSON.parse(boom.text), { error: 'kaboom' });
  assert.deepEqual(JSON.parse((await simpleRequest(port, { path: '/async-boom' })).text), { error: 'async kaboom' });
  const forbidden = await simpleRequest(port, { path: '/forbidden' });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.text, 'not for you');
});

test('Hono mounted on a Gale app under a prefix, next to Gale routes', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/health', () => 'gale ok');
    app.fetch('/hono', honoApp(probe()));
  });
  assert.equal((await simpleRequest(port, { path: '/health' })).text, 'gale ok');
  assert.equal((await simpleRequest(port, { path: '/hono/' })).text, '{"hello":"world"}');
  assert.equal((await simpleRequest(port, { path: '/hono/users/5?q=z' })).text, '{"id":"5","q":"z"}');
  assert.equal((await simpleRequest(port, { path: '/hono/api/data' })).text, '{"data":[1,2,3]}');
  assert.equal((await simpleRequest(port, { path: '/other' })).status, 404);
  assert.ok(gale().fetch('/x', honoApp(probe())));
});

/** One request on a fresh connection, one response read (node-server keeps event streams' connections open). */
async function oneResponse(port: number, spec: RequestSpec): Promise<ParsedResponse> {
  const conn = await RawConn.open(port);
  try {
    await conn.write(buildRequest(spec));
    return await conn.readResponse({ head: spec.method === 'HEAD', timeoutMs: 5000 });
  } finally {
    conn.destroy();
  }
}

/** Requests answered by both servers; the answers must match. */
const DIFF: { method?: string; path: string; headers?: Record<string, string>; body?: string }[] = [
  { path: '/' },
  { path: '/text' },
  { path: '/html' },
  { path: '/body' },
  { path: '/redirect' },
  { path: '/users/42?q=find&tag=a&tag=b' },
  { path: '/posts/7' },
  { path: '/posts/abc' },
  { path: '/files/a/b' },
  { path: '/optional' },
  { method: 'HEAD', path: '/text' },
  { method: 'PUT', path: '/items/3', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
  { method: 'DELETE', path: '/items/3' },
  { method: 'PATCH', path: '/any' },
  { path: '/api/data', headers: { origin: 'https://a.example' } },
  {
    method: 'OPTIONS',
    path: '/api/data',
    headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' },
  },
  { path: '/secure/page' },
  { path: '/etag/doc' },
  { path: '/admin/panel' },
  { path: '/cookies/set' },
  { path: '/cookies/get', headers: { cookie: 'plain=v; theme=dark' } },
  { path: '/stream' },
  { path: '/stream-text' },
  { path: '/sse?once' },
  { path: '/boom' },
  { path: '/forbidden' },
  { path: '/missing' },
  { method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{"x":[1,2]}' },
  { method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{broken' },
  {
    method: 'POST',
    path: '/form',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=A&tag=1',
  },
  { method: 'POST', path: '/limited', body: 'x'.repeat(40) },
];
/** Framing and per-run headers differ by server design; everything else must be equal. */
const IGNORED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-response-time']);
/**
 * The one known difference: for a stream body without a type, @hono/node-server writes `text/plain; charset=UTF-8`;
 * Gale sends none, as the Fetch standard (and Bun and Deno) do.
 */
function sameType(gale: string | undefined, node: string | undefined): boolean {
  return gale === node || (gale === undefined && node === 'text/plain; charset=UTF-8');
}

test('differential: the same Hono app on gale.serve and on @hono/node-server answers every request alike', {
  timeout: 20_000,
}, async (t) => {
  const galeServer = await withServe(t, honoApp(probe()));
  const node = nodeServe({ fetch: honoApp(probe()).fetch, port: 0, hostname: HOST, overrideGlobalObjects: false });
  t.after(
    () =>
      new Promise<void>((resolve) => {
        node.close(() => resolve());
        (node as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  );
  await withTimeout(
    new Promise((r) => (node.listening ? r(undefined) : node.once('listening', r))),
    3000,
    'node-server listening',
  );
  const nodePort = (node.address() as AddressInfo).port;
  for (const spec of DIFF) {
    const [a, b] = await Promise.all([oneResponse(galeServer.port, spec), oneResponse(nodePort, spec)]);
    const label = `${spec.method ?? 'GET'} ${spec.path}`;
    assert.equal(a.status, b.status, `${label}: status`);
    assert.equal(a.text, b.text, `${label}: body`);
    const headers = (r: typeof a) =>
      r.headers
        .map(([k, v]) => [k.toLowerCase(), v] as const)
        .filter(([k]) => !IGNORED.has(k) && k !== 'content-type')
        .map(([k, v]) => `${k}: ${v}`)
        .sort();
    assert.deepEqual(headers(a), headers(b), `${label}: headers`);
    assert.ok(
      sameType(a.get('content-type'), b.get('content-type')),
      `${label}: content-type ${a.get('content-type')} (gale) vs ${b.get('content-type')} (node-server)`,
    );
  }
});
