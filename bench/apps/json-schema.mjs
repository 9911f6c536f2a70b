// The JSON Schema of the `json` scenario's body ({"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}), shared by the
// apps that serve the `json-schema` scenario through a serializer compiled from it (Gale's response schemas,
// Fastify's): the same schema, so the same fast-json-stringify code does the writing on both.
export const JSON_SCHEMA = {
  type: 'object',
  properties: {
    foo: { type: 'string' },
    one: { type: 'array', items: [{ type: 'integer' }, { type: 'string' }] },
    bar: { type: 'object', properties: { baz: { type: 'string' } }, required: ['baz'] },
  },
  required: ['foo', 'one', 'bar'],
};
