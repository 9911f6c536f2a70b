// The live fuzzer's PRNG: it must not repeat itself within a run (a short cycle would resend the same traffic for
// 30 minutes and call it fuzzing), different seeds must give different streams, and draws must be spread evenly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from './rng.js';

test('the stream does not come back to an earlier point within 300 000 draws, for several seeds', () => {
  for (const seed of [0, 1, 5, 20261125]) {
    const r = new Rng(seed);
    for (let i = 0; i < 1000; i++) r.u32();
    // Four consecutive outputs stand for the state: seeing them again would mean a cycle.
    const mark = [r.u32(), r.u32(), r.u32(), r.u32()];
    const window = [0, 0, 0, 0];
    for (let i = 0; i < 300_000; i++) {
      window.shift();
      window.push(r.u32());
      assert.ok(
        !(window[0] === mark[0] && window[1] === mark[1] && window[2] === mark[2] && window[3] === mark[3]),
        `seed ${seed}: the stream repeats after ${i} draws`,
      );
    }
  }
});

test('seeds give different streams, and int(n) is spread evenly', () => {
  const a = new Rng(1);
  const b = new Rng(2);
  assert.notDeepEqual(
    Array.from({ length: 8 }, () => a.u32()),
    Array.from({ length: 8 }, () => b.u32()),
  );
  const r = new Rng(7);
  const counts = [0, 0, 0, 0, 0];
  for (let i = 0; i < 50_000; i++) (counts[r.int(5)] as number)++;
  for (const c of counts) assert.ok(Math.abs(c - 10_000) < 500, `uneven: ${counts}`);
});
