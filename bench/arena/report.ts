// The arena's report: a Markdown table per profile (rps, server CPU µs per request, p99 and peak RSS per connection
// count, HttpArena's score) and the composite, with the run's settings and where this bench differs from HttpArena.
import { profiles } from './profiles.ts';
import { composite, profileScores, type Row } from './score.ts';
import type { Check } from './validate.ts';

export interface ArenaResult {
  profile: string;
  entry: string;
  connections: number[];
  node?: string;
  notRun?: string;
  failure?: string;
  checks?: Check[];
  runs?: {
    connections: number;
    rps: number;
    cpuUsPerRequest: number;
    p99Us: number | null;
    bytesPerResponse: number;
    requests: number;
    toolCpuPct: number | null;
    /** wrk's read and write errors forgiven as unannounced closes (renewal.ts). */
    unannounced?: number;
  }[];
  peakRssKiB?: number | null;
  /** How the server ended a connection asked to close, for profiles that renew connections (renewal.ts). */
  closes?: 'announced' | 'unannounced' | 'kept-open';
}

export interface ArenaMeta {
  date: string;
  host: string;
  cpus: string;
  node: string;
  postgres: string | null;
  durationS: number;
  warmupS: number;
  iterations: number;
  quick: boolean;
  wrk: string;
}

/** The rows HttpArena's scoring takes (a failed or not-run entry has no valid figure). */
export function scoreRows(results: readonly ArenaResult[]): Row[] {
  return results
    .filter((r) => r.notRun === undefined)
    .map((r) => ({
      profile: r.profile,
      entry: r.entry,
      rps: r.runs && !r.failure ? r.runs.map((x) => x.rps) : [null],
      bytesPerResponse: r.runs && !r.failure ? r.runs.map((x) => x.bytesPerResponse) : [null],
    }));
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

export function arenaReport(meta: ArenaMeta, results: readonly ArenaResult[]): string {
  const scores = profileScores(scoreRows(results));
  const lines: string[] = [
    `# HttpArena profiles (${meta.date}, ${meta.host})`,
    '',
    `${meta.cpus}; harness on Node ${meta.node}; ${meta.wrk}; ${meta.postgres ?? 'no Postgres started'}. ` +
      `Each server one process pinned to core 0, wrk (\`-t1\`, arena.lua) on core 1, Postgres on core 1 beside wrk; ` +
      `${meta.quick ? 'quick run (correctness only): ' : ''}${meta.durationS} s per connection count after ` +
      `${meta.warmupS} s of warm-up, median of ${meta.iterations}. Connection counts are HttpArena's ÷ 8 ` +
      `(one server core against its 64 threads).`,
    '',
  ];
  for (const p of profiles) {
    // An entry that does not subscribe to a profile has no row there (as on HttpArena's leaderboards).
    const rows = results.filter((r) => r.profile === p.id && r.notRun === undefined);
    if (!rows.length) continue;
    lines.push(`## ${p.id}`, '', p.description, '');
    lines.push('| entry | Node | connections | rps | CPU µs/req | p99 ms | peak RSS MiB | load tool CPU % | score |');
    lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const score = scores.get(p.id)?.get(r.entry);
      if (r.notRun || r.failure || !r.runs) {
        lines.push(
          `| ${r.entry} | ${r.node ?? ''} | ${r.connections.join(', ')} | ${r.notRun ? '—' : 'FAILED'} | | | | | ${score === undefined ? '' : score.toFixed(1)} |`,
        );
        continue;
      }
      const cell = (f: (x: NonNullable<ArenaResult['runs']>[number]) => string) => r.runs?.map(f).join(' / ') ?? '';
      lines.push(
        `| ${r.entry} | ${r.node ?? ''} | ${r.connections.join(' / ')} | ${cell((x) => int(x.rps))} | ` +
          `${cell((x) => x.cpuUsPerRequest.toFixed(1))} | ${cell((x) => (x.p99Us === null ? '?' : (x.p99Us / 1000).toFixed(2)))} | ` +
          `${r.peakRssKiB ? (r.peakRssKiB / 1024).toFixed(0) : '?'} | ` +
          `${cell((x) => (x.toolCpuPct === null ? '?' : `${Math.round(x.toolCpuPct)}${x.toolCpuPct >= 95 ? ' ‡' : ''}`))} | ` +
          `${score?.toFixed(1) ?? ''} |`,
      );
    }
    const notes = rows.filter((r) => r.failure || r.notRun).map((r) => `- ${r.entry}: ${r.failure ?? r.notRun}`);
    for (const r of rows.filter((x) => x.closes === 'unannounced' && !x.failure)) {
      notes.push(
        `- ${r.entry} closes a connection asked to close without saying \`Connection: close\` in its answer ` +
          `(RFC 9112 §9.6: SHOULD), so wrk wrote its next request into the closing connection and counted ` +
          `${r.runs?.map((x) => x.unannounced ?? 0).join(' / ')} read or write errors (at most one per renewal; ` +
          'no answer lost). HttpArena renews from the client side and does not meet this.',
      );
    }
    if (rows.some((r) => r.runs?.some((x) => (x.toolCpuPct ?? 0) >= 95))) {
      notes.push('- ‡ the load tool used ≥ 95 % of its core: it, not the server, set that pace (compare CPU µs/req).');
    }
    if (notes.length) lines.push('', ...notes);
    lines.push('');
  }
  const comp = [...composite(scores)].sort((a, b) => b[1] - a[1]);
  if (comp.length) {
    lines.push('## Composite (sum of the profile scores)', '', '| entry | composite |', '|---|---:|');
    for (const [e, s] of comp) lines.push(`| ${e} | ${s.toFixed(1)} |`);
    lines.push('');
  }
  lines.push(
    '## Where this differs from HttpArena',
    '',
    "- Load: wrk with arena.lua instead of gcannon (io_uring). Both send HttpArena's request files; gcannon rotates " +
      'them per connection and renews a connection after `-r` requests, arena.lua rotates per wrk thread and sends ' +
      '`Connection: close` on every `-r`-th request, so the same share of connections is renewed. Every answer is ' +
      "checked (status, and the body or header the profile's answers must have), which gcannon does not do.",
    '- HTTP/2: h2load as HttpArena runs it, but with one thread (`-t1`, its 64 threads ÷ 64 load cores here); every ' +
      "answer's status is checked, and for baseline-h2 and baseline-h2c the DATA bytes (one body per answer).",
    "- HTTP/3: gale-loadgen-h3 (quinn + h3) instead of h2load built with ngtcp2 (Debian's has no HTTP/3); it checks " +
      'every answer (status and exact body: the file or its .br/.gz sibling for static-h3).',
    '- echo-ws: gale-loadgen-ws instead of gcannon --ws: one 5-byte text message in flight per connection, every ' +
      "echo's bytes and kind checked; validated by HttpArena's own validate-ws.py.",
    '- Machine: one server core and one load core (HttpArena: 64 server threads, the load on others), so connection ' +
      'counts are scaled by ÷ 8; Postgres shares the load core (HttpArena pins it to its own cores).',
    "- One process per entry (HttpArena runs an entry on all its cores: Gale's entry forks one worker per core; the " +
      'bench sets ARENA_WORKERS=1).',
    '',
  );
  return lines.join('\n');
}
