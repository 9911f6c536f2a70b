// Type tests: checked responses. With `response` schemas, what a handler returns and what `res.status()`, `res.json()`,
// `res.send()` and `res.sendStatus()` take must match them (TypeBox, zod, arktype, valibot's Standard JSON Schema);
// a plain JSON Schema object is not checked, and a route without `response` takes anything, as before.
import { Type } from '@sinclair/typebox';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { type BodyAt, gale, type Handler, type ResponseBodyOf, type TypedResponse } from 'gale';
import * as v from 'valibot';
import { z } from 'zod';
import { type Equal, ok, value } from './expect.js';

const app = gale();
const Todo = Type.Object({ id: Type.Integer(), title: Type.String() });
const Problem = Type.Object({ error: Type.String() });
type TodoT = { id: number; title: string };

ok<Equal<ResponseBodyOf<typeof Todo>, TodoT>>(true);
ok<Equal<ResponseBodyOf<{ type: 'object' }>, unknown>>(true);

// The returned value.
app.get('/todos/:id', { response: { 200: Todo } }, (req) => ({ id: Number(req.params.id), title: 'docs' }));
// @ts-expect-error id is a string where the schema says integer
app.get('/bad-id', { response: { 200: Todo } }, () => ({ id: 'abc', title: 'docs' }));
// @ts-expect-error title is missing
app.get('/bad-missing', { response: { 200: Todo } }, () => ({ id: 1 }));
// @ts-expect-error a string where the schema describes an object
app.get('/bad-string', { response: { 200: Todo } }, () => 'a todo');
app.get('/async', { response: { 200: Todo } }, async () => ({ id: 1, title: 'later' }));
// @ts-expect-error an async handler resolving to the wrong shape
app.get('/bad-async', { response: { 200: Todo } }, async () => ({ id: 1, name: 'later' }));
// Any declared body may be returned (the status is the one the handler set), nothing, or a Web Response.
app.get('/either', { response: { 200: Todo, 404: Problem } }, (req, res) => {
  if (req.params === undefined) return new Response('raw');
  if (req.get('x-missing')) {
    res.status(404);
    return { error: 'no such todo' };
  }
  return { id: 1, title: 'x' };
});
app.get('/answered', { response: { 200: Todo } }, (_req, res) => {
  res.json({ id: 1, title: 'x' });
});
app.get('/passed-on', { response: { 200: Todo } }, (_req, _res, next) => next());

// res.json / res.send / res.status / res.sendStatus.
app.get('/res', { response: { 200: Todo, 404: Problem } }, (_req, res) => {
  ok<Equal<typeof res, TypedResponse<{ 200: typeof Todo; 404: typeof Problem }>>>(true);
  res.json({ id: 1, title: 'x' });
  res.send({ id: 1, title: 'x' });
  res.status(404).json({ error: 'gone' });
  res.set('cache-control', 'no-store').cookie('seen', '1').status(404).send({ error: 'gone' });
  res.sendStatus(404);
  // @ts-expect-error the 200 body has no `error`
  res.status(200).json({ error: 'gone' });
  // Before status() — or after it as a statement of its own — any declared body.
  res.json({ error: 'gone' });
  // @ts-expect-error no declared body has `name`
  res.json({ name: 'x' });
  // @ts-expect-error a 404 takes the Problem body
  res.status(404).json({ id: 1, title: 'x' });
  // @ts-expect-error 500 is not declared
  res.status(500);
  // @ts-expect-error 500 is not declared
  res.sendStatus(500);
  // @ts-expect-error checked through the header helpers too
  res.header('x-a', '1').set('x-b', '2').status(404).json({ id: 1 });
});
// A union of statuses passes only when every one is declared.
app.get('/union', { response: { 200: Todo, 404: Problem } }, (_req, res) => {
  res.status(value<200 | 404>());
  // @ts-expect-error 500 is not declared, though 200 is
  res.status(value<200 | 500>());
});
// A status known only at run time is not checked; its body is any declared one.
app.get('/dynamic', { response: { 200: Todo, 404: Problem } }, (_req, res) => {
  const code = value<number>();
  res.status(code).json({ error: 'x' });
  ok<Equal<BodyAt<{ 200: typeof Todo; 404: typeof Problem }, number>, TodoT | { error: string }>>(true);
});

// Status classes and 'default'.
app.post('/created', { response: { '2XX': Todo, '4XX': Problem } }, (_req, res) => {
  res.status(201).json({ id: 1, title: 'x' });
  res.status(409).json({ error: 'exists' });
  // @ts-expect-error no 5XX and no default
  res.status(503);
  // @ts-expect-error a 4xx takes the Problem body
  res.status(400).json({ id: 2, title: 'y' });
});
app.post('/own-before-class', { response: { 201: Problem, '2XX': Todo } }, (_req, res) => {
  ok<Equal<Parameters<ReturnType<typeof res.status<201>>['json']>[0], { error: string }>>(true);
  ok<Equal<Parameters<ReturnType<typeof res.status<202>>['json']>[0], TodoT>>(true);
});
app.get('/default', { response: { 200: Todo, default: Problem } }, (_req, res) => {
  res.status(500).json({ error: 'broke' });
  res.status(418).json({ error: 'teapot' });
});
// A status set as a statement of its own is not followed: the body may be any declared one.
app.get('/separate', { response: { 200: Todo, 404: Problem } }, (_req, res) => {
  res.status(404);
  res.json({ error: 'no such todo' });
});
// @ts-expect-error 200 is not declared
app.post('/only-201', { response: { 201: Todo } }, (_req, res) => res.status(200).json({ id: 1, title: 'x' }));
// Statuses written as string keys.
app.get('/quoted', { response: { '200': Todo, '404': Problem } }, (_req, res) => {
  res.status(404).json({ error: 'gone' });
  // @ts-expect-error a 404 takes the Problem body
  res.status(404).json({ id: 1, title: 'x' });
  return res.status(200).json({ id: 1, title: 'x' });
});

// Standard Schemas: zod, arktype, valibot's Standard JSON Schema.
const ZTodo = z.object({ id: z.number().int(), done: z.boolean() });
app.get('/zod', { response: { 200: ZTodo } }, () => ({ id: 1, done: false }));
// @ts-expect-error done is a boolean
app.get('/zod-bad', { response: { 200: ZTodo } }, () => ({ id: 1, done: 'no' }));
const ATodo = type({ id: 'number.integer', tags: 'string[]' });
app.get('/arktype', { response: { 200: ATodo } }, () => ({ id: 1, tags: ['a'] }));
// @ts-expect-error tags is an array of strings
app.get('/arktype-bad', { response: { 200: ATodo } }, () => ({ id: 1, tags: 'a' }));
const VTodo = toStandardJsonSchema(v.object({ id: v.number(), title: v.string() }));
app.get('/valibot', { response: { 200: VTodo } }, () => ({ id: 1, title: 'x' }));
// @ts-expect-error title is a string
app.get('/valibot-bad', { response: { 200: VTodo } }, () => ({ id: 1, title: 2 }));

// A plain JSON Schema object carries no type: not checked.
app.get('/plain', { response: { 200: { type: 'object', properties: { id: { type: 'integer' } } } } }, () => 'any');
// No response schemas: anything, as before.
app.get('/free', { query: z.object({ q: z.string() }) }, (req, res) => {
  res.status(599);
  return req.query.q.length > 3 ? 'long' : { short: true };
});
app.get('/free-plain', (_req, res) => res.status(299).json(new Date()));

// A handler declared apart names the response schemas as Handler's fourth type.
const show: Handler<{ id: string }, object, object, { 200: typeof Todo }> = (req) => ({
  id: Number(req.params.id),
  title: 't',
});
app.get('/todos-apart/:id', { response: { 200: Todo } }, show);
// @ts-expect-error the handler's return does not match its declared responses
const wrong: Handler<{ id: string }, object, object, { 200: typeof Todo }> = () => ({ id: '1', title: 't' });
void wrong;
// A handler declared apart without them returns `unknown`, which a route with response schemas does not take:
// name the schemas as its fourth type (as `show` does).
const untyped: Handler<{ id: string }> = (req) => ({ id: Number(req.params.id), title: 't' });
// @ts-expect-error Handler<P> may return anything
app.get('/todos-untyped/:id', { response: { 200: Todo } }, untyped);
app.get('/todos-untyped-ok/:id', untyped);

// A misspelt schema key fails to compile (the error names it: "'bdy' is not a route schema key (…)").
// @ts-expect-error `bdy` for `body`
app.post('/misspelt', { bdy: ZTodo, summary: 'create' }, () => ({ id: 1, done: false }));
// With a schema, middleware spread from a tuple take the forms that count them.
const checks = [
  (_req: unknown, _res: unknown, next: () => Promise<void>) => next(),
  (_req: unknown, _res: unknown, next: () => Promise<void>) => next(),
] as const;
app.get('/spread-tuple', { response: { 200: Todo } }, ...checks, () => ({ id: 1, title: 'x' }));
