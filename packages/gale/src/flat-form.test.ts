// parseFlat against qs with depth 0 (what body-parser's non-extended urlencoded uses): the same object for random
// inputs over the characters that matter (separators, escapes, valid and broken percent-encoding, plus, brackets),
// in UTF-8 and ISO-8859-1. qs is a devDependency here; the core does not depend on it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import qs from 'qs';
import { parseFlat } from './flat-form.js';

const PIECES = [
  'a',
  'b',
  '=',
  '&',
  '%',
  '2',
  '0',
  'E',
  '9',
  'C',
  '3',
  '+',
  '.',
  '_',
  'x',
  '%E9',
  '%C3%A9',
  '%ZZ',
  '%41',
];
const BRACKETS = [...PIECES, '[', ']', '[]', ']='];

function reference(text: string, latin1: boolean): unknown {
  return qs.parse(text, {
    plainObjects: true,
    arrayLimit: text.split('&').length,
    depth: 0,
    parameterLimit: 10_000,
    charset: latin1 ? 'iso-8859-1' : 'utf-8',
    strictDepth: true,
  });
}

/** A seeded generator, so a failure names an input that reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

test('random flat forms parse exactly as qs with depth 0, UTF-8 and ISO-8859-1', () => {
  const next = rng(7);
  for (let i = 0; i < 50_000; i++) {
    let text = '';
    const n = Math.floor(next() * 14);
    for (let j = 0; j < n; j++) text += PIECES[Math.floor(next() * PIECES.length)];
    for (const latin1 of [false, true]) {
      assert.deepEqual({ ...parseFlat(text, latin1) }, { ...(reference(text, latin1) as object) }, `${text} ${latin1}`);
    }
  }
});

test('bracketed keys: `[a]` is `a`, `]=` ends a key, `[]` takes the next index, `__proto__` is dropped', () => {
  const cases = ['[a]=1&[a]=2', 'a]=b=c', '[=1', ']=1', '[a]]=1', '%5Ba%5D=1', '[]=1&[]=2', '[__proto__]=1', 'x[y]=1'];
  for (const text of cases)
    assert.deepEqual({ ...parseFlat(text, false) }, { ...(reference(text, false) as object) }, text);
  const next = rng(11);
  let differ = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = '';
    const n = Math.floor(next() * 10);
    for (let j = 0; j < n; j++) text += BRACKETS[Math.floor(next() * BRACKETS.length)];
    const same = JSON.stringify(parseFlat(text, false)) === JSON.stringify(reference(text, false));
    if (!same) differ++;
  }
  // qs merges a bracketed key and the same plain key with empty values in a way of its own (`[.]&.` → one value):
  // a handful of such inputs in 20 000 differ; anything more is a regression.
  assert.ok(differ <= 20, `${differ} of 20 000 bracketed inputs differ from qs`);
});
