// CORS: for each option set, Gale's cors() and the real `cors` package on node:http answer the same requests
// (preflights and actual requests, allowed and refused origins) with the same status, CORS headers, Vary and body.
// Then what only Gale has to get right: preflights to paths that have routes (which the engine would answer 405),
// under routers, and next to an app's own OPTIONS route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import corsPackage from 'cors';
import { type CorsOptions, cors, corsPolicy, router } from 'gale';
import { type RequestSpec, simpleRequest, T, withApp } from '../helpers.js';
import { type ConnectMiddleware, headerSet, withNodeMiddleware } from './util.js';

// Content-Length: the cors package sets 0 on 204 preflights; node:http drops it there, Gale's engine frames
// empty bodies itself. Content-Type/Date/Connection are not CORS.
const IGNORE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'transfer-encoding']);

const ALLOW = 'https://app.example.com';
const DENY = 'https://evil.example.net';

const REQUESTS: RequestSpec[] = [
  { path: '/' },
  { path: '/', headers: { origin: ALLOW } },
  { path: '/', headers: { origin: DENY } },
  { method: 'POST', path: '/', headers: { origin: ALLOW }, body: 'x' },
  {
    method: 'OPTIONS',
    path: '/',
    headers: {
      origin: ALLOW,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'x-a, content-type',
    },
  },
  { method: 'OPTIONS', path: '/', headers: { origin: DENY, 'access-control-request-method': 'DELETE' } },
  { method: 'OPTIONS', path: '/' },
];

type Both = [name: string, ours: CorsOptions, theirs: corsPackage.CorsOptions];
const same = (name: string, o: CorsOptions): Both => [name, o, o as corsPackage.CorsOptions];

const OPTION_SETS: Both[] = [
  same('defaults', {}),
  same('fixed origin string', { origin: ALLOW }),
  same('origin list with a RegExp', { origin: [/\.example\.org$/, ALLOW] }),
  same('reflect (true)', { origin: true, credentials: true }),
  same('off (false)', { origin: false }),
  same('everything', {
    origin: [ALLOW],
    methods: ['GET', 'POST'],
    allowedHeaders: ['X-A', 'Content-Type'],
    exposedHeaders: ['X-Total', 'X-Page'],
    credentials: true,
    maxAge: 600,
  }),
  same('strings and alias', { origin: '*', methods: 'GET', headers: 'x-b', exposedHeaders: 'x-c', maxAge: 0 }),
  same('preflightContinue', { origin: ALLOW, preflightContinue: true }),
  same('optionsSuccessStatus 200', { optionsSuccessStatus: 200 }),
  ['origin callback', { origin: (o, cb) => cb(null, o === ALLOW) }, { origin: (o, cb) => cb(null, o === ALLOW) }],
];

for (const [name, ours, theirs] of OPTION_SETS) {
  test(`cors() answers as the cors package: ${name}`, T, async (t) => {
    const nodePort = await withNodeMiddleware(t, corsPackage(theirs) as unknown as ConnectMiddleware);
    const { port } = await withApp(t, (app) => {
      app.use(cors(ours));
      app.all('/', (_req, res) => res.type('text').send('ok'));
    });
    for (const spec of REQUESTS) {
      const label = `${spec.method ?? 'GET'} ${JSON.stringify(spec.headers ?? {})}`;
      const [want, got] = await Promise.all([simpleRequest(nodePort, spec), simpleRequest(port, spec)]);
      assert.equal(got.status, want.status, `${label}: status`);
      assert.deepEqual(headerSet(got.headers, IGNORE), headerSet(want.headers, IGNORE), `${label}: headers`);
      assert.equal(got.text, want.text, `${label}: body`);
    }
  });
}

test('the function form of origin may return (or resolve) the decision; the options delegate works', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use('/sync', cors({ origin: (origin) => origin === ALLOW }));
    app.use('/async', cors({ origin: async (origin) => (origin === ALLOW ? [ALLOW] : false) }));
    app.use(
      '/delegate',
      cors(async (req) => ({ origin: req.get('x-tenant') === 'a' ? ALLOW : false })),
    );
    for (const p of ['/sync', '/async', '/delegate']) app.get(p, () => 'ok');
  });
  for (const path of ['/sync', '/async']) {
    assert.equal(
      (await simpleRequest(port, { path, headers: { origin: ALLOW } })).get('access-control-allow-origin'),
      ALLOW,
    );
    assert.equal(
      (await simpleRequest(port, { path, headers: { origin: DENY } })).get('access-control-allow-origin'),
      undefined,
    );
  }
  const yes = await simpleRequest(port, { path: '/delegate', headers: { origin: ALLOW, 'x-tenant': 'a' } });
  assert.equal(yes.get('access-control-allow-origin'), ALLOW);
  const no = await simpleRequest(port, { path: '/delegate', headers: { origin: ALLOW, 'x-tenant': 'b' } });
  assert.equal(no.get('access-control-allow-origin'), undefined);
});

test(
  'preflights reach cors() for paths that have routes (no engine 405), under routers and prefixes too',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.get('/public', () => 'no cors here');
      app.use('/api', cors({ origin: ALLOW, maxAge: 60 }));
      app.get('/api/items', () => ['a']);
      app.post('/api/items/:id', () => 'posted');
      app.options('/api/special', () => 'never: cors() answers OPTIONS first, as in Express');
      app.use('/cont', cors({ origin: ALLOW, preflightContinue: true }));
      app.options('/cont/own', () => 'my own OPTIONS');
      app.get('/cont/get', () => 'got');
      app.all('/cont/all', (req) => `all ${req.method}`);
      const v2 = router();
      v2.use(cors({ origin: true }));
      v2.put('/things', () => 'put');
      app.use('/v2', v2);
    });
    const pre = (path: string) =>
      simpleRequest(port, {
        method: 'OPTIONS',
        path,
        headers: { origin: ALLOW, 'access-control-request-method': 'POST' },
      });
    for (const path of ['/api/items', '/api/items/7', '/api', '/api/unrouted']) {
      const r = await pre(path);
      assert.equal(r.status, 204, path);
      assert.equal(r.get('access-control-allow-origin'), ALLOW, path);
      assert.equal(r.get('access-control-max-age'), '60', path);
    }
    assert.equal((await pre('/api/special')).status, 204);
    // preflightContinue: the request goes on to what would have answered it without cors()
    const own = await pre('/cont/own');
    assert.equal(own.text, 'my own OPTIONS', "the app's own OPTIONS route");
    assert.equal(own.get('access-control-allow-origin'), ALLOW, 'after cors() ran for it');
    const get = await pre('/cont/get');
    assert.equal(get.status, 405, 'a path without OPTIONS: 405 as the engine answers');
    assert.equal(get.get('allow'), 'GET, HEAD');
    assert.equal(get.get('access-control-allow-origin'), ALLOW);
    assert.equal((await pre('/cont/all')).text, 'all OPTIONS', "the path's ALL route");
    const v2 = await pre('/v2/things');
    assert.equal(v2.status, 204);
    assert.equal(v2.get('access-control-allow-origin'), ALLOW);
    assert.equal((await pre('/public')).status, 405, 'outside cors() nothing changes');
    const actual = await simpleRequest(port, { path: '/api/items', headers: { origin: ALLOW } });
    assert.equal(actual.text, '["a"]');
    assert.equal(actual.get('vary'), 'Origin');
  },
);

test('corsPolicy() exposes the compiled options an engine could answer preflights from', () => {
  const p = corsPolicy(cors({ origin: [ALLOW], methods: ['GET', 'PUT'], maxAge: 10, credentials: true }));
  assert.deepEqual(p, {
    origin: [ALLOW],
    methods: 'GET,PUT',
    allowedHeaders: undefined,
    exposedHeaders: undefined,
    credentials: true,
    maxAge: '10',
    preflightContinue: false,
    optionsSuccessStatus: 204,
    dynamic: false,
  });
  assert.equal(corsPolicy(cors({ origin: () => true }))?.dynamic, true);
  assert.equal(
    corsPolicy(() => undefined),
    undefined,
  );
});
