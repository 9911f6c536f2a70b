// Differential test of the request side: the same handlers run on Express 5 (with cookie-parser and
// its body parsers) and on Gale configured the same way; every request must get the same status,
// body and selected headers from both. Where Express differs by design, the test says so and
// asserts each side's own answer instead.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import cookieParser from 'cookie-parser';
import signature from 'cookie-signature';
import express from 'express';
import { type GaleOptions, gale } from 'gale';

const T = { timeout: 30_000 } as const;

/** The request API both frameworks share, as the handlers below use it. */
interface Req {
  query: unknown;
  cookies: unknown;
  signedCookies: unknown;
  ip: string | undefined;
  ips: string[];
  host: string | undefined;
  hostname: string | undefined;
  protocol: string;
  secure: boolean;
  subdomains: string[];
  fresh: boolean;
  stale: boolean;
  accepts(types?: string[]): unknown;
  acceptsEncodings(types?: string[]): unknown;
  acceptsCharsets(types?: string[]): unknown;
  acceptsLanguages(types?: string[]): unknown;
  is(types: string[]): unknown;
}
interface Res {
  json(v: unknown): unknown;
  set(k: string, v: string): unknown;
  send(v: string): unknown;
  status(n: number): Res;
}
type Handler = (req: Req, res: Res) => unknown;

/** Handlers written once, mounted on both apps. */
const handlers: Record<string, Handler> = {
  '/query': (req, res) => res.json(req.query),
  '/cookies': (req, res) => res.json({ cookies: req.cookies, signed: req.signedCookies }),
  '/net': (req, res) =>
    res.json({
      ip: req.ip,
      ips: req.ips,
      host: req.host ?? null,
      hostname: req.hostname ?? null,
      protocol: req.protocol,
      secure: req.secure,
      subdomains: req.subdomains,
    }),
  '/negotiate': (req, res) =>
    res.json({
      types: req.accepts(),
      best: req.accepts(['json', 'html', 'text']),
      encodings: req.acceptsEncodings(),
      encoding: req.acceptsEncodings(['gzip', 'br']),
      charset: req.acceptsCharsets(['utf-8', 'iso-8859-1']),
      languages: req.acceptsLanguages(),
      language: req.acceptsLanguages(['en', 'fr', 'de']),
      is: req.is(['json', 'text/*', 'urlencoded']),
    }),
  '/fresh': (req, res) => {
    res.set('ETag', '"v1"');
    res.set('Last-Modified', 'Sat, 01 Jan 2022 00:00:00 GMT');
    res.set('X-Fresh', String(req.fresh));
    res.set('X-Stale', String(req.stale));
    // Express defaults strings to text/html, Gale to text/plain: name the type
    res.set('Content-Type', 'text/plain; charset=utf-8');
    return res.send('the body');
  },
};

interface Shared {
  trustProxy?: GaleOptions['trustProxy'];
  query?: 'simple' | 'extended';
  secrets?: string[];
  json?: { limit?: number; strict?: boolean };
  urlencoded?: { extended?: boolean; parameterLimit?: number; depth?: number };
  subdomainOffset?: number;
}

/** Express 5 configured with `o` (settings, cookie-parser, express.json/urlencoded/text). */
function expressApp(o: Shared) {
  const app = express();
  app.set('trust proxy', o.trustProxy ?? false);
  app.set('query parser', o.query ?? 'simple');
  app.set('subdomain offset', o.subdomainOffset ?? 2);
  app.use(cookieParser(o.secrets));
  for (const [path, h] of Object.entries(handlers)) {
    app.all(path, h as unknown as express.RequestHandler);
  }
  app.post(
    '/body',
    express.json(o.json),
    express.urlencoded({ extended: false, ...o.urlencoded }),
    express.text(),
    (req, res) => {
      res.json({ type: typeof req.body, body: req.body ?? null });
    },
  );
  app.use((err: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: unknown) => {
    res.status(err.status ?? 500).send(err.message);
  });
  return app;
}

/** Gale configured with the same `o`. */
function galeApp(o: Shared) {
  const app = gale({
    trustProxy: o.trustProxy,
    query: o.query,
    cookieSecret: o.secrets,
    json: o.json,
    urlencoded: o.urlencoded,
    subdomainOffset: o.subdomainOffset,
    etag: 'weak', // Express's default
  });
  for (const [path, h] of Object.entries(handlers)) app.all(path, h as never);
  app.post('/body', async (req, res) => {
    const body = await req.parseBody();
    res.json({ type: typeof body, body: body ?? null });
  });
  app.onError((err, _req, res) => {
    const e = err as { status?: number; message: string };
    res.status(e.status ?? 500).send(e.message);
  });
  return app;
}

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}
interface Got {
  status: number;
  body: string;
  headers: Record<string, string | undefined>;
}

// Content-Type is compared without parameters: Gale's res.json() sends application/json without
// `charset=utf-8` (JSON has no charset parameter), a response-side choice outside this test.
const SELECTED = ['content-type', 'x-fresh', 'x-stale', 'etag', 'last-modified'];

/** node:http (not fetch) so Host and other forbidden headers can be set. */
function send(port: number, r: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: r.method ?? 'GET',
        path: r.path,
        // a fixed Host unless the request names one: the two servers listen on different ports
        headers: { Host: 'app.test', ...r.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: Record<string, string | undefined> = {};
          for (const h of SELECTED) {
            const v = res.headers[h];
            headers[h] = Array.isArray(v) ? v.join(', ') : v;
            if (h === 'content-type') headers[h] = v === undefined ? v : String(v).split(';')[0];
          }
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Runs `requests` against both apps built from `o`; returns the pairs of answers. */
async function both(o: Shared, requests: Sent[]): Promise<Array<{ sent: Sent; express: Got; gale: Got }>> {
  const server = expressApp(o).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const g = galeApp(o);
  const { port: gport } = await g.listen(0, '127.0.0.1');
  try {
    const eport = (server.address() as AddressInfo).port;
    const out = [];
    for (const sent of requests) {
      out.push({ sent, express: await send(eport, sent), gale: await send(gport, sent) });
    }
    return out;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await g.close({ timeout: 1000 });
  }
}

/** Status, body and the selected headers must be equal. */
async function same(o: Shared, requests: Sent[]): Promise<void> {
  for (const { sent, express: e, gale: g } of await both(o, requests)) {
    assert.deepEqual(g, e, `${sent.method ?? 'GET'} ${sent.path} ${JSON.stringify(sent.headers ?? {})}`);
  }
}

// ---------------------------------------------------------------------------------------------
// query

const QUERIES = [
  '/query',
  '/query?a=1&a=2&b[c]=3&d=%20x+y&e&=f',
  '/query?bad=%ZZ&latin=%E9&utf=%C3%A9&plus=a+b',
  '/query?user[name]=ada&user[langs][]=en&user[langs][]=fr',
  '/query?a[1]=x&a[0]=y&arr[25]=z&arr[2]=w',
  '/query?deep[a][b][c][d][e][f][g]=1',
  '/query?dot.key=1&a[]=1&a[]=2&a[]=3',
];

test('query parser: simple', T, async () => {
  await same(
    { query: 'simple' },
    QUERIES.map((path) => ({ path })),
  );
});

test('query parser: extended', T, async () => {
  await same(
    { query: 'extended' },
    QUERIES.map((path) => ({ path })),
  );
});

// ---------------------------------------------------------------------------------------------
// cookies

test('cookies and signed cookies (cookie-parser with several secrets)', T, async () => {
  const secrets = ['current', 'previous'];
  const signed = (v: string, s: string) => encodeURIComponent(`s:${signature.sign(v, s)}`);
  const cookies = [
    'a=1; b=hello%20world; c="quoted"; a=second',
    `user=${signed('alice', 'current')}; old=${signed('bob', 'previous')}; evil=${signed('x', 'guess')}; plain=1`,
    'broken=%E0%A4%A; ok=1',
    '',
  ];
  const requests = cookies.map((c): Sent => ({ path: '/cookies', headers: c ? { Cookie: c } : {} }));
  await same({ secrets }, requests);
  // No secret and no signed cookie: as cookie-parser() without one. (A signed cookie with no secret to verify it
  // makes Gale's req.signedCookies refuse: tests/api/request-helpers.test.ts.)
  await same(
    {},
    requests.filter((r) => !String(r.headers?.Cookie ?? '').includes('s%3A')),
  );
});

// ---------------------------------------------------------------------------------------------
// ip, ips, host, hostname, protocol, secure, subdomains

const NET_REQUESTS: Sent[] = [
  { path: '/net' },
  { path: '/net', headers: { Host: 'shop.eu.example.com:8080' } },
  {
    path: '/net',
    headers: {
      Host: 'internal:8080',
      'X-Forwarded-For': '203.0.113.9, 198.51.100.1, 10.0.0.7',
      'X-Forwarded-Host': 'a.b.example.com',
      'X-Forwarded-Proto': 'https',
    },
  },
  {
    path: '/net',
    headers: {
      Host: 'internal',
      'X-Forwarded-For': '2001:db8::1, fd00::2',
      'X-Forwarded-Host': 'one.example.org, two.example.org',
      'X-Forwarded-Proto': 'HTTPS , http',
    },
  },
  { path: '/net', headers: { Host: '[::1]:3000', 'X-Forwarded-For': 'garbage, 10.1.2.3' } },
  { path: '/net', headers: { Host: '192.168.1.10:80', 'X-Forwarded-Proto': 'https' } },
];

for (const trustProxy of [
  false,
  true,
  1,
  2,
  'loopback',
  'loopback, uniquelocal',
  ['10.0.0.0/8', '127.0.0.1'],
  ['10.0.0.0/8'],
  (addr: string, hop: number) => addr === '127.0.0.1' || hop < 1,
] as const) {
  test(
    `ip/ips/host/hostname/protocol/subdomains with trust proxy ${typeof trustProxy === 'function' ? 'function' : JSON.stringify(trustProxy)}`,
    T,
    async () => {
      await same({ trustProxy: trustProxy as Shared['trustProxy'] }, NET_REQUESTS);
    },
  );
}

test('subdomain offset', T, async () => {
  await same({ subdomainOffset: 1 }, [{ path: '/net', headers: { Host: 'a.b.example.com' } }]);
});

// ---------------------------------------------------------------------------------------------
// accepts, is, fresh

test('accepts*, is', T, async () => {
  await same({}, [
    { path: '/negotiate' },
    {
      path: '/negotiate',
      headers: {
        Accept: 'text/html;q=0.9, application/json, */*;q=0.1',
        'Accept-Encoding': 'gzip;q=0.5, br',
        'Accept-Charset': 'iso-8859-1, utf-8;q=0.2',
        'Accept-Language': 'fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5',
      },
    },
    {
      path: '/negotiate',
      headers: { Accept: 'image/png', 'Accept-Encoding': 'identity;q=0', 'Accept-Language': 'de' },
    },
    { method: 'POST', path: '/negotiate', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' },
    { method: 'POST', path: '/negotiate', headers: { 'Content-Type': 'text/csv' }, body: 'a,b' },
    { method: 'POST', path: '/negotiate', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a' },
    { method: 'POST', path: '/negotiate', headers: { 'Content-Type': 'image/png' }, body: 'x' },
  ]);
});

test('fresh/stale (and the 304 both send for a fresh GET)', T, async () => {
  await same({}, [
    { path: '/fresh' },
    { path: '/fresh', headers: { 'If-None-Match': '"v1"' } },
    { path: '/fresh', headers: { 'If-None-Match': 'W/"v1", "v0"' } },
    { path: '/fresh', headers: { 'If-None-Match': '"v2"' } },
    { path: '/fresh', headers: { 'If-None-Match': '*' } },
    { path: '/fresh', headers: { 'If-Modified-Since': 'Sun, 02 Jan 2022 00:00:00 GMT' } },
    { path: '/fresh', headers: { 'If-Modified-Since': 'Fri, 31 Dec 2021 00:00:00 GMT' } },
    { path: '/fresh', headers: { 'If-None-Match': '"v1"', 'Cache-Control': 'no-cache' } },
    { method: 'POST', path: '/fresh', headers: { 'If-None-Match': '"v1"' } },
  ]);
});

// ---------------------------------------------------------------------------------------------
// bodies

const json = (body: string | Buffer, extra: Record<string, string> = {}): Sent => ({
  method: 'POST',
  path: '/body',
  headers: { 'Content-Type': 'application/json', ...extra },
  body,
});
const form = (body: string, ct = 'application/x-www-form-urlencoded'): Sent => ({
  method: 'POST',
  path: '/body',
  headers: { 'Content-Type': ct },
  body,
});
const text = (body: string | Buffer, ct = 'text/plain'): Sent => ({
  method: 'POST',
  path: '/body',
  headers: { 'Content-Type': ct },
  body,
});

test('bodies: JSON, urlencoded and text that both parse the same', T, async () => {
  await same({ json: { limit: 64 } }, [
    json('{"a":[1,{"b":null}],"c":"é"}'),
    json(' [1,2] '),
    json(''),
    json(Buffer.from('{"x":1}', 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16le' }),
    json(gzipSync('{"zipped":true}'), { 'Content-Encoding': 'gzip' }),
    json(`[${'1,'.repeat(30)}1]`),
    form('name=Ada+Lovelace&tag=a&tag=b&user[age]=36&e=%C3%A9'),
    form(''),
    form('a=%E9', 'application/x-www-form-urlencoded; charset=iso-8859-1'),
    text('héllo'),
    text(Buffer.from('café', 'latin1'), 'text/plain; charset=iso-8859-1'),
    { method: 'POST', path: '/body' },
  ]);
  await same({ urlencoded: { extended: true } }, [
    form('user[name]=ada&user[langs][]=en&user[langs][]=fr&x=1'),
    form('a[1]=x&a[0]=y'),
  ]);
});

test('bodies: errors with the same status (messages differ by design)', T, async () => {
  // Express's messages come from V8's JSON.parse or body-parser; Gale names the position and the
  // option, so only the status is compared here (bodies.test.ts asserts Gale's messages).
  const answers = await both({ json: { limit: 64 }, urlencoded: { parameterLimit: 3 } }, [
    json('{"a":}'),
    json('[1,2'),
    json('"a string"'),
    json('42'),
    json(`[${'1,'.repeat(40)}1,1]`),
    json('[1]', { 'Content-Type': 'application/json; charset=iso-8859-1' }),
    json('[1]', { 'Content-Encoding': 'compress' }),
    form('a=1&b=2&c=3&d=4'),
    form('a=1', 'application/x-www-form-urlencoded; charset=utf-16le'),
    text('x', 'text/plain; charset=x-klingon'),
  ]);
  const statuses = answers.map((a) => [a.express.status, a.gale.status]);
  assert.deepEqual(statuses, [
    [400, 400],
    [400, 400],
    [400, 400],
    [400, 400],
    [413, 413],
    [415, 415],
    [415, 415],
    [413, 413],
    [415, 415],
    [415, 415],
  ]);
});

test('bodies: where Gale is stricter than Express by design', T, async () => {
  const answers = await both({ urlencoded: { extended: true, depth: 2 } }, [
    form('a=%ZZ&b=1'),
    form('a=%E9'),
    form('a[b][c][d]=1'),
    json('{}', { 'Content-Type': 'application/vnd.api+json' }),
  ]);
  const [badEscape, badUtf8, deep, vendorJson] = answers as Array<{ express: Got; gale: Got }>;
  // A malformed %-escape: Express (qs) keeps it literally; Gale answers 400 with its position.
  assert.equal(badEscape?.express.status, 200);
  assert.deepEqual(JSON.parse(badEscape?.express.body ?? ''), { type: 'object', body: { a: '%ZZ', b: '1' } });
  assert.equal(badEscape?.gale.status, 400);
  assert.equal(
    badEscape?.gale.body,
    'Form body is not valid urlencoded data: malformed percent-encoding "%ZZ" at position 2',
  );
  // Percent-encoded bytes that are not UTF-8: Express keeps them literally; Gale answers 400.
  assert.equal(badUtf8?.express.status, 200);
  assert.equal(badUtf8?.gale.status, 400);
  // Nesting deeper than `depth` is a limit: Express answers 400, Gale 413 like its other limits.
  assert.equal(deep?.express.status, 400);
  assert.equal(deep?.gale.status, 413);
  assert.equal(deep?.gale.body, 'Form body nests deeper than 2 levels (the urlencoded.depth option)');
  // +json types: express.json() only reads application/json by default; parseBody reads any JSON type.
  assert.deepEqual(JSON.parse(vendorJson?.express.body ?? ''), { type: 'undefined', body: null });
  assert.deepEqual(JSON.parse(vendorJson?.gale.body ?? ''), { type: 'object', body: {} });
});
