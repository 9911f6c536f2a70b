// Response helpers: redirect, location, type, vary, links, attachment, download, cookie/clearCookie,
// ETag/304 for dynamic bodies, sendStatus, format, append. Exact statuses, headers and bodies on the wire.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { unsign } from 'cookie-signature';
import { ErrorCodes, GaleError, type Logger } from 'gale';
import type { App, GaleOptions, RequestSpec } from '../helpers.js';
import { buildRequest, parseResponses, rawRequest, show, simpleRequest, T, withApp } from '../helpers.js';

/** A logger that keeps what it is given (and keeps 500s off the test output). */
function memoryLogger(): Logger & { lines: { level: string; obj: unknown; msg?: string }[] } {
  const lines: { level: string; obj: unknown; msg?: string }[] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
}

/** The `etag` package's (and Express's) tag for a body. */
function tagOf(body: string | Buffer, weak = true): string {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const t = `"${b.length.toString(16)}-${createHash('sha1').update(b).digest('base64').slice(0, 27)}"`;
  return weak ? `W/${t}` : t;
}

const FILES = mkdtempSync(path.join(tmpdir(), 'gale-helpers-'));
writeFileSync(path.join(FILES, 'report.pdf'), '%PDF-1.4 fake');
writeFileSync(path.join(FILES, 'notes.txt'), 'some notes\n');
process.on('exit', () => rmSync(FILES, { recursive: true, force: true }));

function routes(app: App): void {
  app.get('/redirect', (_req, res) => res.redirect('/new?x=1'));
  app.get('/redirect-301', (_req, res) => res.redirect(301, 'https://example.com/a b/ü?q=<x>'));
  app.get('/redirect-encoded', (_req, res) => res.redirect(307, '/already%20encoded/%E2%82%AC'));
  app.get('/location', (_req, res) => {
    res.status(201).location('/items/42 x').json({ id: 42 });
  });
  app.get('/type/:t', (req, res) => res.type(req.params.t as string).send('x'));
  app.get('/content-type-alias', (_req, res) => res.contentType('json').send('{}'));
  app.get('/type-bad', (_req, res) => {
    try {
      res.type('text/x\u0001bad');
    } catch (e) {
      return res.type('text/plain').send(`threw ${(e as GaleError).code}`);
    }
    return res.send('accepted');
  });
  app.get('/type-late', (_req, res) => {
    res.type('text/plain').write('a');
    try {
      res.type('text/plain'); // known (cached) by now, and still refused once the head is out
    } catch (e) {
      return res.end(` threw ${(e as GaleError).code}`);
    }
    return res.end(' accepted');
  });
  app.get('/vary', (_req, res) => {
    res.vary('Accept-Encoding').vary('Origin').vary('accept-encoding').vary(['Cookie', 'Origin']).send('v');
  });
  app.get('/vary-star', (_req, res) => {
    res.vary('Origin').vary('*').send('v');
  });
  app.get('/links', (_req, res) => {
    res.links({ next: '/p?page=2', last: '/p?page=5' }).links({ pages: ['/p?page=1', '/p?page=2'] });
    res.end();
  });
  app.get('/attachment', (_req, res) => res.attachment().send('data'));
  app.get('/attachment-name', (_req, res) => res.attachment('reports/2024/report.pdf').send('pdf'));
  app.get('/attachment-unicode', (_req, res) => res.attachment('résumé €.txt').send('cv'));
  app.get('/download', (_req, res) => res.download(path.join(FILES, 'report.pdf')));
  app.get('/download-name', (_req, res) => res.download(path.join(FILES, 'notes.txt'), 'my notes.txt'));
  app.get('/download-root', (_req, res) =>
    res.download('notes.txt', { root: FILES, headers: { 'x-extra': '1', 'content-disposition': 'inline' } }),
  );
  app.get('/download-missing', (_req, res) => res.download(path.join(FILES, 'nope.txt')));
  app.get('/download-escape', (_req, res) => res.download('../../etc/passwd', 'x', { root: FILES }));
  app.get('/cookie-all', (_req, res) => {
    res
      .cookie('full', 'v a;l', {
        domain: 'example.com',
        path: '/app',
        expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
        secure: true,
        httpOnly: true,
        sameSite: 'strict',
        partitioned: true,
        priority: 'high',
      })
      .cookie('plain', 'p')
      .cookie('lax', '1', { sameSite: 'lax' })
      .cookie('none', '1', { sameSite: 'none', secure: true })
      .cookie('samesite-true', '1', { sameSite: true })
      .cookie('obj', { a: 1, b: [2] })
      .send('ok');
  });
  app.get('/cookie-maxage', (_req, res) => res.cookie('m', '1', { maxAge: 90_500 }).send('ok'));
  app.get('/cookie-signed', (_req, res) => res.cookie('s', 'hello', { signed: true, httpOnly: true }).send('ok'));
  app.get('/cookie-raw-encode', (_req, res) =>
    res.cookie('r', 'a b', { encode: (v) => v.replace(' ', '+') }).send('ok'),
  );
  app.get('/cookie-bad-name', (_req, res) => {
    try {
      res.cookie('bad name', '1');
    } catch (err) {
      return res.status(400).json({ code: (err as GaleError).code, gale: err instanceof GaleError });
    }
    return res.send('no error');
  });
  app.get('/clear-cookie', (_req, res) =>
    res.clearCookie('sid').clearCookie('scoped', { path: '/admin', domain: 'example.com', maxAge: 1000 }).send('bye'),
  );
  app.get('/append', (_req, res) => {
    res.append('x-list', 'a').append('X-List', ['b', 'c']).header('x-one', '1').append('x-one', '2');
    res.json({ got: res.get('x-list') });
  });
  app.get('/text', (_req, res) => res.send('hello etag'));
  app.get('/json', () => ({ hello: 'etag' }));
  app.get('/bytes', (_req, res) => res.send(Buffer.from([1, 2, 3, 4])));
  app.post('/text', (_req, res) => res.send('hello etag'));
  app.get('/own-etag', (_req, res) => res.header('ETag', '"v1"').send('versioned'));
  app.get('/created', (_req, res) => res.status(201).send('hello etag'));
  app.get('/not-found-send', (_req, res) => res.status(404).send('missing'));
  app.get('/streamed', (_req, res) => {
    res.write('a');
    res.end('b');
  });
  app.get('/last-modified', (_req, res) => {
    res.header('Last-Modified', 'Wed, 01 Jan 2025 00:00:00 GMT').send('lm');
  });
  app.get('/status/:code', (req, res) => res.sendStatus(Number(req.params.code)));
  app.get('/format', (_req, res) =>
    res.format({
      'application/json': () => ({ kind: 'json' }),
      html: () => '<p>html</p>',
      text: (_req, r) => r.send('text'),
    }),
  );
  app.get('/format-default', (_req, res) =>
    res.format({ json: () => ({ kind: 'json' }), default: (_req, r) => r.status(200).send('fallback') }),
  );
  app.get('/format-strict', (_req, res) => res.format({ json: () => ({ kind: 'json' }) }));
}

async function start(t: Parameters<typeof withApp>[0], opts: GaleOptions = {}) {
  const logger = memoryLogger();
  const s = await withApp(t, routes, { logger, requestLogging: false, cookieSecret: 'tobi', ...opts });
  return { ...s, logger };
}

test('redirect(url): 302, encoded Location, Vary: Accept, text body by default', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/redirect' });
  assert.equal(r.status, 302);
  assert.equal(r.get('location'), '/new?x=1');
  assert.equal(r.get('vary'), 'Accept');
  assert.equal(r.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.text, 'Found. Redirecting to /new?x=1');
  assert.equal(r.get('content-length'), String(r.body.length));
  assert.equal(r.get('etag'), undefined);
});

test(
  'redirect(status, url): the status, percent-encoding, HTML body (escaped) when HTML is preferred',
  T,
  async (t) => {
    const { port } = await start(t);
    const r = await simpleRequest(port, { path: '/redirect-301', headers: { Accept: 'text/html' } });
    assert.equal(r.status, 301);
    assert.equal(r.get('location'), 'https://example.com/a%20b/%C3%BC?q=%3Cx%3E');
    assert.equal(r.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(
      r.text,
      '<!DOCTYPE html><head><title>Moved Permanently</title></head><body><p>Moved Permanently. Redirecting to https://example.com/a%20b/%C3%BC?q=%3Cx%3E</p></body>',
    );
    const enc = await simpleRequest(port, { path: '/redirect-encoded' });
    assert.equal(enc.status, 307);
    assert.equal(enc.get('location'), '/already%20encoded/%E2%82%AC', 'existing %XX kept as is');
    assert.equal(enc.text, 'Temporary Redirect. Redirecting to /already%20encoded/%E2%82%AC');
  },
);

test('redirect: an Accept with neither text nor HTML gets an empty body; HEAD gets no body', T, async (t) => {
  const { port } = await start(t);
  const json = await simpleRequest(port, { path: '/redirect', headers: { Accept: 'application/json' } });
  assert.equal(json.status, 302);
  assert.equal(json.get('location'), '/new?x=1');
  assert.equal(json.get('content-type'), undefined);
  assert.equal(json.get('content-length'), '0');
  assert.equal(json.text, '');
  const head = await simpleRequest(port, { method: 'HEAD', path: '/redirect' });
  assert.equal(head.status, 302);
  assert.equal(head.get('location'), '/new?x=1');
  assert.equal(head.get('content-length'), String('Found. Redirecting to /new?x=1'.length));
  assert.equal(head.body.length, 0);
});

test('location(): sets an encoded Location on any response', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/location' });
  assert.equal(r.status, 201);
  assert.equal(r.get('location'), '/items/42%20x');
  assert.equal(r.text, '{"id":42}');
});

test('type(): extensions and names through mime-types, MIME types with charset for text', T, async (t) => {
  const { port } = await start(t);
  const cases: [string, string][] = [
    ['json', 'application/json; charset=utf-8'],
    ['.html', 'text/html; charset=utf-8'],
    ['html', 'text/html; charset=utf-8'],
    ['png', 'image/png'],
    ['csv', 'text/csv; charset=utf-8'],
    ['text%2Fplain', 'text/plain; charset=utf-8'],
    ['application%2Fx-custom', 'application/x-custom'],
    ['no-such-ext', 'application/octet-stream'],
  ];
  // Twice: the second time each type is one res.type has seen (kept, not looked up again).
  for (const pass of [1, 2]) {
    for (const [param, expected] of cases) {
      const r = await simpleRequest(port, { path: `/type/${param}` });
      assert.equal(r.status, 200);
      assert.equal(r.get('content-type'), expected, `${param}, pass ${pass}`);
      assert.equal(r.text, 'x');
    }
  }
  // A type that cannot be a header value is refused every time, never kept; a known one after the head is out too.
  for (let i = 0; i < 2; i++) {
    assert.equal((await simpleRequest(port, { path: '/type-bad' })).text, `threw ${ErrorCodes.INVALID_HEADER}`);
  }
  assert.equal((await simpleRequest(port, { path: '/type-late' })).text, `a threw ${ErrorCodes.HEADERS_SENT}`);
  const alias = await simpleRequest(port, { path: '/content-type-alias' });
  assert.equal(alias.get('content-type'), 'application/json; charset=utf-8');
});

test('vary(): fields added once, case-insensitively; * absorbs the rest', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/vary' });
  assert.equal(r.get('vary'), 'Accept-Encoding, Origin, Cookie');
  const star = await simpleRequest(port, { path: '/vary-star' });
  assert.equal(star.get('vary'), '*');
});

test('links(): Link header entries accumulate', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/links' });
  assert.equal(
    r.get('link'),
    '</p?page=2>; rel="next", </p?page=5>; rel="last", </p?page=1>; rel="pages", </p?page=2>; rel="pages"',
  );
});

test('attachment(): Content-Disposition, and the type of the file name', T, async (t) => {
  const { port } = await start(t);
  const bare = await simpleRequest(port, { path: '/attachment' });
  assert.equal(bare.get('content-disposition'), 'attachment');
  assert.equal(bare.get('content-type'), 'text/plain; charset=utf-8');
  const named = await simpleRequest(port, { path: '/attachment-name' });
  assert.equal(named.get('content-disposition'), 'attachment; filename=report.pdf');
  assert.equal(named.get('content-type'), 'application/pdf');
  assert.equal(named.text, 'pdf');
  const uni = await simpleRequest(port, { path: '/attachment-unicode' });
  assert.equal(
    uni.get('content-disposition'),
    `attachment; filename="r?sum? ?.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%82%AC.txt`,
  );
  assert.equal(uni.get('content-type'), 'text/plain; charset=utf-8');
});

test('download(): the file through sendFile with Content-Disposition; name, root and headers options', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/download' });
  assert.equal(r.status, 200);
  assert.equal(r.get('content-disposition'), 'attachment; filename=report.pdf');
  assert.equal(r.get('content-type'), 'application/pdf');
  assert.equal(r.text, '%PDF-1.4 fake');
  assert.ok(r.get('etag'), 'file validators from the engine');
  const named = await simpleRequest(port, { path: '/download-name' });
  assert.equal(named.get('content-disposition'), 'attachment; filename="my notes.txt"');
  assert.equal(named.text, 'some notes\n');
  const rooted = await simpleRequest(port, { path: '/download-root' });
  assert.equal(rooted.status, 200);
  assert.equal(rooted.get('content-disposition'), 'attachment; filename=notes.txt', 'option cannot override it');
  assert.equal(rooted.get('x-extra'), '1');
  assert.equal(rooted.text, 'some notes\n');
  const missing = await simpleRequest(port, { path: '/download-missing' });
  assert.equal(missing.status, 404);
  assert.equal(missing.get('content-disposition'), undefined, 'an error answer is not a download');
  const escaped = await simpleRequest(port, { path: '/download-escape' });
  assert.equal(escaped.status, 404);
  assert.equal(escaped.get('content-disposition'), undefined);
});

test('cookie(): every attribute, defaults (Path=/), encoding, JSON values, one Set-Cookie each', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/cookie-all' });
  assert.deepEqual(r.getAll('set-cookie'), [
    'full=v%20a%3Bl; Domain=example.com; Path=/app; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; Partitioned; Priority=High; SameSite=Strict',
    'plain=p; Path=/',
    'lax=1; Path=/; SameSite=Lax',
    'none=1; Path=/; Secure; SameSite=None',
    'samesite-true=1; Path=/; SameSite=Strict',
    `obj=${encodeURIComponent('j:{"a":1,"b":[2]}')}; Path=/`,
  ]);
  const raw = await simpleRequest(port, { path: '/cookie-raw-encode' });
  assert.deepEqual(raw.getAll('set-cookie'), ['r=a+b; Path=/']);
});

test('cookie(): maxAge in ms gives Max-Age in seconds and a matching Expires', T, async (t) => {
  const { port } = await start(t);
  const before = Date.now();
  const r = await simpleRequest(port, { path: '/cookie-maxage' });
  const [line] = r.getAll('set-cookie');
  const m = /^m=1; Max-Age=90; Path=\/; Expires=(.+)$/.exec(line ?? '');
  assert.ok(m, `unexpected cookie ${line}`);
  const expires = Date.parse(m[1] as string);
  assert.ok(Math.abs(expires - (before + 90_500)) < 3000, `Expires ${m[1]} is not ~90.5 s from now`);
});

test('cookie({ signed }): s: + cookie-signature with cookieSecret; without a secret it throws', async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/cookie-signed' });
  const [line] = r.getAll('set-cookie');
  const m = /^s=([^;]+); Path=\/; HttpOnly$/.exec(line ?? '');
  assert.ok(m, `unexpected cookie ${line}`);
  const value = decodeURIComponent(m[1] as string);
  assert.ok(value.startsWith('s:'));
  assert.equal(unsign(value.slice(2), 'tobi'), 'hello');
  assert.equal(unsign(value.slice(2), 'other'), false);

  const rotated = await start(t, { cookieSecret: ['new', 'old'] });
  const r2 = await simpleRequest(rotated.port, { path: '/cookie-signed' });
  const v2 = decodeURIComponent(/^s=([^;]+);/.exec(r2.getAll('set-cookie')[0] ?? '')?.[1] ?? '');
  assert.equal(unsign(v2.slice(2), 'new'), 'hello', 'the first secret signs');

  const none = await start(t, { cookieSecret: undefined });
  const r3 = await simpleRequest(none.port, { path: '/cookie-signed' });
  assert.equal(r3.status, 500);
  assert.equal(r3.getAll('set-cookie').length, 0);
  const logged = none.logger.lines.find((l) => l.level === 'error');
  assert.equal((logged?.obj as GaleError | undefined)?.code, ErrorCodes.COOKIE_SECRET);
});

test('cookie(): an invalid name throws GaleError GALE_ERR_INVALID_COOKIE', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/cookie-bad-name' });
  assert.equal(r.status, 400);
  assert.deepEqual(JSON.parse(r.text), { code: 'GALE_ERR_INVALID_COOKIE', gale: true });
});

test('clearCookie(): empty value, Expires in 1970, path/domain kept, maxAge ignored', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/clear-cookie' });
  assert.deepEqual(r.getAll('set-cookie'), [
    'sid=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    'scoped=; Domain=example.com; Path=/admin; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
  ]);
  assert.equal(r.text, 'bye');
});

test('append() and get(): values accumulate into separate header lines', T, async (t) => {
  const { port } = await start(t);
  const r = await simpleRequest(port, { path: '/append' });
  assert.deepEqual(r.getAll('x-list'), ['a', 'b', 'c']);
  assert.deepEqual(r.getAll('x-one'), ['1', '2']);
  assert.deepEqual(JSON.parse(r.text), { got: ['a', 'b', 'c'] });
});

test('etag off by default; etag: "weak" tags send/json/bytes (etag-package format), not streams', T, async (t) => {
  const plain = await start(t);
  assert.equal((await simpleRequest(plain.port, { path: '/text' })).get('etag'), undefined);
  const { port } = await start(t, { etag: 'weak' });
  const text = await simpleRequest(port, { path: '/text' });
  assert.equal(text.get('etag'), tagOf('hello etag'));
  const json = await simpleRequest(port, { path: '/json' });
  assert.equal(json.get('etag'), tagOf('{"hello":"etag"}'));
  const bytes = await simpleRequest(port, { path: '/bytes' });
  assert.equal(bytes.get('etag'), tagOf(Buffer.from([1, 2, 3, 4])));
  const other = await simpleRequest(port, { path: '/not-found-send' });
  assert.equal(other.status, 404);
  assert.equal(other.get('etag'), tagOf('missing'), 'as Express: any status sent with send() is tagged');
  const streamed = await simpleRequest(port, { path: '/streamed' });
  assert.equal(streamed.get('etag'), undefined);
  assert.equal(streamed.text, 'ab');
});

test('etag: If-None-Match that matches → 304 with the ETag, no body, no Content-Type', T, async (t) => {
  const { port } = await start(t, { etag: 'weak' });
  const tag = tagOf('hello etag');
  for (const inm of [tag, tag.slice(2), `"other", ${tag}`, '*']) {
    const r = await simpleRequest(port, { path: '/text', headers: { 'If-None-Match': inm } });
    assert.equal(r.status, 304, `If-None-Match: ${inm}`);
    assert.equal(r.get('etag'), tag);
    assert.equal(r.get('content-type'), undefined);
    assert.equal(r.get('content-length'), undefined);
    assert.equal(r.body.length, 0);
  }
  const head = await simpleRequest(port, { method: 'HEAD', path: '/text', headers: { 'If-None-Match': tag } });
  assert.equal(head.status, 304);
  const json = await simpleRequest(port, { path: '/json', headers: { 'If-None-Match': tagOf('{"hello":"etag"}') } });
  assert.equal(json.status, 304);
  const created = await simpleRequest(port, { path: '/created', headers: { 'If-None-Match': tag } });
  assert.equal(created.status, 304, 'any 2xx can become 304, as Express');
});

test(
  'etag: pipelined requests with and without validators, in any letter case, each answered as its own',
  T,
  async (t) => {
    // The engine tells JS with each request whether it has If-None-Match or If-Modified-Since; the answers must not mix.
    const { port } = await start(t, { etag: 'weak' });
    const tag = tagOf('hello etag');
    const specs: RequestSpec[] = [
      { path: '/text' },
      { path: '/text', headers: { 'IF-NONE-MATCH': tag } },
      { path: '/text', headers: { 'X-Other': 'x' } },
      { path: '/text', headers: { 'if-none-match': tag } },
      { path: '/text', headers: { 'If-Modified-Since': 'Thu, 02 Jan 2025 00:00:00 GMT' } },
      { path: '/text', headers: { Connection: 'close' } },
    ];
    const r = await rawRequest(port, Buffer.concat(specs.map((s) => buildRequest(s))), {
      waitForClose: true,
      timeoutMs: 5000,
    });
    const statuses = parseResponses(r.data).map((x) => x.status);
    assert.deepEqual(statuses, [200, 304, 200, 304, 200, 200], show(r.data));
  },
);

test('etag: no 304 for a different tag, POST, Cache-Control: no-cache, or a 404', T, async (t) => {
  const { port } = await start(t);
  const tag = tagOf('hello etag');
  const cases: RequestSpec[] = [
    { path: '/text', headers: { 'If-None-Match': '"nope"' } },
    { path: '/text', method: 'POST', headers: { 'If-None-Match': tag } },
    { path: '/text', headers: { 'If-None-Match': tag, 'Cache-Control': 'no-cache' } },
    { path: '/not-found-send', headers: { 'If-None-Match': tagOf('missing') } },
  ];
  for (const c of cases) {
    const r = await simpleRequest(port, c);
    assert.notEqual(r.status, 304, JSON.stringify(c));
    assert.ok(r.body.length > 0);
  }
});

test('etag: a tag set by the handler is kept and compared; Last-Modified alone works too', T, async (t) => {
  const { port } = await start(t);
  const own = await simpleRequest(port, { path: '/own-etag' });
  assert.equal(own.get('etag'), '"v1"');
  const hit = await simpleRequest(port, { path: '/own-etag', headers: { 'If-None-Match': 'W/"v1"' } });
  assert.equal(hit.status, 304);
  const noEtag = await start(t, { etag: false });
  const lm = await simpleRequest(noEtag.port, {
    path: '/last-modified',
    headers: { 'If-Modified-Since': 'Thu, 02 Jan 2025 00:00:00 GMT' },
  });
  assert.equal(lm.status, 304);
  assert.equal(lm.get('etag'), undefined);
  const stale = await simpleRequest(noEtag.port, {
    path: '/last-modified',
    headers: { 'If-Modified-Since': 'Tue, 31 Dec 2024 00:00:00 GMT' },
  });
  assert.equal(stale.status, 200);
  assert.equal(stale.text, 'lm');
});

test("etag: 'strong' drops W/; false sends none and never 304s", T, async (t) => {
  const strong = await start(t, { etag: 'strong' });
  const r = await simpleRequest(strong.port, { path: '/text' });
  assert.equal(r.get('etag'), tagOf('hello etag', false));
  const hit = await simpleRequest(strong.port, { path: '/text', headers: { 'If-None-Match': tagOf('hello etag') } });
  assert.equal(hit.status, 304, 'If-None-Match uses the weak comparison');
  const off = await start(t, { etag: false });
  const r2 = await simpleRequest(off.port, { path: '/text', headers: { 'If-None-Match': '*' } });
  assert.equal(r2.status, 200);
  assert.equal(r2.get('etag'), undefined);
  const setting = await withApp(
    t,
    (app) => {
      app.set('etag', false);
      app.get('/', () => 'x');
    },
    { logger: memoryLogger(), requestLogging: false },
  );
  assert.equal((await simpleRequest(setting.port, { path: '/' })).get('etag'), undefined, "app.set('etag', false)");
});

test('sendStatus(): status with its reason phrase as text/plain', T, async (t) => {
  const { port } = await start(t);
  const cases: [number, string][] = [
    [200, 'OK'],
    [403, 'Forbidden'],
    [418, "I'm a Teapot"],
    [503, 'Service Unavailable'],
    [599, '599'],
  ];
  for (const [code, body] of cases) {
    const r = await simpleRequest(port, { path: `/status/${code}` });
    assert.equal(r.status, code);
    assert.equal(r.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(r.text, body);
  }
  const noContent = await simpleRequest(port, { path: '/status/204' });
  assert.equal(noContent.status, 204);
  assert.equal(noContent.body.length, 0);
});

test('format(): picks the handler by Accept, sets its type and Vary; 406 or default otherwise', T, async (t) => {
  const { port } = await start(t);
  const json = await simpleRequest(port, { path: '/format', headers: { Accept: 'application/json' } });
  assert.equal(json.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(json.get('vary'), 'Accept');
  assert.equal(json.text, '{"kind":"json"}');
  const html = await simpleRequest(port, { path: '/format', headers: { Accept: 'text/html;q=0.9, text/plain;q=0.5' } });
  assert.equal(html.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(html.text, '<p>html</p>');
  const text = await simpleRequest(port, { path: '/format', headers: { Accept: 'text/plain' } });
  assert.equal(text.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(text.text, 'text');
  const any = await simpleRequest(port, { path: '/format' });
  assert.equal(any.text, '{"kind":"json"}', 'no Accept: the first key');
  const none = await simpleRequest(port, { path: '/format-strict', headers: { Accept: 'image/png' } });
  assert.equal(none.status, 406);
  assert.equal(none.text, 'Not Acceptable');
  assert.equal(none.get('vary'), 'Accept');
  const dflt = await simpleRequest(port, { path: '/format-default', headers: { Accept: 'image/png' } });
  assert.equal(dflt.status, 200);
  assert.equal(dflt.text, 'fallback');
});
