// The JSON Schema of a route's schema, for response serializers and OpenAPI: a plain JSON Schema object (TypeBox's
// schemas are) as it is, or what a schema library exports (Standard JSON Schema's `~standard.jsonSchema`: zod 4,
// arktype, valibot wrapped in `toStandardJsonSchema`). Imports nothing.

/** A JSON Schema, as a plain JSON object. */
export type JsonSchemaObject = Record<string, unknown>;

interface Exporting {
  '~standard'?: {
    jsonSchema?: { input?: (o: { target: string }) => unknown; output?: (o: { target: string }) => unknown };
  };
  toJsonSchema?: () => unknown;
}

/**
 * The JSON Schema of `schema` for its input (what a client sends) or its output (what a handler answers), in the
 * `target` dialect when the library can write it (else draft 2020-12); undefined when `schema` is a Standard Schema
 * that cannot export one. A library's converter may throw (a zod transform has no JSON Schema): that error goes on.
 */
export function jsonSchemaOf(
  schema: object,
  io: 'input' | 'output',
  target: 'draft-2020-12' | 'draft-07',
): JsonSchemaObject | undefined {
  const s = schema as Exporting;
  const std = s['~standard'];
  if (std === undefined) return plain(schema);
  const convert = std.jsonSchema?.[io];
  if (typeof convert === 'function') {
    try {
      return plain(convert.call(std.jsonSchema, { target }) as object);
    } catch (err) {
      // A library that writes only 2020-12 throws for other targets, as the spec says it should.
      if (target === 'draft-2020-12') throw err;
      return plain(convert.call(std.jsonSchema, { target: 'draft-2020-12' }) as object);
    }
  }
  if (typeof s.toJsonSchema === 'function') return plain(s.toJsonSchema() as object);
  return undefined;
}

/** A JSON copy (no symbols, functions or shared references) without the `$schema` that would repeat the dialect. */
function plain(schema: object): JsonSchemaObject {
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchemaObject;
  delete copy.$schema;
  return copy;
}
