// Request helpers over real sockets: query parsers, cookies and signed cookies, ip/ips/host/
// hostname/protocol/secure/subdomains under trustProxy, accepts*/is, fresh/stale, option checks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import signature from 'cookie-signature';
import { gale } from 'gale';
import type { App, GaleOptions } from '../helpers.js';
import { simpleRequest, T, withApp } from '../helpers.js';

function routes(app: App): void {
  app.get('/query', (req) => req.query);
  app.get('/cookies', (req) => ({ cookies: req.cookies, signed: req.signedCookies }));
  app.get('/net', (req) => ({
    ip: req.ip,
    ips: req.ips,
    remoteAddress: req.remoteAddress,
    host: req.host ?? null,
    hostname: req.hostname ?? null,
    protocol: req.protocol,
    secure: req.secure,
    subdomains: req.subdomains,
  }));
  app.get('/net-late', async (req, res) => {
    await new Promise((r) => setTimeout(r, 1));
    res.status(200).end('done');
    // the response has ended, in this turn: every helper still reads the request (tests/api/after-response.test.ts
    // has the rule for later turns)
    late.push({ ip: req.ip, hostname: req.hostname ?? null, cookies: req.cookies, protocol: req.protocol });
  });
  app.get('/accepts', (req) => ({
    types: req.accepts(),
    best: req.accepts('json', 'html'),
    list: req.accepts(['text/plain', 'image/png']),
    encodings: req.acceptsEncodings('br', 'gzip'),
    allEncodings: req.acceptsEncodings(),
    charsets: req.acceptsCharsets('utf-8', 'iso-8859-1'),
    languages: req.acceptsLanguages('fr', 'en'),
    allLanguages: req.acceptsLanguages(),
  }));
  app.post('/is', (req) => ({
    json: req.is('json'),
    list: req.is(['html', 'application/*']),
    text: req.is('text/*'),
    bare: req.is(),
  }));
  app.get('/is', (req) => ({ json: req.is('json') }));
  app.all('/fresh', (req, res) => {
    const status = Number(req.query.status ?? 200);
    res.status(status).header('etag', '"v1"').header('last-modified', 'Sat, 01 Jan 2022 00:00:00 GMT');
    // reported in headers: a fresh GET may be answered 304 without a body
    res.header('x-fresh', String(req.fresh)).header('x-stale', String(req.stale));
    return 'body';
  });
  app.get('/fresh-none', (req, res) => {
    res.header('x-fresh', String(req.fresh));
    return 'body';
  });
}

const late: Array<Record<string, unknown>> = [];

async function getJson(port: number, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const r = await simpleRequest(port, { method, path, headers });
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// query

test('query: simple (default) — URLSearchParams, repeated keys become arrays, brackets are literal', T, async (t) => {
  const { port } = await withApp(t, routes);
  assert.deepEqual(await getJson(port, '/query?a=1&a=2&b[c]=3&d=%20x+y&e'), {
    a: ['1', '2'],
    'b[c]': '3',
    d: ' x y',
    e: '',
  });
  assert.deepEqual(await getJson(port, '/query'), {});
});

test("query: 'extended' — qs nesting and arrays; depth/parameterLimit options; a function", T, async (t) => {
  const ext = await withApp(t, routes, { query: 'extended' });
  assert.deepEqual(await getJson(ext.port, '/query?user[name]=ada&user[langs][]=en&user[langs][]=fr&n=1'), {
    user: { name: 'ada', langs: ['en', 'fr'] },
    n: '1',
  });
  // prototype keys are plain data (null-prototype objects)
  assert.deepEqual(await getJson(ext.port, '/query?constructor=x&toString=y'), { constructor: 'x', toString: 'y' });
  const limited = await withApp(t, routes, { query: { parser: 'extended', depth: 1, parameterLimit: 2 } });
  assert.deepEqual(await getJson(limited.port, '/query?a[b][c]=1&x=2&y=3'), { a: { b: { '[c]': '1' } }, x: '2' });
  const custom = await withApp(t, routes, { query: (s: string) => ({ raw: s }) });
  assert.deepEqual(await getJson(custom.port, '/query?a=1&b'), { raw: 'a=1&b' });
});

// ---------------------------------------------------------------------------------------------
// cookies

test('cookies: parsed lazily, values decoded; no Cookie header → {}', T, async (t) => {
  const { port } = await withApp(t, routes);
  assert.deepEqual(await getJson(port, '/cookies', { Cookie: 'a=1; b=hello%20world; c="quoted"; a=ignored' }), {
    cookies: { a: '1', b: 'hello world', c: 'quoted' },
    signed: {},
  });
  assert.deepEqual(await getJson(port, '/cookies'), { cookies: {}, signed: {} });
});

test(
  'signedCookies: verified with cookieSecret (any of several); tampered → false; unsigned stay in cookies',
  T,
  async (t) => {
    const { port } = await withApp(t, routes, { cookieSecret: ['new-secret', 'old-secret'] });
    const current = `s:${signature.sign('alice', 'new-secret')}`;
    const previous = `s:${signature.sign('bob', 'old-secret')}`;
    const forged = `s:${signature.sign('mallory', 'guessed')}`;
    const cookie = [
      `user=${encodeURIComponent(current)}`,
      `old=${encodeURIComponent(previous)}`,
      `evil=${encodeURIComponent(forged)}`,
      'plain=1',
    ].join('; ');
    assert.deepEqual(await getJson(port, '/cookies', { Cookie: cookie }), {
      cookies: { plain: '1' },
      signed: { user: 'alice', old: 'bob', evil: false },
    });
  },
);

test(
  'without cookieSecret, signed-looking cookies stay raw in cookies, and signedCookies refuses to guess',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      routes(app);
      app.get('/raw-cookies', (req) => ({ cookies: req.cookies }));
    });
    const v = `s:${signature.sign('alice', 'k')}`;
    assert.deepEqual(await getJson(port, '/raw-cookies', { Cookie: `user=${encodeURIComponent(v)}` }), {
      cookies: { user: v },
    });
    // A signed cookie no secret can verify: reading signedCookies is an error naming cookieSecret, not {}.
    const res = await fetch(`http://127.0.0.1:${port}/cookies`, {
      headers: { Cookie: `user=${encodeURIComponent(v)}` },
    });
    assert.equal(res.status, 500);
    assert.deepEqual(await getJson(port, '/cookies', { Cookie: 'plain=1' }), { cookies: { plain: '1' }, signed: {} });
  },
);

// ---------------------------------------------------------------------------------------------
// ip, host, protocol under trustProxy

const FORWARDED = {
  Host: 'internal:8080',
  'X-Forwarded-For': '203.0.113.9, 198.51.100.1, 10.0.0.7',
  'X-Forwarded-Host': 'shop.eu.example.com, other.example',
  'X-Forwarded-Proto': 'https, http',
};

test('default: no proxy is trusted — forwarded headers cannot forge ip, host or protocol', T, async (t) => {
  const { port } = await withApp(t, routes);
  assert.deepEqual(await getJson(port, '/net', FORWARDED), {
    ip: '127.0.0.1',
    ips: [],
    remoteAddress: '127.0.0.1',
    host: 'internal:8080',
    hostname: 'internal',
    protocol: 'http',
    secure: false,
    subdomains: [],
  });
});

test('trustProxy: true trusts every hop', T, async (t) => {
  const { port } = await withApp(t, routes, { trustProxy: true });
  assert.deepEqual(await getJson(port, '/net', FORWARDED), {
    ip: '203.0.113.9',
    ips: ['203.0.113.9', '198.51.100.1', '10.0.0.7'],
    remoteAddress: '127.0.0.1',
    host: 'shop.eu.example.com',
    hostname: 'shop.eu.example.com',
    protocol: 'https',
    secure: true,
    subdomains: ['eu', 'shop'],
  });
});

test('trustProxy: hop count, address lists and keywords, a function', T, async (t) => {
  const cases: Array<[GaleOptions['trustProxy'], string, string[]]> = [
    [1, '10.0.0.7', ['10.0.0.7']],
    [2, '198.51.100.1', ['198.51.100.1', '10.0.0.7']],
    ['loopback', '10.0.0.7', ['10.0.0.7']],
    ['loopback, uniquelocal', '198.51.100.1', ['198.51.100.1', '10.0.0.7']],
    [['127.0.0.1', '10.0.0.0/8', '198.51.100.0/24'], '203.0.113.9', ['203.0.113.9', '198.51.100.1', '10.0.0.7']],
    [(addr: string) => addr === '127.0.0.1' || addr === '10.0.0.7', '198.51.100.1', ['198.51.100.1', '10.0.0.7']],
  ];
  for (const [trustProxy, ip, ips] of cases) {
    const { port, close } = await withApp(t, routes, { trustProxy });
    const net = await getJson(port, '/net', FORWARDED);
    assert.equal(net.ip, ip, String(trustProxy));
    assert.deepEqual(net.ips, ips, String(trustProxy));
    assert.equal(net.hostname, 'shop.eu.example.com');
    assert.equal(net.protocol, 'https');
    await close();
  }
});

test('a trust list that does not include the socket address ignores X-Forwarded-Host/-Proto', T, async (t) => {
  const { port } = await withApp(t, routes, { trustProxy: ['10.0.0.0/8'] });
  const net = await getJson(port, '/net', FORWARDED);
  assert.equal(net.ip, '127.0.0.1');
  assert.deepEqual(net.ips, []);
  assert.equal(net.hostname, 'internal');
  assert.equal(net.protocol, 'http');
});

test(
  'hostname: port stripped, IPv6 literal kept; subdomains with subdomainOffset; IP hosts have none',
  T,
  async (t) => {
    const { port } = await withApp(t, routes, { subdomainOffset: 3 });
    const v6 = await getJson(port, '/net', { Host: '[::1]:3000' });
    assert.equal(v6.host, '[::1]:3000');
    assert.equal(v6.hostname, '[::1]');
    const named = await getJson(port, '/net', { Host: 'a.b.c.example.co.uk' });
    assert.deepEqual(named.subdomains, ['c', 'b', 'a']);
    const ip = await getJson(port, '/net', { Host: '192.168.0.1:80' });
    assert.equal(ip.hostname, '192.168.0.1');
    assert.deepEqual(ip.subdomains, []);
  },
);

test('helpers read right after the response ended (same event-loop turn) read the request', T, async (t) => {
  const { port } = await withApp(t, routes, { trustProxy: true });
  late.length = 0;
  const r = await simpleRequest(port, { path: '/net-late', headers: { ...FORWARDED, Cookie: 'k=v' } });
  assert.equal(r.status, 200);
  for (let i = 0; i < 50 && late.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
  assert.deepEqual(late, [
    { ip: '203.0.113.9', hostname: 'shop.eu.example.com', cookies: { k: 'v' }, protocol: 'https' },
  ]);
});

// ---------------------------------------------------------------------------------------------
// negotiation, type checks, freshness

test('accepts, acceptsEncodings, acceptsCharsets, acceptsLanguages', T, async (t) => {
  const { port } = await withApp(t, routes);
  const all = await getJson(port, '/accepts', {
    Accept: 'text/html;q=0.9, application/json, image/*;q=0.1',
    'Accept-Encoding': 'gzip, br;q=0.5',
    'Accept-Charset': 'iso-8859-1',
    'Accept-Language': 'en-GB, fr;q=0.8',
  });
  assert.deepEqual(all, {
    types: ['application/json', 'text/html', 'image/*'],
    best: 'json',
    list: 'image/png',
    encodings: 'gzip',
    allEncodings: ['gzip', 'br', 'identity'],
    charsets: 'iso-8859-1',
    languages: 'en',
    allLanguages: ['en-GB', 'fr'],
  });
  const none = await getJson(port, '/accepts');
  assert.equal(none.best, 'json');
  assert.deepEqual(none.types, ['*/*']);
  const refused = await getJson(port, '/accepts', { Accept: 'image/png' });
  assert.equal(refused.best, false);
});

test('is: the matching type, false, or null without a body', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, {
    method: 'POST',
    path: '/is',
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: '{}',
  });
  assert.deepEqual(JSON.parse(r.text), {
    json: 'json',
    list: 'application/json',
    text: false,
    bare: 'application/json',
  });
  const html = await simpleRequest(port, {
    method: 'POST',
    path: '/is',
    headers: { 'Content-Type': 'text/html' },
    body: 'x',
  });
  assert.deepEqual(JSON.parse(html.text), { json: false, list: 'html', text: 'text/html', bare: 'text/html' });
  assert.deepEqual(await getJson(port, '/is', { 'Content-Type': 'application/json' }), { json: null });
});

test('fresh/stale: If-None-Match and If-Modified-Since against the response ETag/Last-Modified', T, async (t) => {
  const { port } = await withApp(t, routes);
  const f = async (headers: Record<string, string>, path = '/fresh', method = 'GET') => {
    const r = await simpleRequest(port, { method, path, headers });
    const out: Record<string, boolean> = { fresh: r.get('x-fresh') === 'true' };
    if (r.get('x-stale') !== undefined) out.stale = r.get('x-stale') === 'true';
    return out;
  };
  assert.deepEqual(await f({ 'If-None-Match': '"v1"' }), { fresh: true, stale: false });
  assert.deepEqual(await f({ 'If-None-Match': 'W/"v1"' }), { fresh: true, stale: false });
  assert.deepEqual(await f({ 'If-None-Match': '"v2"' }), { fresh: false, stale: true });
  assert.deepEqual(await f({ 'If-Modified-Since': 'Sun, 02 Jan 2022 00:00:00 GMT' }), { fresh: true, stale: false });
  assert.deepEqual(await f({ 'If-Modified-Since': 'Fri, 31 Dec 2021 00:00:00 GMT' }), { fresh: false, stale: true });
  assert.deepEqual(await f({ 'If-None-Match': '"v1"', 'Cache-Control': 'no-cache' }), { fresh: false, stale: true });
  assert.deepEqual(await f({}), { fresh: false, stale: true });
  // only GET/HEAD, only 2xx/304
  assert.deepEqual(await f({ 'If-None-Match': '"v1"' }, '/fresh', 'POST'), { fresh: false, stale: true });
  assert.deepEqual(await f({ 'If-None-Match': '"v1"' }, '/fresh?status=404'), { fresh: false, stale: true });
  // no validators on the response → not fresh (but `*` matches anything, as in the fresh package)
  assert.deepEqual(await f({ 'If-None-Match': '"v1"' }, '/fresh-none'), { fresh: false });
  assert.deepEqual(await f({ 'If-None-Match': '*' }, '/fresh-none'), { fresh: true });
});

// ---------------------------------------------------------------------------------------------
// options

test('malformed request options are rejected when the app is created', () => {
  assert.throws(() => gale({ cookieSecret: '' }), /cookieSecret must be a non-empty string/);
  assert.throws(
    () => gale({ json: { limit: 'lots' } }),
    /option json.limit must be a byte count like 1024 or '100kb', got "lots"/,
  );
  assert.throws(() => gale({ urlencoded: { parameterLimit: 0 } }), /parameterLimit must be a positive number/);
  assert.throws(() => gale({ query: 'fancy' as 'simple' }), /option query must be/);
});
