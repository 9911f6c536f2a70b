// HTTP/3 through the engine, checked with an independent client (Python's aioquic): the QUIC handshake with the
// listener's certificate, then the app's own routes over HTTP/3 — GET, HEAD, request bodies with and without
// Content-Length, a large download, parallel streams, the engine's native answers and limits.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { join } from 'node:path';
import { test } from 'node:test';
import { request, testPki, uploadRoute } from '../h2/h2.js';
import { tempDir } from '../temp.js';
import { type H3Request, h3Requests } from './aioquic.js';
import { h3App, httpsHeaders } from './server.js';

const header = (r: { headers: [string, string][] }, name: string) => r.headers.find(([k]) => k === name)?.[1];

async function ask(port: number, reqs: H3Request[], parallel = false) {
  const { pki } = testPki();
  const out = await h3Requests(port, pki.caPath, reqs, { parallel });
  assert.equal(out.alpn, 'h3');
  return out.responses;
}

test('a GET over HTTP/3 reaches the route, which sees HTTP/3 over TLS from the client', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/hello/:name', (req) => ({
      hello: req.params.name,
      version: req.httpVersion,
      major: req.httpVersionMajor,
      secure: req.secure,
      ip: req.ip,
      host: req.headers.host,
      q: req.query.q,
    }));
  });
  const [r] = await ask(port, [{ path: '/hello/h%C3%A9?q=1', headers: [['x-test', 'yes']] }]);
  assert.equal(r.status, 200);
  assert.match(header(r, 'content-type') ?? '', /^application\/json/);
  assert.equal(header(r, 'connection'), undefined);
  assert.equal(header(r, 'transfer-encoding'), undefined);
  assert.deepEqual(JSON.parse(r.body.toString()), {
    hello: 'hé',
    version: '3.0',
    major: 3,
    secure: true,
    ip: '127.0.0.1',
    host: `a.test:${port}`,
    q: '1',
  });
});

test('static files and res.sendFile over HTTP/3: bodies read in pieces arrive whole, a 304, Date and Alt-Svc', async (t) => {
  const dir = tempDir(t, 'gale-h3-static-');
  // 300 KB: five pieces of the engine's 64 KiB file reads.
  const big = randomBytes(300 * 1024);
  writeFileSync(join(dir, 'big.bin'), big);
  writeFileSync(join(dir, 'small.txt'), 'small file\n');
  const { port } = await h3App(t, (app) => {
    app.static('/files', dir);
    app.get('/send', (_req, res) => res.sendFile(join(dir, 'big.bin')));
  });
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const [mounted, small, sent, missing] = await ask(port, [
    { path: '/files/big.bin' },
    { path: '/files/small.txt' },
    { path: '/send' },
    { path: '/files/none.txt' },
  ]);
  for (const r of [mounted, sent]) {
    assert.equal(r.status, 200);
    assert.equal(r.body.length, big.length);
    assert.equal(sha(r.body), sha(big));
    assert.equal(header(r, 'content-length'), String(big.length));
  }
  assert.equal(small.body.toString(), 'small file\n');
  assert.match(header(small, 'content-type') ?? '', /^text\/plain/);
  assert.equal(missing.status, 404);
  for (const r of [mounted, small, sent, missing]) {
    // RFC 9110 §6.6.1: an origin server with a clock sends Date; Alt-Svc keeps the client's entry for HTTP/3 fresh.
    assert.match(header(r, 'date') ?? '', /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    assert.equal(header(r, 'alt-svc'), `h3=":${port}"; ma=86400`);
  }
  const etag = header(small, 'etag');
  assert.ok(etag, 'a static file has an ETag');
  const [again] = await ask(port, [{ path: '/files/small.txt', headers: [['if-none-match', etag]] }]);
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
});

test('a 304 streamed with a declared Content-Length ends cleanly over HTTP/3, not as a body cut short', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/not-modified', (_req, res) => {
      res.status(304);
      res.setHeader('Content-Length', '5');
      res.write('hello');
      // The end comes in a later turn, after the head went out on its own.
      setTimeout(() => res.end(), 20);
    });
  });
  const [r] = await ask(port, [{ path: '/not-modified' }]);
  assert.equal(r.status, 304);
  assert.equal(r.reset, undefined, 'no reset after the head');
  assert.equal(r.body.length, 0);
});

// (HEAD is not asked here: aioquic's client checks a response's Content-Length against its DATA without
// exempting HEAD, so it refuses the engine's correct answer, a HEAD response with the GET's Content-Length.)
test('404 and 405 are the engine’s native answers, over HTTP/3', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/text', () => 'some text');
  });
  const [missing, wrong] = await ask(port, [{ path: '/nope' }, { method: 'DELETE', path: '/text' }]);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.toString(), 'Not Found');
  assert.equal(wrong.status, 405);
  assert.equal(header(wrong, 'allow'), 'GET, HEAD');
});

test('request bodies: with Content-Length, and without one in several DATA frames', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.post('/echo', async (req) => {
      const body = Buffer.from(await req.arrayBuffer());
      return {
        len: body.length,
        sha: createHash('sha256').update(body).digest('hex'),
        te: req.headers['transfer-encoding'] ?? null,
      };
    });
  });
  const big = Buffer.alloc(300_000, 7);
  const [withLength, chunked] = await ask(port, [
    { method: 'POST', path: '/echo', headers: [['content-length', String(big.length)]], body: big },
    { method: 'POST', path: '/echo', chunks: ['first,', 'second,', 'third'] },
  ]);
  assert.equal(withLength.status, 200);
  assert.deepEqual(JSON.parse(withLength.body.toString()), {
    len: big.length,
    sha: createHash('sha256').update(big).digest('hex'),
    te: null,
  });
  assert.equal(chunked.status, 200);
  const c = JSON.parse(chunked.body.toString());
  assert.equal(c.len, 'first,second,third'.length);
  assert.equal(c.sha, createHash('sha256').update('first,second,third').digest('hex'));
});

test('a body longer than its Content-Length is refused with H3_MESSAGE_ERROR; one over bodyLimit gets 413', async (t) => {
  let reached = 0;
  const { port } = await h3App(
    t,
    (app) => {
      app.post('/in', async (req) => {
        reached++;
        return String((await req.text()).length);
      });
    },
    { gale: { bodyLimit: 1000 } },
  );
  const [lying, tooBig, fine] = await ask(port, [
    { method: 'POST', path: '/in', headers: [['content-length', '3']], body: 'abcdef' },
    { method: 'POST', path: '/in', headers: [['content-length', '5000']], body: Buffer.alloc(5000) },
    { method: 'POST', path: '/in', body: 'ok' },
  ]);
  assert.equal(lying.reset, 0x10e, `expected H3_MESSAGE_ERROR, got ${JSON.stringify(lying)}`);
  assert.equal(tooBig.status, 413);
  assert.equal(fine.status, 200);
  assert.equal(fine.body.toString(), '2');
  assert.equal(reached, 1);
});

test('a 1 MiB streamed download and 20 parallel streams on one connection', async (t) => {
  const piece = Buffer.alloc(64 * 1024, 'x');
  const { port } = await h3App(t, (app) => {
    app.get('/big', (_req, res) => {
      res.setHeader('content-type', 'application/octet-stream');
      let n = 0;
      const more = () => {
        while (n < 16) {
          n++;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    app.get('/n/:i', (req) => `n=${req.params.i}`);
  });
  const [big] = await ask(port, [{ path: '/big' }]);
  assert.equal(big.status, 200);
  assert.equal(big.body.length, 16 * piece.length);
  assert.ok(big.body.every((b) => b === 0x78));
  const many = await ask(
    port,
    Array.from({ length: 20 }, (_, i) => ({ path: `/n/${i}` })),
    true,
  );
  assert.deepEqual(
    many.map((r) => [r.status, r.body.toString()]),
    Array.from({ length: 20 }, (_, i) => [200, `n=${i}`]),
  );
});

test('a request body that stops arriving fails the route’s reader with 408 after requestTimeout', async (t) => {
  const { port } = await h3App(t, uploadRoute, { gale: { requestTimeout: 300 } });
  const [r] = await ask(port, [{ method: 'POST', path: '/up', chunks: ['some of the body'], open: true }]);
  assert.equal(r.status, 408);
  assert.equal(r.body.toString(), 'timed out');
});

test('app.close() lets a request in flight finish over HTTP/3, then resolves', async (t) => {
  let closed: Promise<void> | undefined;
  const { port } = await h3App(t, (app) => {
    app.get('/slow', async () => {
      closed = app.close({ timeout: 5000 });
      await new Promise((r) => setTimeout(r, 200));
      return 'finished';
    });
  });
  const [r] = await ask(port, [{ path: '/slow' }]);
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), 'finished');
  assert.ok(closed);
  await closed;
});

test('reloadTls reaches HTTP/3: new connections get the new certificate', async (t) => {
  const { pki } = testPki();
  const first = pki.leaf('a.test');
  const second = pki.leaf('a.test');
  const { app, port } = await h3App(
    t,
    (app) => {
      app.get('/', () => 'ok');
    },
    { leaf: first },
  );
  const serial = (hex: string) => BigInt(`0x${hex}`);
  const before = await h3Requests(port, pki.caPath, [{ path: '/' }]);
  assert.equal(serial(before.serial), serial(first.serial));
  app.reloadTls({ cert: second.cert, key: second.key });
  const after = await h3Requests(port, pki.caPath, [{ path: '/' }]);
  assert.equal(serial(after.serial), serial(second.serial));
  assert.equal(after.responses[0].body.toString(), 'ok');
});

test('a request stream that stalls after its fields gets 408 at headersTimeout; the connection serves on', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/', () => 'ok');
    },
    { gale: { headersTimeout: 400 } },
  );
  const started = Date.now();
  const [stalled, fine] = await ask(port, [{ path: '/', open: true }, { path: '/' }], true);
  assert.equal(stalled.status, 408);
  assert.ok(Date.now() - started >= 350, 'not before the timeout');
  assert.equal(fine.status, 200);
});

test('over maxConnections (each HTTP/3 request holds one while it runs) a request gets the engine’s 503', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/slow', async () => {
        await new Promise((r) => setTimeout(r, 300));
        return 'served';
      });
    },
    { gale: { maxConnections: 1 } },
  );
  const out = await ask(port, [{ path: '/slow' }, { path: '/slow' }], true);
  const busy = out.find((r) => r.status === 503);
  assert.deepEqual(out.map((r) => r.status).sort(), [200, 503], JSON.stringify(out.map((r) => r.status)));
  assert.equal(header(busy as (typeof out)[0], 'retry-after'), '1');
  assert.match(busy?.body.toString() ?? '', /maxConnections limit/);
  assert.match(header(busy as (typeof out)[0], 'date') ?? '', /GMT$/);
});

test('maxConnectionsPerAddress refuses a second connection from the same address while the first is open', async (t) => {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/hold', async () => {
        await held;
        return 'released';
      });
      app.get('/', () => 'ok');
    },
    { http3: { maxConnectionsPerAddress: 1 } },
  );
  const { pki } = testPki();
  const first = h3Requests(port, pki.caPath, [{ path: '/hold' }]);
  await new Promise((r) => setTimeout(r, 1000));
  await assert.rejects(h3Requests(port, pki.caPath, [{ path: '/' }], { timeout: 5 }), /aioquic client exited/);
  release();
  assert.equal((await first).responses[0].body.toString(), 'released');
  // Its connection gone, the address may connect again.
  const again = await h3Requests(port, pki.caPath, [{ path: '/' }]);
  assert.equal(again.responses[0].status, 200);
});

test('retryAbove: 0 makes every client prove its address with a Retry first, and aioquic gets through', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/', () => 'validated');
    },
    { http3: { retryAbove: 0 } },
  );
  const [r] = await ask(port, [{ path: '/' }]);
  assert.equal(r.body.toString(), 'validated');
});

test('Alt-Svc tells HTTP/1.1 and HTTP/2 clients where HTTP/3 is, on JS, fixed and native answers', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/js', () => 'js');
      app.fixed('GET', '/fixed', { body: 'fixed' });
    },
    { http2: true },
  );
  const want = `h3=":${port}"; ma=86400`;
  for (const path of ['/js', '/fixed', '/missing'])
    assert.equal((await httpsHeaders(port, path))['alt-svc'], want, path);
  const { pki } = testPki();
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca: pki.ca, servername: 'a.test' });
  t.after(() => session.destroy());
  for (const path of ['/js', '/fixed', '/missing']) {
    const r = await request(session, { ':path': path });
    assert.equal(r.headers['alt-svc'], want, `HTTP/2 ${path}`);
  }
  const [r3] = await ask(port, [{ path: '/js' }]);
  assert.equal(r3.body.toString(), 'js');
});

test('without http3 no response carries Alt-Svc', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/js', () => 'js');
    },
    { http3: false },
  );
  assert.equal((await httpsHeaders(port, '/js'))['alt-svc'], undefined);
});

test('listen refuses http3 options out of range, naming the option', async () => {
  const { gale } = await import('gale');
  const { leaf } = testPki();
  const tls = { cert: leaf.cert, key: leaf.key };
  for (const [http3, message] of [
    [{ idleTimeout: 700_000 }, /http3\.idleTimeout must be a number of milliseconds from 1 to 600000; got 700000/],
    [{ maxConnectionsPerAddress: 0 }, /maxConnectionsPerAddress/],
    [{ maxConcurrentStreams: 0 }, /maxConcurrentStreams/],
    [{ maxHandshakesPerSecond: 0 }, /maxHandshakesPerSecond/],
  ] as const) {
    const app = gale();
    await assert.rejects(
      Promise.resolve().then(() => app.listen({ port: 0, host: '127.0.0.1', tls, http3 })),
      message,
      JSON.stringify(http3),
    );
    await app.close();
  }
});

test('listen refuses http3 without tls, saying why', async () => {
  const { gale } = await import('gale');
  const app = gale();
  await assert.rejects(
    Promise.resolve().then(() => app.listen({ port: 0, host: '127.0.0.1', http3: true })),
    /http3 needs tls/,
  );
});
