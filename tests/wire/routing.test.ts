// Routing on the wire: 404, 405 + Allow, params, wildcard tails, query, HEAD→GET, conflicts, app.fixed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale } from 'gale';
import type { App } from '../helpers.js';
import { parseResponses, rawRequest, show, simpleRequest, T, withApp } from '../helpers.js';

function routes(app: App): void {
  app.get('/', () => 'root');
  app.get('/hello/:name', (req) => String(req.params.name));
  app.get('/users/:id/posts/:postId', (req) => ({ params: req.params }));
  app.get('/files/*rest', (req) => `rest=${req.params.rest}`);
  app.get('/q', (req) => ({ path: req.path, url: req.url, query: req.query }));
  app.get('/only-get', () => 'get');
  app.get('/multi', () => 'get');
  app.post('/multi', () => 'post');
  app.delete('/multi', () => 'delete');
  app.all('/any', (req) => `any ${req.method}`);
  app.get('/both', () => 'from get');
  app.head('/both', (_req, res) => {
    res.header('x-head-handler', 'yes');
    res.end();
  });
}

test('no route → 404, connection stays usable', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(
    port,
    'GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /hello/x/y HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'GET /hello/after HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data);
  assert.deepEqual(
    responses.map((x) => x.status),
    [404, 404, 200],
    show(r.data),
  );
  assert.equal(responses[2]?.text, 'after');
  assert.notEqual(responses[0]?.get('connection')?.toLowerCase(), 'close');
});

test('root path and exact static match', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/' });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'root');
  assert.equal((await simpleRequest(port, { path: '/only-gets' })).status, 404);
});

test('path exists, method not: 405 with Allow: GET, HEAD', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const method of ['POST', 'DELETE', 'PUT']) {
    const res = await simpleRequest(port, { method, path: '/only-get', body: method === 'GET' ? undefined : '' });
    assert.equal(res.status, 405, `${method} /only-get`);
    assert.equal(res.get('allow'), 'GET, HEAD', `${method} /only-get`);
  }
});

test('405 Allow lists every registered method (and HEAD via GET)', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { method: 'PATCH', path: '/multi', body: '' });
  assert.equal(res.status, 405);
  const allow = (res.get('allow') ?? '')
    .split(',')
    .map((s) => s.trim())
    .sort();
  assert.deepEqual(allow, ['DELETE', 'GET', 'HEAD', 'POST']);
  // and the registered ones work
  assert.equal((await simpleRequest(port, { method: 'POST', path: '/multi', body: '' })).text, 'post');
  assert.equal((await simpleRequest(port, { method: 'DELETE', path: '/multi' })).text, 'delete');
});

test('app.all matches any method', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    const res = await simpleRequest(port, { method, path: '/any' });
    assert.equal(res.status, 200, method);
    assert.equal(res.text, `any ${method}`);
  }
});

test('params are percent-decoded: /hello/w%C3%B6rld → wörld', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/hello/w%C3%B6rld' });
  assert.equal(res.status, 200);
  assert.equal(res.text, 'wörld');
  assert.equal(res.get('content-length'), '6');
  const res2 = await simpleRequest(port, { path: '/hello/a%20b%2Fc' });
  assert.equal(res2.text, 'a b/c');
});

test('several params', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/users/42/posts/abc-9' });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.text), { params: { id: '42', postId: 'abc-9' } });
});

test('named wildcard tail captures the rest of the path', T, async (t) => {
  const { port } = await withApp(t, routes);
  assert.equal((await simpleRequest(port, { path: '/files/a/b/c.txt' })).text, 'rest=a/b/c.txt');
  assert.equal((await simpleRequest(port, { path: '/files/one' })).text, 'rest=one');
  assert.equal((await simpleRequest(port, { path: '/files/x/y?z=1' })).text, 'rest=x/y');
});

test('query is split off: path, raw url and query object', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { path: '/q?a=1&b=two&empty=&name=J%C3%BCrgen&sp=a%20b' });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.text), {
    path: '/q',
    url: '/q?a=1&b=two&empty=&name=J%C3%BCrgen&sp=a%20b',
    query: { a: '1', b: 'two', empty: '', name: 'Jürgen', sp: 'a b' },
  });
  const bare = await simpleRequest(port, { path: '/q' });
  assert.deepEqual(JSON.parse(bare.text), { path: '/q', url: '/q', query: {} });
});

test('HEAD falls back to the GET route: same headers and Content-Length, no body', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await rawRequest(
    port,
    'HEAD /hello/w%C3%B6rld HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /hello/w%C3%B6rld HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const [head, get, ...rest] = parseResponses(r.data, { head: [true, false] });
  assert.equal(rest.length, 0, show(r.data));
  assert.equal(head?.status, 200);
  assert.equal(head?.get('content-length'), '6');
  assert.equal(head?.get('content-type'), get?.get('content-type'));
  assert.equal(get?.text, 'wörld');
});

test('an explicit HEAD route wins over the GET fallback', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { method: 'HEAD', path: '/both' });
  assert.equal(res.status, 200);
  assert.equal(res.get('x-head-handler'), 'yes');
  assert.equal((await simpleRequest(port, { path: '/both' })).text, 'from get');
});

test('HEAD on an unknown path is 404 without a body', T, async (t) => {
  const { port } = await withApp(t, routes);
  const res = await simpleRequest(port, { method: 'HEAD', path: '/missing' });
  assert.equal(res.status, 404);
  // simpleRequest parses HEAD responses as bodiless: any body bytes would fail the parse
});

test('conflicting route registration throws an Error naming both routes', T, () => {
  const app = gale();
  app.get('/users/:id', () => 'a');
  assert.throws(
    () => app.get('/users/:name', () => 'b'),
    (e: unknown) => {
      assert.ok(e instanceof Error, 'must throw an Error');
      assert.ok(e.message.includes('/users/:id'), `message lacks the existing route: ${e.message}`);
      assert.ok(e.message.includes('/users/:name'), `message lacks the new route: ${e.message}`);
      return true;
    },
  );
  const app2 = gale();
  app2.get('/static/*path', () => 'a');
  assert.throws(
    () => app2.get('/static/*file', () => 'b'),
    (e: unknown) => e instanceof Error && e.message.includes('/static/*path') && e.message.includes('/static/*file'),
  );
});

test('app.fixed answers natively with the given status, headers and body; JS handlers untouched', T, async (t) => {
  let jsCalls = 0;
  const { port } = await withApp(t, (app) => {
    app.fixed('GET', '/fixed', {
      status: 201,
      headers: { 'x-fixed': 'yes', 'content-type': 'text/plain; charset=utf-8' },
      body: 'fixed body',
    });
    app.fixed('GET', '/fixed-bytes', { body: new Uint8Array([0, 1, 2, 255]) });
    app.post('/fixed', () => {
      jsCalls++;
      return 'js post';
    });
    app.get('/js', () => {
      jsCalls++;
      return 'js';
    });
  });
  const r = await rawRequest(
    port,
    'GET /fixed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /fixed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
      'GET /fixed-bytes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    { waitForClose: true },
  );
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 3, show(r.data));
  for (const res of responses.slice(0, 2)) {
    assert.equal(res.status, 201);
    assert.equal(res.get('x-fixed'), 'yes');
    assert.equal(res.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.get('content-length'), '10');
    assert.equal(res.text, 'fixed body');
    assert.ok(res.get('date'), 'fixed responses carry Date');
  }
  assert.equal(responses[2]?.status, 200);
  assert.ok(responses[2]?.body.equals(Buffer.from([0, 1, 2, 255])));
  assert.equal(responses[2]?.get('content-length'), '4');
  assert.equal(jsCalls, 0, 'a fixed route called into JS');
  assert.equal((await simpleRequest(port, { method: 'POST', path: '/fixed', body: '' })).text, 'js post');
  assert.equal(jsCalls, 1);
});

test('HEAD on a fixed route sends its headers without the body', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.fixed('GET', '/fixed', { body: 'twelve bytes' });
  });
  const res = await simpleRequest(port, { method: 'HEAD', path: '/fixed' });
  assert.equal(res.status, 200);
  assert.equal(res.get('content-length'), '12');
  // simpleRequest parses HEAD responses as bodiless: any body bytes would fail the parse
});
