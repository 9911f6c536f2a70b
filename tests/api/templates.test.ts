// Templates: the `html` tagged template (escaping, arrays, nesting, raw), app.engine + views settings +
// res.render with Eta and EJS (Express's engine signature), locals, lookup errors, and that request
// data is only ever escaped, never evaluated.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import ejs from 'ejs';
import { Eta } from 'eta';
import {
  escapeHtml,
  type GaleError,
  html,
  type Logger,
  type Next,
  type Request,
  type Response,
  raw,
  SafeHtml,
} from 'gale';
import { simpleRequest, T, withApp } from '../helpers.js';

function memoryLogger(): Logger & { errors: unknown[] } {
  const errors: unknown[] = [];
  return { errors, info: () => {}, warn: () => {}, error: (obj) => errors.push(obj) };
}

const VIEWS = mkdtempSync(path.join(tmpdir(), 'gale-views-'));
const OTHER = mkdtempSync(path.join(tmpdir(), 'gale-views2-'));
mkdirSync(path.join(VIEWS, 'users'));
mkdirSync(path.join(VIEWS, 'partials'));
writeFileSync(path.join(VIEWS, 'hello.eta'), '<h1><%= it.title %></h1><p><%= it.site %>/<%= it.user %></p>');
writeFileSync(path.join(VIEWS, 'list.eta'), '<ul><% it.items.forEach(function (i) { %><li><%= i %></li><% }) %></ul>');
writeFileSync(path.join(VIEWS, 'users', 'index.eta'), 'users index for <%= it.who %>');
writeFileSync(path.join(VIEWS, 'partials', 'footer.eta'), '<footer><%= it.year %></footer>');
writeFileSync(path.join(VIEWS, 'page.eta'), '<main><%= it.body %></main><%~ include("./partials/footer", it) %>');
writeFileSync(path.join(VIEWS, 'broken.eta'), '<%= it.missing.deep %>');
writeFileSync(path.join(VIEWS, 'hello.ejs'), '<h1><%= title %></h1><p><%- trusted %></p><%= user %>');
writeFileSync(path.join(OTHER, 'only-here.ejs'), 'found in the second directory: <%= n %>');
process.on('exit', () => {
  rmSync(VIEWS, { recursive: true, force: true });
  rmSync(OTHER, { recursive: true, force: true });
});

const eta = new Eta({ views: VIEWS, cache: false });
// Eta resolves names under its own `views`, so the adapter hands it the path relative to that.
const etaEngine = (file: string, data: Record<string, unknown>, cb: (err: unknown, out?: string) => void) => {
  try {
    cb(null, eta.render(`./${path.relative(VIEWS, file)}`, data));
  } catch (err) {
    cb(err);
  }
};

test('html``: interpolations escaped; arrays joined; nested html and raw() kept; nullish/false empty', () => {
  const name = '<script>alert("x")</script>';
  const items = ['a&b', html`<b>${'<i>'}</b>`, 3];
  const out = html`<p title="${`"quoted" 'single'`}">${name}</p><ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${0}${raw('<hr>')}`;
  assert.ok(out instanceof SafeHtml);
  assert.equal(
    out.toString(),
    '<p title="&quot;quoted&quot; &#39;single&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>' +
      '<ul><li>a&amp;b</li><li><b>&lt;i&gt;</b></li><li>3</li></ul>0<hr>',
  );
  assert.equal(html`${['<a>', ['<b>', html`<c>`]]}`.value, '&lt;a&gt;&lt;b&gt;<c>');
  assert.equal(escapeHtml('plain'), 'plain');
  assert.equal(raw(out), out, 'raw() of safe markup is the same value');
  assert.equal(JSON.stringify({ h: html`<x>` }), '{"h":"<x>"}');
});

test('a returned html`` result is sent as text/html with an ETag; res.html accepts one too', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/hi/:name', (req) => html`<h1>Hello ${req.params.name}</h1>`);
      app.get('/res-html', (_req, res) => res.html(html`<em>${'<x>'}</em>`));
      app.get('/typed', (_req, res) => res.type('xml').send(html`<a>${'&'}</a>`));
    },
    { etag: 'weak' },
  );
  const r = await simpleRequest(port, { path: '/hi/%3Cb%3Ebold%3C%2Fb%3E' });
  assert.equal(r.status, 200);
  assert.equal(r.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(r.text, '<h1>Hello &lt;b&gt;bold&lt;/b&gt;</h1>');
  assert.ok(r.get('etag')?.startsWith('W/"'));
  assert.equal((await simpleRequest(port, { path: '/res-html' })).text, '<em>&lt;x&gt;</em>');
  const typed = await simpleRequest(port, { path: '/typed' });
  assert.equal(typed.get('content-type'), 'application/xml');
  assert.equal(typed.text, '<a>&amp;</a>');
});

test('Eta: app.engine + views/viewEngine options + res.render; app.locals < res.locals < data', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.engine('eta', etaEngine);
      app.locals.site = 'gale.dev';
      app.locals.title = 'from app.locals';
      app.use((_req: Request, res: Response, next: Next) => {
        res.locals.user = 'ada';
        res.locals.title = 'from res.locals';
        return next();
      });
      app.get('/hello', (_req, res) => res.render('hello', { title: 'From <data>' }));
      app.get('/locals-title', (_req, res) => res.render('hello'));
      app.get('/list', (_req, res) => res.render('list.eta', { items: ['x', '<y>'] }));
      app.get('/dir-index', (_req, res) => res.render('users', { who: 'everyone' }));
      app.get('/partial', (_req, res) => res.status(203).render('page', { body: 'content', year: 2030 }));
    },
    { views: VIEWS, viewEngine: 'eta' },
  );
  const r = await simpleRequest(port, { path: '/hello' });
  assert.equal(r.status, 200);
  assert.equal(r.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(r.text, '<h1>From &lt;data&gt;</h1><p>gale.dev/ada</p>');
  assert.equal(
    (await simpleRequest(port, { path: '/locals-title' })).text,
    '<h1>from res.locals</h1><p>gale.dev/ada</p>',
  );
  assert.equal((await simpleRequest(port, { path: '/list' })).text, '<ul><li>x</li><li>&lt;y&gt;</li></ul>');
  assert.equal((await simpleRequest(port, { path: '/dir-index' })).text, 'users index for everyone');
  const partial = await simpleRequest(port, { path: '/partial' });
  assert.equal(partial.status, 203);
  assert.equal(partial.text, '<main>content</main><footer>2030</footer>');
});

test("EJS: ejs.renderFile as the engine; app.set('views', [dirs]) and app.set('view engine')", T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.engine('.ejs', ejs.renderFile as never);
    app.set('views', [VIEWS, OTHER]).set('view engine', 'ejs');
    app.get('/hello', (_req, res) => res.render('hello', { title: 'EJS & co', trusted: '<b>ok</b>', user: '<u>' }));
    app.get('/second', (_req, res) => res.render('only-here', { n: 2 }));
  });
  const r = await simpleRequest(port, { path: '/hello' });
  assert.equal(r.status, 200);
  assert.equal(r.text, '<h1>EJS &amp; co</h1><p><b>ok</b></p>&lt;u&gt;');
  assert.equal((await simpleRequest(port, { path: '/second' })).text, 'found in the second directory: 2');
});

test('request data reaches templates only as escaped text, never as template code', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.engine('eta', etaEngine);
      app.engine('ejs', ejs.renderFile as never);
      app.get('/eta', (req, res) => res.render('hello.eta', { title: req.query.q, user: '', site: '' }));
      app.get('/ejs', (req, res) => res.render('hello.ejs', { title: req.query.q, trusted: '', user: '' }));
      app.get('/tag', (req) => html`${req.query.q}`);
    },
    { views: VIEWS },
  );
  // Eta/EJS tags and a JS template placeholder ('$' + '{…}', split so no linter reads it as one).
  const attack = ['<%= 7*7 %>', '$', '{7*7}', '<%~ it.title %>'].join('');
  const payload = encodeURIComponent(attack);
  for (const p of ['/eta', '/ejs', '/tag']) {
    const r = await simpleRequest(port, { path: `${p}?q=${payload}` });
    assert.equal(r.status, 200, p);
    assert.ok(!r.text.includes('49'), `${p} evaluated request data: ${r.text}`);
    assert.ok(r.text.includes(escapeHtml(attack)), `${p}: ${r.text}`);
  }
});

test(
  'render errors: unknown view, no engine, no default extension, template error → 500, logged with codes',
  T,
  async (t) => {
    const logger = memoryLogger();
    const { port } = await withApp(
      t,
      (app) => {
        app.engine('eta', etaEngine);
        app.get('/missing', (_req, res) => res.render('nope.eta'));
        app.get('/no-engine', (_req, res) => res.render('hello.pug'));
        app.get('/no-ext', (_req, res) => res.render('hello'));
        app.get('/broken', (_req, res) => res.render('broken.eta'));
        app.get('/throwing-engine', (_req, res) => res.render('x.boom'));
        app.engine('boom', () => {
          throw new Error('engine exploded');
        });
      },
      { views: VIEWS, logger, requestLogging: false },
    );
    for (const p of ['/missing', '/no-engine', '/no-ext', '/broken']) {
      const r = await simpleRequest(port, { path: p });
      assert.equal(r.status, 500, p);
      assert.equal(r.text, 'Internal Server Error');
    }
    const [missing, noEngine, noExt, broken] = logger.errors as GaleError[];
    assert.equal(missing?.code, 'GALE_ERR_VIEW_NOT_FOUND');
    assert.ok(missing?.message.includes(VIEWS));
    assert.equal(noEngine?.code, 'GALE_ERR_VIEW_ENGINE');
    assert.equal(noExt?.code, 'GALE_ERR_VIEW_ENGINE');
    assert.ok(broken instanceof Error && !('code' in broken && broken.code === 'GALE_ERR_VIEW_NOT_FOUND'));
    writeFileSync(path.join(VIEWS, 'x.boom'), '');
    const boom = await simpleRequest(port, { path: '/throwing-engine' });
    assert.equal(boom.status, 500);
    assert.equal((logger.errors[4] as Error).message, 'engine exploded');
  },
);

test('app.render() resolves to the string; engines may return a string or a promise', T, async (t) => {
  let app: Parameters<Parameters<typeof withApp>[1]>[0] | undefined;
  await withApp(
    t,
    (a) => {
      app = a;
      a.engine('eta', etaEngine);
      a.engine('sync', (file) => `sync:${path.basename(file)}`);
      a.engine('async', async (file, data) => `async:${path.basename(file)}:${data.n}`);
    },
    { views: VIEWS },
  );
  assert.ok(app);
  writeFileSync(path.join(VIEWS, 'v.sync'), '');
  writeFileSync(path.join(VIEWS, 'v.async'), '');
  assert.equal(await app.render('list.eta', { items: [1] }), '<ul><li>1</li></ul>');
  assert.equal(await app.render('v.sync'), 'sync:v.sync');
  assert.equal(await app.render('v.async', { n: 5 }), 'async:v.async:5');
  await assert.rejects(app.render('nope.eta'), { code: 'GALE_ERR_VIEW_NOT_FOUND' });
});
