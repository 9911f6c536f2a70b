// The WebSocket scenarios (ws-echo, fastws-echo, ws-broadcast; ../shared/bench/scenarios.md): each server app in bench/apps/ws-*.mjs
// is started pinned to the server core and driven by gale-loadgen-ws (bench/loadgen/src/bin/ws.rs, Rust, one thread)
// pinned to the load core. The generator checks every echo and every broadcast delivery against the exact text; a run
// with an invalid message or any error is FAILED with the reason, never given a figure. Gale has no WebSocket support
// yet: its rows say so ("— not implemented yet").
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadgen, loadgenBinary } from './loadgen.ts';
import { type RunningServer, startServer, stopServer } from './measure.ts';
import { cpuSeconds, vmKiB } from './proc.ts';
import { median, writeResults } from './report.ts';
import { benchDir, repoDir, type ServerDef } from './servers.ts';
import { outputTail, runPinnedTool } from './toolrun.ts';

export const wsScenarioIds = ['ws-echo', 'fastws-echo', 'ws-broadcast'] as const;
export type WsScenarioId = (typeof wsScenarioIds)[number];

/** The scenarios measured in echoes/s (one message at a time per connection, waiting for each answer). */
export const isEcho = (s: WsScenarioId): boolean => s === 'ws-echo' || s === 'fastws-echo';

export const wsScenarioText: Record<WsScenarioId, string> = {
  'ws-echo':
    "each connection sends N text messages of 1024 '0' one after another, waiting for each exact echo, then closes " +
    'and reconnects',
  'fastws-echo':
    "the same over the fast-ws protocol: each message is emit('echo', 1024 '0', reply) (subprotocol fast-ws, after " +
    'the server greeting), answered by exactly its reply',
  'ws-broadcast':
    'clients added in steps; each step sends broadcasts that every client must receive as {"type":"broadcastResult",' +
    '"payload":P}; stepping stops when the p95 broadcast round trip exceeds 500 ms',
};

/** A server of the WebSocket scenarios; `notImplemented` rows are shown as "— not implemented yet". */
export interface WsServer extends ServerDef {
  notImplemented?: string;
  /** The WebSocket scenarios it serves (default: all but sio-echo); it has no row in the others. */
  serves?: readonly WsScenarioId[];
}

const app = (file: string): string => join(benchDir, 'apps', file);

/** Whether `server` has a row in `scenario`'s table. */
export const wsServes = (server: WsServer, scenario: WsScenarioId): boolean =>
  (server.serves ?? wsScenarioIds).includes(scenario);

/** Why `scenario` cannot run on any server right now (reported FAILED with it), or null. */
export function wsScenarioUnavailable(scenario: WsScenarioId): string | null {
  if (scenario !== 'fastws-echo') return null;
  const built = join(repoDir, 'packages', 'gale', 'dist', 'fastws', 'server.js');
  if (existsSync(built) || existsSync(join(benchDir, 'apps', 'fastws-standin.mjs'))) return null;
  return (
    "Gale's fast-ws protocol class is not built: packages/gale/dist/fastws/server.js is missing " +
    '(run `npm run build`, or only its TypeScript part: `npx tsc -p packages/gale/tsconfig.build.json`)'
  );
}

function express4Unavailable(): string | null {
  return existsSync(join(repoDir, 'node_modules', 'express4', 'package.json'))
    ? null
    : 'express4 is not installed (run `npm install` at the repo root)';
}

/** Named like the HTTP servers, so `--servers node-http,fastify` picks the same frameworks for both. */
export const wsServers: readonly WsServer[] = [
  { name: 'node-http', label: 'ws on node:http', entry: app('ws-node-http.mjs') },
  { name: 'express', label: 'Express 5 + express-ws', entry: app('ws-express.mjs') },
  {
    name: 'express4',
    label: 'Express 4 + express-ws',
    entry: app('ws-express.mjs'),
    env: { BENCH_EXPRESS: 'express4' },
    unavailable: express4Unavailable,
  },
  { name: 'fastify', label: 'Fastify 5 + @fastify/websocket', entry: app('ws-fastify.mjs') },
  { name: 'gale', label: 'Gale', notImplemented: 'Gale has no WebSocket support yet' },
];

/** Parameters of the WebSocket runs. */
export interface WsOptions {
  scenarios: WsScenarioId[];
  /** Server names (the HTTP `--servers`); unknown or HTTP-only ones (nginx, gale-nocache) are left out. */
  serverNames: string[];
  quick: boolean;
  durationS: number;
  iterations: number;
  connections: number;
  timeoutS: number;
  serverCpu: number;
  loadCpu: number;
  nofile: number;
  /** Overrides of the generator's parameters (tests). */
  messages?: number;
  step?: number;
  maxClients?: number;
  samples?: number;
}

/** The generator's JSON line (bench/loadgen/README.md, "gale-loadgen-ws"). */
export interface WsJson {
  mode: 'echo' | 'fastws' | 'broadcast';
  duration_s: number;
  connects: number;
  connects_per_s: number;
  echoes: number;
  echoes_per_s: number;
  valid: number;
  invalid: number;
  first_invalid: string | null;
  errors: Record<'connect' | 'read' | 'write' | 'timeout' | 'closed', number>;
  first_error: string | null;
  connect_us: LatencySummary | null;
  echo_us: LatencySummary | null;
  detail: {
    clients_held?: number;
    held_rtt_us?: { min: number; median: number; mean: number; p95: number; max: number } | null;
    stopped?: string;
    steps?: unknown[];
  } & Record<string, unknown>;
}

export interface LatencySummary {
  min: number;
  mean: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
  stddev: number;
}

export interface WsIteration {
  json: WsJson | null;
  /** Why the run failed, or null. */
  failure: string | null;
  toolCpuPct: number | null;
  /** Server utime+stime over the run, seconds. */
  serverCpuS: number | null;
}

export interface WsMeasurement {
  scenario: WsScenarioId;
  server: string;
  label: string;
  ok: boolean;
  failure: string | null;
  /** Set for a server without the feature (Gale): shown as "— not implemented yet". */
  notImplemented: string | null;
  iterations: WsIteration[];
  /** The iteration with the median echoes/s (ws-echo) or clients held (ws-broadcast). */
  median: WsIteration | null;
  peakRssMiB: number | null;
  args: string[];
}

/** Path of gale-loadgen-ws (built with gale-loadgen), or the reason it is missing. */
export function wsBinary(): { path: string } | { failure: string } {
  const missing = loadgen.missing();
  if (missing) return { failure: missing };
  const main = loadgenBinary();
  if (!main) return { failure: 'gale-loadgen is not built' };
  const path = join(dirname(main), 'gale-loadgen-ws');
  return existsSync(path) ? { path } : { failure: `${path} does not exist after the build` };
}

/** The generator's arguments for one run. */
export function wsArgs(o: WsOptions, scenario: WsScenarioId, port: number): string[] {
  const common = ['--duration', String(o.durationS), '--timeout', String(o.timeoutS)];
  if (isEcho(scenario)) {
    const fast = scenario === 'fastws-echo';
    return [
      '--mode',
      fast ? 'fastws' : 'echo',
      '--url',
      `ws://127.0.0.1:${port}/${fast ? 'fws' : 'echo'}`,
      '--connections',
      String(o.connections),
      '--messages',
      String(o.messages ?? (o.quick ? 10 : 100)),
      '--size',
      '1024',
      ...common,
    ];
  }
  return [
    '--mode',
    'broadcast',
    '--url',
    `ws://127.0.0.1:${port}/broadcast`,
    '--step',
    String(o.step ?? (o.quick ? 5 : 50)),
    '--max-clients',
    String(o.maxClients ?? (o.quick ? 20 : 10000)),
    '--samples',
    String(o.samples ?? (o.quick ? 5 : 20)),
    '--limit-ms',
    '500',
    ...common,
  ];
}

/** Why a generator result is not a valid run, or null. */
export function wsJudge(j: WsJson): string | null {
  const e = j.errors;
  const errs = Object.entries(e)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  if (j.invalid > 0) return `${j.invalid} invalid message(s); first: ${j.first_invalid ?? '?'}`;
  if (errs.length) return `errors: ${errs.join(', ')}${j.first_error ? ` (first: ${j.first_error})` : ''}`;
  if (j.valid === 0) return 'no valid message was received';
  return null;
}

/** Runs the generator once against `port` (pinned to o.loadCpu), sampling the server's CPU time. */
export async function wsRunOnce(
  bin: string,
  args: string[],
  o: Pick<WsOptions, 'loadCpu' | 'nofile' | 'durationS' | 'timeoutS'>,
  serverPid?: number,
): Promise<WsIteration> {
  const c0 = serverPid ? cpuSeconds(serverPid) : null;
  const limitMs = (o.durationS + 2 * o.timeoutS + 10) * 1000;
  const x = await runPinnedTool(bin, args, { cpu: o.loadCpu, nofile: o.nofile, limitMs });
  const c1 = serverPid ? cpuSeconds(serverPid) : null;
  const serverCpuS = c0 !== null && c1 !== null ? c1 - c0 : null;
  const base = { toolCpuPct: x.toolCpuPct, serverCpuS };
  if (x.killed) return { ...base, json: null, failure: `gale-loadgen-ws did not finish within ${limitMs / 1000}s` };
  const line = x.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if ((x.code !== 0 && x.code !== 1) || !line) {
    const why = outputTail(x);
    return {
      ...base,
      json: null,
      failure: `gale-loadgen-ws exited with ${x.code ?? x.signal}${why ? `: ${why}` : ''}`,
    };
  }
  const json = JSON.parse(line) as WsJson;
  const failure = wsJudge(json) ?? (x.code === 1 ? 'gale-loadgen-ws exited with 1' : null);
  return { ...base, json, failure };
}

const key = (scenario: WsScenarioId, it: WsIteration): number =>
  isEcho(scenario) ? (it.json?.echoes_per_s ?? 0) : (it.json?.detail.clients_held ?? 0);

/** One server on one WebSocket scenario, `o.iterations` times. */
export async function wsMeasure(
  o: WsOptions,
  server: WsServer,
  scenario: WsScenarioId,
  bin: string,
  onIteration?: (i: number) => void,
): Promise<WsMeasurement> {
  const m: WsMeasurement = {
    scenario,
    server: server.name,
    label: server.label,
    ok: false,
    failure: null,
    notImplemented: server.notImplemented ?? null,
    iterations: [],
    median: null,
    peakRssMiB: null,
    args: [],
  };
  if (server.notImplemented) return m;
  const unavailable = wsScenarioUnavailable(scenario);
  if (unavailable) {
    m.failure = unavailable;
    return m;
  }
  const rs = await startServer({ server, connections: o.connections, serverCpu: o.serverCpu, nofile: o.nofile });
  if ('failure' in rs) {
    m.failure = rs.failure;
    return m;
  }
  try {
    for (let i = 1; i <= o.iterations; i++) {
      onIteration?.(i);
      m.args = wsArgs(o, scenario, rs.port);
      const it = await wsRunOnce(bin, m.args, o, rs.proc.pid);
      m.iterations.push(it);
      if (it.failure) {
        m.failure = `iteration ${i}: ${it.failure}`;
        break;
      }
    }
    m.peakRssMiB = peakRss(rs);
  } finally {
    const stderr = await stopServer(rs);
    if (m.failure && stderr.trim()) m.failure += ` (server stderr: ${stderr.trim().split('\n').slice(-2).join(' | ')})`;
  }
  if (!m.failure) {
    m.ok = true;
    const sorted = [...m.iterations].sort((a, b) => key(scenario, a) - key(scenario, b));
    m.median = sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
  }
  return m;
}

function peakRss(rs: RunningServer): number | null {
  const kib = vmKiB(rs.proc.pid, 'VmHWM');
  return kib === null ? null : kib / 1024;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (us: number): string => (us / 1000).toFixed(us < 10_000 ? 2 : 1);
const lat = (l: LatencySummary | null): string =>
  l ? `${ms(l.min)} / ${ms(l.mean)} / ${ms(l.median)} / ${ms(l.max)} / ${ms(l.stddev)}` : '—';
const pct = (p: number | null): string => (p === null ? '—' : `${Math.round(p)}%`);

/** The Markdown table of one WebSocket scenario. */
export function wsTable(scenario: WsScenarioId, ms_: readonly WsMeasurement[]): string {
  const lines: string[] = [];
  const notes: string[] = [];
  const echo = isEcho(scenario);
  if (echo) {
    lines.push(
      '| server | echoes/s (median) | min–max | connects/s | connect ms min / mean / median / max / stddev | ' +
        'echo ms min / mean / median / max / stddev | CPU µs/echo | peak RSS MiB | loadgen CPU |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
  } else {
    lines.push(
      '| server | clients held (p95 ≤ 500 ms) | broadcast RTT ms at that step min / median / p95 / max | stopped by | ' +
        'steps | peak RSS MiB | loadgen CPU |',
      '|---|---:|---:|---|---:|---:|---:|',
    );
  }
  for (const m of ms_) {
    const cols = echo ? 8 : 6;
    if (m.notImplemented) {
      lines.push(`| ${m.label} | — not implemented yet |${' |'.repeat(cols - 1)}`);
      notes.push(`- ${m.label}: — not implemented yet (${m.notImplemented}).`);
      continue;
    }
    if (!m.ok || !m.median?.json) {
      lines.push(`| ${m.label} | **FAILED** |${' |'.repeat(cols - 1)}`);
      notes.push(`- **${m.label}: FAILED**: ${m.failure}`);
      continue;
    }
    const j = m.median.json;
    const rss = m.peakRssMiB === null ? '—' : m.peakRssMiB.toFixed(1);
    if (echo) {
      const rates = m.iterations.map((i) => i.json?.echoes_per_s ?? 0);
      const cpu = m.median.serverCpuS !== null && j.echoes ? int((m.median.serverCpuS * 1e6) / j.echoes) : '—';
      lines.push(
        `| ${m.label} | ${int(median(rates))} | ${int(Math.min(...rates))}–${int(Math.max(...rates))} | ` +
          `${int(j.connects_per_s)} | ${lat(j.connect_us)} | ${lat(j.echo_us)} | ${cpu} | ${rss} | ` +
          `${pct(m.median.toolCpuPct)} |`,
      );
    } else {
      const h = j.detail.held_rtt_us;
      const rtt = h ? `${ms(h.min)} / ${ms(h.median)} / ${ms(h.p95)} / ${ms(h.max)}` : '—';
      lines.push(
        `| ${m.label} | ${int(j.detail.clients_held ?? 0)} | ${rtt} | ${j.detail.stopped ?? '—'} | ` +
          `${j.detail.steps?.length ?? 0} | ${rss} | ${pct(m.median.toolCpuPct)} |`,
      );
    }
  }
  notes.push(
    echo
      ? `- gale-loadgen-ws (Rust, one thread, its own core) checks every ${scenario === 'fastws-echo' ? 'reply (and each connection’s greeting)' : 'echo'} against the exact text expected. ` +
          'echoes/s and connects/s are over the whole run; connect = TCP connect + WebSocket handshake; ' +
          'CPU µs/echo = server utime+stime ÷ echoes (connects included). loadgen CPU = the generator’s use of its core.'
      : '- A broadcast’s round trip lasts from its send until the last client received its broadcastResult; every ' +
          'delivery and each joining client’s echo is checked against the exact text. "clients held" is the largest ' +
          'step whose p95 stayed within 500 ms. Caveat: each delivery costs gale-loadgen-ws about as much CPU as it ' +
          'costs a trivial Rust server (bench/loadgen/README.md), so at hundreds of clients and more these figures ' +
          'are bounded by the generator and do not yet rank the servers.',
  );
  return `${lines.join('\n')}\n\n${notes.join('\n')}\n`;
}

/** Runs every WebSocket scenario × server; returns the report text (Markdown) and the number of FAILED rows. */
export async function runWs(
  o: WsOptions,
  outDir: string,
  log: (s: string) => void,
  meta: Record<string, unknown> = {},
): Promise<{ text: string; failed: number }> {
  const bin = wsBinary();
  const out: string[] = [];
  let failed = 0;
  const picked = wsServers.filter((s) => o.serverNames.includes(s.name));
  const total = o.scenarios.reduce(
    (n, sc) => n + picked.filter((s) => !s.notImplemented && wsServes(s, sc)).length * o.iterations,
    0,
  );
  let n = 0;
  for (const scenario of o.scenarios) {
    const servers = picked.filter((s) => wsServes(s, scenario));
    const results: WsMeasurement[] = [];
    for (const server of servers) {
      let m: WsMeasurement;
      if ('failure' in bin && !server.notImplemented) {
        m = await wsMeasure(o, { ...server, unavailable: () => bin.failure }, scenario, '');
      } else {
        m = await wsMeasure(o, server, scenario, 'path' in bin ? bin.path : '', (i) => {
          n++;
          log(`[ws ${n}/${total}] ${scenario} ${server.name} iteration ${i}/${o.iterations} …`);
        });
      }
      if (m.notImplemented) log(`    ${server.name}: — not implemented yet`);
      else if (!m.ok) {
        failed++;
        log(`    ${server.name} ${scenario}: FAILED: ${m.failure}`);
      }
      results.push(m);
    }
    writeResults(join(outDir, 'ws'), scenario, { ...meta, scenario, description: wsScenarioText[scenario], results });
    out.push(`\n## ${scenario}: ${wsScenarioText[scenario]}\n\n${wsTable(scenario, results)}`);
  }
  return { text: out.join(''), failed };
}
