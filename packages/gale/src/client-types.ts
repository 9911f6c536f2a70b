// The types of `gale/client`: from an app's type (the routes its route methods accumulated, see `RouteEntry`), what
// each route takes (path params, query, headers, body: the schemas' input types) and what it answers (each declared
// status with its body, as it arrives over the wire). Types only.
import type { ValidationProblem } from './errors.js';
import type { ResponseBodyOf } from './response/types.js';
import type { RouteParams } from './route-params.js';
import type { RouteEntry, RoutesOf } from './route-types.js';
import type { InferInput } from './standard-schema.js';

/**
 * The methods the client has, as route keys name them.
 *
 * @example
 * const method: ClientMethod = 'patch';
 */
export type ClientMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

/**
 * The routes of an app type (`typeof app`), keyed `'<method> <path>'`.
 *
 * @example
 * const app = gale().get('/hello', () => 'hi');
 * type R = ClientRoutes<typeof app>; // { 'get /hello': RouteEntry<undefined, string> }
 */
export type ClientRoutes<A> = RoutesOf<A>;

/** The route keys that answer `method`: its own, `all`, and for HEAD the GET routes (answered without a body). */
type Served<M extends ClientMethod> = M | 'all' | (M extends 'head' ? 'get' : never);

/**
 * The paths with a route for `method`.
 *
 * @example
 * const app = gale().get('/a', () => 'a').post('/b', () => 'b');
 * type P = PathsOf<ClientRoutes<typeof app>, 'get'>; // '/a'
 */
export type PathsOf<R, M extends ClientMethod> = {
  [K in keyof R]: K extends `${Served<M>} ${infer P}` ? P : never;
}[keyof R];

/**
 * The route entry for `method` and `path` (its own method's first, then an `all` route's, then for HEAD a GET's).
 *
 * @example
 * const app = gale().get('/a', () => 'a');
 * type E = EntryOf<ClientRoutes<typeof app>, 'head', '/a'>; // RouteEntry<undefined, string>
 */
export type EntryOf<R, M extends ClientMethod, P extends string> = `${M} ${P}` extends keyof R
  ? R[`${M} ${P}`]
  : `all ${P}` extends keyof R
    ? R[`all ${P}`]
    : M extends 'head'
      ? `get ${P}` extends keyof R
        ? R[`get ${P}`]
        : never
      : never;

/**
 * A value the client writes into a path or query: strings, numbers and booleans as text.
 *
 * @example
 * const page: Scalar = 2;
 */
export type Scalar = string | number | boolean;

/** The params a path needs (its optional ones may be left out). */
type PathParamsInput<P extends string> = {
  [K in keyof RouteParams<P> as undefined extends RouteParams<P>[K] ? never : K]: Scalar;
} & {
  [K in keyof RouteParams<P> as undefined extends RouteParams<P>[K] ? K : never]?: Scalar;
};

/** Nothing: what an options object with no required keys accepts. */
type Nothing = Record<never, never>;

/** Whether `T` has keys that must be given (an empty object is not assignable to it). */
type Required_<T> = Nothing extends T ? false : true;

/** One input part (`params`, `query`, …): required when it has required keys, optional otherwise. */
type Part<K extends string, T> = Required_<T> extends true ? { [k in K]: T } : { [k in K]?: T };

type SchemaInput<Sch, K extends string, Else> = Sch extends { readonly [k in K]: infer X } ? InferInput<X> : Else;

/**
 * What one call to a route takes: `params` (its schema's input, else the path's params), `query`, `headers` and
 * `body` (their schemas' inputs; without a schema, any), and `init`, further `fetch()` options (`signal`, …).
 *
 * @example
 * type O = RequestOptions<RouteEntry<undefined, string>, '/users/:id'>; // { params: { id: Scalar }; … }
 */
export type RequestOptions<E, P extends string> =
  E extends RouteEntry<infer Sch, unknown>
    ? Part<'params', SchemaInput<Sch, 'params', PathParamsInput<P>>> &
        Part<'query', SchemaInput<Sch, 'query', QueryInput | undefined>> &
        Part<'headers', SchemaInput<Sch, 'headers', unknown> & HeadersInput> &
        Part<'body', SchemaInput<Sch, 'body', unknown>> & {
          /** Further `fetch()` options (`signal`, `credentials`, …); method, headers and body come from the call. */
          init?: Omit<RequestInit, 'method' | 'body'>;
        }
    : never;

/**
 * A query without a schema: each key a value or a list (repeated in the URL).
 *
 * @example
 * const query: QueryInput = { tag: ['a', 'b'], page: 2 }; // ?tag=a&tag=b&page=2
 */
export type QueryInput = Record<string, Scalar | readonly Scalar[] | undefined>;

/**
 * Request headers, by name (an `undefined` one is not sent).
 *
 * @example
 * const headers: HeadersInput = { 'x-request-id': 'r1' };
 */
export type HeadersInput = Record<string, string | undefined>;

/**
 * A value as JSON carries it: dates (and anything with `toJSON`) as what `toJSON` returns, functions dropped.
 *
 * @example
 * type J = Jsonify<{ at: Date; n: number }>; // { at: string; n: number }
 */
export type Jsonify<T> = T extends { toJSON(): infer J }
  ? Jsonify<J>
  : T extends string | number | boolean | null
    ? T
    : T extends undefined | ((...args: never[]) => unknown) | symbol
      ? never
      : T extends readonly (infer U)[]
        ? Jsonify<U>[]
        : T extends object
          ? { [K in keyof T as T[K] extends ((...args: never[]) => unknown) | symbol ? never : K]: Jsonify<T[K]> }
          : unknown;

/** What a handler's return value arrives as: text for a string, bytes for bytes, JSON for the rest. */
type Wire<T> = unknown extends T
  ? unknown
  : // biome-ignore lint/suspicious/noConfusingVoidType: a handler that answered with res returns void
    T extends globalThis.Response | undefined | void
    ? unknown
    : T extends string
      ? string
      : T extends ArrayBuffer | ArrayBufferView
        ? ArrayBuffer
        : Jsonify<T>;

/** A status key as a number (`200`, `'201'`), else `number` (`'2XX'`, `'default'`). */
type StatusOf<K> = K extends number ? K : K extends `${infer N extends number}` ? N : number;
/** Whether a status key is a success: `true` for 2xx, `false` for the rest, `boolean` for `'default'`. */
type OkOf<K> = `${K & (string | number)}` extends `2${string}` ? true : K extends 'default' ? boolean : false;

/**
 * One possible answer: its status, whether it is a success, its body and the fetch Response it came in.
 *
 * @example
 * type NotFound = ClientResult<404, false, { error: string }>;
 */
export interface ClientResult<C extends number, Ok extends boolean, D> {
  /** The status (a declared one; `number` for a class such as `'4XX'` or `'default'`). */
  readonly status: C;
  /** `true` for a 2xx status. */
  readonly ok: Ok;
  /** The body: parsed JSON for a JSON answer, text for a text one, an ArrayBuffer otherwise; `undefined` when empty. */
  readonly data: D;
  /** The fetch Response (headers, url); its body has been read. */
  readonly response: globalThis.Response;
}

/** The answers a route's `response` schemas declare, with the 400 Gale itself sends when its input schemas fail. */
type Declared<Sch, M extends object> =
  | { [K in keyof M]: ClientResult<StatusOf<K>, OkOf<K>, Jsonify<ResponseBodyOf<M[K]>>> }[keyof M]
  | (400 extends StatusOf<keyof M>
      ? never
      : Sch extends
            | { readonly params: unknown }
            | { readonly query: unknown }
            | { readonly headers: unknown }
            | { readonly body: unknown }
        ? ClientResult<400, false, ValidationProblem>
        : never);

/**
 * What a call to a route resolves to: with `response` schemas, one `ClientResult` per declared status (narrow on
 * `status` to read its body typed) and the 400 Gale answers for failing input schemas; without, a success with
 * what the handler returns (as JSON carries it) or a failure with an unknown body.
 *
 * @example
 * type A = ClientResponse<RouteEntry<undefined, { id: number }>>; // ok: true → data: { id: number }
 */
export type ClientResponse<E> =
  E extends RouteEntry<infer Sch, infer Out>
    ? Sch extends { readonly response: infer M extends object }
      ? Declared<Sch, M>
      : ClientResult<number, true, Wire<Awaited<Out>>> | ClientResult<number, false, unknown>
    : never;

/**
 * A call's arguments: the options, which may be left out when nothing in them is required (or when the path has no
 * route, so that the error names the path, not the options).
 */
type Args<O> = [O] extends [never] ? [options?: unknown] : Nothing extends O ? [options?: O] : [options: O];

/**
 * One method of the client: a path with a route for it, then the options that route takes. (The path's type is
 * inferred as written and checked against the app's paths apart, so that a wrong path is the error TypeScript names.)
 *
 * @example
 * const app = gale().get('/a', () => 'a');
 * declare const get: ClientCall<ClientRoutes<typeof app>, 'get'>;
 * const res = await get('/a');
 */
export type ClientCall<R, M extends ClientMethod> = <P extends string>(
  path: P extends PathsOf<R, M> ? P : PathsOf<R, M>,
  ...args: Args<RequestOptions<EntryOf<R, M, P>, P>>
) => Promise<M extends 'head' ? Headless<ClientResponse<EntryOf<R, M, P>>> : ClientResponse<EntryOf<R, M, P>>>;

/** A HEAD answer: the statuses of the route, no body. */
type Headless<T> = T extends ClientResult<infer C, infer Ok, unknown> ? ClientResult<C, Ok, undefined> : never;

/**
 * A client for the app type `A`: a method per HTTP method, each taking a path the app has a route for (the pattern,
 * `'/todos/:id'`, its params given apart) and what that route takes, and resolving to what it answers.
 *
 * @example
 * import { gale } from 'gale';
 * import { client } from 'gale/client';
 * const app = gale().get('/hello/:name', (req) => ({ hello: req.params.name }));
 * const api = client<typeof app>('http://127.0.0.1:3000');
 * const res = await api.get('/hello/:name', { params: { name: 'ada' } });
 * if (res.ok) console.log(res.data.hello);
 */
export type Client<A> = { readonly [M in ClientMethod]: ClientCall<ClientRoutes<A>, M> };
