// Differential test: the same handlers on Express 5 and on Gale, compared on the wire (status, body and
// the headers each helper is about). Where Gale differs by design the case says so and compares what
// is meant to match.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import express from 'express';
import { gale } from 'gale';
import { HOST, type ParsedResponse, type RequestSpec, simpleRequest, T } from '../helpers.js';

const FILES = mkdtempSync(path.join(tmpdir(), 'gale-diff-'));
writeFileSync(path.join(FILES, 'report.pdf'), '%PDF-1.4 fake');
writeFileSync(path.join(FILES, 'notes.txt'), 'some notes\n');
writeFileSync(path.join(FILES, 'data.json'), '{"a":1}');

// The subset of the response API both frameworks share, as the handlers below use it.
interface Res {
  status(code: number): Res;
  send(body?: unknown): unknown;
  json(body: unknown): unknown;
  end(): unknown;
  set(name: string, value: string): Res;
  redirect(url: string): void;
  redirect(status: number, url: string): void;
  location(url: string): Res;
  type(t: string): Res;
  vary(field: string): Res;
  links(links: Record<string, string | string[]>): Res;
  attachment(name?: string): Res;
  download(path: string, name?: string): unknown;
  cookie(name: string, value: unknown, options?: Record<string, unknown>): Res;
  clearCookie(name: string, options?: Record<string, unknown>): Res;
  sendStatus(code: number): unknown;
  format(handlers: Record<string, () => unknown>): unknown;
}
type H = (req: unknown, res: Res) => void;

const EXPIRES = new Date(Date.UTC(2031, 5, 7, 8, 9, 10));
const bytes = (s: string) => Buffer.from(s);

const handlers: Record<string, H> = {
  '/redirect': (_q, r) => r.redirect('/target?a=1&b=2'),
  '/redirect-301': (_q, r) => r.redirect(301, 'http://example.com/ä b/<x>'),
  '/redirect-303': (_q, r) => r.redirect(303, '/already%20encoded'),
  '/location': (_q, r) => {
    r.location('/new place').status(201).send(bytes('created'));
  },
  '/cookie-attrs': (_q, r) => {
    r.cookie('a', 'v 1;x', {
      domain: 'example.com',
      path: '/p',
      expires: EXPIRES,
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      partitioned: true,
      priority: 'medium',
    })
      .cookie('b', 'plain')
      .cookie('c', '1', { sameSite: 'none', secure: true })
      .cookie('d', '1', { sameSite: 'strict' })
      .cookie('e', '1', { sameSite: true })
      .cookie('obj', { n: 1, s: 'x y' })
      .send(bytes('ok'));
  },
  '/cookie-max-age': (_q, r) => {
    r.cookie('m', '1', { maxAge: 3_600_000, httpOnly: true }).send(bytes('ok'));
  },
  '/cookie-signed': (_q, r) => {
    r.cookie('s', 'secret value', { signed: true }).cookie('so', { a: 1 }, { signed: true }).send(bytes('ok'));
  },
  '/clear-cookie': (_q, r) => {
    r.clearCookie('a').clearCookie('b', { path: '/p', domain: 'example.com', secure: true, maxAge: 5000 });
    r.send(bytes('cleared'));
  },
  '/attachment': (_q, r) => {
    r.attachment().send(bytes('x'));
  },
  '/attachment-pdf': (_q, r) => {
    r.attachment('dir/report.pdf').send(bytes('pdf'));
  },
  '/attachment-unicode': (_q, r) => {
    r.attachment('naïve “quotes”.txt').send(bytes('txt'));
  },
  '/attachment-text': (_q, r) => {
    // Express adds "; charset=utf-8" to any type when send() gets a string; Gale keeps the type set.
    r.attachment('plain.csv').send('a,b');
  },
  '/download': (_q, r) => {
    r.download(path.join(FILES, 'report.pdf'));
  },
  '/download-name': (_q, r) => {
    r.download(path.join(FILES, 'notes.txt'), 'my notes (1).txt');
  },
  '/download-json': (_q, r) => {
    r.download(path.join(FILES, 'data.json'), 'ünïcode.json');
  },
  '/type-json': (_q, r) => {
    r.type('json').send(bytes('{}'));
  },
  '/type-html-ext': (_q, r) => {
    r.type('.html').send(bytes('<p>'));
  },
  '/type-png': (_q, r) => {
    r.type('png').send(bytes('png'));
  },
  '/type-mime': (_q, r) => {
    r.type('text/markdown').send(bytes('# md'));
  },
  '/type-unknown': (_q, r) => {
    r.type('nosuchext').send(bytes('?'));
  },
  '/vary': (_q, r) => {
    r.vary('Origin').vary('Accept-Encoding').vary('origin').send(bytes('v'));
  },
  '/vary-star': (_q, r) => {
    r.vary('Origin').vary('*').vary('Cookie').send(bytes('v'));
  },
  '/links': (_q, r) => {
    r.links({ next: '/n', prev: '/p' })
      .links({ alt: ['/a1', '/a2'] })
      .send(bytes('l'));
  },
  '/etag-bytes': (_q, r) => {
    r.send(bytes('some bytes'));
  },
  '/etag-typed-string': (_q, r) => {
    r.type('text/plain; charset=utf-8').send('typed string ü');
  },
  '/etag-json': (_q, r) => {
    // Express sends "application/json; charset=utf-8", Gale "application/json" (RFC 8259: no charset param).
    r.json({ hello: 'world', n: [1, 2] });
  },
  '/etag-empty': (_q, r) => {
    r.type('txt').send('');
  },
  '/etag-created': (_q, r) => {
    r.status(201).send(bytes('created body'));
  },
  '/etag-404': (_q, r) => {
    r.status(404).send(bytes('missing body'));
  },
  '/etag-own': (_q, r) => {
    r.set('ETag', '"custom-1"').send(bytes('own tag'));
  },
  '/send-status-200': (_q, r) => r.sendStatus(200),
  '/send-status-404': (_q, r) => r.sendStatus(404),
  '/send-status-418': (_q, r) => r.sendStatus(418),
  '/send-status-204': (_q, r) => r.sendStatus(204),
  '/send-status-500': (_q, r) => r.sendStatus(500),
  '/format': (_q, r) => {
    r.format({
      json: () => r.json({ f: 'json' }),
      html: () => r.send(bytes('<p>html</p>')),
      'text/plain': () => r.send(bytes('text')),
    });
  },
};

let expressServer: Server;
let expressStrong: Server;
let galePort = 0;
let galeStrongPort = 0;
let expressPort = 0;
let expressStrongPort = 0;
const galeApps: ReturnType<typeof gale>[] = [];

function listen(app: express.Express): Promise<[Server, number]> {
  return new Promise((resolve) => {
    const server = app.listen(0, HOST, () => {
      const addr = server.address();
      resolve([server, typeof addr === 'object' && addr ? addr.port : 0]);
    });
  });
}

function makeExpress(etag: 'weak' | 'strong'): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('env', 'test'); // finalhandler stays quiet about the 406
  app.set('etag', etag);
  app.use((req, _res, next) => {
    (req as unknown as { secret: string }).secret = 'keyboard cat';
    next();
  });
  for (const [p, h] of Object.entries(handlers)) app.get(p, (req, res) => h(req, res as unknown as Res));
  return app;
}

async function makeGale(etag: 'weak' | 'strong'): Promise<number> {
  const quiet = { info() {}, warn() {}, error() {} };
  const app = gale({ cookieSecret: 'keyboard cat', etag, logger: quiet, requestLogging: false });
  for (const [p, h] of Object.entries(handlers)) app.get(p, (req, res) => h(req, res as unknown as Res));
  galeApps.push(app);
  return (await app.listen(0, HOST)).port;
}

before(async () => {
  [expressServer, expressPort] = await listen(makeExpress('weak'));
  [expressStrong, expressStrongPort] = await listen(makeExpress('strong'));
  galePort = await makeGale('weak');
  galeStrongPort = await makeGale('strong');
});

after(async () => {
  expressServer.closeAllConnections();
  expressStrong.closeAllConnections();
  await new Promise((r) => expressServer.close(r));
  await new Promise((r) => expressStrong.close(r));
  for (const a of galeApps) await a.close({ timeout: 1000 });
  rmSync(FILES, { recursive: true, force: true });
});

interface Compare {
  /** Headers whose values (all fields, in order) must be equal. */
  headers?: string[];
  /** Compare bodies (default true). */
  body?: boolean;
  /** Rewrites a header value before comparing (e.g. a time that moves). */
  normalize?: (name: string, value: string) => string;
}

async function both(spec: RequestSpec, strong = false): Promise<[ParsedResponse, ParsedResponse]> {
  const e = await simpleRequest(strong ? expressStrongPort : expressPort, spec);
  const g = await simpleRequest(strong ? galeStrongPort : galePort, spec);
  return [e, g];
}

async function same(spec: RequestSpec, c: Compare = {}, strong = false): Promise<[ParsedResponse, ParsedResponse]> {
  const [e, g] = await both(spec, strong);
  const what = `${spec.method ?? 'GET'} ${spec.path} ${JSON.stringify(spec.headers ?? {})}`;
  assert.equal(g.status, e.status, `${what}: status`);
  for (const h of c.headers ?? []) {
    const norm = (v: string) => (c.normalize ? c.normalize(h, v) : v);
    assert.deepEqual(g.getAll(h).map(norm), e.getAll(h).map(norm), `${what}: header ${h}`);
  }
  if (c.body !== false) assert.equal(g.text, e.text, `${what}: body`);
  return [e, g];
}

test('redirect: status, Location encoding, Vary and the negotiated body match Express', T, async () => {
  for (const accept of [undefined, 'text/html', 'text/plain', 'application/json', '*/*']) {
    const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
    for (const p of ['/redirect', '/redirect-301', '/redirect-303']) {
      await same({ path: p, headers }, { headers: ['location', 'vary', 'content-type', 'content-length', 'etag'] });
    }
  }
  await same({ method: 'HEAD', path: '/redirect' }, { headers: ['location', 'content-length'] });
});

test('location: the same encoding as Express', T, async () => {
  await same({ path: '/location' }, { headers: ['location'] });
});

test('cookie: every attribute, JSON values, signed values and clearCookie match Express', T, async () => {
  await same({ path: '/cookie-attrs' }, { headers: ['set-cookie'] });
  await same({ path: '/cookie-signed' }, { headers: ['set-cookie'] });
  await same({ path: '/clear-cookie' }, { headers: ['set-cookie'] });
  // Expires follows the clock: equal up to the second the two requests ran in.
  const [e, g] = await both({ path: '/cookie-max-age' });
  const strip = (v: string) => v.replace(/Expires=[^;]+/, 'Expires=<t>');
  assert.deepEqual(g.getAll('set-cookie').map(strip), e.getAll('set-cookie').map(strip));
  const when = (r: ParsedResponse) => Date.parse(/Expires=([^;]+)/.exec(r.getAll('set-cookie')[0] ?? '')?.[1] ?? '');
  assert.ok(Math.abs(when(g) - when(e)) <= 2000);
});

test('attachment and download: Content-Disposition and Content-Type match Express', T, async () => {
  for (const p of ['/attachment', '/attachment-pdf', '/attachment-unicode']) {
    await same({ path: p }, { headers: ['content-disposition', 'content-type', 'etag'] });
  }
  // By design: with a string body Express appends "; charset=utf-8" to the type the handler set.
  const [e, g] = await same({ path: '/attachment-text' }, { headers: ['content-disposition'] });
  assert.equal(e.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(g.get('content-type'), 'text/csv; charset=utf-8', 'mime-types already gives text/csv a charset');
  // Files: the engine's validators differ in form (ETag/Last-Modified/Cache-Control are its own); the
  // disposition, type, status and bytes match.
  for (const p of ['/download', '/download-name', '/download-json']) {
    await same({ path: p }, { headers: ['content-disposition', 'content-type'] });
  }
});

test('type: extensions and MIME types resolve as in Express', T, async () => {
  for (const p of ['/type-json', '/type-html-ext', '/type-png', '/type-mime', '/type-unknown']) {
    await same({ path: p }, { headers: ['content-type'] });
  }
});

test('vary and links: same header values as Express', T, async () => {
  await same({ path: '/vary' }, { headers: ['vary'] });
  await same({ path: '/vary-star' }, { headers: ['vary'] });
  await same({ path: '/links' }, { headers: ['link'] });
});

test('etag: identical weak tags, 304 on If-None-Match, the same non-304 cases', T, async () => {
  for (const p of ['/etag-bytes', '/etag-typed-string', '/etag-empty', '/etag-created', '/etag-404', '/etag-own']) {
    const [e] = await same({ path: p }, { headers: ['etag', 'content-type', 'content-length'] });
    const tag = e.get('etag') ?? '';
    for (const inm of [tag, tag.replace(/^W\//, ''), `"nope", ${tag}`, '"nope"', '*']) {
      await same(
        { path: p, headers: { 'If-None-Match': inm } },
        { headers: ['etag', 'content-type', 'content-length'] },
      );
      await same({ method: 'HEAD', path: p, headers: { 'If-None-Match': inm } }, { headers: ['etag'] });
    }
    await same({ path: p, headers: { 'If-None-Match': tag, 'Cache-Control': 'no-cache' } }, { headers: ['etag'] });
  }
  // JSON: same tag and body; the type differs by design (Gale omits the charset parameter).
  const [e, g] = await same({ path: '/etag-json' }, { headers: ['etag'] });
  assert.equal(e.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(g.get('content-type'), 'application/json');
  await same({ path: '/etag-json', headers: { 'If-None-Match': e.get('etag') ?? '' } }, { headers: ['etag'] });
});

test("etag 'strong': identical strong tags and 304s", T, async () => {
  for (const p of ['/etag-bytes', '/etag-typed-string', '/etag-json']) {
    const [e] = await same({ path: p }, { headers: ['etag'] }, true);
    assert.ok(!e.get('etag')?.startsWith('W/'));
    await same({ path: p, headers: { 'If-None-Match': e.get('etag') ?? '' } }, { headers: ['etag'] }, true);
  }
});

test('sendStatus: status, reason-phrase body, type and ETag match Express', T, async () => {
  for (const code of [200, 404, 418, 204, 500]) {
    await same({ path: `/send-status-${code}` }, { headers: ['content-type', 'content-length', 'etag'] });
  }
});

test('format: the handler chosen for an Accept header, its type and Vary match Express', T, async () => {
  for (const accept of [
    'application/json',
    'text/html',
    'text/plain',
    'text/*',
    '*/*',
    'text/html;q=0.5, application/json;q=0.4',
  ]) {
    await same({ path: '/format', headers: { Accept: accept } }, { headers: ['content-type', 'vary', 'etag'] });
  }
  // No acceptable type: both answer 406 (the bodies are each framework's own error page).
  await same({ path: '/format', headers: { Accept: 'image/png' } }, { body: false });
});
