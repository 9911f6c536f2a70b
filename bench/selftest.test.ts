// `npm test`: the harness itself. Deliberately wrong servers (bench/fixtures/wrong-server.mjs) must be reported
// FAILED, never given a figure, and a correct one must pass: with wrk (a wrong status, answers that go wrong only
// mid-run, plain and pipelined), autocannon (a wrong body mid-run) and ab (a wrong length and a 404 mid-run, which is
// all ab can see). The full list of cases is `node --import tsx bench/selftest.ts [--tool …]`.
// Needs wrk and taskset (CI installs them); without wrk or ab their tests are skipped, except under CI.
import { test } from 'node:test';
import { ab } from './lib/ab.ts';
import { autocannon } from './lib/autocannon.ts';
import type { LoadTool } from './lib/tools.ts';
import { wrk } from './lib/wrk.ts';
import { type Case, runCase, selftestCases } from './selftest.ts';

/** The cases of `tool` whose defect/mode is listed, in that order. */
function pick(tool: LoadTool, wanted: string[]): Case[] {
  const all = selftestCases(tool);
  return wanted.map((w) => {
    const c = all.find(([defect, mode, , scenario]) => `${defect}/${mode.id}` === w && !scenario);
    if (!c) throw new Error(`no selftest case ${w} for ${tool.id}`);
    return c;
  });
}

/** Why the tool's tests are skipped (not installed, outside CI), or false. */
function skip(tool: LoadTool): string | false {
  const missing = tool.missing();
  if (!missing) return false;
  if (process.env.CI) throw new Error(`CI must have ${tool.id}: ${missing}`);
  return missing.split('\n')[0] ?? `${tool.id} is not installed`;
}

const plan: [LoadTool, string[]][] = [
  [wrk, ['404/plain', 'late/plain', 'late/pipelined', 'late404/plain', 'ok/plain']],
  [autocannon, ['late/plain', 'ok/plain']],
  [ab, ['late-length/plain', 'ok/plain']],
];

for (const [tool, wanted] of plan) {
  test(`bench harness with ${tool.id}: wrong servers are FAILED, a correct one passes`, {
    skip: skip(tool),
  }, async (t) => {
    for (const c of pick(tool, wanted)) {
      const [defect, mode, expected] = c;
      await t.test(`${defect}/${mode.id} ${expected ? 'is FAILED' : 'passes'}`, async () => {
        t.diagnostic(await runCase(tool, c));
      });
    }
  });
}
