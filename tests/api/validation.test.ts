// Per-route validation with the real zod 4, valibot and arktype packages: a route's params, query, headers and body
// schemas run after its middleware and before its handler, which sees their outputs; a failure is a 400
// application/problem+json (RFC 9457) naming each failing field, and nothing of the handler runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type } from 'arktype';
import {
  derive,
  ErrorCodes,
  HttpError,
  type RouteSchema,
  router,
  VALIDATION_PROBLEM_TYPE,
  ValidationError,
} from 'gale';
import * as v from 'valibot';
import { z } from 'zod';
import { type App, T, withApp } from '../helpers.js';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors: { in: string; pointer: string; path: (string | number)[]; message: string }[];
}

async function call(
  port: number,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: init.method ?? 'GET', headers, body });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

function problem(r: { status: number; type: string | null; text: string }): Problem {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.type, 'application/problem+json');
  const p = JSON.parse(r.text) as Problem;
  assert.equal(p.type, VALIDATION_PROBLEM_TYPE);
  assert.equal(p.status, 400);
  assert.equal(p.code, 'GALE_ERR_VALIDATION');
  assert.equal(typeof p.title, 'string');
  assert.equal(typeof p.detail, 'string');
  return p;
}

/** Where each issue is, without the libraries' wording. */
const where = (p: Problem) => p.errors.map((e) => `${e.in} ${e.pointer}`);

/** The same four schemas in each library: params id (a number), query page (a number, 1 by default), header
 * x-api-key (required), body { name: non-empty string, tags: string[] }. */
const libraries: { name: string; schema: RouteSchema }[] = [
  {
    name: 'zod',
    schema: {
      params: z.object({ id: z.coerce.number().int() }),
      query: z.object({ page: z.coerce.number().int().default(1) }),
      headers: z.object({ 'x-api-key': z.string().min(3) }),
      body: z.object({ name: z.string().min(1), tags: z.array(z.string()) }),
    },
  },
  {
    name: 'valibot',
    schema: {
      params: v.object({ id: v.pipe(v.string(), v.digits(), v.transform(Number)) }),
      query: v.object({ page: v.optional(v.pipe(v.string(), v.digits(), v.transform(Number)), '1') }),
      headers: v.object({ 'x-api-key': v.pipe(v.string(), v.minLength(3)) }),
      body: v.object({ name: v.pipe(v.string(), v.minLength(1)), tags: v.array(v.string()) }),
    },
  },
  {
    name: 'arktype',
    schema: {
      params: type({ id: 'string.integer.parse' }),
      query: type({ page: type('string.integer.parse').default('1') }),
      headers: type({ 'x-api-key': 'string >= 3' }),
      body: type({ name: 'string > 0', tags: 'string[]' }),
    },
  },
];

for (const { name, schema } of libraries) {
  test(
    `${name}: the handler sees the schemas' outputs; a bad request is a 400 problem naming each field`,
    T,
    async (t) => {
      let ran = 0;
      const { port } = await withApp(t, (app) => {
        app.post('/users/:id', schema, (req) => {
          ran++;
          return {
            id: req.params.id,
            page: (req.query as { page: unknown }).page,
            key: (req.headers as Record<string, unknown>)['x-api-key'],
            agent: req.get('user-agent') !== undefined,
            body: req.body,
          };
        });
      });
      const good = await call(port, '/users/7?page=3', {
        method: 'POST',
        headers: { 'x-api-key': 'secret' },
        body: { name: 'Ada', tags: ['x'] },
      });
      assert.equal(good.status, 200, good.text);
      assert.deepEqual(JSON.parse(good.text), {
        id: 7,
        page: 3,
        key: 'secret',
        agent: true, // headers the schema does not name are still there
        body: { name: 'Ada', tags: ['x'] },
      });
      const defaulted = await call(port, '/users/8', {
        method: 'POST',
        headers: { 'x-api-key': 'secret' },
        body: { name: 'Ada', tags: [] },
      });
      assert.equal(JSON.parse(defaulted.text).page, 1);
      assert.equal(ran, 2);

      const bad = problem(
        await call(port, '/users/x?page=y', {
          method: 'POST',
          headers: { 'x-api-key': 'k' },
          body: { name: '', tags: [1] },
        }),
      );
      assert.deepEqual(where(bad), [
        'params #/id',
        'query #/page',
        'headers #/x-api-key',
        'body #/name',
        'body #/tags/0',
      ]);
      for (const e of bad.errors) assert.ok(e.message.length > 0, `${e.in} ${e.pointer} has a message`);
      assert.deepEqual(bad.errors.at(-1)?.path, ['tags', 0]);
      assert.match(bad.detail, /^5 problems: params \/id: .+; body \/tags\/0: .+$/);
      const missing = problem(await call(port, '/users/1', { method: 'POST', body: {} }));
      assert.deepEqual(where(missing).slice(0, 1), ['headers #/x-api-key']);
      assert.ok(where(missing).includes('body #/name'));
      assert.equal(ran, 2, 'the handler never ran for a bad request');
    },
  );
}

test('async schemas: zod refinements that await, valibot pipeAsync', T, async (t) => {
  const taken = new Set(['ada']);
  const { port } = await withApp(t, (app) => {
    app.post(
      '/zod',
      {
        body: z.object({
          user: z.string().refine(async (u) => {
            await new Promise((r) => setTimeout(r, 5));
            return !taken.has(u);
          }, 'taken'),
        }),
      },
      (req) => `welcome ${req.body.user}`,
    );
    app.get(
      '/valibot',
      {
        query: v.objectAsync({
          n: v.pipeAsync(
            v.string(),
            v.checkAsync(async (s) => s !== '0', 'not zero'),
            v.transform((s) => Number(s) * 2),
          ),
        }),
      },
      (req) => String(req.query.n),
    );
  });
  assert.equal((await call(port, '/zod', { method: 'POST', body: { user: 'bob' } })).text, 'welcome bob');
  const p = problem(await call(port, '/zod', { method: 'POST', body: { user: 'ada' } }));
  assert.deepEqual(p.errors, [{ in: 'body', pointer: '#/user', path: ['user'], message: 'taken' }]);
  assert.equal((await call(port, '/valibot?n=21')).text, '42');
  assert.deepEqual(problem(await call(port, '/valibot?n=0')).errors[0]?.message, 'not zero');
});

test("the route's middleware run before validation: auth refuses first, state reaches the handler", T, async (t) => {
  let validatedBodies = 0;
  const body = z.object({ n: z.number() }).transform((b) => {
    validatedBodies++;
    return b;
  });
  const auth = derive((req) => {
    if (req.get('x-user') === undefined) throw new HttpError(401, 'who are you');
    return { user: req.get('x-user') as string };
  });
  const { port } = await withApp(t, (app) => {
    app.post('/n', { body }, auth, (req) => `${req.state.user}: ${req.body.n}`);
  });
  const refused = await call(port, '/n', { method: 'POST', body: { n: 'not a number' } });
  assert.equal(refused.status, 401);
  assert.equal(validatedBodies, 0, 'the body was not validated for a request auth refused');
  assert.equal(
    (await call(port, '/n', { method: 'POST', headers: { 'x-user': 'ada' }, body: { n: 2 } })).text,
    'ada: 2',
  );
  problem(await call(port, '/n', { method: 'POST', headers: { 'x-user': 'ada' }, body: { n: 'x' } }));
});

test(
  'a body that is not JSON keeps its own answer; no body against a body schema is a validation failure',
  T,
  async (t) => {
    let ran = 0;
    const { port } = await withApp(t, (app) => {
      app.post('/b', { body: z.object({ a: z.string() }) }, (req) => {
        ran++;
        return req.body.a;
      });
    });
    const malformed = await call(port, '/b', {
      method: 'POST',
      body: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.match(malformed.text, /JSON/);
    const none = problem(await call(port, '/b', { method: 'POST' }));
    assert.deepEqual(where(none), ['body #']);
    // A urlencoded form is read as parseBody() reads it, and checked the same way.
    const form = await call(port, '/b', {
      method: 'POST',
      body: 'a=from-a-form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.text, 'from-a-form');
    assert.equal(ran, 1);
  },
);

test('ValidationError reaches error handlers, which may answer their own way', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    const api = router();
    api.get('/items/:id', { params: z.object({ id: z.coerce.number() }) }, (req) => ({ id: req.params.id }));
    api.onError((err, _req, res) => {
      if (!(err instanceof ValidationError)) throw err;
      assert.equal(err.status, 400);
      assert.equal(err.code, ErrorCodes.VALIDATION);
      return res.status(422).json({ invalid: err.issues.map((i) => `${i.in}:${i.path.join('.')}`) });
    });
    app.use('/api', api);
  });
  assert.deepEqual(await call(port, '/api/items/5'), { status: 200, type: 'application/json', text: '{"id":5}' });
  const r = await call(port, '/api/items/five');
  assert.equal(r.status, 422);
  assert.deepEqual(JSON.parse(r.text), { invalid: ['params:id'] });
});

test('pointers escape "~" and "/" (RFC 6901) and percent-encode what a URI fragment cannot hold', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.post('/k', { body: z.object({ 'a/b': z.string(), 'c~d': z.string(), 'e f': z.string() }) }, () => 'ok');
  });
  const p = problem(await call(port, '/k', { method: 'POST', body: {} }));
  assert.deepEqual(where(p), ['body #/a~1b', 'body #/c~0d', 'body #/e%20f']);
  assert.deepEqual(
    p.errors.map((e) => e.path),
    [['a/b'], ['c~d'], ['e f']],
  );
});

test(
  'a schema object with an unknown key, or a part that is not a Standard Schema, is refused at registration',
  T,
  async (t) => {
    await withApp(t, (app: App) => {
      const bad = (schema: object) => () => app.post('/x', schema as RouteSchema, () => 'x');
      assert.throws(
        bad({ bdy: z.string() }),
        /POST \/x: unknown key "bdy" in the route's schema object \(did you mean "body"\?\)/,
      );
      assert.throws(bad({ query: { type: 'object' } }), /POST \/x: query must be a Standard Schema/);
      assert.throws(bad({ response: { 299.5: {} } }), /response key "299.5" is not a status/);
      assert.throws(bad({ response: { 200: 'x' } }), /response\[200\] must be a JSON Schema/);
      assert.throws(bad({ tags: 'users' }), /tags must be an array of strings/);
      // valibot without toStandardJsonSchema validates requests, but exports no JSON Schema for a response serializer.
      assert.throws(
        bad({ response: { 200: v.object({ a: v.string() }) } }),
        (err: Error & { code?: string }) =>
          err.code === ErrorCodes.RESPONSE_SCHEMA && /toStandardJsonSchema/.test(err.message),
      );
    });
  },
);

test(
  'a body read as text because of its Content-Type (or its lack) says so in the issue about the whole body',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.post('/users', { body: z.object({ name: z.string() }) }, (req) => ({ hello: req.body.name }));
    });
    const json = new TextEncoder().encode(JSON.stringify({ name: 'ada' }));
    const send = async (headers: Record<string, string>, body: Uint8Array | string) => {
      // (TypeScript's DOM types want an ArrayBuffer-backed view; TextEncoder's is one at run time.)
      const init = { method: 'POST', headers, body: body as BodyInit };
      const r = await fetch(`http://127.0.0.1:${port}/users`, init);
      return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
    };
    // fetch() adds no Content-Type to a Uint8Array body.
    const none = problem(await send({}, json));
    assert.deepEqual(where(none), ['body #']);
    assert.match(
      none.errors[0]?.message as string,
      /\(the request has no Content-Type header, so its body was read as text; a JSON body needs Content-Type: application\/json\)$/,
    );
    const text = problem(await send({ 'content-type': 'text/plain' }, JSON.stringify({ name: 'ada' })));
    assert.match(
      text.errors[0]?.message as string,
      /\(the body was read as text\/plain, its Content-Type; a JSON body needs/,
    );
    // With the right header the same bytes pass; an issue inside a JSON body gets no hint.
    const ok = await send({ 'content-type': 'application/json' }, json);
    assert.equal(ok.status, 200, ok.text);
    const inner = problem(await send({ 'content-type': 'application/json' }, JSON.stringify({ name: 1 })));
    assert.deepEqual(where(inner), ['body #/name']);
    assert.doesNotMatch(inner.errors[0]?.message as string, /Content-Type/);
  },
);
