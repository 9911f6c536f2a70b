// Checks the schema object a route is declared with (`app.post(path, { body, … }, handler)`) when it is registered,
// so a typo or a value that is not a schema fails at startup, naming the route and the key, not on the first request.
import type { RouteSchema } from './route-types.js';

const PARTS = ['params', 'query', 'headers', 'body'] as const;
const DOCS = ['summary', 'description', 'operationId'] as const;
const KEYS: readonly string[] = [...PARTS, 'response', ...DOCS, 'tags', 'deprecated', 'hidden', 'handlerTimeout'];
const STATUS_KEY = /^(?:[1-5](?:\d\d|XX)|default)$/;

/** A Standard Schema's validator (bound to its `~standard` object), or undefined when `v` is not one. */
export function standardValidate(v: unknown): ((value: unknown) => unknown) | undefined {
  if (typeof v !== 'object' && typeof v !== 'function') return undefined;
  const std = (v as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  const validate = std?.validate;
  return typeof validate === 'function' ? (value: unknown) => validate.call(std, value) : undefined;
}

/** The key of `keys` closest to `key` (by edit distance), for "did you mean" hints. */
export function nearest(key: string, keys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const k of keys) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}

/** `value` as a RouteSchema, or a TypeError saying what is wrong with it (`where` names the route). */
export function checkRouteSchema(value: unknown, where: string): RouteSchema {
  const s = value as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (KEYS.includes(key)) continue;
    const near = nearest(key, KEYS);
    throw new TypeError(
      `${where}: unknown key ${JSON.stringify(key)} in the route's schema object${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; ` +
        `it takes ${KEYS.join(', ')}`,
    );
  }
  for (const part of PARTS) {
    if (s[part] !== undefined && standardValidate(s[part]) === undefined) {
      throw new TypeError(
        `${where}: ${part} must be a Standard Schema (a zod 4, valibot, arktype… schema, with a "~standard" ` +
          `property), got ${describe(s[part])}`,
      );
    }
  }
  const response = s.response;
  if (response !== undefined) {
    if (typeof response !== 'object' || response === null) {
      throw new TypeError(
        `${where}: response maps statuses to JSON Schemas, e.g. { 200: schema }; got ${describe(response)}`,
      );
    }
    for (const [status, schema] of Object.entries(response)) {
      if (!STATUS_KEY.test(status)) {
        throw new TypeError(
          `${where}: response key ${JSON.stringify(status)} is not a status (100–599), a range like '2XX', or 'default'`,
        );
      }
      // arktype's schemas are functions.
      if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) {
        throw new TypeError(
          `${where}: response[${status}] must be a JSON Schema or a schema object, got ${describe(schema)}`,
        );
      }
    }
  }
  for (const key of DOCS) {
    if (s[key] !== undefined && typeof s[key] !== 'string') {
      throw new TypeError(`${where}: ${key} must be a string, got ${describe(s[key])}`);
    }
  }
  if (s.tags !== undefined && !(Array.isArray(s.tags) && s.tags.every((t) => typeof t === 'string'))) {
    throw new TypeError(`${where}: tags must be an array of strings, got ${describe(s.tags)}`);
  }
  for (const key of ['deprecated', 'hidden'] as const) {
    if (s[key] !== undefined && typeof s[key] !== 'boolean') {
      throw new TypeError(`${where}: ${key} must be true or false, got ${describe(s[key])}`);
    }
  }
  const t = s.handlerTimeout;
  if (t !== undefined && t !== false && !(typeof t === 'number' && t > 0)) {
    throw new TypeError(
      `${where}: handlerTimeout must be a number of milliseconds above 0, or false; got ${describe(t)}`,
    );
  }
  return s as RouteSchema;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return `an object with keys ${Object.keys(v).slice(0, 5).join(', ') || '(none)'}`;
  return typeof v === 'string' ? JSON.stringify(v) : typeof v;
}
