// The h2load load tool (Debian nghttp2-client) for the HTTP/2 scenarios: `h2load -D <s> -c <n> -m <depth>`, pinned to
// its core, with `--log-file` so that every counted response's status is checked (and its latency known), and the
// DATA byte count checked against responses × the expected body length. h2load checks no body bytes itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { atExit, commandExists } from './proc.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';

/** What h2load's summary says, from its stdout. */
export interface H2loadSummary {
  started: number;
  done: number;
  succeeded: number;
  failed: number;
  errored: number;
  timeout: number;
  /** Bytes of DATA frame payloads received. */
  dataBytes: number;
}

/** Parses h2load's summary lines (`requests: …`, `traffic: …`); null when they are missing. */
export function parseH2loadSummary(stdout: string): H2loadSummary | null {
  const r =
    /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(
      stdout,
    );
  const t = /traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers .*?, .*?\((\d+)\) data/.exec(stdout);
  if (!r || !t) return null;
  return {
    started: Number(r[2]),
    done: Number(r[3]),
    succeeded: Number(r[4]),
    failed: Number(r[5]),
    errored: Number(r[6]),
    timeout: Number(r[7]),
    dataBytes: Number(t[3]),
  };
}

/** Status counts and latency percentiles (µs) from h2load's `--log-file` (start µs, status, µs to the end). */
export function readH2loadLog(
  text: string,
  expectedStatus: number,
): { count: number; wrongStatus: number; firstWrong: string; latencies: Float64Array } {
  const lines = text.split('\n');
  const latencies = new Float64Array(lines.length);
  let count = 0;
  let wrongStatus = 0;
  let firstWrong = '';
  for (const line of lines) {
    if (line === '') continue;
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    const status = Number(line.slice(a + 1, b));
    if (status !== expectedStatus) {
      wrongStatus++;
      if (firstWrong === '') firstWrong = `status ${line.slice(a + 1, b)}`;
    }
    latencies[count++] = Number(line.slice(b + 1));
  }
  return { count, wrongStatus, firstWrong, latencies: latencies.subarray(0, count).sort() };
}

function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
}

async function run(req: LoadRequest): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gale-bench-h2load-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const logPath = join(dir, 'requests.tsv');
  const args = [
    '-D',
    String(req.durationS),
    '-c',
    String(req.connections),
    '-t',
    String(req.threads),
    '-m',
    String(req.depth),
    '-N',
    `${req.timeoutS}s`,
    `--log-file=${logPath}`,
    ...Object.entries(req.scenario.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    req.url,
  ];
  const limitMs = (req.durationS + req.timeoutS + 15) * 1000;
  const x = await runPinnedTool('h2load', args, { cpu: req.cpu, nofile: req.nofile, limitMs });
  let log = '';
  try {
    log = readFileSync(logPath, 'latin1');
  } catch {}
  removeDir();
  unhook();
  const { code, signal, toolCpuPct } = x;
  if (x.killed) return emptyResult(`h2load did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
  const s = parseH2loadSummary(x.stdout);
  const secs = /finished in ([\d.]+)(m?s)/.exec(x.stdout);
  if (code !== 0 || !s || !secs) {
    const why = outputTail(x);
    return emptyResult(`h2load exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
  }
  const durationS = Number(secs[1]) / (secs[2] === 'ms' ? 1000 : 1);
  const l = readH2loadLog(log, req.scenario.status);
  // Every logged response had its status checked. The DATA bytes must be one expected body per finished response,
  // plus at most one per stream still open when the run stopped (their bodies may have arrived, uncounted).
  let invalid = l.wrongStatus;
  let firstInvalid = l.firstWrong;
  const len = req.scenario.body.length;
  if (s.dataBytes < s.done * len || s.dataBytes > s.started * len) {
    invalid = Math.max(invalid, 1);
    firstInvalid ||= `${s.dataBytes} DATA bytes for ${s.done} responses (${s.started} started; expected ${len} bytes per response)`;
  }
  let sum = 0;
  for (const v of l.latencies) sum += v;
  return {
    requests: s.done,
    durationS,
    rps: durationS > 0 ? s.done / durationS : 0,
    latencyUs: {
      min: l.latencies[0] ?? 0,
      mean: l.count ? sum / l.count : 0,
      max: l.latencies[l.count - 1] ?? 0,
      p50: percentile(l.latencies, 50),
      p90: percentile(l.latencies, 90),
      p99: percentile(l.latencies, 99),
      p999: percentile(l.latencies, 99.9),
    },
    // h2load's failed requests: connection errors, timeouts, and the rest (streams reset or cut off).
    errors: {
      connect: s.errored,
      read: Math.max(0, s.failed - s.errored - s.timeout),
      write: 0,
      status: s.done - s.succeeded,
      timeout: s.timeout,
      closed: 0,
    },
    checked: l.count,
    invalid,
    firstInvalid,
    toolCpuPct,
    extra: { dataBytes: s.dataBytes, started: s.done + s.failed },
  };
}

export const h2load: LoadTool = {
  id: 'h2load',
  maxThreads: 64,
  validates:
    "every response's status (h2load's `--log-file`, one line per response) and the total DATA bytes, which must " +
    "be one expected body's length per response (plus at most one per stream still open when the run stopped); " +
    'the exact bytes, Content-Type and HTTP/2 itself are checked once before the run with node:http2',
  latency: 'per request, from its HEADERS to the end of its response (`--log-file`); depth = concurrent streams',
  missing() {
    if (commandExists('h2load')) return null;
    return [
      'h2load is not installed. Install it, then run the benchmark again:',
      '  Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y nghttp2-client',
      '  macOS:         brew install nghttp2',
    ].join('\n');
  },
  version() {
    const r = spawnSync('h2load', ['--version'], { encoding: 'utf8' });
    return `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? 'unknown';
  },
  describe: (connections, threads) => `h2load -t${threads} -c${connections}`,
  run,
};
