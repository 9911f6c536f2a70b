// req fields: method, url, path, query, params, headers, get(), ip, and their validity after await.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { buildRequest, parseResponses, rawRequest, show, sleep, T, withApp } from '../helpers.js';

interface AfterAwait {
  early: { id: string; all: Record<string, unknown> };
  late: { id: string; headerId: string; all: Record<string, unknown> };
  path: string;
  url: string;
  query: Record<string, unknown>;
  method: string;
}

function describeReq(app: App): void {
  app.all('/info/:id/*tail', (req) => ({
    method: req.method,
    url: req.url,
    path: req.path,
    query: req.query,
    params: req.params,
    ip: req.ip,
    userAgent: req.get('User-Agent') ?? null,
    xMixed: req.get('X-MiXeD-CaSe') ?? null,
    xMixedLower: req.headers['x-mixed-case'] ?? null,
    missing: req.get('x-not-sent') ?? null,
    headerNames: Object.keys(req.headers),
  }));
  app.get('/after-await', async (req) => {
    const early = { id: req.get('x-id'), all: { ...req.headers } };
    await new Promise((r) => setTimeout(r, 20));
    return {
      early,
      late: { id: req.get('x-id'), headerId: req.headers['x-id'], all: { ...req.headers } },
      path: req.path,
      url: req.url,
      query: req.query,
      method: req.method,
    };
  });
  app.get('/p/:a/:b', async (req) => {
    await sleep(20);
    return { params: req.params, query: req.query, path: req.path };
  });
}

test('method, url, path, query, params', T, async (t) => {
  const { url } = await withApp(t, describeReq);
  const r = await fetch(`${url}/info/42/some/deep/path?x=1&y=hello%20world`, { method: 'PUT', body: 'ignored' });
  assert.equal(r.status, 200);
  const info = (await r.json()) as Record<string, unknown>;
  assert.equal(info.method, 'PUT');
  assert.equal(info.url, '/info/42/some/deep/path?x=1&y=hello%20world');
  assert.equal(info.path, '/info/42/some/deep/path');
  assert.deepEqual(info.query, { x: '1', y: 'hello world' });
  assert.deepEqual(info.params, { id: '42', tail: 'some/deep/path' });
});

test('headers: lower-case names; get() is case-insensitive; missing → undefined', T, async (t) => {
  const { url } = await withApp(t, describeReq);
  const r = await fetch(`${url}/info/1/x`, {
    headers: { 'X-Mixed-Case': 'Value Kept', 'User-Agent': 'gale-test/1.0' },
  });
  const info = (await r.json()) as Record<string, unknown>;
  assert.equal(info.xMixed, 'Value Kept');
  assert.equal(info.xMixedLower, 'Value Kept');
  assert.equal(info.userAgent, 'gale-test/1.0');
  assert.equal(info.missing, null);
  const names = info.headerNames as string[];
  assert.ok(names.includes('x-mixed-case'), `names: ${names.join(',')}`);
  assert.ok(names.includes('host'));
  for (const n of names) assert.equal(n, n.toLowerCase(), `header name not lower-case: ${n}`);
});

test('duplicate request headers are joined with ", " (raw wire)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/dup', (req) => ({ joined: req.headers['x-dup'], viaGet: req.get('X-Dup'), accept: req.headers.accept }));
  });
  const r = await rawRequest(
    port,
    'GET /dup HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Dup: first\r\nAccept: a/b\r\nx-dup: second\r\nX-DUP: third\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const [res] = parseResponses(r.data);
  assert.equal(res?.status, 200, show(r.data));
  assert.deepEqual(JSON.parse(res?.text ?? ''), {
    joined: 'first, second, third',
    viaGet: 'first, second, third',
    accept: 'a/b',
  });
});

test('header values: surrounding whitespace trimmed, inner whitespace and obs-text kept', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/v', (req) => ({ a: req.headers['x-a'], b: req.get('x-b') }));
  });
  const r = await rawRequest(
    port,
    Buffer.concat([
      Buffer.from('GET /v HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: \t  spaced   value \t\r\nX-B: '),
      Buffer.from('caf\xc3\xa9', 'latin1'),
      Buffer.from('\r\nConnection: close\r\n\r\n'),
    ]),
    { waitForClose: true },
  );
  const [res] = parseResponses(r.data);
  assert.equal(res?.status, 200, show(r.data));
  const body = JSON.parse(res?.text ?? '') as { a: string; b: string };
  assert.equal(body.a, 'spaced   value');
  // non-ASCII header bytes arrive either as UTF-8-decoded or latin1-decoded text
  assert.ok(body.b === 'café' || body.b === 'caf\xc3\xa9', `x-b: ${JSON.stringify(body.b)}`);
});

test('req.ip is the loopback client address', T, async (t) => {
  const { url } = await withApp(t, describeReq);
  const info = (await (await fetch(`${url}/info/1/x`)).json()) as Record<string, unknown>;
  assert.ok(info.ip === '127.0.0.1' || info.ip === '::ffff:127.0.0.1', `ip: ${String(info.ip)}`);
});

test('req.headers / get() / url / query still correct after await (20 concurrent requests)', T, async (t) => {
  const { url } = await withApp(t, describeReq);
  const N = 20;
  const results = await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const r = await fetch(`${url}/after-await?n=${i}&pad=${'p'.repeat(i * 13)}`, {
        headers: { 'x-id': `id-${i}-${'z'.repeat(i * 7)}`, 'x-other': `other-${i}` },
      });
      assert.equal(r.status, 200);
      return { i, body: (await r.json()) as AfterAwait };
    }),
  );
  for (const { i, body } of results) {
    const id = `id-${i}-${'z'.repeat(i * 7)}`;
    assert.equal(body.early.id, id);
    assert.equal(body.late.id, id, `request ${i}: get('x-id') changed after await`);
    assert.equal(body.late.headerId, id, `request ${i}: headers['x-id'] changed after await`);
    assert.equal(body.late.all['x-other'], `other-${i}`);
    assert.deepEqual(body.late.all, body.early.all, `request ${i}: headers object changed after await`);
    assert.equal(body.path, '/after-await');
    assert.equal(body.url, `/after-await?n=${i}&pad=${'p'.repeat(i * 13)}`);
    assert.deepEqual(body.query, { n: String(i), pad: 'p'.repeat(i * 13) });
    assert.equal(body.method, 'GET');
  }
});

test('req fields survive await when requests are pipelined on one connection', T, async (t) => {
  const { port } = await withApp(t, describeReq);
  const reqs: Buffer[] = [];
  for (let i = 0; i < 8; i++) {
    reqs.push(
      buildRequest({
        path: `/after-await?n=${i}`,
        headers: { 'X-Id': `pipelined-${i}`, ...(i === 7 ? { Connection: 'close' } : {}) },
      }),
    );
  }
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 5000 });
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 8, show(r.data));
  responses.forEach((res, i) => {
    const body = JSON.parse(res.text) as AfterAwait;
    assert.equal(body.late.id, `pipelined-${i}`);
    assert.equal(body.late.headerId, `pipelined-${i}`);
    assert.deepEqual(body.query, { n: String(i) });
  });
});

test('params and query survive await', T, async (t) => {
  const { url } = await withApp(t, describeReq);
  const results = await Promise.all(
    ['x', 'y', 'z'].map(async (v) => (await (await fetch(`${url}/p/${v}1/${v}2?q=${v}`)).json()) as unknown),
  );
  assert.deepEqual(results, [
    { params: { a: 'x1', b: 'x2' }, query: { q: 'x' }, path: '/p/x1/x2' },
    { params: { a: 'y1', b: 'y2' }, query: { q: 'y' }, path: '/p/y1/y2' },
    { params: { a: 'z1', b: 'z2' }, query: { q: 'z' }, path: '/p/z1/z2' },
  ]);
});

test('handler returns without answering; res used later from a timer; req fields still valid', T, async (t) => {
  const { url } = await withApp(t, (app) => {
    app.get('/deferred/:name', (req, res) => {
      setTimeout(() => {
        res.header('x-late', req.get('x-token') ?? 'missing').json({
          name: req.params.name,
          token: req.headers['x-token'],
          q: req.query.q,
          path: req.path,
          method: req.method,
        });
      }, 30);
    });
  });
  const results = await Promise.all(
    [1, 2, 3, 4, 5].map(async (i) => {
      const r = await fetch(`${url}/deferred/n${i}?q=${i}`, { headers: { 'x-token': `tok-${i}` } });
      return { status: r.status, late: r.headers.get('x-late'), body: await r.json() };
    }),
  );
  results.forEach((r, idx) => {
    const i = idx + 1;
    assert.deepEqual(r, {
      status: 200,
      late: `tok-${i}`,
      body: { name: `n${i}`, token: `tok-${i}`, q: String(i), path: `/deferred/n${i}`, method: 'GET' },
    });
  });
});

test('100 concurrent requests over many connections each get their own answer', T, async (t) => {
  const { url } = await withApp(t, (app) => {
    app.post('/id/:i', async (req) => {
      const body = await req.text();
      await sleep(Number(req.params.i) % 5);
      return `${req.params.i}:${body}:${req.get('x-n')}`;
    });
  });
  const out = await Promise.all(
    Array.from({ length: 100 }, async (_, i) => {
      const r = await fetch(`${url}/id/${i}`, { method: 'POST', body: `b${i}`, headers: { 'x-n': `h${i}` } });
      return await r.text();
    }),
  );
  assert.deepEqual(
    out,
    Array.from({ length: 100 }, (_, i) => `${i}:b${i}:h${i}`),
  );
});

test('req.method is each request’s own, for the methods the engine passes as a code and the others', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.all('/m', (req, res) => {
      res.header('x-method', req.method).send(req.method === 'HEAD' ? undefined : req.method);
    });
  });
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND', 'PURGE', 'MKCOL'];
  const reqs = methods.map((method, i) =>
    buildRequest({ method, path: '/m', headers: i === methods.length - 1 ? { Connection: 'close' } : {} }),
  );
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 5000 });
  const responses = parseResponses(r.data, { head: methods.map((m) => m === 'HEAD') });
  assert.equal(responses.length, methods.length, show(r.data));
  responses.forEach((res, i) => {
    assert.equal(res.get('x-method'), methods[i], `response ${i}`);
    if (methods[i] !== 'HEAD') assert.equal(res.text, methods[i]);
  });
});
