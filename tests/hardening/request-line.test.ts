// The request line's edges a conformance run found: raw non-ASCII bytes in the target (400, as node:http), `OPTIONS *`
// (asks about the server as a whole: 200 with Allow, or the app's own notFound handler), CONNECT (no tunnels here:
// 405 with Allow, the connection kept) and a 100 KB method (501 naming its start, not 414 about the target).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RawConn, T, withApp } from '../helpers.js';

const routes = (app: Parameters<Parameters<typeof withApp>[1]>[0]) => {
  app.get('/', () => 'home');
  app.post('/items', () => 'made');
};

test('raw non-ASCII bytes in the target get 400 saying to percent-encode; encoded they route', T, async (t) => {
  const { port } = await withApp(t, (app) => app.get('/:name', (req) => req.params.name));
  const raw = await RawConn.open(port);
  t.after(() => raw.destroy());
  await raw.write(Buffer.from('GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n', 'latin1'));
  const refused = await raw.readResponse();
  assert.equal(refused.status, 400);
  assert.match(refused.text, /raw bytes outside ASCII\. Percent-encode them/);
  assert.ok(await raw.waitForClose());
  const ok = await RawConn.open(port);
  t.after(() => ok.destroy());
  await ok.write('GET /caf%C3%A9 HTTP/1.1\r\nHost: a\r\n\r\n');
  assert.equal((await ok.readResponse()).text, 'café');
});

test('OPTIONS * is answered 200 with every method some route takes', T, async (t) => {
  const { port } = await withApp(t, routes);
  const c = await RawConn.open(port);
  t.after(() => c.destroy());
  await c.write('OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n');
  const res = await c.readResponse();
  assert.equal(res.status, 200);
  assert.equal(res.get('allow'), 'GET, HEAD, POST, OPTIONS');
  assert.equal(res.get('content-length'), '0');
  // The connection stays usable.
  await c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
  assert.equal((await c.readResponse()).text, 'home');
});

test("OPTIONS * reaches the app's notFound handler when it has one", T, async (t) => {
  const { port } = await withApp(t, (app) => {
    routes(app);
    app.notFound((req, res) => res.status(req.url === '*' ? 204 : 404).send());
  });
  const c = await RawConn.open(port);
  t.after(() => c.destroy());
  await c.write('OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n');
  assert.equal((await c.readResponse()).status, 204);
});

test('CONNECT gets 405 with Allow (no tunnel), also where a notFound handler would take the rest', T, async (t) => {
  for (const notFound of [false, true]) {
    const { port } = await withApp(t, (app) => {
      routes(app);
      if (notFound) app.notFound((_req, res) => res.status(404).send('app 404'));
    });
    const c = await RawConn.open(port);
    t.after(() => c.destroy());
    await c.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const res = await c.readResponse();
    assert.equal(res.status, 405);
    assert.equal(res.get('allow'), 'GET, HEAD, POST');
    assert.match(res.text, /CONNECT \(a tunnel\) is not served here/);
    await c.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
    assert.equal((await c.readResponse()).text, 'home', 'the connection is still served');
  }
});

test('a 100 KB method gets 501 naming its first characters, whether or not its line ended', T, async (t) => {
  const { port } = await withApp(t, routes);
  for (const bytes of ['A'.repeat(100_000), `${'A'.repeat(100_000)} / HTTP/1.1\r\nHost: a\r\n\r\n`]) {
    const c = await RawConn.open(port);
    t.after(() => c.destroy());
    await c.write(bytes);
    const res = await c.readResponse();
    assert.equal(res.status, 501);
    assert.equal(
      res.text,
      'Not Implemented: the request method "AAAAAAAAAAAAAAAA..." is longer than 8256 bytes, and no such method is ' +
        'implemented here. Send a method such as GET or POST.',
    );
    assert.ok(await c.waitForClose());
  }
});
