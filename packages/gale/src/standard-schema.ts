// The Standard Schema and Standard JSON Schema interfaces (https://standardschema.dev), which zod 4, valibot and
// arktype implement: copied from @standard-schema/spec 1.1.0 (MIT, © 2024 Colin McDonnell), as the spec asks
// libraries to do rather than depend on it, with its namespaces flattened into prefixed names. Types only.

/**
 * A schema any Standard Schema library makes (zod 4, valibot, arktype, …): Gale calls its `~standard.validate` and
 * types the handler's input from its `~standard.types`.
 *
 * @example
 * import { z } from 'zod';
 * const User: StandardSchemaV1<unknown, { name: string }> = z.object({ name: z.string() });
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** The Standard Schema properties: version, vendor, `validate`, and the inferred types. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** The version number of the standard. */
  readonly version: 1;
  /** The vendor name of the schema library. */
  readonly vendor: string;
  /** Validates unknown input values. */
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  /** Inferred types associated with the schema. */
  readonly types?: StandardTypes<Input, Output> | undefined;
}

/** The input and output types a schema carries (for inference only). */
export interface StandardTypes<Input = unknown, Output = Input> {
  /** The input type of the schema. */
  readonly input: Input;
  /** The output type of the schema. */
  readonly output: Output;
}

/** What `validate` returns: the value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** One failed check: its message and where in the value it is. */
export interface StandardIssue {
  /** The error message of the issue. */
  readonly message: string;
  /** The path of the issue, if any. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/**
 * A schema that can describe itself as JSON Schema (Standard JSON Schema: zod 4.2+ and arktype natively, valibot
 * through `toStandardJsonSchema` from `@valibot/to-json-schema`). Gale uses it for response serializers and OpenAPI.
 *
 * @example
 * import { toStandardJsonSchema } from '@valibot/to-json-schema';
 * import * as v from 'valibot';
 * const Item: StandardJSONSchemaV1 = toStandardJsonSchema(v.object({ id: v.number() }));
 * app.get('/items/:id', { response: { 200: Item } }, (req) => ({ id: Number(req.params.id) }));
 */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  /** The Standard JSON Schema properties. */
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: StandardTypes<Input, Output> | undefined;
    /** Methods for generating the input/output JSON Schema. May throw if a conversion is not supported. */
    readonly jsonSchema: {
      readonly input: (options: StandardJSONSchemaOptions) => Record<string, unknown>;
      readonly output: (options: StandardJSONSchemaOptions) => Record<string, unknown>;
    };
  };
}

/** Options of a Standard JSON Schema conversion. */
export interface StandardJSONSchemaOptions {
  /** The JSON Schema dialect: `'draft-2020-12'` (OpenAPI 3.1's), `'draft-07'`, … */
  readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (string & {});
  /** Explicit support for additional vendor-specific parameters, if needed. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/**
 * The output type of a Standard Schema (what the handler receives after validation).
 *
 * @example
 * import { z } from 'zod';
 * const Age = z.coerce.number();
 * type A = InferOutput<typeof Age>; // number
 */
export type InferOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/**
 * What a Standard Schema takes: its input type (`unknown` for anything else). `gale/client` types what it sends
 * with it (a zod `z.coerce.number()` param takes `unknown`, a `z.string().default('x')` query key may be left out).
 *
 * @example
 * import { z } from 'zod';
 * const Page = z.object({ n: z.string().default('1') });
 * type In = InferInput<typeof Page>; // { n?: string | undefined }
 */
export type InferInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : unknown;
