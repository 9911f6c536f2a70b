// Self-test of the benchmark harness: deliberately wrong servers (404, wrong body, wrong Content-Type, answers that go
// wrong only mid-run, also under pipelining, a Range request answered with the whole file) must be reported FAILED, and
// a correct one must pass. ab sees only status classes and body lengths, so its cases are the defects it can see.
// Run: node --import tsx bench/selftest.ts [--tool loadgen|ab|ab-k|autocannon]   (exit code 0 = every defect rejected)
// `bench/selftest.test.ts` runs a subset of these cases under `npm test`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Measurement, measure } from './lib/measure.ts';
import { findScenario, type Scenario } from './lib/scenarios.ts';
import { benchDir, type Mode, type ServerDef } from './lib/servers.ts';
import { type LoadTool, tools } from './lib/tools.ts';
import { wrk } from './lib/wrk.ts';

const hello = findScenario('hello');
const range = findScenario('static-range');
assert.ok(hello && range);

export function wrongServer(mode: string): ServerDef {
  return {
    name: `wrong-${mode}`,
    label: `wrong (${mode})`,
    entry: join(benchDir, 'fixtures', 'wrong-server.mjs'),
    // 200 correct answers first: past fetch()'s validation, yet reached within the 1 s run even on a loaded CI
    // machine (2 000 was not: autocannon counted fewer and saw no defect).
    env: { WRONG_MODE: mode, LATE_OK: '200' },
  };
}

/** One short validated measurement of a scenario (default `hello`) against `server`. */
export function quickMeasure(
  server: ServerDef,
  mode: Mode = { id: 'plain', depth: 1 },
  tool: LoadTool = wrk,
  scenario: Scenario | undefined = hello,
): Promise<Measurement> {
  assert.ok(scenario);
  return measure({
    server,
    scenario,
    mode,
    tool,
    durationS: 1,
    // ab: enough requests to pass the fixture's first 200 correct answers.
    requests: 5000,
    warmupS: 0,
    iterations: 1,
    connections: 10,
    threads: 1,
    timeoutS: 2,
    serverCpu: 0,
    loadCpu: 1,
  });
}

const plain: Mode = { id: 'plain', depth: 1 };

/** A fixture defect (WRONG_MODE), the mode, the FAILED reason expected (null: must pass), the scenario (default hello). */
export type Case = [string, Mode, RegExp | null, Scenario?];

/** The cases a tool can tell apart: every defect for the tools that check body bytes, lengths and statuses for ab. */
export function selftestCases(tool: LoadTool): Case[] {
  assert.ok(range);
  if (tool.id === 'ab' || tool.id === 'ab-k') {
    return [
      ['404', plain, /status 404/],
      ['ctype', plain, /Content-Type "text\/html"/],
      ['late-length', plain, /responses invalid \(first: \d+ bodies whose length differs/],
      ['late404', plain, /responses invalid \(first: \d+ non-2xx responses/],
      ['ok', plain, null],
      ['range', plain, null, range],
      ['range-late', plain, /responses invalid \(first: \d+ bodies whose length differs/, range],
    ];
  }
  return [
    ['404', { id: 'plain', depth: 1 }, /status 404/],
    ['body', { id: 'plain', depth: 1 }, /body/],
    ['ctype', { id: 'plain', depth: 1 }, /Content-Type "text\/html"/],
    ['late', { id: 'plain', depth: 1 }, /responses invalid \(first: status 200, 17-byte body: \{"hello":"w0rld"\}\)/],
    ['late', { id: 'pipelined', depth: 16 }, /responses invalid/],
    ['late404', { id: 'plain', depth: 1 }, /HTTP ≥400 errors?; \d+ of \d+ responses invalid \(first: status 404/],
    ['ok', { id: 'plain', depth: 1 }, null],
    ['ok', { id: 'pipelined', depth: 16 }, null],
    // static-range: both tools send the Range header (else the fixture answers 200) and check 206 + the bytes.
    ['range', { id: 'plain', depth: 1 }, null, range],
    ['range', { id: 'pipelined', depth: 16 }, null, range],
    ['range-late', { id: 'plain', depth: 1 }, /responses invalid \(first: status 200, 1048576-byte body/, range],
  ];
}

/** Runs one case and asserts its outcome; returns a line for the log. */
export async function runCase(tool: LoadTool, [defect, mode, expected, scenario]: Case): Promise<string> {
  const m = await quickMeasure(wrongServer(defect), mode, tool, scenario);
  const what = `${tool.id} ${defect}/${mode.id}${scenario && scenario !== hello ? ` (${scenario.id})` : ''}`;
  assert.equal(m.notRun, null, `${what}: not run`);
  if (expected) {
    assert.equal(m.ok, false, `${what}: a wrong server must be reported FAILED`);
    assert.match(m.failure ?? '', expected, `${what}: unexpected reason`);
    assert.equal(m.iterations.filter((i) => i.invalid === 0 && !i.toolFailure).length, 0, `${what}: no clean figure`);
  } else {
    assert.equal(m.ok, true, `${what}: a correct server must pass (${m.failure})`);
    assert.ok((m.iterations[0]?.requests ?? 0) > 0, `${what}: counted responses`);
    assert.equal(m.iterations[0]?.checked, m.iterations[0]?.requests, `${what}: every response checked`);
  }
  return `ok  ${what.padEnd(30)} ${m.ok ? 'passed' : `FAILED as expected: ${m.failure}`}`;
}

export async function selftest(tool: LoadTool = wrk): Promise<void> {
  const missing = tool.missing();
  if (missing) throw new Error(missing);
  for (const c of selftestCases(tool)) console.log(await runCase(tool, c));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const name = parseArgs({ options: { tool: { type: 'string' } } }).values.tool ?? 'wrk';
  const tool = tools[name];
  if (!tool) throw new Error(`unknown tool "${name}" (known: ${Object.keys(tools).join(', ')})`);
  selftest(tool).then(
    () => {
      console.log(`selftest: harness reports every defect as FAILED (${tool.id})`);
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
