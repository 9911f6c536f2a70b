// HTTP/2 with Node's http2 client, in cleartext (h2c, prior knowledge) and over TLS (ALPN h2): the same routes,
// middleware, request and response API as HTTP/1.1 (params, query, headers, cookies, bodies, native answers,
// static files with ranges and validators, streamed replies, body limits), HTTP/1.1 still served on the same
// port, and many concurrent streams on one connection.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { fileTempDir } from '../temp.js';
import { bounded, h2App, request, testPki } from './h2.js';

const T = { timeout: 30_000 };
const files = fileTempDir('gale-h2-files-');
const big = Buffer.alloc(3 * 1024 * 1024 + 17);
for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 12)) & 0xff;
writeFileSync(join(files, 'big.bin'), big);
writeFileSync(join(files, 'small.txt'), 'a small file\n');

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

for (const secure of [false, true]) {
  const kind = secure ? 'TLS (ALPN h2)' : 'cleartext (h2c)';

  test(`${kind}: routes, middleware and the request API are the same as over HTTP/1.1`, T, async (t) => {
    const s = await h2App(
      t,
      (app) => {
        app.use(async (_req, res, next) => {
          res.set('x-mw', 'ran');
          await next();
        });
        app.get('/users/:id', (req) => ({
          id: req.params.id,
          q: req.query,
          version: req.httpVersion,
          secure: req.secure,
          protocol: req.protocol,
          host: req.get('host'),
          cookie: req.get('cookie'),
          agent: req.get('user-agent'),
        }));
        app.post('/json', async (req) => ({ got: await req.json() }));
        app.put('/len', async (req) => ({ len: (await req.text()).length }));
        app.get('/status', (_req, res) => {
          res.status(201).set('x-many', ['a', 'b']).cookie('k', 'v');
          return 'created';
        });
        app.get('/empty', (_req, res) => res.status(204).end());
        app.fixed('GET', '/fixed', { headers: { 'content-type': 'text/plain' }, body: 'fixed body' });
        app.static('/files', files);
        app.get('/send', (_req, res) => res.sendFile(join(files, 'small.txt')));
      },
      { secure },
    );
    const c = s.connect();
    const r = await request(c, {
      ':path': '/users/42?x=1&y=two',
      cookie: ['a=1', 'b=2'],
      'user-agent': 'h2-test',
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-mw'], 'ran');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['content-length'], String(r.body.length));
    assert.equal(r.headers.connection, undefined);
    assert.deepEqual(JSON.parse(r.body.toString()), {
      id: '42',
      q: { x: '1', y: 'two' },
      version: '2.0',
      secure,
      protocol: secure ? 'https' : 'http',
      // Node's client sends the TLS server name as :authority.
      host: `${secure ? 'a.test' : '127.0.0.1'}:${s.port}`,
      cookie: 'a=1; b=2',
      agent: 'h2-test',
    });

    const j = await request(
      c,
      { ':method': 'POST', ':path': '/json', 'content-type': 'application/json' },
      '{"a":[1,2]}',
    );
    assert.deepEqual(JSON.parse(j.body.toString()), { got: { a: [1, 2] } });
    const p = await request(c, { ':method': 'PUT', ':path': '/len' }, 'x'.repeat(200_000));
    assert.deepEqual(JSON.parse(p.body.toString()), { len: 200_000 });

    const st = await request(c, { ':path': '/status' });
    assert.equal(st.status, 201);
    assert.equal(st.headers['x-many'], 'a, b');
    assert.deepEqual(st.headers['set-cookie'], ['k=v; Path=/']);
    assert.equal(st.body.toString(), 'created');
    const e = await request(c, { ':path': '/empty' });
    assert.equal(e.status, 204);
    assert.equal(e.body.length, 0);

    // Native answers never enter JS, over HTTP/2 too.
    const nf = await request(c, { ':path': '/nowhere' });
    assert.equal(nf.status, 404);
    assert.equal(nf.body.toString(), 'Not Found');
    const na = await request(c, { ':method': 'DELETE', ':path': '/users/1' });
    assert.equal(na.status, 405);
    assert.equal(na.headers.allow, 'GET, HEAD');
    const fx = await request(c, { ':path': '/fixed' });
    assert.equal(fx.body.toString(), 'fixed body');
    const head = await request(c, { ':method': 'HEAD', ':path': '/users/7' });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.ok(Number(head.headers['content-length']) > 0);

    // Static files: the whole file, a range, a conditional request, res.sendFile.
    const whole = await request(c, { ':path': '/files/big.bin' });
    assert.equal(whole.status, 200);
    assert.equal(whole.body.length, big.length);
    assert.equal(sha(whole.body), sha(big));
    const range = await request(c, { ':path': '/files/big.bin', range: 'bytes=1000-1999' });
    assert.equal(range.status, 206);
    assert.deepEqual(range.body, big.subarray(1000, 2000));
    const etag = String(whole.headers.etag);
    const cached = await request(c, { ':path': '/files/big.bin', 'if-none-match': etag });
    assert.equal(cached.status, 304);
    assert.equal(cached.body.length, 0);
    const sent = await request(c, { ':path': '/send' });
    assert.equal(sent.body.toString(), 'a small file\n');

    // HTTP/1.1 keeps working on the same port.
    const { pki } = testPki();
    const h1 = await new Promise<string>((resolve, reject) => {
      const get = secure ? https.get : http.get;
      get(
        { host: '127.0.0.1', port: s.port, path: '/users/1', ca: pki.ca, servername: 'a.test', agent: false },
        (res) => {
          let d = '';
          res.on('data', (x) => (d += x));
          res.on('end', () => resolve(d));
        },
      ).on('error', reject);
    });
    assert.equal(JSON.parse(h1).version, '1.1');
  });

  test(`${kind}: many concurrent streams on one connection`, T, async (t) => {
    let active = 0;
    let peak = 0;
    const s = await h2App(
      t,
      (app) => {
        app.get('/n/:i', async (req) => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5 + (Number(req.params.i) % 7)));
          active--;
          return `stream ${req.params.i}`;
        });
      },
      { secure, http2: { maxConcurrentStreams: 50 } },
    );
    const c = s.connect();
    // One request first: until the client has our SETTINGS it does not know the stream limit, and streams
    // over it are refused (REFUSED_STREAM), as RFC 9113 §5.1.2 allows.
    assert.equal((await request(c, { ':path': '/n/0' })).status, 200);
    const all = await Promise.all(Array.from({ length: 300 }, (_, i) => request(c, { ':path': `/n/${i}` })));
    all.forEach((r, i) => {
      assert.equal(r.status, 200);
      assert.equal(r.body.toString(), `stream ${i}`);
    });
    assert.ok(peak > 10, `requests ran concurrently (peak ${peak})`);
    assert.ok(peak <= 50, `maxConcurrentStreams held (peak ${peak})`);
    assert.equal(s.app.connections, 1);
  });

  test(`${kind}: large bodies both ways, streamed`, T, async (t) => {
    const s = await h2App(
      t,
      (app) => {
        app.post('/sha', async (req) => {
          const h = createHash('sha256');
          let n = 0;
          for await (const chunk of req.stream()) {
            h.update(chunk as Buffer);
            n += (chunk as Buffer).length;
          }
          return { n, sha: h.digest('hex') };
        });
        app.get('/gen/:mb', async (req, res) => {
          res.type('application/octet-stream');
          const total = Number(req.params.mb) * 1024 * 1024;
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          for (let sent = 0; sent < total; sent += chunk.length) {
            if (!res.write(chunk)) await new Promise<void>((r) => res.once('drain', r));
          }
          res.end();
        });
      },
      { secure, gale: { bodyLimit: 64 * 1024 * 1024 } },
    );
    const c = s.connect();
    const upload = Buffer.alloc(6 * 1024 * 1024 + 5);
    for (let i = 0; i < upload.length; i++) upload[i] = (i * 7) & 0xff;
    const up = await request(c, { ':method': 'POST', ':path': '/sha' }, upload, 20_000);
    assert.deepEqual(JSON.parse(up.body.toString()), { n: upload.length, sha: sha(upload) });
    const down = await request(c, { ':path': '/gen/8' }, undefined, 20_000);
    assert.equal(down.status, 200);
    assert.equal(down.body.length, 8 * 1024 * 1024);
    assert.ok(down.body.every((b) => b === 0x61));
  });

  test(`${kind}: body limits answer 413 (declared length natively, streamed bodies through JS)`, T, async (t) => {
    let jsSaw = 0;
    const s = await h2App(
      t,
      (app) => {
        app.post('/up', async (req, res) => {
          try {
            await req.arrayBuffer();
            return 'ok';
          } catch (err) {
            jsSaw = (err as { status?: number }).status ?? -1;
            res.status(413);
            return 'too large';
          }
        });
      },
      { secure, gale: { bodyLimit: 100_000 } },
    );
    const c = s.connect();
    const declared = await request(
      c,
      { ':method': 'POST', ':path': '/up', 'content-length': '200000' },
      Buffer.alloc(200_000),
    );
    assert.equal(declared.status, 413);
    assert.equal(jsSaw, 0, 'a declared length over the limit never reaches JS');
    const streamed = await request(c, { ':method': 'POST', ':path': '/up' }, Buffer.alloc(300_000));
    assert.equal(streamed.status, 413);
    assert.equal(jsSaw, 413);
    // The connection is fine afterwards.
    const ok = await request(c, { ':method': 'POST', ':path': '/up' }, 'small');
    assert.equal(ok.body.toString(), 'ok');
  });
}

test(
  'a plain GET to a WebSocket route answers 426 over HTTP/2, and a GET route on the same path is served',
  T,
  async (t) => {
    const s = await h2App(t, (app) => {
      app.ws('/only-ws', { message() {} });
      app.ws('/both', { message() {} });
      app.get('/both', () => 'plain GET');
    });
    const c = s.connect();
    const only = await request(c, { ':path': '/only-ws' });
    assert.equal(only.status, 426);
    assert.match(only.body.toString(), /HTTP\/1\.1/);
    const both = await request(c, { ':path': '/both' });
    assert.equal(both.body.toString(), 'plain GET');
  },
);

test('CONNECT over HTTP/2 gets 405 with Allow (no tunnel), on h2c and TLS', T, async (t) => {
  for (const secure of [false, true]) {
    const s = await h2App(
      t,
      (app) => {
        app.get('/', () => 'home');
        app.post('/form', () => 'ok');
      },
      { secure },
    );
    const c = s.connect();
    // RFC 9113 §8.5: a CONNECT request carries :method and :authority only.
    const r = await request(c, { ':method': 'CONNECT', ':authority': 'example.com:443' });
    assert.equal(r.status, 405, secure ? 'TLS' : 'h2c');
    assert.equal(r.headers.allow, 'GET, HEAD, POST');
    assert.match(r.body.toString(), /CONNECT \(a tunnel\) is not served here/);
    assert.equal((await request(c, { ':path': '/' })).body.toString(), 'home', 'the connection is still served');
  }
});

test('http2 options are checked, and HTTP/2 is off unless asked for', T, async (t) => {
  const { gale } = await import('gale');
  const bad = gale();
  await assert.rejects(
    bad.listen({ port: 0, host: '127.0.0.1', http2: { maxFrameSize: 10 } }),
    /option http2\.maxFrameSize must be a number of bytes from 16384 to 16777215; got 10/,
  );
  await bad.close();
  const s = await h2App(t, (app) => app.get('/', () => 'x'), { http2: false });
  const c = s.connect();
  const refused = await new Promise<boolean>((resolve) => {
    c.on('error', () => resolve(true));
    c.on('close', () => resolve(true));
    const r = c.request({ ':path': '/' });
    r.on('error', () => resolve(true));
    r.on('response', () => resolve(false));
  });
  assert.ok(refused, 'an h2c client is refused when http2 is off');
});

test('Expect: 100-continue, compression, and HTTP/1.1-only response headers over HTTP/2', T, async (t) => {
  const s = await h2App(
    t,
    (app) => {
      app.post('/upload', async (req) => `got ${(await req.text()).length}`);
      app.get('/big-text', () => 'compress me '.repeat(1000));
      app.get('/closing', (_req, res) => {
        res.set('Connection', 'close');
        res.statusMessage = 'Fine Indeed';
        return 'still here';
      });
    },
    { gale: { compression: true } },
  );
  const c = s.connect();
  // The client waits for the 100 before it sends the body.
  const r = c.request({ ':method': 'POST', ':path': '/upload', expect: '100-continue' }, { endStream: false });
  const answer = await bounded(
    new Promise<string>((resolve, reject) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('continue', () => r.end('x'.repeat(5000)));
      r.on('data', (d: string) => {
        body += d;
      });
      r.on('end', () => resolve(body));
      r.on('error', reject);
    }),
    5000,
    'the upload after 100-continue',
  );
  assert.equal(answer, 'got 5000');

  const z = await request(c, { ':path': '/big-text', 'accept-encoding': 'gzip' });
  assert.equal(z.headers['content-encoding'], 'gzip');
  assert.equal(z.headers.vary, 'Accept-Encoding');
  assert.equal(gunzipSync(z.body).toString(), 'compress me '.repeat(1000));

  // Connection: close means nothing to an HTTP/2 connection: dropped, and the connection serves on.
  const closing = await request(c, { ':path': '/closing' });
  assert.equal(closing.status, 200);
  assert.equal(closing.headers.connection, undefined);
  assert.equal(closing.body.toString(), 'still here');
  assert.equal((await request(c, { ':path': '/closing' })).status, 200);
  assert.equal(s.app.connections, 1);
});

test('header limits: a header list over maxHeaderSize and more than maxHeaders fields get 431', T, async (t) => {
  const s = await h2App(t, (app) => app.get('/', () => 'ok'), { gale: { maxHeaderSize: 8192 } });
  const c = s.connect();
  // Over SETTINGS_MAX_HEADER_LIST_SIZE (maxHeaderSize): h2 answers 431 while decoding.
  const big = await request(c, { ':path': '/', 'x-big': 'a'.repeat(10_000) });
  assert.equal(big.status, 431);
  // Within it but over maxHeaders (100): the engine's own 431, with its explanation.
  const many = await request(c, {
    ':path': '/',
    ...Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x-h${i}`, 'v'])),
  });
  assert.equal(many.status, 431);
  assert.match(many.body.toString(), /header/i);
  assert.equal((await request(c, { ':path': '/' })).body.toString(), 'ok');
});

test(
  'HEAD and 304 answers streamed with a declared Content-Length end cleanly; every response has a Date',
  T,
  async (t) => {
    const s = await h2App(t, (app) => {
      // The end comes in a later turn, after the head went out on its own.
      app.get('/stream', (_req, res) => {
        res.setHeader('Content-Length', '5');
        res.write('hel');
        setTimeout(() => res.end('lo'), 20);
      });
      app.get('/not-modified', (_req, res) => {
        res.status(304);
        res.setHeader('Content-Length', '5');
        res.write('hello');
        setTimeout(() => res.end(), 20);
      });
    });
    const c = s.connect();
    // A body that owes bytes would end in RST_STREAM(INTERNAL_ERROR): `request` rejects on it.
    const got = await request(c, { ':method': 'GET', ':path': '/stream' });
    assert.equal(got.body.toString(), 'hello');
    const head = await request(c, { ':method': 'HEAD', ':path': '/stream' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], '5');
    assert.equal(head.body.length, 0);
    const notModified = await request(c, { ':method': 'GET', ':path': '/not-modified' });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body.length, 0);
    for (const r of [got, head, notModified]) {
      // RFC 9110 §6.6.1: an origin server with a clock sends Date, as on HTTP/1.1.
      assert.match(String(r.headers.date), /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    }
  },
);
