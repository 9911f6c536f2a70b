// app.openapi(): an OpenAPI 3.1 document of the app's routes and their schemas, checked by a real OpenAPI validator
// (@seriousme/openapi-schema-validator) and by what it says of each syntax: `{param}` paths, optional groups as one
// path each, constraints as patterns, params/query/headers/body/responses from zod, valibot (toStandardJsonSchema),
// arktype and TypeBox, routers under their prefix, recursive schemas moved to components.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Type } from '@sinclair/typebox';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { gale, type OpenApiDocument, router } from 'gale';
import * as v from 'valibot';
import { z } from 'zod';
import { T, withApp } from '../helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as JSON, its shape asserted by the checks
type Json = Record<string, any>;

async function valid(doc: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const res = await validator.validate(doc as unknown as Json);
  assert.equal(res.valid, true, JSON.stringify(res.errors, null, 2));
  assert.equal(validator.version, '3.1');
  // Every $ref resolves (a dangling one throws).
  validator.resolveRefs();
}

const Category: z.ZodType<{ name: string; children: unknown[] }> = z.object({
  name: z.string(),
  get children() {
    return z.array(Category);
  },
});

function build() {
  const app = gale();
  app.get('/health', () => 'ok');
  app.get('/users/:id(\\d+)', (req) => req.params.id);
  app.get('/files/*path', (req) => req.params.path);
  app.get('/v5/:lang{/:page}', (req) => req.params.page ?? req.params.lang);
  app.get('/v4/:a/:b?', (req) => req.params.b ?? req.params.a);
  app.all('/any', () => 'any');
  app.post(
    '/users',
    {
      body: z.object({ name: z.string().min(1), email: z.email() }),
      query: z.object({ dryRun: z.enum(['yes', 'no']).optional() }),
      headers: z.object({ 'x-request-key': z.string(), 'content-type': z.string() }),
      response: { 201: Type.Object({ id: Type.Integer(), name: Type.String() }) },
      summary: 'Create a user',
      description: 'Creates a user and answers with it.',
      tags: ['users'],
      operationId: 'createUser',
    },
    (_req, res) => {
      res.status(201);
      return { id: 1, name: 'x' };
    },
  );
  app.patch(
    '/users/:id',
    { params: z.object({ id: z.coerce.number().int() }), body: toStandardJsonSchema(v.object({ name: v.string() })) },
    (req) => req.params.id,
  );
  app.put('/ark/:slug', { body: type({ title: 'string', 'draft?': 'boolean' }), deprecated: true }, () => 'ok');
  app.post('/opaque', { body: v.object({ a: v.string() }) }, () => 'a valibot schema without a JSON Schema export');
  app.post('/tree', { body: Category, response: { 200: Category } }, () => ({ name: 'root', children: [] }));
  app.get('/openapi.json', { hidden: true }, () => 'hidden');
  app.ws('/live', { open: (ws) => ws.close() });
  app.fetch('/legacy', () => new Response('from a fetch handler'));
  const api = router();
  api.get(
    '/items/:item',
    { response: { 200: { type: 'object', properties: { item: { type: 'string' } } } } },
    (req) => ({
      item: req.params.item,
    }),
  );
  app.use('/api/v1', api);
  return app;
}

test('the document validates as OpenAPI 3.1 and lists every HTTP route but hidden ones', T, async () => {
  const app = build();
  const doc = app.openapi({ info: { title: 'Test API', version: '1.2.3' }, servers: [{ url: 'http://localhost' }] });
  await valid(doc);
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(doc.info, { title: 'Test API', version: '1.2.3' });
  assert.deepEqual(doc.servers, [{ url: 'http://localhost' }]);
  assert.deepEqual(Object.keys(doc.paths).sort(), [
    '/any',
    '/api/v1/items/{item}',
    '/ark/{slug}',
    '/files/{path}',
    '/health',
    '/opaque',
    '/tree',
    '/users',
    '/users/{id}',
    '/v4/{a}',
    '/v4/{a}/{b}',
    '/v5/{lang}',
    '/v5/{lang}/{page}',
  ]);
  assert.deepEqual(Object.keys(doc.paths['/any'] as Json).sort(), [
    'delete',
    'get',
    'head',
    'options',
    'patch',
    'post',
    'put',
  ]);
  app.close();
});

test('path params: constraints become patterns, splats say they span segments, schemas give types', T, async () => {
  const app = build();
  const paths = app.openapi({ info: { title: 't', version: '1' } }).paths as Json;
  assert.deepEqual(paths['/users/{id}'].get.parameters, [
    { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^(?:\\d+)$' } },
  ]);
  // The same OpenAPI path from another route with a params schema: its JSON Schema types the param.
  assert.equal(paths['/users/{id}'].patch.parameters[0].schema.type, 'integer');
  assert.match(paths['/files/{path}'].get.parameters[0].description, /segments/);
  assert.deepEqual(
    paths['/v5/{lang}/{page}'].get.parameters.map((p: Json) => p.name),
    ['lang', 'page'],
  );
  assert.deepEqual(
    paths['/v5/{lang}'].get.parameters.map((p: Json) => p.name),
    ['lang'],
  );
  app.close();
});

test('operations: docs, query and header params, request bodies and responses from each library', T, async () => {
  const app = build();
  const doc = app.openapi({ info: { title: 't', version: '1' } });
  const create = (doc.paths as Json)['/users'].post;
  assert.equal(create.operationId, 'createUser');
  assert.equal(create.summary, 'Create a user');
  assert.equal(create.description, 'Creates a user and answers with it.');
  assert.deepEqual(create.tags, ['users']);
  // content-type is left out: OpenAPI describes it with the request body, not as a header parameter.
  assert.deepEqual(
    create.parameters.map((p: Json) => [p.in, p.name, p.required]),
    [
      ['query', 'dryRun', false],
      ['header', 'x-request-key', true],
    ],
  );
  assert.deepEqual(create.parameters[0].schema.enum, ['yes', 'no']);
  const body = create.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required, ['name', 'email']);
  assert.equal(body.properties.email.format, 'email');
  assert.deepEqual(Object.keys(create.responses).sort(), ['201', '400', '503']);
  assert.deepEqual(create.responses['201'].content['application/json'].schema.required, ['id', 'name']);
  assert.equal(
    create.responses['400'].content['application/problem+json'].schema.$ref,
    '#/components/schemas/GaleValidationProblem',
  );
  const paths = doc.paths as Json;
  assert.deepEqual(paths['/users/{id}'].patch.requestBody.content['application/json'].schema.properties, {
    name: { type: 'string' },
  });
  const ark = paths['/ark/{slug}'].put;
  assert.equal(ark.deprecated, true);
  assert.deepEqual(ark.requestBody.content['application/json'].schema.required, ['title']);
  // A schema that exports no JSON Schema: the operation is listed, its body described as any JSON.
  assert.deepEqual(paths['/opaque'].post.requestBody.content['application/json'].schema, {});
  assert.deepEqual(paths['/api/v1/items/{item}'].get.responses['200'].content['application/json'].schema, {
    type: 'object',
    properties: { item: { type: 'string' } },
  });
  // Routes without schemas: no body; the handler's answer (default) and the handlerTimeout's 503.
  assert.deepEqual(paths['/health'].get, {
    responses: {
      default: { description: "The handler's answer (the route declares no response schema for it)" },
      '503': { description: 'The handler did not answer within 30000 ms (handlerTimeout; GALE_ERR_HANDLER_TIMEOUT)' },
    },
  });
  app.close();
});

test(
  'the responses a route really has: default without a success schema, 400 with input schemas, 503 per handlerTimeout',
  T,
  async () => {
    const app = gale({ handlerTimeout: 5000 });
    app.delete('/items/:id', { params: z.object({ id: z.coerce.number() }) }, (_req, res) => res.sendStatus(204));
    app.get('/slow', { handlerTimeout: 60_000, response: { 404: z.object({ error: z.string() }) } }, () => ({
      error: 'x',
    }));
    app.get('/stream', { handlerTimeout: false, response: { 200: z.string() } }, () => 'x');
    const doc = app.openapi({ info: { title: 't', version: '1' } });
    const paths = doc.paths as Json;
    const del = paths['/items/{id}'].delete.responses;
    assert.deepEqual(Object.keys(del).sort(), ['400', '503', 'default']);
    assert.match(del['503'].description, /within 5000 ms/);
    const slow = paths['/slow'].get.responses;
    assert.deepEqual(Object.keys(slow).sort(), ['404', '503', 'default'], 'a 404 schema is not a success');
    assert.match(slow['503'].description, /within 60000 ms/);
    assert.deepEqual(Object.keys(paths['/stream'].get.responses), ['200'], 'no default beside a success, no 503');
    await valid(doc);
    const off = gale({ handlerTimeout: false });
    off.get('/a', () => 'a');
    assert.deepEqual(
      Object.keys((off.openapi({ info: { title: 't', version: '1' } }).paths as Json)['/a'].get.responses),
      ['default'],
    );
    app.close();
    off.close();
  },
);

test('recursive schemas are moved to components.schemas, their $refs pointed there', T, async () => {
  const app = build();
  const doc = app.openapi({ info: { title: 't', version: '1' } });
  const tree = (doc.paths as Json)['/tree'].post;
  const ref = tree.requestBody.content['application/json'].schema.$ref as string;
  assert.match(ref, /^#\/components\/schemas\/PostTreeBody$/);
  const schemas = (doc.components as Json).schemas as Json;
  assert.equal(schemas.PostTreeBody.properties.children.items.$ref, ref);
  assert.equal(
    tree.responses['200'].content['application/json'].schema.$ref,
    '#/components/schemas/PostTreeResponse200',
  );
  await valid(doc);
  app.close();
});

test('components given to openapi() are kept beside the generated ones', T, async () => {
  const app = build();
  const doc = app.openapi({
    info: { title: 't', version: '1' },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-request-key' } } },
    security: [{ key: [] }],
  });
  const components = doc.components as Json;
  assert.deepEqual(Object.keys(components).sort(), ['schemas', 'securitySchemes']);
  assert.ok(components.schemas.GaleValidationProblem);
  await valid(doc);
  app.close();
});

test('served by the app itself, with the routes declared after the document route and after listen()', T, async (t) => {
  const { app, port } = await withApp(t, (app) => {
    app.get('/pets/:id', { params: z.object({ id: z.coerce.number() }) }, (req) => ({ id: req.params.id }));
    app.get('/openapi.json', { hidden: true }, () => app.openapi({ info: { title: 'Pets', version: '1' } }));
    app.delete('/pets/:id', (req) => ({ deleted: req.params.id }));
  });
  const fetchDoc = async () => (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as OpenApiDocument;
  const doc = await fetchDoc();
  assert.deepEqual(Object.keys(doc.paths), ['/pets/{id}']);
  assert.deepEqual(Object.keys(doc.paths['/pets/{id}'] as object).sort(), ['delete', 'get']);
  await valid(doc);
  app.post('/owners', { body: z.object({ name: z.string() }) }, (req) => req.body);
  const later = await fetchDoc();
  assert.deepEqual(Object.keys(later.paths).sort(), ['/owners', '/pets/{id}']);
  await valid(later);
});
