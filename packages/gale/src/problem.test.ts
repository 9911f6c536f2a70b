// The Accept rule of problem.ts held to the engine's: the table of crates/gale-http/src/problem.rs's tests, read from
// that file, must get the same answer from both; and the documents' shape.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { prefersJson, problemDocument, wantsProblem } from './problem.js';

const rust = readFileSync(join(import.meta.dirname, '../../../crates/gale-http/src/problem.rs'), 'utf8');

test("prefersJson answers the engine's Accept table", () => {
  const table = /const ACCEPT: &\[\(&str, bool\)\] = &\[([\s\S]*?)\n {4}\];/.exec(rust)?.[1];
  assert.ok(table, 'the table in problem.rs');
  const rows = [...table.matchAll(/\("((?:[^"\\]|\\.)*)", (true|false)\)/g)];
  assert.ok(rows.length >= 15, `rows read: ${rows.length}`);
  for (const [, accept, want] of rows) assert.equal(prefersJson(accept), want === 'true', JSON.stringify(accept));
  assert.equal(prefersJson(undefined), false);
});

test('wantsProblem follows errorFormat', () => {
  assert.equal(wantsProblem('text', 'application/json'), false);
  assert.equal(wantsProblem('problem', '*/*'), true);
  assert.equal(wantsProblem('problem', undefined), true);
  assert.equal(wantsProblem('negotiate', 'application/json'), true);
  assert.equal(wantsProblem('negotiate', '*/*'), false);
});

test('problem documents: title from the status, detail only when it says more, the stable code', () => {
  assert.deepEqual(problemDocument(404, 'Not Found'), {
    type: 'about:blank',
    title: 'Not Found',
    status: 404,
    code: 'GALE_ERR_NOT_FOUND',
  });
  assert.deepEqual(problemDocument(413, 'Body over 10 bytes', 'GALE_ERR_BODY_TOO_LARGE'), {
    type: 'about:blank',
    title: 'Content Too Large',
    status: 413,
    detail: 'Body over 10 bytes',
    code: 'GALE_ERR_BODY_TOO_LARGE',
  });
  assert.deepEqual(problemDocument(418, ''), { type: 'about:blank', title: 'Error', status: 418 });
});
