// The differential Express app: one script, written against Express's API, built with real Express 5,
// real Express 4 and @gale-http/express (compat 5 / 4); the requests below must get the same status, the
// headers that matter and the same body from each pair. Covers routing, params, next('route'),
// next('router'), errors and 4-argument handlers, settings, every res helper, sub-apps, static,
// query parsing, trust proxy, json spaces and ETags.
// biome-ignore-all lint/suspicious/noExplicitAny: the same script drives three Express implementations
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import { fileTempDir } from '../temp.js';

// Removed after the last test of the file that imports this module (at its top, as diff-run.ts is).
export const FILES = fileTempDir('gale-express-diff-');
writeFileSync(path.join(FILES, 'hello.txt'), 'hello static\n');
writeFileSync(path.join(FILES, 'page.html'), '<h1>page</h1>');
writeFileSync(path.join(FILES, 'data.json'), '{"a":1}');
writeFileSync(path.join(FILES, 'report.pdf'), '%PDF-1.4 fake');
mkdirSync(path.join(FILES, 'dir'));
writeFileSync(path.join(FILES, 'dir', 'index.html'), '<p>dir index</p>');
writeFileSync(path.join(FILES, 'view.tpl'), 'Hello {{name}} from {{site}}');
const MTIME = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
for (const f of ['hello.txt', 'page.html', 'data.json', 'report.pdf', 'dir/index.html']) {
  utimesSync(path.join(FILES, f), MTIME, MTIME);
}

const EXPIRES = new Date(Date.UTC(2031, 5, 7, 8, 9, 10));

/** Builds the app on `express` (real or gale's); `compat` picks the path syntax of that major. */
export function buildApp(express: any, compat: 4 | 5): any {
  const app = express();
  app.set('env', 'production');
  app.engine('tpl', (file: string, data: any, cb: (e: unknown, s?: string) => void) => {
    import('node:fs').then((fs) => {
      const src = fs.readFileSync(file, 'utf8');
      cb(
        null,
        src.replace(/\{\{(\w+)\}\}/g, (_m, k) => String(data[k])),
      );
    }, cb);
  });
  app.set('views', FILES);
  app.locals.site = 'diff';
  app.use(cookieParser('secret'));
  app.use((req: any, res: any, next: any) => {
    res.set('X-Trail', `${req.method} ${req.path}`);
    next();
  });

  // routing and params
  app.get('/', (_req: any, res: any) => res.send('home'));
  app.get('/users/:id', (req: any, res: any) => res.json({ id: req.params.id, route: req.route.path }));
  app.get('/users/:id/books/:book', (req: any, res: any) => res.json(req.params));
  app.get('/chain/:id', (req: any, _res: any, next: any) => (req.params.id === 'skip' ? next('route') : next()));
  app.get('/chain/:id', (req: any, res: any) => res.send(`first ${req.params.id}`));
  app.get('/chain/:id', (req: any, res: any) => res.send(`second ${req.params.id}`));
  app.get('/same', (_req: any, _res: any, next: any) => next());
  app.get('/same', (_req: any, res: any) => res.send('second same'));
  app.get(/^\/re(g+)ex$/, (req: any, res: any) => res.json({ params: req.params }));
  app.get(['/one', '/two'], (req: any, res: any) => res.send(`array ${req.path}`));
  app.get(compat === 5 ? '/files/*rest' : '/files/*', (req: any, res: any) =>
    res.send(`files ${compat === 5 ? req.params.rest.join('/') : req.params[0]}`),
  );
  app.get(compat === 5 ? '/opt{/:x}' : '/opt/:x?', (req: any, res: any) => res.send(`opt ${req.params.x}`));
  app.param('pid', (req: any, _res: any, next: any, value: string) => {
    req.loaded = `loaded-${value}`;
    next();
  });
  app.get('/param/:pid', (req: any, res: any) => res.send(req.loaded));
  app
    .route('/book')
    .get((_req: any, res: any) => res.send('get book'))
    .post((_req: any, res: any) => res.status(201).send('post book'));
  app.all('/any', (req: any, res: any) => res.send(`any ${req.method}`));

  // errors and error handlers
  app.get('/throw', () => {
    throw new Error('boom');
  });
  app.get('/next-err', (_req: any, _res: any, next: any) => next(Object.assign(new Error('teapot'), { status: 418 })));
  app.get('/handled', (_req: any, _res: any, next: any) => next(new Error('to-handler')));
  app.use('/handled', (err: any, _req: any, res: any, _next: any) => res.status(500).send(`handled ${err.message}`));
  app.get('/skip-err', (_req: any, _res: any, next: any) => next(new Error('x')));
  app.use('/skip-err', (_req: any, res: any) => res.send('not an error handler'));
  app.use('/skip-err', (err: any, _req: any, res: any, _next: any) => res.status(502).send(`got ${err.message}`));

  // routers, next('router'), mergeParams, strict/case settings on a router
  const api = express.Router();
  api.use((req: any, res: any, next: any) => {
    res.set('X-Api-Base', req.baseUrl);
    next();
  });
  api.get('/ping', (req: any, res: any) =>
    res.json({ baseUrl: req.baseUrl, url: req.url, originalUrl: req.originalUrl, path: req.path }),
  );
  api.get('/leave', (_req: any, _res: any, next: any) => next('router'));
  const nested = express.Router({ mergeParams: true });
  nested.get('/:item', (req: any, res: any) => res.json(req.params));
  api.use('/t/:tenant', nested);
  const cs = express.Router({ caseSensitive: true, strict: true });
  cs.get('/Exact/', (_req: any, res: any) => res.send('exact'));
  api.use('/cs', cs);
  app.use('/api', api);
  app.get('/api/leave', (_req: any, res: any) => res.send('left the router'));

  // sub-app with its own settings, mountpath, req.app, on('mount')
  const blog = express();
  blog.set('json spaces', 2);
  blog.disable('x-powered-by');
  let mountedOn = '';
  blog.on('mount', (parent: any) => {
    mountedOn = String(parent.mountpath);
  });
  blog.get('/', (req: any, res: any) =>
    res.json({
      mountpath: blog.mountpath,
      path: blog.path(),
      baseUrl: req.baseUrl,
      sameApp: req.app === blog,
      envInherited: req.app.get('env'),
      mountedOn,
    }),
  );
  blog.get('/err', () => {
    throw new Error('blog error');
  });
  blog.use((err: any, _req: any, res: any, _next: any) => res.status(500).json({ blog: err.message }));
  app.use('/blog', blog);

  // settings
  app.get('/settings/spaces', (req: any, res: any) => {
    req.app.set('json spaces', 4);
    res.json({ a: [1, 2], b: { c: true } });
    req.app.set('json spaces', undefined);
  });
  app.get('/settings/replacer', (req: any, res: any) => {
    req.app.set('json replacer', (k: string, v: unknown) => (k === 'secret' ? undefined : v));
    res.json({ secret: 1, shown: 2 });
    req.app.set('json replacer', undefined);
  });
  app.get('/settings/strong-etag', (req: any, res: any) => {
    req.app.set('etag', 'strong');
    res.send('strong body');
    req.app.set('etag', 'weak');
  });
  app.get('/settings/no-etag', (req: any, res: any) => {
    req.app.set('etag', false);
    res.send('no etag');
    req.app.set('etag', 'weak');
  });
  app.get('/settings/enabled', (req: any, res: any) =>
    res.json({ xpb: req.app.enabled('x-powered-by'), cs: req.app.disabled('case sensitive routing') }),
  );

  // req properties
  app.get('/req', (req: any, res: any) =>
    res.json({
      method: req.method,
      path: req.path,
      url: req.url,
      originalUrl: req.originalUrl,
      query: req.query,
      hostname: req.hostname,
      host: String(req.host).replace(/:\d+$/, ':PORT'),
      ip: req.ip,
      ips: req.ips,
      protocol: req.protocol,
      secure: req.secure,
      xhr: req.xhr,
      subdomains: req.subdomains,
      fresh: req.fresh,
      stale: req.stale,
      accepts: req.accepts(['json', 'html']),
      acceptsLang: req.acceptsLanguages('en', 'fr'),
      is: req.is('json'),
      ua: req.get('user-agent') === undefined ? 'none' : 'some',
      referrer: req.get('referrer') ?? null,
      range: req.range(1000) ?? null,
      cookies: req.cookies,
      signed: req.signedCookies,
    }),
  );
  app.get('/trust', (req: any, res: any) => {
    req.app.set('trust proxy', 'loopback');
    const out = {
      ip: req.ip,
      ips: req.ips,
      protocol: req.protocol,
      hostname: req.hostname,
      secure: req.secure,
      subdomains: req.subdomains,
    };
    req.app.set('trust proxy', false);
    res.json(out);
  });
  app.get('/query-extended', (req: any, res: any) => {
    req.app.set('query parser', 'extended');
    const q = compat === 5 ? req.query : { note: 'express 4 parsed it already', q: req.query };
    req.app.set('query parser', compat === 5 ? 'simple' : 'extended');
    res.json(q);
  });

  // res helpers
  app.get('/res/send-buffer', (_req: any, res: any) => res.send(Buffer.from('bytes')));
  app.get('/res/send-object', (_req: any, res: any) => res.send({ obj: true }));
  app.get('/res/send-null', (_req: any, res: any) => res.send(null));
  app.get('/res/send-typed', (_req: any, res: any) => res.type('text').send('typed'));
  app.get('/res/json-status', (_req: any, res: any) => res.status(201).json(['a']));
  app.get('/res/jsonp', (_req: any, res: any) => res.jsonp({ p: 1 }));
  app.get('/res/sendStatus', (_req: any, res: any) => res.sendStatus(202));
  app.get('/res/sendStatus-unknown', (_req: any, res: any) => res.sendStatus(299));
  app.get('/res/redirect', (_req: any, res: any) => res.redirect('/target?x=1'));
  app.get('/res/redirect-301', (_req: any, res: any) => res.redirect(301, 'http://example.com/ä b/<x>'));
  app.get('/res/location', (_req: any, res: any) => res.location('/new place').status(201).end());
  app.get('/res/links', (_req: any, res: any) => res.links({ next: '/p2', last: '/p9' }).send('links'));
  app.get('/res/vary', (_req: any, res: any) => res.vary('Origin').vary('Accept-Encoding').send('vary'));
  app.get('/res/attachment', (_req: any, res: any) => res.attachment('path/to/report 1.csv').send('a,b'));
  app.get('/res/download', (_req: any, res: any) => res.download(path.join(FILES, 'report.pdf'), 'Q3 report.pdf'));
  app.get('/res/download-missing', (_req: any, res: any) =>
    res.download(path.join(FILES, 'nope.pdf'), (err: any) => res.status(404).send(`no file: ${err.code}`)),
  );
  app.get('/res/sendFile', (_req: any, res: any) => res.sendFile('hello.txt', { root: FILES }));
  app.get('/res/sendFile-headers', (_req: any, res: any) =>
    res.sendFile(path.join(FILES, 'data.json'), { headers: { 'X-File': 'yes' }, maxAge: 60_000 }),
  );
  app.get('/res/sendFile-missing', (_req: any, res: any) => res.sendFile(path.join(FILES, 'missing.txt')));
  app.get('/res/format', (_req: any, res: any) =>
    res.format({
      text: () => res.send('text!'),
      html: () => res.send('<b>html!</b>'),
      json: () => res.json({ json: true }),
    }),
  );
  app.get('/res/format-none', (_req: any, res: any) => res.format({ 'image/png': () => res.send('png') }));
  app.get('/res/cookie', (_req: any, res: any) =>
    res
      .cookie('plain', 'v 1', { httpOnly: true, expires: EXPIRES, path: '/x', sameSite: 'lax' })
      .cookie('obj', { a: 1 })
      .cookie('signed', 'sv', { signed: true })
      .clearCookie('gone')
      .send('cookies'),
  );
  app.get('/res/append', (_req: any, res: any) =>
    res.append('X-Multi', 'a').append('X-Multi', ['b', 'c']).set({ 'X-One': '1', 'X-Two': 2 }).send('append'),
  );
  app.get('/res/get', (_req: any, res: any) => {
    res.set('Content-Type', 'text/plain');
    res.send(`ct=${res.get('Content-Type')}`);
  });
  app.get('/res/end-raw', (_req: any, res: any) => {
    res.statusCode = 203;
    res.setHeader('Content-Type', 'text/plain');
    res.end('raw end');
  });
  app.get('/res/write-head', (_req: any, res: any) => {
    res.writeHead(206, { 'Content-Type': 'text/plain', 'X-Head': 'h' });
    res.write('part 1, ');
    res.end('part 2');
  });
  app.get('/res/headers-sent', (_req: any, res: any) => {
    const before = res.headersSent;
    res.send(String(before));
  });
  app.get('/res/render', (_req: any, res: any) => res.render('view.tpl', { name: 'Ada' }));
  app.get('/res/render-locals', (_req: any, res: any) => {
    res.locals.name = 'Local';
    res.render('view.tpl');
  });
  app.get('/res/render-missing', (_req: any, res: any) => res.render('missing.tpl'));
  app.get('/res/status-204', (_req: any, res: any) => res.status(204).send('dropped'));

  app.get('/res/back', (_req: any, res: any) => res.redirect('back'));
  app.get('/res/status-invalid', (_req: any, res: any) => res.status(1000).send('never'));
  app.get('/res/send-number', (_req: any, res: any) => res.send(404));
  if (compat === 4) {
    // Express 4's argument forms, removed in Express 5.
    app.get('/v4/param/:name', (req: any, res: any) =>
      res.send(`${req.param('name')} ${req.param('q')} ${req.param('none', 'dflt')}`),
    );
    app.get('/v4/send-status', (_req: any, res: any) => res.send(201, 'created'));
    app.get('/v4/json-status', (_req: any, res: any) => res.json(202, { accepted: true }));
    app.get('/v4/redirect-args', (_req: any, res: any) => res.redirect('/elsewhere', 301));
    app.del('/v4/del', (_req: any, res: any) => res.send('deleted'));
  }

  // static
  app.use('/static', express.static(FILES));
  app.use('/static-opts', express.static(FILES, { index: false, maxAge: '1h', extensions: ['html'] }));

  // query parser default per major
  app.get('/query', (req: any, res: any) => res.json(req.query));

  // app-level 404 left to finalhandler for everything else; an app error handler last
  app.get('/late-error', (_req: any, _res: any, next: any) => next(new Error('late')));
  app.use((err: any, req: any, res: any, next: any) => {
    if (req.path !== '/late-error') return next(err);
    res.status(500).json({ late: err.message });
  });
  return app;
}

export interface Req {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  only?: 4 | 5;
}

/** Every request of the suite. */
export const REQUESTS: Req[] = [
  { path: '/' },
  { path: '/', method: 'HEAD' },
  { path: '/', method: 'POST' },
  { path: '/users/42' },
  { path: '/users/a%20b' },
  // A malformed escape in a route parameter: Express's error handler gets the URIError (status 400).
  { path: '/users/%E0%A4%A' },
  { path: '/users/1/books/2' },
  { path: '/USERS/7' },
  { path: '/users/7/' },
  { path: '/chain/a' },
  { path: '/chain/skip' },
  { path: '/same' },
  { path: '/reggggex' },
  { path: '/one' },
  { path: '/two' },
  { path: '/files/a/b/c.txt' },
  { path: '/opt' },
  { path: '/opt/val' },
  { path: '/param/9' },
  { path: '/book' },
  { path: '/book', method: 'POST' },
  { path: '/book', method: 'DELETE' },
  { path: '/book', method: 'OPTIONS' },
  { path: '/users/1', method: 'OPTIONS' },
  { path: '/any', method: 'PUT' },
  { path: '/any', method: 'PATCH' },
  { path: '/throw' },
  { path: '/next-err' },
  { path: '/handled' },
  { path: '/skip-err' },
  { path: '/api/ping?x=1' },
  { path: '/api/ping/' },
  { path: '/api/leave' },
  { path: '/api/t/acme/thing' },
  { path: '/api/cs/Exact/' },
  { path: '/api/cs/exact/' },
  { path: '/api/cs/Exact' },
  { path: '/api/nothing' },
  { path: '/blog' },
  { path: '/blog/' },
  { path: '/blog/err' },
  { path: '/settings/spaces' },
  { path: '/settings/replacer' },
  { path: '/settings/strong-etag' },
  { path: '/settings/no-etag' },
  { path: '/settings/enabled' },
  {
    path: '/req?a=1&b=x&b=y&c[d]=e',
    headers: {
      host: 'tobi.ferrets.example.com:8080',
      accept: 'text/html',
      'accept-language': 'fr;q=0.9, en;q=0.8',
      'x-requested-with': 'XMLHttpRequest',
      referer: 'http://ref.example/',
      range: 'bytes=0-99',
      cookie: 'a=1; b=two; s=s%3Asv.0Q1Qy0kqGZMOBQjMGVFbaHOtnBhvgEa6%2FnGf1pBAnJY',
      'x-forwarded-for': '203.0.113.9',
    },
  },
  {
    path: '/trust',
    headers: {
      'x-forwarded-for': '203.0.113.7, 10.0.0.2',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'tobi.ferrets.example.com:8443',
    },
  },
  { path: '/query-extended?a[b]=1&a[c]=2&list=1&list=2' },
  { path: '/query?a[b]=1&x=1&x=2&plain=%20sp' },
  { path: '/res/send-buffer' },
  { path: '/res/send-object' },
  { path: '/res/send-null' },
  { path: '/res/send-typed' },
  { path: '/res/json-status' },
  { path: '/res/jsonp?callback=cb.fn' },
  { path: '/res/jsonp' },
  { path: '/res/sendStatus' },
  { path: '/res/sendStatus-unknown' },
  { path: '/res/redirect' },
  { path: '/res/redirect', headers: { accept: 'text/html' } },
  { path: '/res/redirect', headers: { accept: 'text/plain' } },
  { path: '/res/redirect', method: 'HEAD' },
  { path: '/res/redirect-301', headers: { accept: 'application/json' } },
  { path: '/res/location' },
  { path: '/res/links' },
  { path: '/res/vary' },
  { path: '/res/attachment' },
  { path: '/res/download' },
  { path: '/res/download', method: 'HEAD' },
  { path: '/res/download-missing' },
  { path: '/res/sendFile' },
  { path: '/res/sendFile', headers: { range: 'bytes=0-4' } },
  { path: '/res/sendFile-headers' },
  { path: '/res/sendFile-missing' },
  { path: '/res/format', headers: { accept: 'text/plain' } },
  { path: '/res/format', headers: { accept: 'application/json' } },
  { path: '/res/format', headers: { accept: 'text/html' } },
  { path: '/res/format-none', headers: { accept: 'text/plain' } },
  { path: '/res/cookie' },
  { path: '/res/append' },
  { path: '/res/get' },
  { path: '/res/end-raw' },
  { path: '/res/write-head' },
  { path: '/res/headers-sent' },
  { path: '/res/render' },
  { path: '/res/render-locals' },
  { path: '/res/render-missing' },
  { path: '/res/status-204' },
  { path: '/res/back', headers: { referer: 'http://ref.example/page' } },
  { path: '/res/back' },
  { path: '/res/status-invalid' },
  { path: '/res/send-number' },
  { path: '/v4/param/ada?q=query', only: 4 },
  { path: '/v4/send-status', only: 4 },
  { path: '/v4/json-status', only: 4 },
  { path: '/v4/redirect-args', only: 4 },
  { path: '/v4/del', method: 'DELETE', only: 4 },
  { path: '/static/hello.txt' },
  { path: '/static/hello.txt', method: 'HEAD' },
  { path: '/static/hello.txt', headers: { 'if-modified-since': MTIME.toUTCString() } },
  { path: '/static/page.html' },
  { path: '/static/dir/' },
  { path: '/static/dir' },
  { path: '/static/missing.txt' },
  { path: '/static-opts/page' },
  { path: '/static-opts/dir/' },
  { path: '/late-error' },
  { path: '/nowhere/at/all' },
  { path: '/nowhere', method: 'DELETE' },
];

/** The headers compared between implementations. */
export const HEADERS = [
  'content-type',
  'content-length',
  'location',
  'etag',
  'vary',
  'allow',
  'x-powered-by',
  'cache-control',
  'content-disposition',
  'last-modified',
  'link',
  'accept-ranges',
  'content-range',
  'x-content-type-options',
  'content-security-policy',
  'x-trail',
  'x-api-base',
  'x-multi',
  'x-one',
  'x-two',
  'x-file',
  'x-head',
  // node:http's persistent-connection lines, Keep-Alive with Express's 5 s.
  'connection',
  'keep-alive',
];

export interface Answer {
  status: number;
  headers: Record<string, string | null>;
  setCookie: string[];
  body: string;
}

/** Sends one request and records what the suite compares. */
export async function ask(port: number, r: Req): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
    method: r.method ?? 'GET',
    headers: r.headers,
    body: r.body,
    redirect: 'manual',
  });
  const headers: Record<string, string | null> = {};
  for (const h of HEADERS) headers[h] = res.headers.get(h);
  const body = await res.text();
  // Dates in cookies are relative to now; the Expires of a maxAge cookie is the only moving part.
  const setCookie = res.headers.getSetCookie();
  return { status: res.status, headers, setCookie, body };
}
