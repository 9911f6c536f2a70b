// One error format for the native API (gale({ errorFormat })): the answers Gale makes itself — the engine's 404,
// 405 and 413, the JS 404 of an app with middleware, 415 and 400 from a bad body, an uncaught HttpError or Error —
// are RFC 9457 problem documents with a stable code for a client whose Accept prefers JSON, plain text otherwise;
// 'text' and 'problem' pin one format. Through the engine's parser both ways: app.request() and a real socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCodes, type GaleError, gale, HttpError, type ProblemDocument } from 'gale';
import { T } from '../helpers.js';

const quiet = { logger: { error() {}, warn() {}, info() {} } } as const;
const JSON_ACCEPT = { accept: 'application/json' };

function routes(app: ReturnType<typeof gale>): void {
  app.get('/items/:id', (req) => ({ id: req.params.id }));
  app.post('/echo', async (req) => req.json());
  app.post('/form', async (req) => req.form());
  app.get('/teapot', () => {
    throw new HttpError(418, 'short and stout', { code: 'APP_TEAPOT', headers: { 'x-why': 'tea' } });
  });
  app.get('/boom', () => {
    throw new Error('secret internals');
  });
}

async function problem(res: globalThis.Response, status: number): Promise<ProblemDocument> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  const doc = (await res.json()) as ProblemDocument;
  assert.equal(doc.type, 'about:blank');
  assert.equal(doc.status, status);
  return doc;
}

async function text(res: globalThis.Response, status: number): Promise<string> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  return res.text();
}

test('negotiate (the default): problem documents for JSON clients, text for the rest', T, async () => {
  const app = gale({ bodyLimit: 64, ...quiet });
  routes(app);
  const req = (path: string, init?: RequestInit) => app.request(path, init);
  // The engine's own answers (no middleware: a miss never reaches JS).
  assert.deepEqual(await problem(await req('/nope', { headers: JSON_ACCEPT }), 404), {
    type: 'about:blank',
    title: 'Not Found',
    status: 404,
    code: 'GALE_ERR_NOT_FOUND',
  });
  assert.equal(await text(await req('/nope'), 404), 'Not Found');
  assert.equal(await text(await req('/nope', { headers: { accept: 'text/html,*/*;q=0.8' } }), 404), 'Not Found');
  const wrongMethod = await req('/items/1', { method: 'DELETE', headers: { accept: 'application/json, */*' } });
  assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
  assert.equal((await problem(wrongMethod, 405)).code, 'GALE_ERR_METHOD_NOT_ALLOWED');
  const big = await req('/echo', {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ pad: 'x'.repeat(100) }),
  });
  assert.equal((await problem(big, 413)).code, ErrorCodes.BODY_TOO_LARGE);
  // Answers JS makes: a bad body, an HttpError with its code and headers, an Error (no internals leak).
  const notForm = await req('/form', {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'content-type': 'text/plain' },
    body: 'hi',
  });
  assert.equal((await problem(notForm, 415)).code, ErrorCodes.UNSUPPORTED_MEDIA_TYPE);
  const badJson = await req('/echo', {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'content-type': 'application/json' },
    body: '{"a":',
  });
  const bad = await problem(badJson, 400);
  assert.equal(bad.code, ErrorCodes.INVALID_JSON);
  assert.equal(typeof bad.detail, 'string');
  const teapot = await req('/teapot', { headers: JSON_ACCEPT });
  assert.equal(teapot.headers.get('x-why'), 'tea');
  assert.deepEqual(await problem(teapot, 418), {
    type: 'about:blank',
    title: 'Error',
    status: 418,
    detail: 'short and stout',
    code: 'APP_TEAPOT',
  });
  assert.equal(await text(await req('/teapot'), 418), 'short and stout');
  assert.deepEqual(await problem(await req('/boom', { headers: JSON_ACCEPT }), 500), {
    type: 'about:blank',
    title: 'Internal Server Error',
    status: 500,
    code: 'GALE_ERR_INTERNAL',
  });
  // Routes answer as before.
  assert.deepEqual(await (await req('/items/7', { headers: JSON_ACCEPT })).json(), { id: '7' });
  await app.close();
});

test("an app with middleware: the JS 404 follows the same rule; the app's notFound still wins", T, async () => {
  const app = gale(quiet);
  app.use((_req, _res, next) => next());
  routes(app);
  assert.equal((await problem(await app.request('/nope', { headers: JSON_ACCEPT }), 404)).code, 'GALE_ERR_NOT_FOUND');
  assert.equal(await text(await app.request('/nope'), 404), 'Not Found');
  app.notFound((_req, res) => res.status(404).json({ mine: true }));
  assert.deepEqual(await (await app.request('/nope', { headers: JSON_ACCEPT })).json(), { mine: true });
  await app.close();
});

test("errorFormat 'text' and 'problem' pin the format; over a real socket too", T, async () => {
  const textApp = gale({ errorFormat: 'text', ...quiet });
  routes(textApp);
  const problemApp = gale({ errorFormat: 'problem', ...quiet });
  routes(problemApp);
  const t = await textApp.listen(0, '127.0.0.1');
  const p = await problemApp.listen(0, '127.0.0.1');
  for (const path of ['/nope', '/boom']) {
    const status = path === '/nope' ? 404 : 500;
    await text(await fetch(`http://127.0.0.1:${t.port}${path}`, { headers: JSON_ACCEPT }), status);
    await problem(await fetch(`http://127.0.0.1:${p.port}${path}`, { headers: { accept: 'text/plain' } }), status);
  }
  await textApp.close();
  await problemApp.close();
});

test('errorFormat is checked', () => {
  assert.throws(
    // @ts-expect-error: not one of the formats
    () => gale({ errorFormat: 'xml' }),
    (err: GaleError) => err.code === ErrorCodes.INVALID_OPTION && /errorFormat/.test(err.message),
  );
});
