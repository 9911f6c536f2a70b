// The command line of `npm run bench`: the forms bench/README.md documents parse to the command they name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions } from './cli.ts';

test('report <dir> parses to the report command, whatever scenarios a run has by default', () => {
  const o = parseOptions(['report', 'bench/results/some-run']);
  assert.notEqual(o, 'help');
  assert.equal((o as Exclude<typeof o, 'help'>).command, 'report');
  assert.equal((o as Exclude<typeof o, 'help'>).reportDir, 'bench/results/some-run');
});

test('a sweep of a WebSocket scenario is refused, saying why', () => {
  assert.throws(() => parseOptions(['sweep', 'ws-echo']), /WebSocket scenarios cannot be swept/);
});
