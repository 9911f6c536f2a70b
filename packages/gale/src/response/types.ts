// Checked responses: the types a route's `response` schemas give its handler — what the handler may return and what
// `res.status()`, `res.json()`, `res.send()` and `res.sendStatus()` accept — so that an answer the schemas do not
// describe is a compile-time error instead of a 500 at run time. Types only.
import type { HeaderValue } from '../options.js';
import type { ResponseFiles, ResponseHeaders, ResponseHelpers } from './api.js';
import type { Response } from './response.js';

/**
 * The body type a response schema describes: a Standard Schema's output type (zod 4, valibot's
 * `toStandardJsonSchema`, arktype), a TypeBox schema's static type, else `unknown`: a plain JSON Schema object is
 * not checked (TypeScript reads no type from it; write it with TypeBox to have it checked).
 *
 * @example
 * import { Type } from '@sinclair/typebox';
 * const TodoSchema = Type.Object({ id: Type.Integer(), title: Type.String() });
 * type Todo = ResponseBodyOf<typeof TodoSchema>; // { id: number; title: string }
 */
export type ResponseBodyOf<X> = X extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : X extends { readonly static: unknown; readonly params: unknown }
    ? (X & { params: [] })['static']
    : unknown;

/** The status class key (`'2XX'`, …) a status number falls in. */
type RangeOf<C extends number> = `${C}` extends `${infer D extends 1 | 2 | 3 | 4 | 5}${string}` ? `${D}XX` : never;

/**
 * The body a route with response schemas `M` may send with status `C`: its own schema's, else its class's
 * (`'2XX'`), else `'default'`'s; `never` when none covers it. For a status only known at run time (`number`), any
 * declared body.
 *
 * @example
 * type M = { 200: { static: { id: number }; params: [] }; '4XX': { static: { error: string }; params: [] } };
 * type NotFound = BodyAt<M, 404>; // { error: string }
 */
export type BodyAt<M, C extends number> = number extends C
  ? AnyBody<M>
  : C extends keyof M
    ? ResponseBodyOf<M[C]>
    : `${C}` extends keyof M // a status written as a string key: { '200': … }
      ? ResponseBodyOf<M[`${C}` & keyof M]>
      : RangeOf<C> extends keyof M
        ? ResponseBodyOf<M[RangeOf<C>]>
        : 'default' extends keyof M
          ? ResponseBodyOf<M['default' & keyof M]>
          : never;

/**
 * Any body the route's response schemas describe (what a handler may return: it goes out with whatever status the
 * handler set, 200 unless it set one).
 *
 * @example
 * type M = { 200: { static: { id: number }; params: [] }; 404: { static: { error: string }; params: [] } };
 * type Either = AnyBody<M>; // { id: number } | { error: string }
 */
export type AnyBody<M> = { [K in keyof M]: ResponseBodyOf<M[K]> }[keyof M];

/**
 * `C` when the route's response schemas cover that status (each of them, for a union such as `200 | 500`), else a
 * message naming the ones they do not (so the error reads "… is not assignable to 'status 404 is not declared in
 * this route's response schemas'").
 */
type Declared<M, C extends number> = number extends C
  ? C
  : [Undeclared<M, C>] extends [never]
    ? C
    : `status ${Undeclared<M, C>} is not declared in this route's response schemas`;

/** The statuses of `C` that no response schema of `M` covers (`never` when all are covered). */
type Undeclared<M, C extends number> = C extends unknown ? ([BodyAt<M, C>] extends [never] ? C : never) : never;

/**
 * The `res` of a handler whose route declares `response` schemas `M`: `status()` takes the declared statuses only
 * and returns the response narrowed to that status `C`, whose `json()` / `send()` take the body that status's schema
 * describes; before `status()` (or after it as a statement of its own, which TypeScript cannot follow), `C` is
 * `number` and they take any declared body. It is the same Response at run time, with Response's other members (the header and cookie helpers
 * return it typed so, `res.set(…).status(404).json(…)` is checked too).
 *
 * @example
 * import { Type } from '@sinclair/typebox';
 * const Todo = Type.Object({ id: Type.Integer(), title: Type.String() });
 * const Problem = Type.Object({ error: Type.String() });
 * app.get('/todos/:id', { response: { 200: Todo, 404: Problem } }, (req, res) => {
 *   if (req.params.id === '0') return res.status(404).json({ error: 'no such todo' });
 *   res.json({ id: 1, title: 'write docs' });
 * });
 */
export interface TypedResponse<M, C extends number = number>
  extends ResponseHeaders,
    ResponseHelpers,
    ResponseFiles,
    Omit<Response, Typed | keyof ResponseHeaders | keyof ResponseHelpers | keyof ResponseFiles> {
  /** Sets a response header (see Response's `header`). */
  header(name: string, value: HeaderValue): this;
  /** Sets the status: one the route's response schemas declare (a number known only at run time is not checked). */
  status<K extends number>(code: Declared<M, K>): TypedResponse<M, K>;
  /** Sends `value` as JSON, serialized by the schema of the status set. */
  json(value: BodyAt<M, C>): void;
  /** Sends `body` (serialized by the schema of the status set when it is an object). */
  send(body?: BodyAt<M, C>): void;
  /** Answers `code` with its reason phrase as the body: a status the route's response schemas declare. */
  sendStatus<K extends number>(code: Declared<M, K>): void;
}

/** Response's members TypedResponse declares anew (the header helpers' `this` stays TypedResponse through them). */
type Typed = 'status' | 'json' | 'send' | 'sendStatus' | 'header';

/**
 * A route schema's `response` map, which types its handler's `res` and return value: `undefined` for a route
 * without `response` schemas (the handler's `res` is then the plain Response, and it may return anything).
 *
 * @example
 * import { Type } from '@sinclair/typebox';
 * const schema = { response: { 200: Type.Object({ id: Type.Integer() }) } };
 * type M = ResponsesOf<typeof schema>; // { 200: TObject<{ id: TInteger }> }
 */
export type ResponsesOf<Sch> = Sch extends { readonly response: infer R extends object } ? R : undefined;

/**
 * What a handler may return on a route with response schemas `M`: a body one of them describes, nothing (it
 * answered with `res`, or passed on with `next`), or a Web `Response` (sent as it is) — or a promise of one.
 *
 * @example
 * type M = { 200: { static: { id: number }; params: [] } };
 * const ok: HandlerReturn<M> = { id: 1 };
 */
export type HandlerReturn<M> = Answer<M> | PromiseLike<Answer<M>>;
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with a block body that answered with `res` returns void
type Answer<M> = AnyBody<M> | undefined | void | globalThis.Response;
