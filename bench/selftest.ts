// Self-test of the benchmark harness: deliberately wrong servers (404, wrong body, wrong Content-Type, answers that go
// wrong only mid-run, also under pipelining, a Range request answered with the whole file) must be reported FAILED, and
// a correct one must pass.
// Run: node --import tsx bench/selftest.ts [--tool loadgen]   (exit code 0 = harness rejects every defect)
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

function wrongServer(mode: string): ServerDef {
  return {
    name: `wrong-${mode}`,
    label: `wrong (${mode})`,
    entry: join(benchDir, 'fixtures', 'wrong-server.mjs'),
    env: { WRONG_MODE: mode, LATE_OK: '2000' },
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
    warmupS: 0,
    iterations: 1,
    connections: 10,
    threads: 1,
    timeoutS: 2,
    serverCpu: 0,
    loadCpu: 1,
  });
}

export async function selftest(tool: LoadTool = wrk): Promise<void> {
  const missing = tool.missing();
  if (missing) throw new Error(missing);
  assert.ok(range);
  const cases: [string, Mode, RegExp | null, Scenario?][] = [
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
  for (const [defect, mode, expected, scenario] of cases) {
    const m = await quickMeasure(wrongServer(defect), mode, tool, scenario);
    const what = `${defect}/${mode.id}`;
    if (expected) {
      assert.equal(m.ok, false, `${what}: a wrong server must be reported FAILED`);
      assert.match(m.failure ?? '', expected, `${what}: unexpected reason`);
      assert.equal(m.iterations.filter((i) => i.invalid === 0 && !i.toolFailure).length, 0, `${what}: no clean figure`);
    } else {
      assert.equal(m.ok, true, `${what}: a correct server must pass (${m.failure})`);
      assert.ok((m.iterations[0]?.requests ?? 0) > 0, `${what}: counted responses`);
      assert.equal(m.iterations[0]?.checked, m.iterations[0]?.requests, `${what}: every response checked`);
    }
    console.log(`ok  ${what.padEnd(16)} ${m.ok ? 'passed' : `FAILED as expected: ${m.failure}`}`);
  }
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
