// Security headers: for each option set, Gale's security() and the real helmet 8 on node:http send the same
// headers (names and values) for the same request; bad options throw in both; gale({ security }) covers routes,
// 404s, errors, static files, fixed responses and fetch handlers; a handler's own header wins; CSP nonces.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gale, type SecurityOptions, security, securityHeaders } from 'gale';
import helmet from 'helmet';
import { simpleRequest, T, withApp } from '../helpers.js';
import { tempDir } from '../temp.js';
import { type ConnectMiddleware, headerSet, withNodeMiddleware } from './util.js';

/** Headers that are not security headers (framing, the body's type). */
const IGNORE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'transfer-encoding']);

const OPTION_SETS: [string, SecurityOptions][] = [
  ['defaults', {}],
  [
    'csp directives',
    {
      contentSecurityPolicy: {
        directives: { scriptSrc: ["'self'", 'cdn.example.com'], upgradeInsecureRequests: null, imgSrc: '*' },
      },
    },
  ],
  [
    'csp without defaults, report-only',
    { contentSecurityPolicy: { useDefaults: false, reportOnly: true, directives: { defaultSrc: ["'none'"] } } },
  ],
  [
    'policies',
    {
      strictTransportSecurity: { maxAge: 100.7, preload: true, includeSubDomains: false },
      xFrameOptions: { action: 'deny' },
      referrerPolicy: { policy: ['origin', 'unsafe-url'] },
      crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      xPermittedCrossDomainPolicies: { permittedPolicies: 'by-content-type' },
    },
  ],
  [
    'switches',
    {
      crossOriginEmbedderPolicy: true,
      contentSecurityPolicy: false,
      xDnsPrefetchControl: { allow: true },
      originAgentCluster: false,
      xXssProtection: false,
      xDownloadOptions: false,
    },
  ],
  [
    'legacy aliases',
    { hsts: false, frameguard: { action: 'sameorigin' }, noSniff: false, dnsPrefetchControl: false, ieNoOpen: false },
  ],
  [
    'coep credentialless',
    { crossOriginEmbedderPolicy: { policy: 'credentialless' }, referrerPolicy: { policy: 'same-origin' } },
  ],
];

for (const [name, options] of OPTION_SETS) {
  test(`security() sends what helmet sends: ${name}`, T, async (t) => {
    const nodePort = await withNodeMiddleware(t, helmet(options as never) as unknown as ConnectMiddleware);
    const viaUse = await withApp(t, (app) => {
      app.use(security(options));
      app.get('/', () => 'ok');
    });
    const viaOption = await withApp(
      t,
      (app) => {
        app.get('/', () => 'ok');
      },
      { security: options },
    );
    const want = headerSet((await simpleRequest(nodePort)).headers, IGNORE);
    assert.ok(want.length > 0 || name === 'switches');
    for (const { port } of [viaUse, viaOption]) {
      const got = headerSet((await simpleRequest(port)).headers, IGNORE);
      assert.deepEqual(got, want);
    }
  });
}

test('bad options are refused by both, at setup', () => {
  const bad: SecurityOptions[] = [
    { referrerPolicy: { policy: 'bogus' } },
    { referrerPolicy: { policy: [] } },
    { referrerPolicy: { policy: ['origin', 'origin'] } },
    { xFrameOptions: { action: 'allow-from' as 'deny' } },
    { strictTransportSecurity: { maxAge: -1 } },
    { contentSecurityPolicy: { directives: { defaultSrc: null } } },
    { contentSecurityPolicy: { useDefaults: false, directives: {} } },
    { contentSecurityPolicy: { directives: { scriptSrc: ['self'] } } },
    { contentSecurityPolicy: { directives: { 'bad name!': ["'self'"] } } },
    { contentSecurityPolicy: { directives: { scriptSrc: ["'self'; evil"] } } },
    { hsts: false, strictTransportSecurity: false },
    { crossOriginOpenerPolicy: { policy: 'nope' as 'unsafe-none' } },
  ];
  for (const o of bad) {
    assert.throws(() => helmet(o as never), Error, `helmet accepted ${JSON.stringify(o)}`);
    assert.throws(() => security(o), TypeError, `security() accepted ${JSON.stringify(o)}`);
  }
});

test(
  'gale({ security: true }) covers routes, 404, errors, static files, fixed responses and fetch handlers',
  T,
  async (t) => {
    const dir = tempDir(t, 'gale-sec-');
    writeFileSync(join(dir, 'a.txt'), 'file');
    const expected = securityHeaders();
    const { port } = await withApp(
      t,
      (app) => {
        app.get('/route', () => 'ok');
        app.get('/own', (_req, res) => res.header('X-Frame-Options', 'DENY').send('own'));
        app.get('/boom', () => {
          throw new Error('boom');
        });
        app.static('/static', dir);
        app.fixed('GET', '/fixed', { body: 'fixed' });
        app.fetch('/web', () => new Response('web', { headers: { 'referrer-policy': 'origin' } }));
      },
      { security: true, logger: { info() {}, warn() {}, error() {} } },
    );
    for (const path of ['/route', '/missing', '/boom', '/static/a.txt', '/fixed', '/web/x']) {
      const r = await simpleRequest(port, { path });
      for (const [k, v] of Object.entries(expected)) {
        if (path === '/web/x' && k === 'Referrer-Policy') continue;
        assert.equal(r.get(k), v, `${path}: ${k}`);
      }
    }
    const own = await simpleRequest(port, { path: '/own' });
    assert.equal(own.get('x-frame-options'), 'DENY', "the handler's header wins");
    assert.deepEqual((await simpleRequest(port, { path: '/web/x' })).getAll('referrer-policy'), ['origin']);
    assert.equal((await simpleRequest(port, { path: '/missing' })).status, 404);
  },
);

test('a CSP nonce function runs per request, like helmet; securityHeaders() refuses it', T, async (t) => {
  let n = 0;
  const options: SecurityOptions = {
    contentSecurityPolicy: { directives: { scriptSrc: ["'self'", () => `'nonce-${++n}'`] } },
  };
  const { port } = await withApp(t, (app) => {
    app.use(security(options));
    app.get('/', () => 'ok');
  });
  const a = (await simpleRequest(port)).get('content-security-policy');
  const b = (await simpleRequest(port)).get('content-security-policy');
  assert.match(a ?? '', /script-src 'self' 'nonce-1';/);
  assert.match(b ?? '', /script-src 'self' 'nonce-2';/);
  assert.throws(() => securityHeaders(options), /computed per request/);
  assert.ok(gale({ security: options }));
});
