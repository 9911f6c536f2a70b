// The simple query parser (config.ts): its hand split for queries with nothing to decode must give exactly
// what URLSearchParams gives, for every shape of empty pairs, missing or repeated `=`, and repeated keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simpleQuery } from './config.js';

/** The reference: URLSearchParams, repeated keys as arrays. */
function reference(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(search)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

test('hand-picked queries parse as URLSearchParams parses them', () => {
  const cases = ['', 'a=1', 'a=1&b=2', 'a', 'a=', '=x', '&', '&&a=1&&', 'a=1&a=2&a=3', 'a==b', 'a=b=c&d', 'é=ü&é'];
  for (const q of cases) assert.deepEqual({ ...simpleQuery(q) }, { ...reference(q) }, JSON.stringify(q));
  assert.deepEqual({ ...simpleQuery('a=1&b=42') }, { a: '1', b: '42' });
});

test('random queries over & = % + and letters parse as URLSearchParams parses them', () => {
  const alphabet = ['a', 'b', '1', '&', '=', '%', '+', '2', '0', 'é', '?'];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    let q = '';
    for (let j = rand(12); j > 0; j--) q += alphabet[rand(alphabet.length)];
    assert.deepEqual({ ...simpleQuery(q) }, { ...reference(q) }, JSON.stringify(q));
  }
});
