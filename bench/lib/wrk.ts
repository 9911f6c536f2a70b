// The wrk load tool: writes the validating Lua script (lib/wrk-validate.lua) for a scenario, runs wrk pinned to its
// core with a hard time limit, and parses the BENCH_JSON line that the script's done() prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { atExit, commandExists } from './proc.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';

const template = readFileSync(new URL('./wrk-validate.lua', import.meta.url), 'utf8');

/** A Lua string literal holding exactly these bytes (decimal escapes for anything not plain ASCII). */
function luaBytes(buf: Buffer): string {
  let s = '"';
  for (const b of buf) {
    s += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${b}`;
  }
  return `${s}"`;
}

/**
 * The validating script for a scenario: the config table, then lib/wrk-validate.lua. The expected body is read from
 * `bodyFile` (which must hold exactly `scenario.body`) when the script loads, so a 1 MiB body is not a Lua literal.
 */
export function wrkScript(req: Pick<LoadRequest, 'scenario' | 'depth'>, bodyFile: string): string {
  const { scenario, depth } = req;
  const str = (s: string): string => luaBytes(Buffer.from(s, 'utf8'));
  const headers = Object.entries(scenario.headers)
    .map(([k, v]) => `[${str(k)}] = ${str(v)}`)
    .join(', ');
  const cfg =
    `local bench = { method = ${str(scenario.method)}, path = ${str(scenario.path)}, ` +
    `headers = { ${headers} }, status = ${scenario.status}, body_file = ${str(bodyFile)}, ` +
    `body_size = ${scenario.body.length}, depth = ${depth} }\n`;
  return cfg + template;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  errors: Omit<LoadResult['errors'], 'closed'>;
  latency_us: { min: number; mean: number; max: number; p50: number; p90: number; p99: number; p999: number };
  checked: number;
  invalid: number;
  first_invalid: string;
}

async function run(req: LoadRequest): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gale-bench-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const scriptPath = join(dir, 'validate.lua');
  const bodyPath = join(dir, 'expected-body');
  writeFileSync(bodyPath, req.scenario.body);
  writeFileSync(scriptPath, wrkScript(req, bodyPath));
  const args = [
    `-t${req.threads}`,
    `-c${req.connections}`,
    `-d${req.durationS}s`,
    `--timeout`,
    `${req.timeoutS}s`,
    '-s',
    scriptPath,
    req.url,
  ];
  const limitMs = (req.durationS + req.timeoutS + 15) * 1000;
  const x = await runPinnedTool('wrk', args, { cpu: req.cpu, nofile: req.nofile, limitMs });
  removeDir();
  unhook();
  const { code, signal, toolCpuPct } = x;

  if (x.killed) return emptyResult(`wrk did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
  const line = x.stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) {
    const why = outputTail(x);
    return emptyResult(`wrk exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
  }
  const j = JSON.parse(line.slice('BENCH_JSON '.length)) as WrkJson;
  const durationS = j.duration_us / 1e6;
  // wrk's percentile() returns 0 when its coordinated-omission correction put samples below the recorded minimum
  // (happens when pipelining: the correction interval is per response, not per write). 0 is then "unknown".
  const pct = (v: number): number | null => (v === 0 && j.latency_us.max > 0 ? null : v);
  const l = j.latency_us;
  return {
    requests: j.requests,
    durationS,
    rps: durationS > 0 ? j.requests / durationS : 0,
    latencyUs: { ...l, p50: pct(l.p50), p90: pct(l.p90), p99: pct(l.p99), p999: pct(l.p999) },
    // wrk counts a connection the server closed as a read error.
    errors: { ...j.errors, closed: 0 },
    checked: j.checked,
    invalid: j.invalid,
    firstInvalid: j.first_invalid,
    toolCpuPct,
  };
}

export const wrk: LoadTool = {
  id: 'wrk',
  maxThreads: 64,
  validates:
    'the exact status and the exact body bytes (`lib/wrk-validate.lua`, whose `response()` hook ' +
    'wrk calls for each response, each one of a pipelined batch too)',
  latency:
    "per write (a whole batch of N when pipelined), with wrk's coordinated-omission correction; plain-mode " +
    'percentiles are per request',
  missing() {
    if (commandExists('wrk')) return null;
    return [
      'wrk is not installed. Install it, then run the benchmark again:',
      '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y wrk',
      '  macOS:         brew install wrk',
    ].join('\n');
  },
  version() {
    const r = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
    return `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? 'unknown';
  },
  describe: (connections, threads) => `wrk -t${threads} -c${connections}`,
  run,
};
