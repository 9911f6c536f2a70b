// The connection sweep's tables in report.md: req/s, p99 latency, server CPU per request and errors, servers as rows
// and connection counts as columns, with the FAILED points listed under them.

import type { Measurement } from './measure.ts';
import { summarize } from './report.ts';

/** One point of a sweep: a full measurement at one connection count (report-md.ts's SweepFile holds them). */
export interface SweepPoint {
  connections: number;
  result: Measurement;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (us: number | null): string =>
  us === null ? 'n/a' : us < 1000 ? `${Math.round(us)} µs` : `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;

/** Sweep tables: req/s, p99, CPU µs/req and errors per server (rows) and connection count (columns). */
export function sweepTables(f: { sweep: { connections: number[] }; points: SweepPoint[] }): string {
  const conns = f.sweep.connections;
  const servers = [...new Map(f.points.map((p) => [p.result.server, p.result.label])).entries()];
  const cell = (server: string, c: number, what: 'rps' | 'p99' | 'cpu' | 'errors'): string => {
    const p = f.points.find((x) => x.connections === c && x.result.server === server);
    if (!p) return '';
    const m = p.result;
    if (m.notRun) return '—';
    const s = summarize(m);
    if (what === 'errors') {
      const e = m.iterations.reduce(
        (n, it) => n + Object.values(it.errors).reduce((a, b) => a + b, 0) + it.invalid,
        m.warmup && !s ? Object.values(m.warmup.errors).reduce((a, b) => a + b, 0) + m.warmup.invalid : 0,
      );
      return s ? String(e) : `**${e}**`;
    }
    if (!s) return '**FAILED**';
    if (what === 'cpu') return s.cpuUsPerReq === null ? '—' : s.cpuUsPerReq.toFixed(2);
    return what === 'rps' ? `${int(s.medianRps)}${s.toolBound ? ' ‡' : ''}` : ms(s.p99Us);
  };
  const table = (what: 'rps' | 'p99' | 'cpu' | 'errors', title: string) => {
    const head = `| ${title} | ${conns.map((c) => int(c)).join(' | ')} |`;
    const sep = `|---|${conns.map(() => '---:|').join('')}`;
    const rows = servers.map(
      ([server, label]) =>
        `| ${server.startsWith('gale') ? `**${label}**` : label} | ${conns.map((c) => cell(server, c, what)).join(' | ')} |`,
    );
    return [head, sep, ...rows].join('\n');
  };
  const failures = f.points
    .filter((p) => !p.result.notRun && !summarize(p.result))
    .map(
      (p) =>
        `- **${p.result.label} at ${int(p.connections)} connections FAILED**: ${p.result.failure ?? 'no iterations'}`,
    );
  return [
    table('rps', 'req/s (median) \\ connections'),
    '',
    table('p99', 'p99 latency \\ connections'),
    '',
    table('cpu', 'server CPU µs/req \\ connections'),
    '',
    table('errors', 'errors \\ connections'),
    '',
    '- errors = socket errors (connect, read, write, closed by the server), timeouts, HTTP ≥ 400 and invalid ' +
      'responses over the counted runs (and the warm-up, for a point that failed there); any error makes the point ' +
      'FAILED, so it gets no req/s figure.',
    ...failures,
    '',
  ].join('\n');
}
