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

test('--interleave asks for rounds; without it the iterations of a server run one after another', () => {
  const on = parseOptions(['hello', '--interleave', '--iterations', '3']);
  const off = parseOptions(['hello']);
  assert.ok(on !== 'help' && off !== 'help');
  assert.equal(on.interleave, true);
  assert.equal(on.iterations, 3);
  assert.equal(off.interleave, false);
});
