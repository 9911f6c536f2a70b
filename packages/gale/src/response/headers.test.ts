// headerBlock against the plain concatenation it replaces: random header sequences drawn from a small pool (so
// prefixes repeat, as an app's middleware makes them), including equal values in new strings, arrays and reordering.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HeaderValue } from '../options.js';
import { HeaderEntry } from './api.js';
import { headerBlock } from './headers.js';

function plain(headers: Map<string, HeaderEntry>): string {
  let out = '';
  for (const { name, value } of headers.values()) {
    if (typeof value === 'object') for (const v of value) out += `${name}: ${v}\r\n`;
    else out += `${name}: ${value}\r\n`;
  }
  return out;
}

const NAMES = ['X-A', 'X-B', 'Vary', 'ETag', 'Set-Cookie', 'Cache-Control'];
const VALUES: HeaderValue[] = ['1', '2', 'W/"11-abc"', 'no-store', ['a=1', 'b=2'], ['a=1'], 7];

test('headerBlock gives what concatenating every header gives, call after call', () => {
  let seed = 42;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 20_000; round++) {
    const m = new Map<string, HeaderEntry>();
    const count = rand(6);
    for (let i = 0; i < count; i++) {
      const name = NAMES[rand(NAMES.length)] as string;
      let value = VALUES[rand(VALUES.length)] as HeaderValue;
      // The same text in a new string, as a per-request ETag is.
      if (typeof value === 'string' && rand(2) === 0) value = `${value.slice(0, 1)}${value.slice(1)}`;
      m.set(name.toLowerCase(), new HeaderEntry(name, value));
    }
    if (m.size === 0) continue;
    assert.equal(headerBlock(m), plain(m), `round ${round}`);
  }
});

test('headerBlock reuses the block when nothing changed and notices a changed value', () => {
  const m = new Map([
    ['x-a', new HeaderEntry('X-A', '1')],
    ['x-b', new HeaderEntry('X-B', '2')],
  ]);
  assert.equal(headerBlock(m), 'X-A: 1\r\nX-B: 2\r\n');
  assert.equal(headerBlock(m), 'X-A: 1\r\nX-B: 2\r\n');
  (m.get('x-b') as HeaderEntry).value = '3';
  assert.equal(headerBlock(m), 'X-A: 1\r\nX-B: 3\r\n');
  m.delete('x-b');
  assert.equal(headerBlock(m), 'X-A: 1\r\n');
  m.set('x-c', new HeaderEntry('X-C', ['p', 'q']));
  assert.equal(headerBlock(m), 'X-A: 1\r\nX-C: p\r\nX-C: q\r\n');
});
