// HttpArena's scoring (score.ts): normalization to the best entry, json-comp's bytes-per-response weight, an invalid
// run scoring 0, and the composite as a sum.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { averageRps, composite, profileScores, type Row } from './score.ts';

const row = (profile: string, entry: string, rps: (number | null)[], bpr: (number | null)[] = rps.map(() => 100)) => ({
  profile,
  entry,
  rps,
  bytesPerResponse: bpr,
});

test('each profile is normalized to its best average over the connection counts', () => {
  const s = profileScores([row('baseline', 'a', [100, 300]), row('baseline', 'b', [100, 100]), row('json', 'a', [50])]);
  assert.equal(s.get('baseline')?.get('a'), 100);
  assert.equal(s.get('baseline')?.get('b'), 50);
  assert.equal(s.get('json')?.get('a'), 100);
});

test('a count without a valid figure leaves the entry without an average: it scores 0', () => {
  const rows: Row[] = [row('baseline', 'a', [100, null]), row('baseline', 'b', [10, 10])];
  assert.equal(averageRps(rows[0] as Row), null);
  const s = profileScores(rows);
  assert.equal(s.get('baseline')?.get('a'), 0);
  assert.equal(s.get('baseline')?.get('b'), 100);
});

test('json-comp: the average is scaled by (smallest bytes per response ÷ own)², so twice the bytes is a quarter', () => {
  const s = profileScores([row('json-comp', 'small', [100], [1000]), row('json-comp', 'big', [100], [2000])]);
  assert.equal(s.get('json-comp')?.get('small'), 100);
  assert.equal(s.get('json-comp')?.get('big'), 25);
  // Faster but twice as large: 200 × ¼ = 50 against 100.
  const t = profileScores([row('json-comp', 'small', [100], [1000]), row('json-comp', 'big', [200], [2000])]);
  assert.equal(t.get('json-comp')?.get('big'), 50);
});

test('the composite is the sum of the profile scores', () => {
  const c = composite(
    profileScores([
      row('baseline', 'a', [100]),
      row('baseline', 'b', [50]),
      row('json', 'a', [10]),
      row('json', 'b', [20]),
    ]),
  );
  assert.equal(c.get('a'), 150);
  assert.equal(c.get('b'), 150);
});
