// `npm test`: the harness itself. Deliberately wrong servers (bench/fixtures/wrong-server.mjs) must be reported
// FAILED, never given a figure, and a correct one must pass: with wrk (a wrong status, answers that go wrong only
// mid-run, plain and pipelined), autocannon (a wrong body mid-run) and ab (a wrong length and a 404 mid-run, which is
// all ab can see). The full list of cases is `node --import tsx bench/selftest.ts [--tool …]`.
// Needs wrk, ab and taskset: installed with apt-get when missing (as root), else the test fails saying how.
import { test } from 'node:test';
import { ensureCommand } from '../tests/system-tools.ts';
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

/** Debian packages of the system load tools (autocannon comes from npm). */
const DEB: Record<string, [string, string]> = { wrk: ['wrk', 'wrk'], ab: ['ab', 'apache2-utils'] };

/** Installs the tool when it is a missing system program; fails with the reason when it still cannot run. */
function ensure(tool: LoadTool): void {
  const deb = DEB[tool.id];
  if (deb) ensureCommand(deb[0], deb[1]);
  ensureCommand('taskset', 'util-linux');
  const missing = tool.missing();
  if (missing) throw new Error(`${tool.id} cannot run: ${missing}`);
}

const plan: [LoadTool, string[]][] = [
  [wrk, ['404/plain', 'late/plain', 'late/pipelined', 'late404/plain', 'ok/plain']],
  [autocannon, ['late/plain', 'ok/plain']],
  [ab, ['late-length/plain', 'ok/plain']],
];

for (const [tool, wanted] of plan) {
  test(`bench harness with ${tool.id}: wrong servers are FAILED, a correct one passes`, async (t) => {
    ensure(tool);
    for (const c of pick(tool, wanted)) {
      const [defect, mode, expected] = c;
      await t.test(`${defect}/${mode.id} ${expected ? 'is FAILED' : 'passes'}`, async () => {
        t.diagnostic(await runCase(tool, c));
      });
    }
  });
}
