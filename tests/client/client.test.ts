// gale/client against a running app, over Node's fetch and in-process (client(app), through app.request()): what it
// sends (params written into the pattern, query lists, JSON / text / form bodies, shared and per-call headers, fetch
// options) and what it reads back (JSON, problem+json, text, bytes, empty answers), on routes typed end to end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { type App, gale, router } from 'gale';
import { client } from 'gale/client';
import { z } from 'zod';

const Item = Type.Object({ id: Type.Integer(), name: Type.String() });
const Problem = Type.Object({ error: Type.String() });

function makeApp() {
  const items = router()
    .get('/:id', { params: z.object({ id: z.coerce.number() }), response: { 200: Item, 404: Problem } }, (req, res) =>
      req.params.id === 1 ? { id: 1, name: 'one' } : res.status(404).json({ error: `no item ${req.params.id}` }),
    )
    .post('/', { body: z.object({ name: z.string().min(1) }), response: { 201: Item } }, (req, res) =>
      res.status(201).json({ id: 2, name: req.body.name }),
    );
  return gale()
    .get('/echo/*rest', (req) => ({
      rest: req.params.rest,
      query: req.query,
      who: req.get('x-who'),
      key: req.get('x-key'),
    }))
    .get('/text', () => 'plain words')
    .get('/bytes', () => new Uint8Array([1, 2, 3]))
    .get('/old/:id?', (req) => ({ id: req.params.id ?? null }))
    .post('/raw', async (req) => ({ type: req.get('content-type'), body: await req.text() }))
    .post('/form', async (req) => ({ form: await req.parseBody() }))
    .delete('/gone', (_req, res) => res.sendStatus(204))
    .all('/any', (req) => ({ method: req.method }))
    .use('/items', items);
}

async function checkClient(api: ReturnType<typeof client<ReturnType<typeof makeApp>>>): Promise<void> {
  const found = await api.get('/items/:id', { params: { id: 1 } });
  assert.equal(found.status, 200);
  if (found.status === 200) assert.deepEqual(found.data, { id: 1, name: 'one' });
  assert.equal(found.ok, true);

  const missing = await api.get('/items/:id', { params: { id: 9 } });
  assert.deepEqual([missing.status, missing.ok, missing.data], [404, false, { error: 'no item 9' }]);

  const created = await api.post('/items', { body: { name: 'two' } });
  assert.deepEqual([created.status, created.data], [201, { id: 2, name: 'two' }]);

  // The body schema fails: the 400 problem document, typed.
  const invalid = await api.post('/items', { body: { name: '' } });
  assert.equal(invalid.status, 400);
  if (invalid.status === 400) {
    assert.equal(invalid.data.code, 'GALE_ERR_VALIDATION');
    assert.equal(invalid.data.errors[0]?.pointer, '#/name');
  }
  assert.match(invalid.response.headers.get('content-type') ?? '', /^application\/problem\+json/);

  // Params written into the pattern (a splat keeps its slashes), query lists repeated, headers merged.
  const echo = await api.get('/echo/*rest', {
    params: { rest: 'a b/c' },
    query: { tag: ['x', 'y'], n: 3, skip: undefined },
    headers: { 'X-Who': 'ada' },
  });
  assert.ok(echo.ok);
  assert.deepEqual(echo.data, { rest: 'a b/c', query: { tag: ['x', 'y'], n: '3' }, who: 'ada', key: 'shared' });

  const text = await api.get('/text');
  assert.deepEqual([text.status, text.data], [200, 'plain words']);
  const bytes = await api.get('/bytes');
  assert.ok(bytes.data instanceof ArrayBuffer);
  assert.deepEqual([...new Uint8Array(bytes.data as ArrayBuffer)], [1, 2, 3]);

  assert.deepEqual((await api.get('/old/:id?')).data, { id: null });
  assert.deepEqual((await api.get('/old/:id?', { params: { id: 5 } })).data, { id: '5' });

  const raw = await api.post('/raw', { body: 'hello' });
  assert.deepEqual(raw.data, { type: 'text/plain;charset=utf-8', body: 'hello' });
  const json = await api.post('/raw', { body: [1, 'two'] });
  assert.deepEqual(json.data, { type: 'application/json', body: '[1,"two"]' });
  const streamed = await api.post('/raw', {
    body: new Blob(['stre', 'amed']).stream(),
    headers: { 'content-type': 'text/plain' },
  });
  assert.deepEqual(streamed.data, { type: 'text/plain', body: 'streamed' });
  const form = await api.post('/form', { body: new URLSearchParams({ a: '1', b: '2' }) });
  assert.deepEqual(form.data, { form: { a: '1', b: '2' } });

  const gone = await api.delete('/gone');
  assert.deepEqual([gone.status, gone.data], [204, undefined]);
  const head = await api.head('/text');
  assert.deepEqual([head.status, head.data], [200, undefined]);
  assert.deepEqual((await api.patch('/any')).data, { method: 'PATCH' });
}

describe('gale/client', () => {
  let app: App;
  let origin: string;
  before(async () => {
    app = makeApp();
    const { port } = await app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${port}`;
  });
  after(() => app.close());

  test('over fetch, against the listening app', async () => {
    await checkClient(client<ReturnType<typeof makeApp>>(origin, { headers: () => ({ 'x-key': 'shared' }) }));
  });

  test('in-process, through app.request()', async () => {
    await checkClient(client(makeApp(), { headers: { 'x-key': 'shared' } }));
  });

  test('a base URL with a path, a fetch of its own, and fetch options', async () => {
    const seen: string[] = [];
    const api = client<ReturnType<typeof makeApp>>(`${origin}/`, {
      headers: { 'x-key': 'shared' },
      fetch: (url, init) => {
        seen.push(`${init.method} ${url}`);
        return fetch(url, init);
      },
    });
    await api.get('/text');
    assert.deepEqual(seen, [`GET ${origin}/text`]);
    const aborted = AbortSignal.abort(new Error('stopped'));
    await assert.rejects(api.get('/text', { init: { signal: aborted } }), /stopped/);
  });

  test('a missing required param is a TypeError before any request', async () => {
    const api = client<ReturnType<typeof makeApp>>(origin);
    // @ts-expect-error the param is required (the types say so; this checks the run time too)
    await assert.rejects(api.get('/items/:id', { params: {} }), {
      name: 'TypeError',
      message: 'gale/client: the path /items/:id needs the param "id"',
    });
  });
});
