// CSRF over real sockets, with a session (synchronizer token) and without (signed double-submit cookie): unsafe
// methods without a token, with a wrong one or another client's get 403 (GALE_ERR_CSRF); a token in the header,
// a urlencoded field or a JSON field passes and the handler still reads the body; safe methods are not checked;
// without csrf() nothing is checked (it is off by default).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrf, session } from 'gale';
import { type App, type ParsedResponse, simpleRequest, T, withApp } from '../helpers.js';

function routes(app: App): void {
  app.get('/form', (req) => ({ token: req.csrfToken() }));
  app.post('/transfer', async (req) => ({ ok: true, body: await req.parseBody() }));
  app.delete('/item', () => 'deleted');
  app.get('/read', () => 'safe');
}

/** Cookies a client keeps between requests. */
class Browser {
  jar = new Map<string, string>();
  constructor(private readonly port: number) {}
  async send(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<ParsedResponse> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const r = await simpleRequest(this.port, {
      method,
      path,
      headers: cookie ? { ...headers, cookie } : headers,
      body,
    });
    for (const c of r.getAll('set-cookie')) {
      const pair = c.split(';')[0] as string;
      const eq = pair.indexOf('=');
      this.jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return r;
  }
  async token(): Promise<string> {
    return JSON.parse((await this.send('GET', '/form')).text).token;
  }
}

async function contract(port: number): Promise<void> {
  const b = new Browser(port);
  const noSecret = await b.send('POST', '/transfer');
  assert.equal(noSecret.status, 403);
  assert.match(noSecret.text, /CSRF/);
  const token = await b.token();
  assert.equal((await b.send('GET', '/read')).status, 200, 'safe methods are not checked');
  const missing = await b.send('POST', '/transfer', { 'content-type': 'application/json' }, '{"amount":5}');
  assert.equal(missing.status, 403);
  assert.match(missing.text, /missing CSRF token.*X-CSRF-Token/);
  const wrong = await b.send('POST', '/transfer', { 'x-csrf-token': `${token.slice(0, -2)}xx` });
  assert.equal(wrong.status, 403);
  assert.match(wrong.text, /invalid CSRF token/);
  const viaHeader = await b.send(
    'POST',
    '/transfer',
    { 'x-csrf-token': token, 'content-type': 'application/json' },
    '{"amount":5}',
  );
  assert.equal(viaHeader.status, 200, viaHeader.text);
  assert.deepEqual(JSON.parse(viaHeader.text), { ok: true, body: { amount: 5 } });
  const form = `amount=7&_csrf=${encodeURIComponent(token)}`;
  const viaForm = await b.send('POST', '/transfer', { 'content-type': 'application/x-www-form-urlencoded' }, form);
  assert.equal(viaForm.status, 200, viaForm.text);
  assert.deepEqual(JSON.parse(viaForm.text).body, { amount: '7', _csrf: token }, 'the handler still reads the body');
  const json = await b.send(
    'POST',
    '/transfer',
    { 'content-type': 'application/json' },
    JSON.stringify({ _csrf: token }),
  );
  assert.equal(json.status, 200);
  assert.equal((await b.send('DELETE', '/item', { 'csrf-token': await b.token() })).status, 200, 'tokens are reusable');
  // another client's token does not fit this client's secret
  const other = new Browser(port);
  await other.token();
  assert.equal((await other.send('POST', '/transfer', { 'x-csrf-token': token })).status, 403);
}

test('csrf() with a session: the secret lives in the session (synchronizer token)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(session({ secret: 'session secret' }));
    app.use(csrf());
    routes(app);
  });
  await contract(port);
  // many tokens of one secret all verify (random salts of every shape)
  const many = new Browser(port);
  for (let i = 0; i < 40; i++) {
    const r = await many.send('DELETE', '/item', { 'x-csrf-token': await many.token() });
    assert.equal(r.status, 200, `token ${i}: ${r.text}`);
  }
  const b = new Browser(port);
  await b.token();
  assert.deepEqual([...b.jar.keys()], ['gale.sid'], 'no separate CSRF cookie');
});

test('csrf() without a session: a signed double-submit cookie; a forged cookie is refused', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(csrf({ secret: 'csrf signing key' }));
    routes(app);
  });
  await contract(port);
  const b = new Browser(port);
  await b.token();
  const cookie = b.jar.get('_csrf') as string;
  assert.ok(cookie);
  // an attacker who can set cookies plants their own secret and a token made from it
  const planted = new Browser(port);
  const secret = 'attacker-secret';
  planted.jar.set('_csrf', `${secret}.forged`);
  const { createHash } = await import('node:crypto');
  const forged = `salt.${createHash('sha256').update(`salt.${secret}`).digest('base64url')}`;
  assert.equal((await planted.send('POST', '/transfer', { 'x-csrf-token': forged })).status, 403);
  const r = await simpleRequest(port, { path: '/form' });
  assert.match(r.get('set-cookie') ?? '', /^_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
});

test('off by default: an app without csrf() takes POSTs as they come', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.post('/transfer', () => 'done');
  });
  assert.equal((await simpleRequest(port, { method: 'POST', path: '/transfer', body: 'x=1' })).text, 'done');
});

test('ignoreMethods and custom header names are honoured', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(csrf({ ignoreMethods: ['GET', 'HEAD', 'OPTIONS', 'DELETE'], headers: ['x-my-token'] }));
    routes(app);
  });
  const b = new Browser(port);
  const token = await b.token();
  assert.equal((await b.send('DELETE', '/item')).status, 200);
  assert.equal((await b.send('POST', '/transfer', { 'x-csrf-token': token })).status, 403, 'not a listed header');
  assert.equal((await b.send('POST', '/transfer', { 'x-my-token': token })).status, 200);
});
