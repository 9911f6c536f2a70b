// Response schemas: `response: { 200: schema }` compiled once by fast-json-stringify from a JSON Schema (TypeBox, plain
// JSON Schema) or what zod 4, arktype and valibot (toStandardJsonSchema) export; a returned object or res.json() with
// that status goes through it, and only the properties it names are written. Other statuses, strings and bytes are
// answered as without a schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { T, withApp } from '../helpers.js';

async function get(port: number, path: string) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
}

const user = { id: 7, name: 'Ada', password: 'hunter2', admin: true };

test('each schema kind serializes the same bytes and leaves out what it does not name', T, async (t) => {
  const schemas = {
    typebox: Type.Object({ id: Type.Integer(), name: Type.String() }),
    json: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id'] },
    zod: z.object({ id: z.number().int(), name: z.string() }),
    arktype: type({ id: 'number.integer', name: 'string' }),
    valibot: toStandardJsonSchema(v.object({ id: v.number(), name: v.string() })),
  };
  const { port } = await withApp(t, (app) => {
    for (const [name, schema] of Object.entries(schemas)) {
      app.get(`/${name}`, { response: { 200: schema } }, () => user);
      app.get(`/${name}/res-json`, { response: { 200: schema } }, (_req, res) => res.json(user));
    }
  });
  for (const name of Object.keys(schemas)) {
    for (const path of [`/${name}`, `/${name}/res-json`]) {
      const r = await get(port, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.type, 'application/json', path);
      assert.equal(r.body, '{"id":7,"name":"Ada"}', path);
    }
  }
});

test('statuses pick their schema: exact, then a range like 4XX, then default; others are plain JSON', T, async (t) => {
  const response = {
    200: Type.Object({ id: Type.Integer() }),
    201: Type.Object({ created: Type.Integer() }),
    '4XX': Type.Object({ error: Type.String() }),
    default: Type.Object({ fallback: Type.Boolean() }),
  };
  const { port } = await withApp(t, (app) => {
    app.get('/status/:code', { response }, (req, res) => {
      res.status(Number(req.params.code));
      return { id: 1, created: 2, error: 'nope', fallback: true, extra: 'x' };
    });
    // Off the route's contract, so a compile-time error (tests/types/responses.ts), but sent as they are at run time.
    // @ts-expect-error a string where the response schemas describe objects
    app.get('/text', { response }, () => 'a string is not serialized');
    // @ts-expect-error bytes where the response schemas describe objects
    app.get('/bytes', { response }, () => new Uint8Array([1, 2]));
  });
  assert.equal((await get(port, '/status/200')).body, '{"id":1}');
  assert.equal((await get(port, '/status/201')).body, '{"created":2}');
  assert.equal((await get(port, '/status/404')).body, '{"error":"nope"}');
  assert.equal((await get(port, '/status/503')).body, '{"fallback":true}');
  assert.deepEqual(await get(port, '/text'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'a string is not serialized',
  });
  assert.equal((await get(port, '/bytes')).type, 'application/octet-stream');
});

test('routes without response schemas, and statuses without one, stay JSON.stringify', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/plain', () => user);
    app.get('/only-201', { response: { 201: Type.Object({ id: Type.Integer() }) } }, () => user);
  });
  assert.equal((await get(port, '/plain')).body, JSON.stringify(user));
  assert.equal((await get(port, '/only-201')).body, JSON.stringify(user));
});

test(
  'async handlers and handlers that declare next are serialized too; validation and serialization together',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.get(
        '/users/:id',
        { params: z.object({ id: z.coerce.number() }), response: { 200: z.object({ id: z.number() }) } },
        async (req) => {
          await new Promise((r) => setTimeout(r, 1));
          return { id: req.params.id, secret: 'x' };
        },
      );
      app.get('/next', { response: { 200: Type.Object({ ok: Type.Boolean() }) } }, (_req, _res, next) => {
        void next;
        return { ok: true, hidden: 1 };
      });
    });
    assert.equal((await get(port, '/users/42')).body, '{"id":42}');
    assert.equal((await get(port, '/users/x')).status, 400);
    assert.equal((await get(port, '/next')).body, '{"ok":true}');
  },
);
