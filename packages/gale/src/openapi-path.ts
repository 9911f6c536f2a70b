// Route patterns as OpenAPI paths: the Express 4/5 syntax read as crates/gale-router/src/lexer.rs reads it (escapes,
// `:name(regex)`, `?` `+` `*` modifiers, `*splat`, `{…}` optional groups), then each combination of optional groups
// written as one templated path (`/users/:id{/:tab}` → `/users/{id}` and `/users/{id}/{tab}`), since OpenAPI has no
// optional path params. Patterns reach here only after the engine accepted them. Imports nothing.

/** A param of an OpenAPI path: its name, its `(regex)` constraint, whether it spans segments. */
export interface PathParam {
  readonly name: string;
  readonly constraint: string | undefined;
  readonly wildcard: boolean;
}

/** One OpenAPI path a pattern stands for, with its params in order. */
export interface OpenApiPath {
  readonly path: string;
  readonly params: readonly PathParam[];
}

type Token =
  | { readonly t: 'text'; readonly v: string }
  | { readonly t: 'param'; readonly p: PathParam }
  | { readonly t: 'group'; readonly items: Token[] };

/** More combinations than this are not worth listing one by one (the engine bounds groups too). */
const MAX_PATHS = 64;

const isName = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
const endsSegment = (c: string | undefined): boolean => c === undefined || c === '/' || c === '{' || c === '}';

/** The OpenAPI paths `pattern` matches (the first `MAX_PATHS` combinations of its optional groups). */
export function openApiPaths(pattern: string): OpenApiPath[] {
  const tokens = lex(pattern, { i: 0 }, false);
  const out: OpenApiPath[] = [];
  for (const seq of expand(tokens)) {
    let path = '';
    const params: PathParam[] = [];
    for (const tok of seq) {
      if (tok.t === 'text') path += tok.v;
      else if (tok.t === 'param') {
        path += `{${tok.p.name}}`;
        params.push(tok.p);
      }
    }
    out.push({ path: path === '' ? '/' : path, params });
    if (out.length === MAX_PATHS) break;
  }
  return out;
}

function lex(s: string, at: { i: number }, inGroup: boolean): Token[] {
  const out: Token[] = [];
  const text = (v: string) => {
    const last = out[out.length - 1];
    if (last?.t === 'text') out[out.length - 1] = { t: 'text', v: last.v + v };
    else out.push({ t: 'text', v });
  };
  while (at.i < s.length) {
    const c = s[at.i] as string;
    if (c === '\\') {
      text(s[at.i + 1] ?? '');
      at.i += 2;
    } else if (c === '{') {
      at.i++;
      out.push({ t: 'group', items: lex(s, at, true) });
    } else if (c === '}') {
      at.i++;
      if (inGroup) return out;
    } else if (c === ':') {
      param(s, at, out);
    } else if (c === '*') {
      at.i++;
      const name = readName(s, at);
      out.push({ t: 'param', p: { name: name === '' ? '*' : name, constraint: undefined, wildcard: true } });
    } else {
      text(c);
      at.i++;
    }
  }
  return out;
}

function readName(s: string, at: { i: number }): string {
  const start = at.i;
  while (isName(s[at.i])) at.i++;
  return s.slice(start, at.i);
}

/** `:name`, an optional `(regex)`, an optional modifier: Express 4's `?` and `*` become groups, as in the engine. */
function param(s: string, at: { i: number }, out: Token[]): void {
  at.i++;
  const name = readName(s, at);
  let constraint: string | undefined;
  if (s[at.i] === '(') {
    const open = at.i;
    let depth = 0;
    for (; at.i < s.length; at.i++) {
      const c = s[at.i];
      if (c === '\\') at.i++;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) break;
    }
    constraint = s.slice(open + 1, at.i);
    at.i++;
  }
  const m = s[at.i];
  const modifier = m === '?' || m === '+' || (m === '*' && endsSegment(s[at.i + 1])) ? m : undefined;
  if (modifier !== undefined) at.i++;
  const tok: Token = { t: 'param', p: { name, constraint, wildcard: modifier === '+' || modifier === '*' } };
  if (modifier === undefined || modifier === '+') {
    out.push(tok);
    return;
  }
  // `/:x?` and `/:x*` leave out the `/` (or `.`, for `?`) before them with the param.
  const last = out[out.length - 1];
  const sep = last?.t === 'text' ? last.v.slice(-1) : '';
  const takes = modifier === '?' ? sep === '/' || sep === '.' : sep === '/';
  if (takes && last?.t === 'text') {
    if (last.v.length === 1) out.pop();
    else out[out.length - 1] = { t: 'text', v: last.v.slice(0, -1) };
  }
  out.push({ t: 'group', items: takes ? [{ t: 'text', v: sep }, tok] : [tok] });
}

/** Every sequence of text and params the tokens stand for: each group with and without its content. */
function* expand(tokens: readonly Token[]): Generator<Token[]> {
  if (tokens.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = tokens as [Token, ...Token[]];
  const heads: Token[][] = first.t === 'group' ? [[], ...expand(first.items)] : [[first]];
  for (const head of heads) for (const tail of expand(rest)) yield [...head, ...tail];
}
