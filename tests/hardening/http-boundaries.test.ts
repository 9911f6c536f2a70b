// HTTP at its empty edges, over real sockets: bodies of 0 bytes by Content-Length and by chunked coding (read
// every way a handler can), empty header values, empty queries, empty path segments, and empty writes from JS
// (`res.end('')`, `res.write(Buffer.alloc(0))`, `res.send('')`, a returned '' or empty Buffer, an empty SSE
// event). Every case runs on one keep-alive connection, so a case that broke framing breaks the ones after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';

test('a 0-byte body by Content-Length and by chunked coding, read with every body reader', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.post('/text', async (req) => `[${await req.text()}]`);
    app.post('/buf', async (req) => `${(await req.arrayBuffer()).byteLength}`);
    app.post('/stream', async (req) => {
      let n = 0;
      let chunks = 0;
      for await (const c of req.stream()) {
        n += c.length;
        chunks++;
      }
      return `${n}/${chunks}`;
    });
    app.post('/web', async (req) => {
      const r = req.webStream().getReader();
      let n = 0;
      for (;;) {
        const { done, value } = await r.read();
        if (done) break;
        n += value.length;
      }
      return `${n}`;
    });
    app.post('/parse', async (req) => JSON.stringify((await req.parseBody()) ?? null));
    app.post('/form', async (req) => JSON.stringify(await req.form()));
    app.post('/json', async (req) => {
      try {
        return JSON.stringify(await req.json());
      } catch (e) {
        return `error ${(e as { status?: number }).status}`;
      }
    });
  });
  const conn = await RawConn.open(port);
  const cases: [string, string, string][] = [
    ['/text', 'text/plain', '[]'],
    ['/buf', 'application/octet-stream', '0'],
    ['/stream', 'application/octet-stream', '0/0'],
    ['/web', 'application/octet-stream', '0'],
    ['/form', 'application/x-www-form-urlencoded', '{}'],
    ['/json', 'application/json', 'error 400'],
  ];
  for (const framing of ['length', 'chunked'] as const) {
    for (const [path, type, want] of cases) {
      const headers: [string, string][] = [['Content-Type', type]];
      headers.push(framing === 'length' ? ['Content-Length', '0'] : ['Transfer-Encoding', 'chunked']);
      await conn.write(buildRequest({ method: 'POST', path, headers, body: framing === 'chunked' ? '0\r\n\r\n' : '' }));
      const res = await conn.readResponse();
      assert.equal(res.status, 200, `${framing} ${path}: ${res.text}`);
      assert.equal(res.text, want, `${framing} ${path}`);
    }
  }
  // Chunked with an empty trailer section and with a trailer field after the last chunk.
  await conn.write(
    buildRequest({
      method: 'POST',
      path: '/text',
      headers: [['Transfer-Encoding', 'chunked']],
      body: '0\r\nX-Trailer: yes\r\n\r\n',
    }),
  );
  assert.equal((await conn.readResponse()).text, '[]');
  conn.socket.destroy();
});

test('empty header values, an empty query, empty path segments and an empty param', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/h', (req) => ({ empty: req.get('x-empty'), spaces: req.get('x-spaces'), all: req.headers['x-empty'] }));
    app.get('/q', (req) => ({ url: req.url, path: req.path, query: req.query }));
    app.get('/a/:p/b', (req) => ({ p: req.params.p }));
    app.get('/files/*rest', (req) => ({ rest: req.params.rest }));
    app.get('/', (req) => ({ root: true, query: req.query }));
  });
  const conn = await RawConn.open(port);
  const get = async (path: string, headers: [string, string][] = []) => {
    await conn.write(buildRequest({ path, headers }));
    return conn.readResponse();
  };
  const h = await get('/h', [
    ['X-Empty', ''],
    ['X-Spaces', '   '],
  ]);
  assert.equal(h.status, 200);
  assert.deepEqual(JSON.parse(h.text), { empty: '', spaces: '', all: '' });
  // A header line with nothing after the colon at all.
  await conn.write('GET /h HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n\r\n');
  assert.deepEqual(JSON.parse((await conn.readResponse()).text), { empty: '', all: '' });

  const q = await get('/q?');
  assert.deepEqual(JSON.parse(q.text), { url: '/q?', path: '/q', query: {} });
  const q2 = await get('/q?&&=&a=');
  assert.equal(q2.status, 200);
  assert.equal(JSON.parse(q2.text).query.a, '');
  assert.deepEqual(JSON.parse((await get('/?')).text), { root: true, query: {} });

  // Empty path segments: no route has them, so 404; an empty param segment does not match `:p`.
  for (const p of ['//', '/a//b', '///', '/q//']) {
    const r = await get(p);
    assert.ok([200, 404].includes(r.status), `${p} → ${r.status}`);
  }
  assert.equal((await get('/a//b')).status, 404);
  // As in Express 5, a named wildcard needs at least one character.
  assert.equal((await get('/files/')).status, 404);
  assert.deepEqual(JSON.parse((await get('/files//x')).text), { rest: '/x' });
  // Still alive and in step after all of it.
  assert.equal((await get('/')).status, 200);
  conn.socket.destroy();
});

test(
  "empty writes from JS: res.end(''), res.write(Buffer.alloc(0)), res.send(''), returned '' and empty Buffer",
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.get('/end-empty', (_req, res) => res.end(''));
      app.get('/end-none', (_req, res) => res.end());
      app.get('/end-buf', (_req, res) => res.end(Buffer.alloc(0)));
      app.get('/send-empty', (_req, res) => res.send(''));
      app.get('/send-buf', (_req, res) => res.send(Buffer.alloc(0)));
      app.get('/return-empty', () => '');
      app.get('/return-buf', () => Buffer.alloc(0));
      app.get('/return-u8', () => new Uint8Array(0));
      app.get('/write-empty', (_req, res) => {
        res.write(Buffer.alloc(0));
        res.write('');
        res.write(new Uint8Array(0));
        res.write('x');
        res.write(Buffer.alloc(0));
        res.end('');
      });
      app.get('/write-only-empty', (_req, res) => {
        res.write('');
        res.end(Buffer.alloc(0));
      });
      app.get('/stream-empty', (_req, res) =>
        res.stream(
          (async function* () {
            yield '';
            yield Buffer.alloc(0);
            yield 'y';
            yield new Uint8Array(0);
          })(),
        ),
      );
      app.get('/sse-empty', (_req, res) => {
        const sse = res.sse({ heartbeat: 0 });
        sse.send('');
        sse.send({ data: '' });
        sse.comment('');
        sse.close();
      });
      app.get('/json-empty', (_req, res) => res.json(''));
    });
    const conn = await RawConn.open(port);
    const expect: [string, string, boolean | undefined][] = [
      ['/end-empty', '', false],
      ['/end-none', '', false],
      ['/end-buf', '', false],
      ['/send-empty', '', false],
      ['/send-buf', '', false],
      ['/return-empty', '', false],
      ['/return-buf', '', false],
      ['/return-u8', '', false],
      ['/write-empty', 'x', true],
      ['/write-only-empty', '', true],
      ['/stream-empty', 'y', true],
      ['/json-empty', '""', false],
    ];
    for (const [path, body, chunked] of expect) {
      for (const method of ['GET', 'HEAD']) {
        await conn.write(buildRequest({ method, path }));
        const res = await conn.readResponse({ head: method === 'HEAD' });
        assert.equal(res.status, 200, `${method} ${path}`);
        if (method === 'HEAD') continue;
        assert.equal(res.text, body, path);
        assert.equal(res.chunked, chunked, `${path}: chunked`);
        if (!chunked) assert.equal(res.get('content-length'), String(Buffer.byteLength(body)), path);
        // A chunked body never carries a zero-size chunk before the last one (that would end the body early).
        if (chunked)
          assert.ok(
            res.chunks.every((c) => c.length > 0),
            `${path}: ${res.chunks.length} chunks`,
          );
      }
    }
    await conn.write(buildRequest({ path: '/sse-empty' }));
    const sse = await conn.readResponse();
    assert.equal(sse.status, 200);
    assert.match(sse.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(sse.text.includes('data: \n\n') || sse.text.includes('data:\n\n'), true, JSON.stringify(sse.text));
    conn.socket.destroy();
  },
);

test('HTTP/1.0 and pipelined requests with empty bodies keep framing', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.post('/n', async (req) => `${(await req.arrayBuffer()).byteLength}`);
    app.get('/e', () => '');
  });
  const conn = await RawConn.open(port);
  const one = buildRequest({ method: 'POST', path: '/n', body: '' });
  const chunk = buildRequest({
    method: 'POST',
    path: '/n',
    headers: [['Transfer-Encoding', 'chunked']],
    body: '0\r\n\r\n',
  });
  const empty = buildRequest({ path: '/e' });
  await conn.write(Buffer.concat([one, chunk, empty, one, empty, chunk]));
  const bodies: string[] = [];
  for (let i = 0; i < 6; i++) bodies.push((await conn.readResponse()).text);
  assert.deepEqual(bodies, ['0', '0', '', '0', '', '0']);
  conn.socket.destroy();
  const old = await RawConn.open(port);
  await old.write('GET /e HTTP/1.0\r\n\r\n');
  const r = await old.readResponse();
  assert.deepEqual([r.status, r.text], [200, '']);
  old.socket.destroy();
});
