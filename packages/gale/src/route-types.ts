// The types of a route's declaration: the per-route schema object, what it makes of the handler's request (params,
// query, headers, body from the schemas' output types), the state `derive()` middleware add, and the call signatures
// of `get`/`post`/…/`ws` that thread all of it from the path literal to the handler. Types only.
// Over 400 lines: it is types only, and most of it is call signatures: RouteMethod's 12 overloads (up to four typed
// derive() middleware, with and without a schema, and the open-ended forms) and WsRouteMethod's 5, which TypeScript
// needs spelled out one by one, plus RouteSchema and the type helpers with their doc comments and examples.
import type { Handler, Middleware, NodeMiddleware } from './chain.js';
import type { AnyParams, RequestInput } from './request/api.js';
import type { ResponsesOf } from './response/types.js';
import type { RouteParams } from './route-params.js';
import type { InferOutput, StandardSchemaV1 } from './standard-schema.js';
import type { WsBehavior, WsConnectionHandler } from './ws-route.js';

/**
 * A JSON Schema for a response: a plain JSON Schema object (TypeBox's schemas are), or a schema that can export one
 * (Standard JSON Schema: zod 4, arktype; valibot through `toStandardJsonSchema` from `@valibot/to-json-schema`).
 *
 * @example
 * const Item: ResponseSchema = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };
 * app.get('/items/:id', { response: { 200: Item } }, (req) => ({ id: Number(req.params.id) }));
 */
export type ResponseSchema = object;

/**
 * A status class for `response`: `'2XX'` stands for every 2xx status without a schema of its own.
 *
 * @example
 * app.get('/x', { response: { '2XX': { type: 'object' }, '4XX': { type: 'object' } } }, () => ({}));
 */
export type StatusRange = '1XX' | '2XX' | '3XX' | '4XX' | '5XX';

/**
 * The schemas and API docs of one route, given between its path and its handlers: `params`, `query`, `headers` and
 * `body` are Standard Schemas (zod 4, valibot, arktype, …) that the request must pass before the handler runs (a
 * failure is answered 400 `application/problem+json`, see `ValidationError`), and whose output types the handler's
 * `req.params`, `req.query`, `req.headers` and `req.body` get; `response` maps statuses to JSON Schemas that a
 * returned value (or `res.json()`) is serialized with; the rest describes the operation in `app.openapi()`.
 *
 * @example
 * import { z } from 'zod';
 * const User = z.object({ name: z.string().min(1), email: z.email() });
 * app.post('/users', { body: User, summary: 'Create a user', tags: ['users'] }, (req, res) => {
 *   res.status(201);
 *   return { id: 1, name: req.body.name };
 * });
 */
export interface RouteSchema {
  /** Checks `req.params` (the raw strings, absent optional ones `undefined`); its output replaces them. */
  readonly params?: StandardSchemaV1;
  /** Checks `req.query` (as the app's query parser made it); its output replaces it. */
  readonly query?: StandardSchemaV1;
  /**
   * Checks `req.headers` (lower-case names); its output is laid over them, so headers the schema leaves out (or
   * strips) are still there.
   */
  readonly headers?: StandardSchemaV1;
  /** Checks the body as `req.parseBody()` reads it (JSON, urlencoded, text); its output is `req.body`. */
  readonly body?: StandardSchemaV1;
  /**
   * JSON Schemas of the answers by status (`200`, `'2XX'`, `'default'`): an object the handler returns (or gives to
   * `res.json()`) with that status is serialized by a stringifier compiled from the schema (fast-json-stringify, an
   * optional peer: `npm install fast-json-stringify`), which writes only the properties the schema names.
   */
  readonly response?: { readonly [status: number]: ResponseSchema } & {
    readonly [range in StatusRange | 'default']?: ResponseSchema;
  };
  /** OpenAPI: a short summary of what the operation does. */
  readonly summary?: string;
  /** OpenAPI: a longer description (CommonMark). */
  readonly description?: string;
  /** OpenAPI: tags that group operations. */
  readonly tags?: readonly string[];
  /** OpenAPI: a unique id for the operation (client generators name methods after it). */
  readonly operationId?: string;
  /** OpenAPI: the operation is deprecated. */
  readonly deprecated?: boolean;
  /** Leave this route out of `app.openapi()`. */
  readonly hidden?: boolean;
  /**
   * Milliseconds this route's handler may take before Gale answers 503 for it (see `gale({ handlerTimeout })`, whose
   * value it replaces here); `false` never times it out (a long-poll that answers when there is news).
   */
  readonly handlerTimeout?: number | false;
}

/**
 * The params a handler sees: the params schema's output, else the params of the path.
 *
 * @example
 * type P = ParamsOf<{}, '/users/:id'>; // { id: string }
 */
export type ParamsOf<Sch, Path extends string> = Sch extends { readonly params: infer X }
  ? InferOutput<X> extends infer O extends object
    ? O
    : RouteParams<Path>
  : RouteParams<Path>;

/**
 * The typed inputs a route's schemas give its handler (only the parts it has schemas for).
 *
 * @example
 * import { z } from 'zod';
 * const schema = { body: z.object({ name: z.string() }) };
 * type I = InputOf<typeof schema>; // { body: { name: string } }
 */
export type InputOf<Sch> = {
  [K in 'query' | 'headers' | 'body' as Sch extends { readonly [k in K]: StandardSchemaV1 } ? K : never]: Sch extends {
    readonly [k in K]: infer X;
  }
    ? InferOutput<X>
    : never;
};

/**
 * A middleware made by `derive()`: it adds `T` to `req.state` for what runs after it (the route's later middleware
 * and its handler, or every route declared after it on the app or router it was given to with `use`).
 *
 * @example
 * const auth: StateMiddleware<{ user: string }> = derive((req) => ({ user: req.get('x-user') ?? 'anonymous' }));
 * app.get('/me', auth, (req) => req.state.user);
 */
export type StateMiddleware<T, P extends object = AnyParams, S extends object = object> = Middleware<P, S> & {
  /** Types only: what the middleware adds to `req.state` (never set at run time). */
  readonly '~state'?: T;
};

/**
 * What a middleware adds to `req.state` (`unknown`, which changes nothing, for a plain middleware).
 *
 * @example
 * const auth = derive(() => ({ user: 'ada' }));
 * type S = StateFrom<typeof auth>; // { user: string }
 */
export type StateFrom<M> = M extends { readonly '~state'?: infer T } ? (T extends object ? T : unknown) : unknown;

/**
 * A route schema's keys as RouteSchema has them; any other key's type becomes a sentence naming it, so that a
 * misspelt key (`bdy`) fails to compile with its name in the error, where TypeScript would take it silently (the
 * other keys being optional) or blame the middleware forms.
 */
type KnownKeys<Sch> = Sch extends (...args: never[]) => unknown
  ? ForeignOnly<Sch>
  : {
      [K in keyof Sch]: K extends keyof RouteSchema
        ? Sch[K]
        : `'${K & string}' is not a route schema key (params, query, headers, body, response, summary, description, tags, operationId, deprecated, hidden, handlerTimeout)`;
    };

/**
 * A function in a schema's place must be a middleware typed for Express or node:http: one typed with Gale's Request
 * (it has `parseBody`) took the middleware forms, where its params and state are checked; here it would not be.
 */
type ForeignOnly<F> = F extends (req: infer R, ...rest: never[]) => unknown
  ? 0 extends 1 & R
    ? unknown
    : [R] extends [{ parseBody: unknown }]
      ? "a Gale middleware that does not fit this route's params or state"
      : unknown
  : unknown;

type P<Path extends string> = RouteParams<Path>;
/**
 * What the forms with a schema take in its place: a RouteSchema, or a middleware typed for Express or node:http
 * (`passport.authenticate('local')`). A function has none of a schema's keys, so the handler is typed as on a route
 * without a schema; those forms take it so that such a middleware needs neither a cast nor forms of its own, which
 * would be candidates beside every schema form (and past three candidates TypeScript names only the last one's
 * error when none fits).
 */
type SchemaOrNode = RouteSchema | NodeMiddleware;
type St<M> = StateFrom<M>;

/**
 * One route as `gale/client` reads it from the app's type: its schema (`undefined` for none) and, for a route
 * without `response` schemas, what its handler returns. Types only.
 *
 * @example
 * const app = gale().get('/hello', () => 'hi');
 * type E = RoutesOf<typeof app>['get /hello']; // RouteEntry<undefined, string>
 */
export interface RouteEntry<Sch, Out> {
  readonly schema: Sch;
  readonly out: Out;
}

/**
 * How an app or router type is made anew with another state `S` and routes `R`: a type-level function, which App
 * and Router name in their `~kind` (so that a route method on either returns that class typed with the new route).
 *
 * @example
 * interface MyRouterOf extends RouterKind {
 *   readonly type: Router<this['S'], this['R']>;
 * }
 */
export interface RouterKind {
  readonly S: object;
  readonly R: object;
  readonly type: unknown;
}

/**
 * `Self` (an app or router type) with state `S` and routes `R`; `Self` itself when it names no `~kind`.
 *
 * @example
 * type A = Rebuild<App, object, { 'get /x': RouteEntry<undefined, string> }>; // App<object, { 'get /x': … }>
 */
export type Rebuild<Self, S extends object, R extends object> = Self extends { readonly '~kind'?: infer K }
  ? NonNullable<K> extends infer Kind extends RouterKind
    ? (Kind & { readonly S: S; readonly R: R })['type']
    : Self
  : Self;

/**
 * What a route method returns: the same app or router, typed with one route more under the key `'<method> <path>'`
 * (what `gale/client` reads).
 *
 * @example
 * type A = AddRoute<App, object, object, 'get', '/x', undefined, string>; // App<object, { 'get /x': … }>
 */
export type AddRoute<
  Self,
  S extends object,
  R extends object,
  M extends string,
  Path extends string,
  Sch,
  Out,
> = Rebuild<Self, S, R & { readonly [K in `${M} ${Path}`]: RouteEntry<Sch, Out> }>;

/** `prefix` joined to `path` as a mount joins them (`/api` + `/` is `/api`). */
type JoinPath<Pre extends string, Path extends string> = Pre extends '/' | ''
  ? Path
  : Path extends '/' | ''
    ? Pre extends `${infer Head}/`
      ? Head
      : Pre
    : Pre extends `${infer Head}/`
      ? `${Head}${Path}`
      : `${Pre}${Path}`;

/**
 * The routes `R` of a router mounted at `prefix` (`app.use('/api', api)`), keyed by their full paths.
 *
 * @example
 * type R = MountedRoutes<'/api', { 'get /users': RouteEntry<undefined, string> }>; // { 'get /api/users': … }
 */
export type MountedRoutes<Pre extends string, R> = {
  readonly [K in keyof R as K extends `${infer M} ${infer Path}` ? `${M} ${JoinPath<Pre, Path>}` : never]: R[K];
};

/**
 * A router to mount, as `use(path, router)` reads its routes' type.
 *
 * @example
 * const mountable: MountableRouter = router().get('/', () => 'index');
 */
export interface MountableRouter {
  readonly '~routes'?: object;
  readonly entries: readonly unknown[];
}

/**
 * The routes of an app or router type (what its `~routes` carries), keyed `'<method> <path>'`.
 *
 * @example
 * const api = router().get('/users/:id', (req) => ({ id: req.params.id }));
 * type R = RoutesOf<typeof api>; // { 'get /users/:id': RouteEntry<undefined, { id: string }> }
 */
export type RoutesOf<X> = X extends { readonly '~routes'?: infer R }
  ? NonNullable<R> extends infer O extends object
    ? O
    : object
  : object;

/**
 * The call signatures of `get`, `post`, `put`, `patch`, `delete`, `head`, `options` and `all` on an app or router
 * with state `S`: the path, optionally a `RouteSchema`, middleware, then the handler. Params are inferred from the
 * path literal for the middleware and the handler; what up to four `derive()` middleware add to `req.state` is
 * typed for the ones after them and the handler; with a schema, the handler's params, query, headers and body are
 * the schemas' outputs. More middleware than four still type the params, not their state. Each returns the same app
 * or router, typed with the route added (`R`, keyed `'<method> <path>'`): chain the calls, or keep what they
 * return, for `gale/client` to see the routes (`typeof app` after plain statements has none of them).
 *
 * @example
 * app.get('/users/:id', (req) => ({ id: req.params.id }));              // req.params: { id: string }
 * app.get('/files/*path', auth, (req) => `${req.state.user}: ${req.params.path}`);
 */
export interface RouteMethod<Self, S extends object, R extends object = object, M extends string = string> {
  <Path extends string, Out>(
    path: Path,
    handler: Handler<P<Path>, S, RequestInput, undefined, Out>,
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
  <Path extends string, M1 extends Middleware<P<Path>, S>, Out>(
    path: Path,
    m1: M1,
    handler: Handler<P<Path>, S & St<M1>, RequestInput, undefined, Out>,
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
  <Path extends string, M1 extends Middleware<P<Path>, S>, M2 extends Middleware<P<Path>, S & St<M1>>, Out>(
    path: Path,
    m1: M1,
    m2: M2,
    handler: Handler<P<Path>, S & St<M1> & St<M2>, RequestInput, undefined, Out>,
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
  <
    Path extends string,
    M1 extends Middleware<P<Path>, S>,
    M2 extends Middleware<P<Path>, S & St<M1>>,
    M3 extends Middleware<P<Path>, S & St<M1> & St<M2>>,
    Out,
  >(
    path: Path,
    m1: M1,
    m2: M2,
    m3: M3,
    handler: Handler<P<Path>, S & St<M1> & St<M2> & St<M3>, RequestInput, undefined, Out>,
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
  <
    Path extends string,
    M1 extends Middleware<P<Path>, S>,
    M2 extends Middleware<P<Path>, S & St<M1>>,
    M3 extends Middleware<P<Path>, S & St<M1> & St<M2>>,
    M4 extends Middleware<P<Path>, S & St<M1> & St<M2> & St<M3>>,
    Out,
  >(
    path: Path,
    m1: M1,
    m2: M2,
    m3: M3,
    m4: M4,
    handler: Handler<P<Path>, S & St<M1> & St<M2> & St<M3> & St<M4>, RequestInput, undefined, Out>,
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;

  <Path extends string, Sch extends SchemaOrNode, Out>(
    path: Path,
    schema: Sch & KnownKeys<Sch>,
    handler: Handler<ParamsOf<Sch, Path>, S, InputOf<Sch>, ResponsesOf<Sch>, Out>,
  ): AddRoute<Self, S, R, M, Path, Sch, Out>;
  <Path extends string, Sch extends SchemaOrNode, M1 extends Middleware<P<Path>, S>, Out>(
    path: Path,
    schema: Sch & KnownKeys<Sch>,
    m1: M1,
    handler: Handler<ParamsOf<Sch, Path>, S & St<M1>, InputOf<Sch>, ResponsesOf<Sch>, Out>,
  ): AddRoute<Self, S, R, M, Path, Sch, Out>;
  <
    Path extends string,
    Sch extends SchemaOrNode,
    M1 extends Middleware<P<Path>, S>,
    M2 extends Middleware<P<Path>, S & St<M1>>,
    Out,
  >(
    path: Path,
    schema: Sch & KnownKeys<Sch>,
    m1: M1,
    m2: M2,
    handler: Handler<ParamsOf<Sch, Path>, S & St<M1> & St<M2>, InputOf<Sch>, ResponsesOf<Sch>, Out>,
  ): AddRoute<Self, S, R, M, Path, Sch, Out>;
  <
    Path extends string,
    Sch extends SchemaOrNode,
    M1 extends Middleware<P<Path>, S>,
    M2 extends Middleware<P<Path>, S & St<M1>>,
    M3 extends Middleware<P<Path>, S & St<M1> & St<M2>>,
    Out,
  >(
    path: Path,
    schema: Sch & KnownKeys<Sch>,
    m1: M1,
    m2: M2,
    m3: M3,
    handler: Handler<ParamsOf<Sch, Path>, S & St<M1> & St<M2> & St<M3>, InputOf<Sch>, ResponsesOf<Sch>, Out>,
  ): AddRoute<Self, S, R, M, Path, Sch, Out>;
  // Four middleware or more (fewer take the forms above): so that a call with a schema that does not compile has
  // at most three candidate forms, and TypeScript names what each found wrong (past three it shows only the last
  // form's error, the plain one's, which says nothing of the schema or the handler's answer).
  <Path extends string, Sch extends SchemaOrNode, Out>(
    path: Path,
    schema: Sch & KnownKeys<Sch>,
    ...fns: [
      Middleware<P<Path>, S>,
      Middleware<P<Path>, S>,
      Middleware<P<Path>, S>,
      Middleware<P<Path>, S>,
      ...Middleware<P<Path>, S>[],
      Handler<ParamsOf<Sch, Path>, S, InputOf<Sch>, ResponsesOf<Sch>, Out>,
    ]
  ): AddRoute<Self, S, R, M, Path, Sch, Out>;
  // Middleware typed for Express or node:http anywhere in the list (`helmet(), rateLimit(), handler`): a Gale
  // middleware typed with a `next` of its own is not one (its `next` returns a promise), so its params stay checked.
  <Path extends string, Out>(
    path: Path,
    ...fns: [...(Middleware<P<Path>, S> | NodeMiddleware)[], Handler<P<Path>, S, RequestInput, undefined, Out>]
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
  // Last, so that `Parameters<typeof app.get>` (which reads the last signature) gives the plain form.
  <Path extends string, Out>(
    path: Path,
    ...fns: [...Middleware<P<Path>, S>[], Handler<P<Path>, S, RequestInput, undefined, Out>]
  ): AddRoute<Self, S, R, M, Path, undefined, Out>;
}

/** The last argument of `ws`: a behaviour object, or an express-ws style `(ws, req) => …` function. */
type WsEnd<D, Pa extends object, S extends object> = WsBehavior<D, Pa, S> | WsConnectionHandler<Pa, S>;

/**
 * The call signatures of `app.ws` / `router.ws` on an app or router with state `S`: the path, middleware (up to
 * three typed with the state they add), then the behaviour, whose `upgrade(req)` sees the path's params and the
 * state.
 *
 * @example
 * app.ws('/rooms/:room', { upgrade: (req) => ({ room: req.params.room }), open: (ws) => ws.subscribe(ws.data.room) });
 */
export interface WsRouteMethod<Self, S extends object> {
  // D first: `app.ws<Data>(path, behavior)` names the socket's data type (the path's params are then untyped).
  <D = unknown, Path extends string = string>(path: Path, behavior: WsBehavior<D, P<Path>, S>): Self;
  <Path extends string, M1 extends Middleware<P<Path>, S>, D = unknown>(
    path: Path,
    m1: M1,
    end: WsEnd<D, P<Path>, S & St<M1>>,
  ): Self;
  <Path extends string, M1 extends Middleware<P<Path>, S>, M2 extends Middleware<P<Path>, S & St<M1>>, D = unknown>(
    path: Path,
    m1: M1,
    m2: M2,
    end: WsEnd<D, P<Path>, S & St<M1> & St<M2>>,
  ): Self;
  <
    Path extends string,
    M1 extends Middleware<P<Path>, S>,
    M2 extends Middleware<P<Path>, S & St<M1>>,
    M3 extends Middleware<P<Path>, S & St<M1> & St<M2>>,
    D = unknown,
  >(
    path: Path,
    m1: M1,
    m2: M2,
    m3: M3,
    end: WsEnd<D, P<Path>, S & St<M1> & St<M2> & St<M3>>,
  ): Self;
  <Path extends string>(path: Path, ...fns: [...Middleware<P<Path>, S>[], WsEnd<unknown, P<Path>, S>]): Self;
}
