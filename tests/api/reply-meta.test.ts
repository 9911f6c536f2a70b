// What a reply rarely carries, honoured by the engine: a custom reason phrase (res.statusMessage), the app's own
// `Connection: close`, a declared Content-Length for a streamed body (sent with it, not chunked; never more than
// declared; fewer bytes end the connection) and for a HEAD answer; the local address of a request; and headers
// set during a WebSocket upgrade going out with the 101.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';

test(
  'statusMessage sets the reason phrase; one a status line cannot hold falls back to the standard one',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.get('/custom', (_req, res) => {
        res.statusMessage = 'Totally Fine';
        res.status(299).send('x');
      });
      app.get('/bad', (_req, res) => {
        res.statusMessage = 'evil\r\nX-Injected: 1';
        res.send('y');
      });
      app.get('/stream', (_req, res) => {
        res.statusMessage = 'Streaming Along';
        res.write('a');
        res.end('b');
      });
    });
    const conn = await RawConn.open(port);
    for (const [path, line] of [
      ['/custom', 'HTTP/1.1 299 Totally Fine'],
      ['/bad', 'HTTP/1.1 200 OK'],
      ['/stream', 'HTTP/1.1 200 Streaming Along'],
    ]) {
      await conn.write(buildRequest({ path }));
      const r = await conn.readResponse();
      assert.equal(r.statusLine, line);
      assert.equal(r.get('x-injected'), undefined);
    }
    conn.socket.destroy();
  },
);

test("the app's Connection: close ends the connection after the response", T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/bye', (_req, res) => res.set('Connection', 'close').send('bye'));
    app.get('/stay', (_req, res) => res.set('Connection', 'keep-alive').send('stay'));
  });
  const conn = await RawConn.open(port);
  await conn.write(buildRequest({ path: '/stay' }));
  const stay = await conn.readResponse();
  assert.notEqual(stay.get('connection'), 'close');
  await conn.write(buildRequest({ path: '/bye' }));
  const bye = await conn.readResponse();
  assert.equal(bye.get('connection'), 'close');
  assert.ok(await conn.waitForClose(3000), 'the server closed the connection');
});

test('a declared Content-Length streams without chunking; more is cut, fewer ends the connection', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/exact', (_req, res) => {
      res.setHeader('Content-Length', 6);
      res.write('abc');
      res.end('def');
    });
    app.get('/more', (_req, res) => {
      res.setHeader('Content-Length', '4');
      res.write('abc');
      res.end('defgh');
    });
    app.get('/fewer', (_req, res) => {
      res.setHeader('Content-Length', '10');
      res.write('abc');
      res.end();
    });
    app.get('/head', (_req, res) => {
      res.setHeader('Content-Length', 12345);
      res.type('bin').end();
    });
  });
  const conn = await RawConn.open(port);
  await conn.write(buildRequest({ path: '/exact' }));
  const exact = await conn.readResponse();
  assert.deepEqual([exact.chunked, exact.get('content-length'), exact.text], [false, '6', 'abcdef']);
  await conn.write(buildRequest({ path: '/more' }));
  const more = await conn.readResponse();
  assert.deepEqual([more.get('content-length'), more.text], ['4', 'abcd']);
  // Still in step: the cut bytes never reached the wire.
  await conn.write(buildRequest({ method: 'HEAD', path: '/head' }));
  const head = await conn.readResponse({ head: true });
  assert.deepEqual([head.status, head.get('content-length')], [200, '12345']);
  await conn.write(buildRequest({ path: '/fewer' }));
  const fewer = await conn.readUntil('abc');
  assert.match(fewer.toString(), /Content-Length: 10\r\n/);
  assert.ok(await conn.waitForClose(3000), 'a body shorter than declared ends the connection');
});

test('req.local is the address the connection arrived on', T, async (t) => {
  const { port } = await withApp(t, (app) => app.get('/l', (req) => req.local));
  const r = await fetch(`http://127.0.0.1:${port}/l`);
  assert.deepEqual(await r.json(), { address: '127.0.0.1', port, family: 'IPv4' });
});

test(
  'headers set on res during a WebSocket upgrade go out with the 101; the handshake ones cannot be replaced',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws(
        '/w',
        (_req, res, next) => {
          res.cookie('sid', 'abc', { httpOnly: true });
          res.set('X-Server', 'gale');
          return next();
        },
        { message: () => {} },
      );
    });
    const conn = await RawConn.open(port);
    await conn.write(
      'GET /w HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const head = (await conn.readUntil('\r\n\r\n')).toString('latin1');
    assert.match(head, /^HTTP\/1\.1 101 /);
    assert.match(head, /\r\nSet-Cookie: sid=abc; Path=\/; HttpOnly\r\n/i);
    assert.match(head, /\r\nX-Server: gale\r\n/i);
    assert.match(head, /\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/);
    conn.socket.destroy();
  },
);
