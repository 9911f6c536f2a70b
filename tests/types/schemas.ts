// Type tests: a route's Standard Schemas (zod 4, valibot, arktype) type its handler's input from their output types:
// params (replacing the path's), query, headers (laid over the headers) and body; middleware before the handler still
// see the raw request; typos in the validated input do not compile; response schemas take JSON Schema objects
// (TypeBox), zod, arktype and valibot wrapped in toStandardJsonSchema.
import { Type } from '@sinclair/typebox';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import {
  derive,
  gale,
  type InferOutput,
  type Query,
  type SimpleQuery,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
} from 'gale';
import * as v from 'valibot';
import { z } from 'zod';
import { type Equal, ok } from './expect.js';

const app = gale();

const ZUser = z.object({ name: z.string().min(1), age: z.coerce.number().int().optional() });
app.post('/zod/:id', { params: z.object({ id: z.coerce.number() }), body: ZUser }, (req) => {
  ok<Equal<typeof req.params, { id: number }>>(true);
  ok<Equal<typeof req.body, { name: string; age?: number | undefined }>>(true);
  return { id: req.params.id + 1, name: req.body.name.toUpperCase() };
});
// @ts-expect-error a typo in a body field
app.post('/zod', { body: ZUser }, (req) => req.body.nam);
app.get('/zod/search', { query: z.object({ q: z.string(), page: z.coerce.number().default(1) }) }, (req) => {
  ok<Equal<typeof req.query, { q: string; page: number }>>(true);
  return req.query.page * 2;
});
app.get('/zod/key', { headers: z.object({ 'x-api-key': z.string(), 'x-retries': z.coerce.number() }) }, (req) => {
  ok<Equal<(typeof req.headers)['x-api-key'], string>>(true);
  ok<Equal<(typeof req.headers)['x-retries'], number>>(true);
  // every other header is still there, typed as headers are
  ok<Equal<(typeof req.headers)['user-agent'], string | string[] | undefined>>(true);
  return req.headers['x-api-key'];
});

// No params schema: the path's params; no query schema: the parsed query.
app.post('/plain/:slug', { body: ZUser }, (req) => {
  ok<Equal<typeof req.params, { slug: string }>>(true);
  ok<Equal<typeof req.query, Query>>(true);
  return req.params.slug;
});

// Middleware before the handler see the raw request (validation runs right before the handler); derive state goes on.
const auth = derive(() => ({ user: 'ada' }));
app.post(
  '/orders/:id',
  { params: z.object({ id: z.coerce.number() }), body: z.object({ items: z.array(z.string()) }) },
  (req, _res, next) => {
    ok<Equal<typeof req.params, { id: string }>>(true);
    ok<Equal<typeof req.body, unknown>>(true);
    return next();
  },
  auth,
  (req) => {
    ok<Equal<typeof req.state.user, string>>(true);
    return { order: req.params.id, items: req.body.items.length, by: req.state.user };
  },
);

// valibot and arktype type the input the same way.
const VUser = v.object({ name: v.pipe(v.string(), v.minLength(1)), tags: v.array(v.string()) });
app.post('/valibot', { body: VUser, query: v.object({ dry: v.optional(v.string()) }) }, (req) => {
  ok<Equal<typeof req.body, { name: string; tags: string[] }>>(true);
  ok<Equal<typeof req.query.dry, string | undefined>>(true);
  return req.body.tags.join(',');
});
app.post('/valibot-json', { body: toStandardJsonSchema(VUser) }, (req) => req.body.tags.length);
const AUser = type({ name: 'string > 0', 'age?': 'number.integer' });
app.post('/arktype/:id', { body: AUser, params: type({ id: 'string.numeric.parse' }) }, (req) => {
  ok<Equal<typeof req.body, { name: string; age?: number }>>(true);
  ok<Equal<typeof req.params.id, number>>(true);
  return req.body.name;
});
// @ts-expect-error a typo in an arktype body field
app.post('/arktype', { body: AUser }, (req) => req.body.nme);

// Response schemas: JSON Schema objects (TypeBox), zod, arktype, valibot made Standard JSON Schema; docs fields.
const TItem = Type.Object({ id: Type.Integer(), name: Type.String() });
app.get(
  '/items/:id',
  {
    response: { 200: TItem, '4XX': z.object({ error: z.string() }), default: { type: 'object' } },
    summary: 'One item',
    tags: ['items'],
    operationId: 'getItem',
  },
  (req) => ({ id: Number(req.params.id), name: 'x' }),
);
app.get('/ark', { response: { 200: AUser } }, () => ({ name: 'a' }));
app.get('/vali', { response: { 201: toStandardJsonSchema(VUser) }, hidden: true }, () => ({ name: 'v', tags: [] }));
// @ts-expect-error a request part must be a Standard Schema (a JSON Schema object cannot validate)
app.post('/json-schema-body', { body: TItem }, () => 'x');
// @ts-expect-error docs fields have their types
app.get('/bad-docs', { tags: 'items' }, () => 'x');

// The exported Standard Schema types fit what the libraries make.
const asStandard: StandardSchemaV1 = ZUser;
const asStandardToo: StandardSchemaV1 = AUser;
const asJsonSchema: StandardJSONSchemaV1 = toStandardJsonSchema(VUser);
ok<Equal<InferOutput<typeof VUser>, { name: string; tags: string[] }>>(true);
void [asStandard, asStandardToo, asJsonSchema];

// No query schema, no Register: the simple parser's record (a string, or an array for a key given twice).
app.get('/simple-query', (req) => {
  ok<Equal<typeof req.query, SimpleQuery>>(true);
  ok<Equal<typeof req.query.page, string | string[] | undefined>>(true);
  const page = req.query.page;
  return typeof page === 'string' ? Number(page) : 1;
});
// @ts-expect-error a value may be an array: no string method without narrowing
app.get('/simple-query-unchecked', (req) => (req.query.q ?? '').toUpperCase());
