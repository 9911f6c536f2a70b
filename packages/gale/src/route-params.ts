// Route params typed from the path literal, at the type level only: the same reading of the Express 4/5 syntax that
// crates/gale-router/src/lexer.rs does at run time (which params a pattern captures, and which of them may be absent).
// Types only; imports nothing.

/** The characters of `S`, as a union (tail-recursive, so the 63 below stay far from the depth limit). */
type Chars<S extends string, U extends string = never> = S extends `${infer C}${infer R}` ? Chars<R, U | C> : U;
/** The characters of a param name (`[A-Za-z0-9_]`, as the engine's lexer reads them). */
type NameChar = Chars<'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'>;

/** `[name, rest]`: the longest run of name characters at the start of `S`. */
type ReadName<S extends string, N extends string = ''> = S extends `${infer C}${infer R}`
  ? C extends NameChar
    ? ReadName<R, `${N}${C}`>
    : [N, S]
  : [N, S];

/** What follows the `(...)` regex constraint that `S` starts inside of (`D` counts the open parentheses). */
type SkipConstraint<S extends string, D extends 0[] = []> = S extends `${infer C}${infer R}`
  ? C extends '\\'
    ? R extends `${string}${infer R2}`
      ? SkipConstraint<R2, D>
      : ''
    : C extends '('
      ? SkipConstraint<R, [...D, 0]>
      : C extends ')'
        ? D extends [0, ...infer D2 extends 0[]]
          ? D2 extends []
            ? R
            : SkipConstraint<R, D2>
          : R
        : SkipConstraint<R, D>
  : '';

/** Whether `S` starts where a path segment ends (the engine's `ends_segment`). */
type AtSegmentEnd<S extends string> = S extends '' | `/${string}` | `{${string}` | `}${string}` ? true : false;

/** Open `{…}` groups: a param inside one may be absent. */
type Open = 0[];

/**
 * Walks the pattern one character at a time, collecting the names of params that are always there (`Req`) and of
 * those that may be absent (`Opt`): inside an optional group, or with a `?` or `*` modifier.
 */
type Walk<S extends string, G extends Open, Req extends string, Opt extends string> = S extends `${infer C}${infer R}`
  ? C extends '\\'
    ? R extends `${string}${infer R2}`
      ? Walk<R2, G, Req, Opt>
      : [Req, Opt]
    : C extends '{'
      ? Walk<R, [...G, 0], Req, Opt>
      : C extends '}'
        ? Walk<R, G extends [0, ...infer G2 extends Open] ? G2 : [], Req, Opt>
        : C extends ':'
          ? Param<ReadName<R>, G, Req, Opt>
          : C extends '*'
            ? ReadName<R> extends [infer N extends string, infer R2 extends string]
              ? Add<N extends '' ? '*' : N, G extends [] ? false : true, R2, G, Req, Opt>
              : never
            : Walk<R, G, Req, Opt>
  : [Req, Opt];

/** Records param `N` (optional or not) and walks on from `R`. */
type Add<
  N extends string,
  Optional extends boolean,
  R extends string,
  G extends Open,
  Req extends string,
  Opt extends string,
> = Optional extends true ? Walk<R, G, Req, Opt | N> : Walk<R, G, Req | N, Opt>;

/** `:name`, then an optional `(regex)`, then an optional `?`, `+` or `*` modifier. */
type Param<NR, G extends Open, Req extends string, Opt extends string> = NR extends [
  infer N extends string,
  infer R extends string,
]
  ? Modifier<N, R extends `(${string}` ? SkipConstraint<R> : R, G, Req, Opt>
  : never;

type Modifier<
  N extends string,
  R extends string,
  G extends Open,
  Req extends string,
  Opt extends string,
> = R extends `?${infer R2}`
  ? Add<N, true, R2, G, Req, Opt>
  : R extends `+${infer R2}`
    ? Add<N, G extends [] ? false : true, R2, G, Req, Opt>
    : R extends `*${infer R2}`
      ? AtSegmentEnd<R2> extends true
        ? Add<N, true, R2, G, Req, Opt>
        : Add<N, G extends [] ? false : true, R, G, Req, Opt>
      : Add<N, G extends [] ? false : true, R, G, Req, Opt>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * The params of a route path, read from its literal: `:id` (with or without a `(regex)` constraint) and `*splat`
 * are `string`; a param the path may leave out — inside a `{…}` group (Express 5), or written `:id?` or `:path*`
 * (Express 4) — is `string | undefined` (the key is there, its value `undefined`, when absent). A splat's value is the
 * matched text, `/` included (`/docs/*path` on `/docs/a/b` gives `path: 'a/b'`); a bare `*` is named `'*'`. A path
 * that is not a literal (a `string`) gives `Record<string, string>`.
 *
 * @example
 * type P = RouteParams<'/users/:id{/:tab}'>; // { id: string; tab?: string | undefined }
 * app.get('/users/:id{/:tab}', (req) => `${req.params.id} ${req.params.tab ?? 'profile'}`);
 */
export type RouteParams<Path extends string> = string extends Path
  ? Record<string, string>
  : Walk<Path, [], never, never> extends [infer R extends string, infer O extends string]
    ? Flatten<{ [K in R]: string } & { [K in O]?: string | undefined }>
    : Record<string, string>;
