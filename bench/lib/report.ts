// Turns measurements into figures (median/min/max over iterations), the Markdown table printed to stdout, and the
// raw JSON written to bench/results/<date>-<host>/<scenario>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Measurement } from './measure.ts';
import type { ScenarioKind } from './scenarios.ts';
import { baselineName, baseName } from './servers.ts';

/** A load tool above this share of its core is the bottleneck: the req/s figure measures the tool, not the server. */
export const TOOL_BOUND_PCT = 90;

export interface Summary {
  medianRps: number;
  minRps: number;
  maxRps: number;
  p50Us: number | null;
  p99Us: number | null;
  cpuUsPerReq: number | null;
  peakRssMiB: number | null;
  toolCpuPct: number | null;
  toolBound: boolean;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return Number.NaN;
  return n % 2 ? (s[(n - 1) / 2] as number) : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
}

function medianOrNull(xs: readonly (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? median(v) : null;
}

/** Median, or null if any value is unknown (a median over the known ones only would be biased). */
function allOrNull(xs: readonly (number | null)[]): number | null {
  return xs.some((x) => x === null) ? null : medianOrNull(xs);
}

export function summarize(m: Measurement): Summary | null {
  if (!m.ok || m.iterations.length === 0) return null;
  const it = m.iterations;
  const rps = it.map((r) => r.rps);
  const toolCpuPct = medianOrNull(it.map((r) => r.toolCpuPct));
  return {
    medianRps: median(rps),
    minRps: Math.min(...rps),
    maxRps: Math.max(...rps),
    p50Us: allOrNull(it.map((r) => r.latencyUs.p50)),
    p99Us: allOrNull(it.map((r) => r.latencyUs.p99)),
    cpuUsPerReq: medianOrNull(it.map((r) => r.serverCpuUsPerReq)),
    peakRssMiB: m.peakRssKiB === null ? null : m.peakRssKiB / 1024,
    toolCpuPct,
    toolBound: toolCpuPct !== null && toolCpuPct >= TOOL_BOUND_PCT,
  };
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const lat = (us: number | null, mark = ''): string =>
  us === null
    ? 'n/a'
    : `${us < 1000 ? `${Math.round(us)} µs` : us < 1e6 ? `${(us / 1000).toFixed(2)} ms` : `${(us / 1e6).toFixed(2)} s`}${mark}`;
const modeLabel = (m: Measurement): string => (m.depth > 1 ? `pipelined ×${m.depth}` : 'plain');

/**
 * The peer each kind of scenario is also compared with, besides Express and node:http: for application routes the
 * `limit` row (fixed bytes from raw epoll in C: the share of what the machine can do), nginx for static files, Fastify
 * for JSON written by a response schema's compiled serializer, Hono on @hono/node-server for fetch handlers,
 * adapter-node for SvelteKit, the same Express app on Express 5 for @gale-http/express, the same Nest app on Nest's
 * ExpressAdapter with Express 5 for the Nest rows.
 */
export const KIND_BASELINE: Partial<Record<ScenarioKind, readonly [server: string, label: string]>> = {
  dynamic: ['limit', '÷ limit'],
  static: ['nginx', 'vs nginx (best)'],
  schema: ['fastify', 'vs Fastify'],
  fetch: ['hono-node', 'vs Hono on node-server'],
  sveltekit: ['sveltekit-node', 'vs adapter-node'],
  'express-app': ['express-app', 'vs the app on Express 5'],
  'express-bare': ['express-bare-app', 'vs the app on Express 5'],
  'nest-app': ['nest-express', 'vs Nest on Express 5'],
  tls: ['node-https', 'vs node:https'],
  h2: ['node-http2', 'vs node:http2'],
  h2c: ['node-h2c', 'vs node:http2 (h2c)'],
};

/**
 * Peers compared by server CPU per request (the row's CPU µs/req ÷ theirs, on the same Node when they ran there), for
 * the kinds whose targets are set that way (issue 41: the Express app against the Express drop-ins on uWebSockets.js).
 */
export const KIND_CPU_BASELINES: Partial<Record<ScenarioKind, readonly (readonly [server: string, label: string])[]>> =
  {
    'express-app': [
      ['fulmine-app', 'CPU ÷ fulmine.js'],
      ['fulmine-nodecl-app', 'CPU ÷ fulmine.js (decl. off)'],
      ['uexpress-app', 'CPU ÷ ultimate-express'],
    ],
    'express-bare': [
      ['fulmine-bare-app', 'CPU ÷ fulmine.js'],
      ['fulmine-nodecl-bare-app', 'CPU ÷ fulmine.js (decl. off)'],
      ['uexpress-bare-app', 'CPU ÷ ultimate-express'],
    ],
  };

/**
 * Rows that stand for one baseline: the ratio takes the fastest of them in each mode, so static files are compared
 * with nginx at its best (with or without tcp_nopush, whichever did better in that mode).
 */
export const BASELINE_BEST_OF: Readonly<Record<string, readonly string[]>> = { nginx: ['nginx', 'nginx-nopush'] };

/** The baseline's figure for a mode: `get` of each row standing for it, the fastest one. */
export function bestBaseline(base: string, get: (server: string) => Summary | null): Summary | null {
  let best: Summary | null = null;
  for (const name of BASELINE_BEST_OF[base] ?? [base]) {
    const s = get(name);
    if (s && (best === null || s.medianRps > best.medianRps)) best = s;
  }
  return best;
}

/** The ratio columns of a scenario's tables. */
export function baselinesFor(kind: ScenarioKind | undefined, first: 'express' | 'node-http' = 'node-http') {
  const common: (readonly [string, string])[] =
    first === 'express'
      ? [
          ['express', 'vs Express'],
          ['node-http', 'vs node:http'],
        ]
      : [
          ['node-http', 'vs node:http'],
          ['express', 'vs Express'],
        ];
  const extra = kind === undefined ? undefined : KIND_BASELINE[kind];
  return extra ? [...common, extra] : common;
}

/**
 * `tool` is the load tool's id (`wrk`, `loadgen`): the notes under the table depend on it. `kind` adds the ratio to
 * that kind's peer (`KIND_BASELINE`).
 */
export function markdownTable(ms: readonly Measurement[], tool = 'wrk', opts: { kind?: ScenarioKind } = {}): string {
  const has = (server: string) => ms.some((x) => x.server === server);
  const baseline = (row: string, server: string, mode: string): Summary | null =>
    bestBaseline(server, (base) => {
      const name = baselineName(row, base, has);
      const b = ms.find((x) => x.server === name && x.mode === mode);
      return b ? summarize(b) : null;
    });
  const ratio = (s: Summary, b: Summary | null): string => (b ? `${(s.medianRps / b.medianRps).toFixed(2)}×` : '—');
  const baselines = baselinesFor(opts.kind);
  // CPU columns only for peers that ran in this table.
  const cpuBaselines = (opts.kind ? (KIND_CPU_BASELINES[opts.kind] ?? []) : []).filter(([server]) =>
    ms.some((x) => baseName(x.server) === server),
  );
  const cpuRatio = (row: string, s: Summary, base: string, mode: string): string => {
    const b = ms.find((x) => x.server === baselineName(row, base, has) && x.mode === mode);
    const bs = b ? summarize(b) : null;
    return s.cpuUsPerReq !== null && bs?.cpuUsPerReq ? `${(s.cpuUsPerReq / bs.cpuUsPerReq).toFixed(2)}×` : '—';
  };
  const columns = baselines.length + cpuBaselines.length;
  const dashes = (n: number): string => Array(n).fill('—').join(' | ');
  const lines = [
    `| server | mode | median req/s | min–max req/s | p50 | p99 | CPU µs/req | peak RSS MiB | ${[...baselines, ...cpuBaselines].map((b) => b[1]).join(' | ')} |`,
    `|---|---|---:|---:|---:|---:|---:|---:|${'---:|'.repeat(columns)}`,
  ];
  const notes: string[] = [];
  const notRunNotes = new Set<string>();
  let anyBound = false;
  for (const m of ms) {
    if (m.notRun) {
      lines.push(`| ${m.label} | ${modeLabel(m)} | — | ${dashes(5 + columns)} |`);
      notRunNotes.add(`- — not run: ${m.notRun}.`);
      continue;
    }
    const s = summarize(m);
    if (!s) {
      lines.push(`| ${m.label} | ${modeLabel(m)} | **FAILED** | ${dashes(5 + columns)} |`);
      notes.push(`- **${m.label} ${modeLabel(m)} FAILED**: ${m.failure ?? 'no iterations'}`);
      continue;
    }
    anyBound ||= s.toolBound;
    lines.push(
      `| ${m.label} | ${modeLabel(m)} | ${int(s.medianRps)}${s.toolBound ? ' ‡' : ''} | ${int(s.minRps)}–${int(s.maxRps)} | ` +
        `${lat(s.p50Us, m.depth > 1 ? ' †' : '')} | ${lat(s.p99Us, m.depth > 1 ? ' †' : '')} | ${s.cpuUsPerReq === null ? '—' : s.cpuUsPerReq.toFixed(2)} | ` +
        `${s.peakRssMiB === null ? '—' : s.peakRssMiB.toFixed(1)} | ` +
        `${[
          ...baselines.map(([server]) => ratio(s, baseline(m.server, server, m.mode))),
          ...cpuBaselines.map(([server]) => cpuRatio(m.server, s, server, m.mode)),
        ].join(' | ')} |`,
    );
  }
  notes.push(...notRunNotes);
  // What a server said of itself on stderr (`bench-note: …`), e.g. which routes a peer answers without JavaScript.
  const serverNotes = new Set<string>();
  for (const m of ms) {
    for (const line of (m.serverStderr ?? '').split('\n')) {
      if (line.startsWith('bench-note: ')) serverNotes.add(`- ${m.label}: ${line.slice('bench-note: '.length)}.`);
    }
  }
  notes.push(...serverNotes);
  const wrk = tool === 'wrk';
  if (anyBound) {
    notes.push(
      wrk
        ? `- ‡ wrk used ≥${TOOL_BOUND_PCT}% of its core: the figure measures wrk (one thread saturates near ` +
            '145 000 req/s on this machine), not the server. Compare pipelined figures and CPU µs/req.'
        : `- ‡ ${tool} used ≥${TOOL_BOUND_PCT}% of its core: the figure may be limited by the load generator, not ` +
            'the server. Compare CPU µs/req.',
    );
  }
  if (ms.some((m) => m.depth > 1 && m.ok)) {
    notes.push(
      wrk
        ? "- † Pipelined latency is per write of N requests and skewed upward by wrk's coordinated-omission " +
            'correction (n/a = wrk could not compute it); compare servers on pipelined req/s and CPU µs/req, not on ' +
            'this latency.'
        : '- † Pipelined latency is per response, from the write that sent its request to the end of the response, ' +
            'with N requests kept in flight per connection: it includes the wait behind the N−1 ahead of it.',
    );
  }
  notes.push(
    '- CPU µs/req = server utime+stime (all threads) over the counted run ÷ responses: where the load tool is the ' +
      'limit (‡) it still ranks the servers. Peak RSS = VmHWM of the server process. Ratios compare median req/s in ' +
      'the same mode (a server on another Node with the baseline on that Node when it ran too).',
  );
  return `${lines.join('\n')}\n\n${notes.join('\n')}\n`;
}

/** Writes `data` as `<dir>/<name>` (`.json` is added when missing); returns the path. */
export function writeResults(dir: string, name: string, data: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name.endsWith('.json') ? name : `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

export function formatDuration(s: number): string {
  const m = Math.floor(s / 60);
  const r = Math.round(s % 60);
  return m ? `${m}m ${String(r).padStart(2, '0')}s` : `${r}s`;
}
