// res helpers: status, header, json, send, end, statusCode, headersSent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { simpleRequest, sleep, T, withApp } from '../helpers.js';

const JSON_TYPE = /^application\/json(; ?charset=utf-8)?$/i;

function routes(app: App): void {
  app.get('/status-json', (_req, res) => {
    res.status(201).json({ created: true });
  });
  app.get('/json-array', (_req, res) => {
    res.json([1, 2, 3]);
  });
  app.get('/json-string', (_req, res) => {
    res.json('just a string');
  });
  app.get('/header-send', (_req, res) => {
    res.header('X-Custom', 'custom value').header('x-second', '2').send('text body');
  });
  app.get('/send-buffer', (_req, res) => {
    res.send(Buffer.from([104, 105]));
  });
  app.get('/send-uint8', (_req, res) => {
    res.send(new Uint8Array([1, 2, 3]));
  });
  app.get('/send-object', (_req, res) => {
    res.status(202).send({ sent: 'object' });
  });
  app.get('/content-type-override', (_req, res) => {
    res.header('content-type', 'text/html; charset=utf-8').send('<b>bold</b>');
  });
  app.get('/end-empty', (_req, res) => {
    res.status(204).end();
  });
  app.get('/end-empty-200', (_req, res) => {
    res.end();
  });
  app.get('/end-body', (_req, res) => {
    res.status(418).end('short and stout');
  });
  app.get('/end-bytes', (_req, res) => {
    res.end(new Uint8Array([7, 8, 9]));
  });
  app.get('/async-send', async (_req, res) => {
    await sleep(10);
    res.status(200).header('x-async', 'yes').send('sent later');
  });
  app.get('/introspect', (_req, res) => {
    const before = { statusCode: res.statusCode, headersSent: res.headersSent };
    const chained = res.status(299) === res && res.header('x-a', 'b') === res;
    const after = { statusCode: res.statusCode, headersSent: res.headersSent };
    res.json({ before, after, chained });
  });
  app.get('/headers-sent-after', (_req, res) => {
    res.write('x');
    const sent = res.headersSent;
    res.end(`:${sent}`);
  });
}

test('res.status(201).json(value)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/status-json`);
  assert.equal(r.status, 201);
  assert.match(r.headers.get('content-type') ?? '', JSON_TYPE);
  assert.equal(await r.text(), '{"created":true}');
  const a = await fetch(`${url}/json-array`);
  assert.equal(await a.text(), '[1,2,3]');
  const s = await fetch(`${url}/json-string`);
  assert.match(s.headers.get('content-type') ?? '', JSON_TYPE);
  assert.equal(await s.text(), '"just a string"');
});

test('res.header(...).header(...).send(string)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/header-send`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-custom'), 'custom value');
  assert.equal(r.headers.get('x-second'), '2');
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.headers.get('content-length'), '9');
  assert.equal(await r.text(), 'text body');
});

test('res.send(Buffer | Uint8Array) → application/octet-stream', T, async (t) => {
  const { url } = await withApp(t, routes);
  const b = await fetch(`${url}/send-buffer`);
  assert.equal(b.headers.get('content-type'), 'application/octet-stream');
  assert.equal(await b.text(), 'hi');
  const u = await fetch(`${url}/send-uint8`);
  assert.equal(u.headers.get('content-type'), 'application/octet-stream');
  assert.deepEqual([...new Uint8Array(await u.arrayBuffer())], [1, 2, 3]);
});

test('res.send(object) → JSON', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/send-object`);
  assert.equal(r.status, 202);
  assert.match(r.headers.get('content-type') ?? '', JSON_TYPE);
  assert.deepEqual(await r.json(), { sent: 'object' });
});

test('an explicit content-type header is not overridden by send()', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/content-type-override`);
  assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(await r.text(), '<b>bold</b>');
});

test('res.end() without a body', T, async (t) => {
  const { port } = await withApp(t, routes);
  const a = await simpleRequest(port, { path: '/end-empty' });
  assert.equal(a.status, 204);
  assert.equal(a.get('content-length'), undefined, '204 must not carry Content-Length');
  assert.equal(a.get('transfer-encoding'), undefined);
  const b = await simpleRequest(port, { path: '/end-empty-200' });
  assert.equal(b.status, 200);
  assert.equal(b.get('content-length'), '0');
  assert.equal(b.body.length, 0);
});

test('res.end(body)', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/end-body`);
  assert.equal(r.status, 418);
  assert.equal(await r.text(), 'short and stout');
  const b = await fetch(`${url}/end-bytes`);
  assert.deepEqual([...new Uint8Array(await b.arrayBuffer())], [7, 8, 9]);
});

test('res helpers after an await', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/async-send`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-async'), 'yes');
  assert.equal(await r.text(), 'sent later');
});

test('status()/header() chain (return res); statusCode and headersSent reflect state', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/introspect`);
  assert.equal(r.status, 299);
  assert.equal(r.headers.get('x-a'), 'b');
  assert.deepEqual(await r.json(), {
    before: { statusCode: 200, headersSent: false },
    after: { statusCode: 299, headersSent: false },
    chained: true,
  });
});

test('headersSent is true once write() has started the response', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/headers-sent-after`);
  assert.equal(await r.text(), 'x:true');
});

test('CR/LF in a header value cannot inject a header (response splitting)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/inject', (_req, res) => {
      try {
        res.header('x-bad', 'a\r\nInjected: yes');
      } catch {
        res.header('x-threw', 'yes');
      }
      res.send('body');
    });
  });
  const res = await simpleRequest(port, { path: '/inject' });
  assert.equal(res.get('injected'), undefined, `header injected: ${res.raw.toString('latin1')}`);
  assert.ok(!res.raw.toString('latin1').includes('\r\nInjected: yes'));
});

test(
  'string bodies and header values of every length around 4 KiB, with 2-, 3- and 4-byte characters at the end, arrive whole',
  T,
  async (t) => {
    // The engine writes a short string in one call and falls back to measuring it first when it may not fit: every
    // length near that edge, ending in a character that could be cut, must arrive byte for byte.
    const bodies: string[] = [];
    for (let n = 4070; n <= 4100; n++) for (const end of ['é', '€', '😀']) bodies.push('a'.repeat(n) + end);
    const { port } = await withApp(t, (app) => {
      app.get('/b/:i', (req, res) => {
        const body = bodies[Number(req.params.i)] as string;
        res.header('x-tail', encodeURIComponent(body.slice(-3))).send(body);
      });
      app.get('/h/:n', (req, res) => res.header('x-long', 'v'.repeat(Number(req.params.n))).send('ok'));
    });
    for (const [i, body] of bodies.entries()) {
      const res = await fetch(`http://127.0.0.1:${port}/b/${i}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.ok(bytes.equals(Buffer.from(body)), `body ${i}: ${bytes.length} bytes, want ${Buffer.byteLength(body)}`);
      assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(body)));
    }
    for (const n of [990, 1000, 1005, 1010, 1020, 5000]) {
      const res = await fetch(`http://127.0.0.1:${port}/h/${n}`);
      assert.equal(res.headers.get('x-long')?.length, n);
      assert.equal(await res.text(), 'ok');
    }
  },
);
