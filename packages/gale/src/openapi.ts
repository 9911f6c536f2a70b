// `app.openapi()`: an OpenAPI 3.1 document built from the routes an app (and the routers mounted on it) declared, their
// paths (openapi-path.ts) and the JSON Schema their route schemas export (json-schema.ts). Reads the entries only;
// nothing here runs per request.
import { VALIDATION_PROBLEM_TYPE } from './errors.js';
import { type JsonSchemaObject, jsonSchemaOf } from './json-schema.js';
import { openApiPaths, type PathParam } from './openapi-path.js';
import type { RouteSchema } from './route-types.js';
import { type Entry, joinPath, type Method, type Router } from './router.js';

/**
 * What `app.openapi()` is given: the document's `info` (title and version at least) and any other top-level fields
 * to put in it (`servers`, `tags`, `security`, `components`, …), which it keeps as they are.
 *
 * @example
 * app.openapi({ info: { title: 'Shop', version: '2.1.0' }, servers: [{ url: 'https://api.example.com' }] });
 */
export interface OpenApiOptions {
  readonly info: { readonly title: string; readonly version: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/**
 * An OpenAPI 3.1 document, as a plain JSON object (serve it with `res.json()`, or return it from a handler).
 *
 * @example
 * const doc: OpenApiDocument = app.openapi({ info: { title: 'Shop', version: '1.0.0' } });
 * console.log(Object.keys(doc.paths));
 */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: OpenApiOptions['info'];
  readonly paths: Record<string, Record<string, unknown>>;
  readonly [key: string]: unknown;
}

type Json = Record<string, unknown>;

/** The methods an `all()` route is listed under. */
const ALL_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
/** Header parameters OpenAPI says to leave out (they are described elsewhere). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const PROBLEM = 'GaleValidationProblem';

/** The document for `root`'s routes. */
export function openApiDocument(
  root: Router,
  options: OpenApiOptions,
  handlerTimeout: number | false = false,
): OpenApiDocument {
  const doc = new DocBuilder(handlerTimeout);
  doc.walk(root, '/');
  const given = options.components as { schemas?: Json } | undefined;
  const schemas = { ...doc.schemas, ...given?.schemas };
  const components = Object.keys(schemas).length === 0 ? given : { ...given, schemas };
  return {
    ...options,
    openapi: '3.1.0',
    info: options.info,
    paths: doc.paths,
    ...(components === undefined ? {} : { components }),
  };
}

class DocBuilder {
  readonly paths: Record<string, Record<string, unknown>> = {};
  readonly schemas: Json = {};

  /** `handlerTimeout`: the app's, which a route without its own answers 503 by. */
  constructor(private readonly handlerTimeout: number | false) {}

  walk(r: Router, prefix: string): void {
    for (const e of r.entries) {
      if (e.kind === 'router') this.walk(e.router, joinPath(prefix, e.prefix));
      else if (e.kind === 'route' && e.ws === undefined && e.schema?.hidden !== true) {
        this.route(e, joinPath(prefix, e.path));
      }
    }
  }

  private route(e: Extract<Entry, { kind: 'route' }>, pattern: string): void {
    // WebTransport routes are sessions, not operations.
    if (e.method === 'CONNECT') return;
    const methods = e.method === 'ALL' ? ALL_METHODS : [methodName(e.method)];
    for (const alt of openApiPaths(pattern)) {
      const item = this.paths[alt.path] ?? {};
      this.paths[alt.path] = item;
      for (const m of methods) {
        // The first route declared for a path and method is the one that answers it.
        if (item[m] === undefined) item[m] = this.operation(e.schema ?? {}, alt.params, schemaName(m, alt.path));
      }
    }
  }

  private operation(s: RouteSchema, pathParams: readonly PathParam[], id: string): Json {
    const op: Json = {};
    if (s.operationId !== undefined) op.operationId = s.operationId;
    if (s.summary !== undefined) op.summary = s.summary;
    if (s.description !== undefined) op.description = s.description;
    if (s.tags !== undefined) op.tags = [...s.tags];
    if (s.deprecated === true) op.deprecated = true;
    const paramsSchema = this.exported(s.params, 'input', `${id}Params`);
    const parameters: Json[] = pathParams.map((p) => pathParameter(p, property(paramsSchema, p.name)));
    parameters.push(
      ...this.namedParameters(s.query, 'query', `${id}Query`),
      ...this.namedParameters(s.headers, 'header', `${id}Headers`),
    );
    if (parameters.length > 0) op.parameters = parameters;
    if (s.body !== undefined) {
      const body = this.exported(s.body, 'input', `${id}Body`);
      op.requestBody = { required: true, content: { 'application/json': { schema: body ?? {} } } };
    }
    const responses: Json = {};
    for (const [status, schema] of Object.entries(s.response ?? {})) {
      const json = this.exported(schema as object, 'output', `${id}Response${status}`);
      responses[status] = {
        description: status === 'default' ? 'Any other answer' : `Status ${status}`,
        content: { 'application/json': { schema: json ?? {} } },
      };
    }
    if (s.params !== undefined || s.query !== undefined || s.headers !== undefined || s.body !== undefined) {
      this.schemas[PROBLEM] ??= problemSchema();
      responses['400'] ??= {
        description: 'The request does not match the schema of its route (GALE_ERR_VALIDATION)',
        content: { 'application/problem+json': { schema: { $ref: `#/components/schemas/${PROBLEM}` } } },
      };
    }
    // What the route answers besides its declared schemas: the handler's own answer when no success is declared
    // (OpenAPI wants at least one response), and Gale's 503 when the handler does not answer in time.
    if (!Object.keys(responses).some((k) => k === 'default' || /^[123]/.test(k))) {
      responses.default = { description: "The handler's answer (the route declares no response schema for it)" };
    }
    const timeout = s.handlerTimeout ?? this.handlerTimeout;
    if (timeout !== false) {
      responses['503'] ??= {
        description: `The handler did not answer within ${timeout} ms (handlerTimeout; GALE_ERR_HANDLER_TIMEOUT)`,
      };
    }
    op.responses = responses;
    return op;
  }

  /** A query or header schema's properties, one parameter each. */
  private namedParameters(schema: object | undefined, where: 'query' | 'header', name: string): Json[] {
    const json = this.exported(schema, 'input', name);
    const props = json?.properties as Record<string, JsonSchemaObject> | undefined;
    if (props === undefined) return [];
    const required = new Set(Array.isArray(json?.required) ? (json.required as string[]) : []);
    const out: Json[] = [];
    for (const [name, prop] of Object.entries(props)) {
      if (where === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      out.push({ name, in: where, required: required.has(name), schema: prop });
    }
    return out;
  }

  /**
   * The JSON Schema a route schema exports, with its local definitions moved to `components.schemas` (a `$ref` to
   * `#/$defs/…` inside the document would point at the document's root), and itself moved there as `name` when it
   * refers to its own root (`$ref: '#'`, a recursive schema); undefined when it exports none.
   */
  private exported(schema: object | undefined, io: 'input' | 'output', name: string): JsonSchemaObject | undefined {
    if (schema === undefined) return undefined;
    let json: JsonSchemaObject | undefined;
    try {
      json = jsonSchemaOf(schema, io, 'draft-2020-12');
    } catch {
      return undefined; // the library cannot describe this one (a zod transform, say): listed without a schema
    }
    if (json === undefined) return undefined;
    const renames = new Map<string, string>();
    for (const key of ['$defs', 'definitions']) {
      const defs = json[key] as Record<string, unknown> | undefined;
      if (defs === undefined) continue;
      delete json[key];
      for (const [name, def] of Object.entries(defs)) {
        let target = name;
        for (let n = 2; this.schemas[target] !== undefined && !sameJson(this.schemas[target], def); n++) {
          target = `${name}${n}`;
        }
        this.schemas[target] = def;
        renames.set(`#/${key}/${name}`, `#/components/schemas/${target}`);
      }
    }
    if (renames.size > 0) {
      rewriteRefs(json, renames);
      for (const target of new Set([...renames.values()].map((r) => r.slice('#/components/schemas/'.length)))) {
        rewriteRefs(this.schemas[target], renames);
      }
    }
    if (!refersToRoot(json)) return json;
    let target = name;
    for (let n = 2; this.schemas[target] !== undefined; n++) target = `${name}${n}`;
    rewriteRefs(json, new Map([['#', `#/components/schemas/${target}`]]));
    this.schemas[target] = json;
    return { $ref: `#/components/schemas/${target}` };
  }
}

function methodName(m: Method): string {
  return m.toLowerCase();
}

/** A components.schemas name for an operation's schemas: `get /users/{id}` → `GetUsersId`. */
function schemaName(method: string, path: string): string {
  const words = [method, ...path.split(/[^A-Za-z0-9]+/)].filter((w) => w !== '');
  return words.map((w) => (w[0] as string).toUpperCase() + w.slice(1)).join('');
}

/** Whether a `$ref` in `node` points into the schema's own root (`#`, `#/properties/…`). */
function refersToRoot(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersToRoot);
  if (typeof node !== 'object' || node === null) return false;
  for (const [k, v] of Object.entries(node)) {
    if (
      k === '$ref' &&
      typeof v === 'string' &&
      (v === '#' || (v.startsWith('#/') && !v.startsWith('#/components/')))
    ) {
      return true;
    }
    if (refersToRoot(v)) return true;
  }
  return false;
}

function pathParameter(p: PathParam, schema: JsonSchemaObject | undefined): Json {
  const s: Json = schema ?? { type: 'string' };
  if (schema === undefined && p.constraint !== undefined) s.pattern = `^(?:${p.constraint})$`;
  const param: Json = { name: p.name, in: 'path', required: true, schema: s };
  if (p.wildcard) param.description = 'One or more path segments ("/" included)';
  return param;
}

function property(json: JsonSchemaObject | undefined, name: string): JsonSchemaObject | undefined {
  return (json?.properties as Record<string, JsonSchemaObject> | undefined)?.[name];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Points every `$ref` that starts with a key of `renames` (`#` standing for the schema's own root) at its value. */
function rewriteRefs(node: unknown, renames: ReadonlyMap<string, string>): void {
  if (Array.isArray(node)) for (const v of node) rewriteRefs(v, renames);
  else if (typeof node === 'object' && node !== null) {
    const o = node as Json;
    for (const [k, v] of Object.entries(o)) {
      if (k !== '$ref' || typeof v !== 'string') {
        rewriteRefs(v, renames);
        continue;
      }
      for (const [from, to] of renames) {
        const inside = from === '#' ? v.startsWith('#/') && !v.startsWith('#/components/') : v.startsWith(`${from}/`);
        if (v === from || inside) {
          o[k] = to + v.slice(from.length);
          break;
        }
      }
    }
  }
}

/** The JSON Schema of the 400 answer's problem document (errors.ts ValidationProblem). */
function problemSchema(): Json {
  return {
    type: 'object',
    description: `RFC 9457 problem details; type is ${VALIDATION_PROBLEM_TYPE}`,
    properties: {
      type: { type: 'string', format: 'uri' },
      title: { type: 'string' },
      status: { type: 'integer', const: 400 },
      detail: { type: 'string' },
      code: { type: 'string', const: 'GALE_ERR_VALIDATION' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            in: { enum: ['params', 'query', 'headers', 'body'] },
            pointer: { type: 'string', description: 'JSON Pointer (RFC 6901) as a URI fragment, e.g. #/name' },
            path: { type: 'array', items: { type: ['string', 'integer'] } },
            message: { type: 'string' },
          },
          required: ['in', 'pointer', 'path', 'message'],
        },
      },
    },
    required: ['type', 'title', 'status', 'detail', 'code', 'errors'],
  };
}
