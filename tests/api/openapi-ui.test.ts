// openApiUi(): Swagger UI served from the swagger-ui-dist package over real HTTP — the page (as /docs and /docs/), its
// start script naming the document, every file it links byte for byte with its type, 404 for any other name, absolute
// links under a nested mount, routes hidden from the document, the missing package named, bad options refused. tests/browser/openapi-ui.test.ts
// renders it in Chromium.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { ErrorCodes, type GaleError, openApiUi, router } from 'gale';
import { T, withApp } from '../helpers.js';

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

test('the page, its start script and every file it links, from swagger-ui-dist', T, async (t) => {
  const { port, app } = await withApp(t, (app) => {
    app.get('/users/:id', (req) => ({ id: req.params.id }));
    app.get('/openapi.json', { hidden: true }, () => app.openapi({ info: { title: 'Users', version: '1.0.0' } }));
    app.use('/docs', openApiUi({ url: '/openapi.json', title: 'Users <API>' }));
  });
  const base = `http://127.0.0.1:${port}`;
  const page = await fetch(`${base}/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.match(html, /<title>Users &lt;API&gt;<\/title>/, 'the title, escaped');
  assert.equal(await (await fetch(`${base}/docs/`)).text(), html, '/docs/ is the same page');
  const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
  assert.equal(links.length, 7);
  for (const link of links) {
    assert.ok(link.startsWith('/docs/'), `${link}: absolute under the mount`);
    const res = await fetch(`${base}${link}`);
    assert.equal(res.status, 200, link);
    const name = link.slice('/docs/'.length);
    const type = res.headers.get('content-type') ?? '';
    const body = Buffer.from(await res.arrayBuffer());
    if (name === 'swagger-initializer.js') {
      assert.match(type, /^text\/javascript/);
      assert.match(body.toString(), /SwaggerUIBundle\(\{ url: "\/openapi\.json", dom_id: '#swagger-ui'/);
      continue;
    }
    assert.match(
      type,
      name.endsWith('.css') ? /^text\/css/ : name.endsWith('.js') ? /^text\/javascript/ : /^image\/png/,
    );
    assert.ok(body.equals(readFileSync(join(dist, name))), `${name}: the package's bytes`);
  }
  for (const other of ['package.json', 'index.html', 'constructor', '__proto__', '..%2Fpackage.json', 'x/y']) {
    assert.equal((await fetch(`${base}/docs/${other}`)).status, 404, other);
  }
  const doc = await (await fetch(`${base}/openapi.json`)).json();
  assert.deepEqual(Object.keys(doc.paths), ['/users/{id}'], "the UI's routes are not in the document");
  assert.equal(app.openapi({ info: { title: 't', version: '1' } }).paths['/docs'], undefined);
});

test('mounted in a router under a prefix, the links carry the whole mount path', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    const api = router();
    api.use('/ui', openApiUi({ url: '/api/openapi.json' }));
    app.use('/api', api);
  });
  const html = await (await fetch(`http://127.0.0.1:${port}/api/ui`)).text();
  assert.match(html, /<title>API reference<\/title>/);
  assert.match(html, /src="\/api\/ui\/swagger-ui-bundle\.js"/);
  const start = await (await fetch(`http://127.0.0.1:${port}/api/ui/swagger-initializer.js`)).text();
  assert.match(start, /url: "\/api\/openapi\.json"/);
  assert.equal((await fetch(`http://127.0.0.1:${port}/api/ui/swagger-ui.css`)).status, 200);
});

test('without swagger-ui-dist installed it says which package to install', T, () => {
  // The package resolution Node does for openApiUi() fails as it does when the package is not installed.
  const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = M._resolveFilename;
  M._resolveFilename = (request, ...rest) => {
    if (request === 'swagger-ui-dist/package.json') {
      throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
    }
    return resolve(request, ...rest);
  };
  try {
    assert.throws(
      () => openApiUi({ url: '/openapi.json' }),
      (err: GaleError) => err.code === ErrorCodes.MISSING_PACKAGE && /npm install swagger-ui-dist/.test(err.message),
    );
  } finally {
    M._resolveFilename = resolve;
  }
  assert.ok(openApiUi({ url: '/openapi.json' }), 'and works again once it resolves');
});

test('options without a url are refused', T, () => {
  assert.throws(() => openApiUi({} as never), /options\.url must name where the document is served/);
  assert.throws(() => openApiUi({ url: '' }), TypeError);
});
