// `gale/client`: a typed client for a Gale app over `fetch` — in browsers, in Node, or in-process through
// `app.request()` — typed from `typeof app` (see client-types.ts). Imports nothing at run time, so a browser loads
// this file as it is.
import type { Client, ClientMethod } from './client-types.js';

export type {
  Client,
  ClientCall,
  ClientMethod,
  ClientResponse,
  ClientResult,
  ClientRoutes,
  EntryOf,
  HeadersInput,
  Jsonify,
  PathsOf,
  QueryInput,
  RequestOptions,
  Scalar,
} from './client-types.js';

/**
 * What `client()` takes besides where the app is.
 *
 * @example
 * const api = client<typeof app>('https://api.example.com', { headers: () => ({ authorization: `Bearer ${token()}` }) });
 */
export interface ClientOptions {
  /** The fetch to use (a wrapped one, or one from a library); the global `fetch` by default. */
  fetch?: (input: string, init: RequestInit) => Promise<globalThis.Response>;
  /** Headers for every request (a function is called for each), under the call's own. */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** Further `fetch()` options for every request (`credentials`, …), under the call's own `init`. */
  init?: Omit<RequestInit, 'method' | 'body' | 'headers'>;
}

/**
 * Something that answers a Request in-process: a Gale app (its `app.request()`).
 *
 * @example
 * const local: InProcess = gale();
 */
export interface InProcess {
  request(input: string, init?: RequestInit): Promise<globalThis.Response>;
}

/**
 * Makes a typed client for an app: give its URL (and its type, `client<typeof app>(url)`), or the app itself to call
 * it in-process through `app.request()` (tests, scripts). Each method takes a path the app has a route for — the
 * pattern as declared, `'/todos/:id'`, with `params` given apart — and what that route takes (`query`, `headers`,
 * `body`), and resolves to `{ status, ok, data, response }` typed by the route's `response` schemas (or by what its
 * handler returns). An answer of any status resolves (check `ok` or `status`); only a failed fetch rejects.
 *
 * @example
 * import { gale } from 'gale';
 * import { client } from 'gale/client';
 * const app = gale()
 *   .get('/todos/:id', (req) => ({ id: Number(req.params.id), title: 'write docs' }))
 *   .post('/todos', (req) => ({ created: true }));
 * const api = client(app); // in-process; client<typeof app>('http://127.0.0.1:3000') over the network
 * const res = await api.get('/todos/:id', { params: { id: 1 } });
 * if (res.ok) console.log(res.data.title);
 */
export function client<A extends InProcess>(app: A, options?: ClientOptions): Client<A>;
export function client<A>(baseUrl: string | URL, options?: ClientOptions): Client<A>;
export function client(target: string | URL | InProcess, options: ClientOptions = {}): Client<unknown> {
  const app = typeof target === 'object' && 'request' in target ? target : undefined;
  const base = app === undefined ? String(target).replace(/\/+$/, '') : '';
  const send =
    app === undefined
      ? (options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init)))
      : (url: string, init: RequestInit) => app.request(url, init);
  const call =
    (method: ClientMethod) =>
    async (path: string, opts: CallOptions = {}): Promise<unknown> => {
      const url = base + fillPath(path, opts.params ?? {}) + queryString(opts.query);
      const headers: Record<string, string> = {};
      const shared = typeof options.headers === 'function' ? options.headers() : options.headers;
      for (const [name, value] of Object.entries(shared ?? {})) headers[name.toLowerCase()] = value;
      for (const [name, value] of Object.entries(opts.headers ?? {})) {
        if (value !== undefined) headers[name.toLowerCase()] = String(value);
      }
      const init: RequestInit = { ...options.init, ...opts.init, method: method.toUpperCase(), headers };
      if (opts.body !== undefined) {
        init.body = encodeBody(opts.body, headers);
        // fetch sends a stream only when told the request goes out before the answer comes (Node requires it).
        if (init.body instanceof ReadableStream) (init as RequestInit & { duplex: 'half' }).duplex = 'half';
      }
      const response = await send(url, init);
      const data = await decodeBody(response, method);
      return { status: response.status, ok: response.ok, data, response };
    };
  return {
    get: call('get'),
    post: call('post'),
    put: call('put'),
    patch: call('patch'),
    delete: call('delete'),
    head: call('head'),
    options: call('options'),
  } as unknown as Client<unknown>;
}

/** One call's options as the run-time sees them (the types check them per route). */
interface CallOptions {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
  init?: RequestInit;
}

/**
 * Writes `params` into a route pattern (Express 5 and 4 syntax, as Gale's router reads it): `:name` (with an
 * optional `(regex)` and `?`/`+`/`*` modifier) takes the value URL-encoded, a splat (`*name`, `:name*`) takes it
 * with its `/` kept, a `{…}` group is left out unless every param in it is given, and `\` escapes a character.
 * A required param missing is a TypeError naming it.
 *
 * @example
 * fillPath('/files/*path', { path: 'a b/c' }); // '/files/a%20b/c'
 */
export function fillPath(pattern: string, params: Record<string, unknown>): string {
  const [out] = fill(pattern, 0, params, false);
  return out ?? '';
}

/** Fills from `i` to the end of `pattern`, or to the `}` closing a group; `[text, next index]`, text `undefined` when
 * a group lacks a param. */
function fill(
  pattern: string,
  i: number,
  params: Record<string, unknown>,
  inGroup: boolean,
): [string | undefined, number] {
  let out = '';
  let complete = true;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === '\\') {
      out += pattern[i + 1] ?? '';
      i += 2;
    } else if (c === '{') {
      const [group, next] = fill(pattern, i + 1, params, true);
      if (group !== undefined) out += group;
      i = next;
    } else if (c === '}' && inGroup) {
      return [complete ? out : undefined, i + 1];
    } else if (c === ':' || c === '*') {
      let j = i + 1;
      while (j < pattern.length && /[A-Za-z0-9_$]/.test(pattern[j] as string)) j++;
      const name = pattern.slice(i + 1, j) || '*';
      if (pattern[j] === '(') j = skipRegex(pattern, j);
      const modifier = c === ':' && /[?+*]/.test(pattern[j] ?? '') ? (pattern[j] as string) : '';
      if (modifier) j++;
      const value = params[name];
      if (value === undefined || value === null || value === '') {
        if (modifier === '?' || modifier === '*') {
          // An Express 4 optional param left out takes the `/` before it along, as the router matches it.
          if (out.endsWith('/')) out = out.slice(0, -1);
        } else if (inGroup) complete = false;
        else throw new TypeError(`gale/client: the path ${pattern} needs the param "${name}"`);
      } else if (c === '*' || modifier === '*' || modifier === '+') {
        const parts = Array.isArray(value) ? value : String(value).split('/');
        out += parts.map((p) => encodeURIComponent(String(p))).join('/');
      } else {
        out += encodeURIComponent(String(value));
      }
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return [complete ? out : undefined, i];
}

/** The index after the `(…)` regex constraint that starts at `i` (nested parentheses and escapes skipped). */
function skipRegex(pattern: string, i: number): number {
  let depth = 0;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return i;
}

/** `?a=1&b=x&b=y` from a query object (a list repeats its key; `undefined` leaves the key out). */
function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The body to send: what fetch sends as it is (text, form data, bytes, streams), else JSON. */
function encodeBody(body: unknown, headers: Record<string, string>): BodyInit {
  if (typeof body === 'string') {
    headers['content-type'] ??= 'text/plain;charset=utf-8';
    return body;
  }
  if (
    body instanceof FormData ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof ReadableStream
  ) {
    return body as BodyInit;
  }
  headers['content-type'] ??= 'application/json';
  return JSON.stringify(body);
}

/** The answer's body: JSON for a JSON type (`application/json`, `…+json`), text for text, bytes for the rest. */
async function decodeBody(response: globalThis.Response, method: ClientMethod): Promise<unknown> {
  if (method === 'head' || response.status === 204 || response.status === 205 || response.status === 304) {
    await response.body?.cancel();
    return undefined;
  }
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  if (/[/+]json\b/.test(type)) {
    const text = await response.text();
    return text === '' ? undefined : JSON.parse(text);
  }
  if (type === '' || type.startsWith('text/') || /xml|javascript/.test(type)) {
    const text = await response.text();
    return text === '' && type === '' ? undefined : text;
  }
  return response.arrayBuffer();
}
