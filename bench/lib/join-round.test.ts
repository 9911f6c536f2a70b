// `--interleave`'s joining of rounds (measure.ts joinRound): iterations add up, a failed round fails the row naming
// the round, a row that is not run stays so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinRound, type Measurement } from './measure.ts';

const m = (over: Partial<Measurement>): Measurement => ({
  server: 'gale',
  label: 'Gale',
  scenario: 'hello',
  mode: 'plain',
  depth: 1,
  ok: true,
  failure: null,
  notRun: null,
  validation: null,
  warmup: null,
  iterations: [],
  startRssKiB: null,
  peakRssKiB: null,
  serverOpenFileLimit: null,
  serverStderr: '',
  ...over,
});
const it = (rps: number) => ({ rps }) as unknown as Measurement['iterations'][number];

test('rounds add their iterations, keep the highest peak RSS and both stderrs', () => {
  const a = m({ iterations: [it(1)], peakRssKiB: 50, serverStderr: 'a' });
  const b = m({ iterations: [it(2)], peakRssKiB: 70, serverStderr: 'b' });
  const j = joinRound(joinRound(undefined, a, 1), b, 2);
  assert.deepEqual(j.iterations, [it(1), it(2)]);
  assert.equal(j.peakRssKiB, 70);
  assert.equal(j.serverStderr, 'ab');
  assert.equal(j.ok, true);
  assert.deepEqual(a.iterations, [it(1)], 'the first round is not changed in place');
});

test('a failed round fails the row, naming the round; a row not run stays not run', () => {
  const a = m({ iterations: [it(1)] });
  const bad = m({ ok: false, failure: '3 timeouts' });
  const j = joinRound(a, bad, 2);
  assert.equal(j.ok, false);
  assert.equal(j.failure, 'round 2: 3 timeouts');
  assert.deepEqual(j.iterations, [it(1)]);
  const skipped = m({ ok: false, notRun: 'nginx is not installed' });
  assert.equal(joinRound(a, skipped, 2), skipped);
});
