// Response serializers: a route's `response` JSON Schemas compiled once, when the route is registered, into
// stringifiers by fast-json-stringify (Fastify's). It is an optional peer dependency of the core, loaded on first use
// like qs: an app without response schemas never needs it.
import { createRequire } from 'node:module';
import { ErrorCodes, GaleError } from './errors.js';
import { jsonSchemaOf } from './json-schema.js';

type Stringify = (value: unknown) => string;
type Build = (schema: object) => Stringify;

/** What `res.json` calls on a route with response schemas: the body for `value` answered with `status`. */
export type Serializer = (status: number, value: unknown) => string;

let build: Build | undefined;

/** fast-json-stringify's `build`, or a GaleError saying to install it (`where` names the route). */
function loadBuild(where: string): Build {
  if (build === undefined) {
    try {
      build = createRequire(import.meta.url)('fast-json-stringify') as Build;
    } catch (err) {
      if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
      throw new GaleError(
        ErrorCodes.MISSING_PACKAGE,
        `${where}: response schemas are compiled with the fast-json-stringify package, which is not installed: ` +
          'npm install fast-json-stringify',
      );
    }
  }
  return build;
}

/**
 * Compiles `response` (status, `'2XX'` or `'default'` → schema) into one serializer: a status takes its own schema,
 * else its range's, else the default's, else plain JSON.stringify.
 */
export function responseSerializer(response: Readonly<Record<string, object>>, where: string): Serializer {
  const compile = loadBuild(where);
  const compiled = new Map<string, Stringify>();
  for (const [key, schema] of Object.entries(response)) {
    let json: object | undefined;
    try {
      json = jsonSchemaOf(schema, 'output', 'draft-07');
      if (json !== undefined) compiled.set(key, compile(json));
    } catch (err) {
      throw new GaleError(
        ErrorCodes.RESPONSE_SCHEMA,
        `${where}: response[${key}] cannot be compiled to a serializer: ${(err as Error).message}`,
      );
    }
    if (json === undefined) {
      throw new GaleError(
        ErrorCodes.RESPONSE_SCHEMA,
        `${where}: response[${key}] is a schema that exports no JSON Schema: give a JSON Schema (TypeBox's are), a ` +
          'zod 4 or arktype schema, or a valibot schema wrapped in toStandardJsonSchema() from @valibot/to-json-schema',
      );
    }
  }
  // One slot per status, filled now, so answering costs an array read.
  const byStatus: (Stringify | undefined)[] = [];
  for (let status = 100; status < 600; status++) {
    byStatus[status] =
      compiled.get(String(status)) ?? compiled.get(`${Math.floor(status / 100)}XX`) ?? compiled.get('default');
  }
  return (status, value) => {
    const f = byStatus[status];
    return f === undefined ? JSON.stringify(value) : f(value);
  };
}
