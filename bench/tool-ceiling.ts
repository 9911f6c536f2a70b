// How fast can each load tool go? Runs gale-loadgen and wrk (without Lua, and with the harness's validating Lua) in
// turn against one trivial server, pinned server on core 0 and tool on core 1, and prints rps and CPU per run.
// Run: node --import tsx bench/tool-ceiling.ts [--server rust|gale] [--duration 3] [--rounds 1] [--connections 100]
//      [--pipeline 16]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadgen, loadgenBinary } from './lib/loadgen.ts';
import { cpuSeconds, freePort, spawnPinned, stop, waitForPort } from './lib/proc.ts';
import { findScenario } from './lib/scenarios.ts';
import { benchDir, repoDir } from './lib/servers.ts';
import { runPinnedTool } from './lib/toolrun.ts';
import { wrk, wrkScript } from './lib/wrk.ts';

const { values: v } = parseArgs({
  options: {
    server: { type: 'string', default: 'rust' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
    pipeline: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '1' },
  },
});
const durationS = Number(v.duration);
const connections = Number(v.connections);
const depth = Number(v.pipeline);
const rounds = Number(v.rounds);
const hello = findScenario('hello');
if (!hello || !(durationS > 0) || !(connections > 0) || !(depth > 1) || !(rounds >= 1)) throw new Error('bad options');
for (const t of [wrk, loadgen]) {
  const missing = t.missing();
  if (missing) throw new Error(missing);
}

/** Busy and total jiffies of each CPU from /proc/stat (busy includes irq and softirq: loopback TCP work). */
function cpuTimes(): { busy: number; total: number }[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d+ /.test(l))
    .map((l) => {
      const f = l.split(/\s+/).slice(1).map(Number);
      const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
      return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
    });
}

function busyPct(a: ReturnType<typeof cpuTimes>, b: ReturnType<typeof cpuTimes>, cpu: number): string {
  const x = a[cpu];
  const y = b[cpu];
  return x && y && y.total > x.total ? ((100 * (y.busy - x.busy)) / (y.total - x.total)).toFixed(0) : '—';
}

interface Run {
  tool: string;
  validates: string;
  depth: number;
  cmd: string;
  args: string[];
  rps: (stdout: string) => number;
}

const dir = mkdtempSync(join(tmpdir(), 'gale-ceiling-'));
const lua = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const bodyFile = lua('body', hello.body.toString('utf8'));
// wrk can only pipeline from Lua: this script only returns a batch of requests (no response() hook).
const pipelineOnly = lua(
  'pipeline.lua',
  `init = function(args)\n  local r = {}\n  for i = 1, ${depth} do r[i] = wrk.format(nil, "/") end\n` +
    '  batch = table.concat(r)\nend\nrequest = function() return batch end\n',
);
const validate1 = lua('validate1.lua', wrkScript({ scenario: hello, depth: 1 }, bodyFile));
const validateN = lua('validateN.lua', wrkScript({ scenario: hello, depth }, bodyFile));

const loadgenBin = loadgenBinary() ?? 'gale-loadgen';
const wrkRps = (out: string) => Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
const lgRps = (out: string) => (JSON.parse(out.trim().split('\n').pop() ?? '{}') as { rps?: number }).rps ?? 0;
const wrkBase = ['-t1', `-c${connections}`, `-d${durationS}s`, '--timeout', '2s'];
const lg = (d: number) => [
  ...['--connections', String(connections), '--duration', String(durationS), '--pipeline', String(d)],
  ...['--expect-body-file', bodyFile],
];
const runs = (url: string): Run[] => [
  {
    tool: 'gale-loadgen',
    validates: 'every response',
    depth: 1,
    cmd: loadgenBin,
    args: [...lg(1), '--url', url],
    rps: lgRps,
  },
  { tool: 'wrk, no Lua', validates: 'no', depth: 1, cmd: 'wrk', args: [...wrkBase, url], rps: wrkRps },
  {
    tool: 'wrk + validating Lua',
    validates: 'every response',
    depth: 1,
    cmd: 'wrk',
    args: [...wrkBase, '-s', validate1, url],
    rps: wrkRps,
  },
  {
    tool: 'gale-loadgen',
    validates: 'every response',
    depth,
    cmd: loadgenBin,
    args: [...lg(depth), '--url', url],
    rps: lgRps,
  },
  {
    tool: 'wrk, request()-only Lua',
    validates: 'no',
    depth,
    cmd: 'wrk',
    args: [...wrkBase, '-s', pipelineOnly, url],
    rps: wrkRps,
  },
  {
    tool: 'wrk + validating Lua',
    validates: 'every response',
    depth,
    cmd: 'wrk',
    args: [...wrkBase, '-s', validateN, url],
    rps: wrkRps,
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (at most `maxMs`) for half a second in which both cores are ≥ 90 % idle; false if none came. */
async function quiet(maxMs: number): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const a = cpuTimes();
    await sleep(500);
    const b = cpuTimes();
    if ([0, 1].every((c) => Number(busyPct(a, b, c)) < 10)) return true;
  }
  return false;
}

interface Sample {
  rps: number;
  toolPct: number;
  serverPct: number;
  core1: number;
  core0: number;
  noisy: boolean;
}

const med = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};

async function main(): Promise<void> {
  const port = await freePort();
  let server: ReturnType<typeof spawnPinned>;
  if (v.server === 'rust') {
    execFileSync('cargo', ['build', '--release', '-q', '-p', 'gale-loadgen', '--example', 'fixed-server'], {
      cwd: repoDir,
      stdio: 'inherit',
    });
    const bin = join(process.env.CARGO_TARGET_DIR ?? join(repoDir, 'target'), 'release', 'examples', 'fixed-server');
    server = spawnPinned(bin, [String(port)], { cpu: 0, nofile: 65535 });
  } else if (v.server === 'gale') {
    server = spawnPinned(process.execPath, [join(benchDir, 'fixtures', 'gale-fixed.mjs')], {
      cpu: 0,
      nofile: 65535,
      env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
    });
  } else {
    throw new Error('--server must be rust or gale');
  }
  try {
    await waitForPort(server, port, 20_000);
    const url = `http://127.0.0.1:${port}/`;
    const plan = runs(url);
    const samples: Sample[][] = plan.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      for (const [i, r] of plan.entries()) {
        // Other work on the two cores (compilers, other benchmarks) skews a run: wait for a quiet moment first.
        const calm = await quiet(30_000);
        const s0 = cpuSeconds(server.pid) ?? 0;
        const t0 = performance.now();
        const k0 = cpuTimes();
        const x = await runPinnedTool(r.cmd, r.args, { cpu: 1, nofile: 65535, limitMs: (durationS + 20) * 1000 });
        const serverPct = (100 * ((cpuSeconds(server.pid) ?? 0) - s0)) / ((performance.now() - t0) / 1000);
        const k1 = cpuTimes();
        const rps = x.code === 0 || x.code === 1 ? r.rps(x.stdout) : 0;
        if (x.code !== 0) process.stderr.write(`${r.tool} exited ${x.code ?? x.signal}: ${x.stdout}${x.stderr}\n`);
        const sample = {
          rps,
          toolPct: x.toolCpuPct ?? 0,
          serverPct,
          core1: Number(busyPct(k0, k1, 1)),
          core0: Number(busyPct(k0, k1, 0)),
          noisy: !calm,
        };
        samples[i]?.push(sample);
        process.stderr.write(
          `round ${round}/${rounds} ${r.tool} ×${r.depth}: ${Math.round(rps).toLocaleString('en-US')} req/s, ` +
            `tool ${sample.toolPct.toFixed(0)} %, server ${serverPct.toFixed(0)} %${calm ? '' : ' (cores were busy before)'}\n`,
        );
      }
    }
    const lines = [
      `server: ${v.server === 'rust' ? 'bench/loadgen/examples/fixed-server.rs (103-byte response)' : 'Gale app.fixed'} ` +
        `pinned to CPU 0; tool pinned to CPU 1; -c${connections}; ${rounds} round(s) of ${durationS} s per tool`,
      '',
      '| tool | validates | in flight per conn | median req/s | best req/s | tool CPU % | server CPU % | core 1 busy % | core 0 busy % |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    const int = (n: number) => Math.round(n).toLocaleString('en-US');
    for (const [i, r] of plan.entries()) {
      const ss = samples[i] ?? [];
      const m = (f: (s: Sample) => number) => med(ss.map(f)).toFixed(0);
      lines.push(
        `| ${r.tool} | ${r.validates} | ${r.depth} | ${int(med(ss.map((s) => s.rps)))} | ` +
          `${int(Math.max(...ss.map((s) => s.rps)))} | ${m((s) => s.toolPct)} | ${m((s) => s.serverPct)} | ` +
          `${m((s) => s.core1)} | ${m((s) => s.core0)} |`,
      );
    }
    const noisy = samples.flat().filter((s) => s.noisy).length;
    lines.push(
      '',
      "tool/server CPU % = the process's utime+stime; core busy % (from /proc/stat) also counts softirq time, where the " +
        'loopback TCP work of the other side lands.' +
        (noisy ? ` ${noisy} run(s) started while the cores were busy with other work.` : ''),
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
