// The report of a results directory: reads the raw JSON the harness wrote there (one file per scenario and tool, one
// per connection sweep) and writes report.md (one table per scenario, servers as rows, ratios to Express and
// node:http, the full figures under each) and charts/*.svg. `npm run bench -- report <dir>` runs only this, so a
// report and its charts can be made again from an earlier run.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type BarDatum, renderSvg, type SweepDatum, scenarioChartSpec, sweepChartSpec } from './charts.ts';
import type { Measurement } from './measure.ts';
import { baselinesFor, bestBaseline, markdownTable, type Summary, summarize } from './report.ts';
import { type SweepPoint, sweepTables } from './report-sweep.ts';
import { loadWsResults, wsReportSections } from './report-ws.ts';
import type { ScenarioKind } from './scenarios.ts';
import { scenarios } from './scenarios.ts';
import { baselineName, byServerFamily } from './servers.ts';

/** The run description every results file starts with (run.ts `meta()`); older files lack the optional fields. */
export interface RunMeta {
  started: string;
  finished?: string;
  hostname: string;
  kernel: string;
  cpu: string;
  cores: number;
  loadavg?: number[];
  node: string;
  /** The Nodes the Node-based servers ran on (`--node`; absent in older files: the harness's own). */
  serverNodes?: { version: string; path: string; own: boolean }[];
  /** `<id>: <version>` */
  tool: string;
  toolId?: string;
  toolDescribe?: string;
  toolValidates?: string;
  toolLatency?: string;
  versions?: Record<string, string | null>;
  commit?: string | null;
  argv?: string[];
  quick?: boolean;
  options: {
    durationS: number;
    warmupS: number;
    iterations: number;
    connections: number;
    threads: number;
    timeoutS: number;
    modes: { id: string; depth: number }[];
    serverCpu: number;
    loadCpu: number;
    nofile: number;
    requests?: number;
    countBased?: boolean;
  };
}

interface SavedScenario {
  id: string;
  description: string;
  kind?: 'dynamic' | 'static' | 'fetch' | 'sveltekit';
}

export interface ScenarioFile extends RunMeta {
  scenario: SavedScenario;
  results: Measurement[];
  /** Set by loadResults() when several runs' files of one scenario and tool were merged into one table. */
  mergedRuns?: RunMeta[];
}

export interface SweepFile extends RunMeta {
  sweep: { scenario: string; mode: string; connections: number[] };
  scenario: SavedScenario;
  points: SweepPoint[];
}

export const toolOf = (meta: Pick<RunMeta, 'tool' | 'toolId'>): string =>
  meta.toolId ?? meta.tool.split(':')[0] ?? 'wrk';

/** The file a scenario's results go to: `<scenario>.json` for wrk (the default tool), else `<scenario>.<tool>.json`. */
export const scenarioFileName = (scenario: string, tool: string, variant = ''): string =>
  `${scenario}${variant ? `.${variant}` : ''}${tool === 'wrk' ? '' : `.${tool}`}.json`;
export const sweepFileName = (scenario: string, tool: string): string =>
  tool === 'loadgen' ? `sweep-${scenario}.json` : `sweep-${scenario}.${tool}.json`;

const TOOL_ORDER = ['wrk', 'loadgen', 'autocannon', 'ab-k', 'ab'];
const TOOL_NAMES: Record<string, string> = {
  wrk: 'wrk',
  loadgen: 'gale-loadgen',
  autocannon: 'autocannon',
  'ab-k': 'ab -k (keep-alive)',
  ab: 'ab (a connection per request)',
};

/** How a run was shaped, e.g. "wrk -t1 -c100, 3 × 10 s after a 2 s warm-up, timeout 2 s, …". */
export function runShape(meta: RunMeta): string {
  const o = meta.options;
  const tool = meta.toolDescribe ?? `${toolOf(meta)} -c${o.connections}`;
  const requests = o.requests ?? 100000;
  const what = o.countBased
    ? `${tool} -n ${requests}, ${o.iterations} run${o.iterations === 1 ? '' : 's'}`
    : `${tool}, ${o.iterations} × ${o.durationS} s`;
  const warmup = o.countBased ? `${Math.max(1000, Math.round(requests / 10))}-request` : `${o.warmupS} s`;
  return (
    `${what}${o.warmupS ? ` after a ${warmup} warm-up` : ''}, timeout ${o.timeoutS} s, ` +
    `server on CPU ${o.serverCpu}, load on CPU ${o.loadCpu}`
  );
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (us: number | null): string =>
  us === null ? 'n/a' : us < 1000 ? `${Math.round(us)} µs` : `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;
const modeLabel = (m: { mode: string; depth: number }): string => (m.depth > 1 ? `pipelined ×${m.depth}` : m.mode);

/**
 * The headline table of a scenario, shaped like the published ones: one row per server, for each mode the median
 * req/s with its ratio to Express 5 and to node:http (and to nginx for the static scenarios) and the server CPU per
 * request (two decimals: where the load tool is the limit, ‡, CPU per request still ranks servers), then the p99 of
 * the first mode.
 */
export function headlineTable(ms_: readonly Measurement[], opts: { kind?: ScenarioKind } = {}): string {
  const serversSeen = [...new Map(ms_.map((m) => [m.server, m.label])).entries()];
  const modes = [...new Map(ms_.map((m) => [m.mode, m.depth])).entries()].map(([mode, depth]) => ({ mode, depth }));
  const get = (server: string, mode: string) => ms_.find((m) => m.server === server && m.mode === mode);
  const has = (server: string) => ms_.some((m) => m.server === server);
  const sum = (server: string, mode: string): Summary | null => {
    const m = get(server, mode);
    return m ? summarize(m) : null;
  };
  const bases = baselinesFor(opts.kind, 'express');
  const first = modes[0];
  const head = [
    'server',
    ...modes.flatMap((m) => [`${modeLabel(m)} req/s`, ...bases.map((b) => b[1]), `CPU µs/req (${modeLabel(m)})`]),
    ...(first ? [`p99 (${modeLabel(first)})`] : []),
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|---|${head
      .slice(1)
      .map(() => '---:|')
      .join('')}`,
  ];
  for (const [server, label] of serversSeen) {
    const cells = [server.startsWith('gale') ? `**${label}**` : label];
    for (const { mode } of modes) {
      const m = get(server, mode);
      const s = sum(server, mode);
      if (!m || m.notRun) cells.push('—', ...bases.map(() => '—'), '—');
      else if (!s) cells.push('**FAILED**', ...bases.map(() => '—'), '—');
      else {
        cells.push(`${int(s.medianRps)}${s.toolBound ? ' ‡' : ''}`);
        for (const [b] of bases) {
          const base = bestBaseline(b, (name) => sum(baselineName(server, name, has), mode));
          cells.push(base ? `${(s.medianRps / base.medianRps).toFixed(2)}×` : '—');
        }
        cells.push(s.cpuUsPerReq == null ? '—' : s.cpuUsPerReq.toFixed(2));
      }
    }
    if (first) {
      const s = sum(server, first.mode);
      cells.push(s ? ms(s.p99Us) : '—');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

export function loadResults(dir: string): { scenarioFiles: ScenarioFile[]; sweepFiles: SweepFile[] } {
  const scenarioFiles: ScenarioFile[] = [];
  const sweepFiles: SweepFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.json')) continue;
    const j = readJson(join(dir, name)) as Partial<ScenarioFile & SweepFile> | null;
    if (!j || typeof j !== 'object' || !j.options || !j.scenario) continue;
    if (Array.isArray(j.points) && j.sweep) sweepFiles.push(j as SweepFile);
    else if (Array.isArray(j.results)) scenarioFiles.push(j as ScenarioFile);
  }
  const order = (id: string) => {
    const i = scenarios.findIndex((s) => s.id === id);
    return i < 0 ? scenarios.length : i;
  };
  const toolRank = (f: RunMeta) => {
    const i = TOOL_ORDER.indexOf(toolOf(f));
    return i < 0 ? TOOL_ORDER.length : i;
  };
  const merged = mergeRuns(scenarioFiles);
  merged.sort((a, b) => toolRank(a) - toolRank(b) || order(a.scenario.id) - order(b.scenario.id));
  return { scenarioFiles: merged, sweepFiles };
}

/**
 * One table per scenario and tool, even from several runs (e.g. `--node 26` after a plain run into the same
 * directory: `json.json` and `json.node26.json`): rows are merged, a later run replacing an earlier row of the same
 * server and mode; the latest run's description is kept and every run is listed in `mergedRuns`.
 */
export function mergeRuns(files: readonly ScenarioFile[]): ScenarioFile[] {
  const groups = new Map<string, ScenarioFile[]>();
  for (const f of files) {
    const key = `${toolOf(f)}\0${f.scenario.id}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0] as ScenarioFile;
    const runs = [...group].sort((a, b) => a.started.localeCompare(b.started));
    const rows = new Map<string, Measurement>();
    for (const f of runs) for (const m of f.results) rows.set(`${m.server}\0${m.mode}`, m);
    const { results: _, ...latest } = runs[runs.length - 1] as ScenarioFile;
    return { ...latest, results: byServerFamily([...rows.values()]), mergedRuns: runs };
  });
}

function chartName(scenario: string, tool: string): string {
  return tool === 'wrk' ? `${scenario}.svg` : `${scenario}.${tool}.svg`;
}

function bars(f: ScenarioFile): { data: BarDatum[]; servers: string[]; modes: string[] } {
  const data: BarDatum[] = [];
  for (const m of f.results) {
    if (m.notRun) continue;
    const s = summarize(m);
    data.push({
      server: m.label,
      mode: modeLabel(m),
      rps: s ? s.medianRps : null,
      min: s ? s.minRps : null,
      max: s ? s.maxRps : null,
      label: s ? `${int(s.medianRps)}${s.toolBound ? ' ‡' : ''}` : 'FAILED',
    });
  }
  return {
    data,
    servers: [...new Set(f.results.map((m) => m.label))],
    modes: [...new Set(f.results.map((m) => modeLabel(m)))],
  };
}

const day = (iso: string): string => iso.slice(0, 10);

function machine(meta: RunMeta): string {
  return `${meta.cores} cores (${meta.cpu}), ${meta.kernel}, Node ${meta.node}`;
}

/** "Node-based servers also ran on Node v26.10.0 (rows suffixed with the major)", or '' when all ran on the harness's. */
function otherNodes(all: readonly RunMeta[]): string {
  const others = [
    ...new Set(all.flatMap((m) => (m.serverNodes ?? []).filter((n) => !n.own).map((n) => n.version))),
  ].sort();
  return others.length
    ? ` Node-based servers also ran on Node ${others.join(', ')} (their rows say "(Node N)", named \`<server>-node<N>\`).`
    : '';
}

/** Writes `<dir>/report.md` and `<dir>/charts/*.svg` from the JSON in `dir`. */
export async function writeReport(dir: string): Promise<{ report: string; charts: string[] }> {
  if (!existsSync(dir)) throw new Error(`no such directory: ${dir}`);
  const { scenarioFiles, sweepFiles } = loadResults(dir);
  const wsFiles = loadWsResults(dir);
  if (!scenarioFiles.length && !sweepFiles.length && !wsFiles.length) {
    throw new Error(`no benchmark results (*.json, ws/*.json) in ${dir}`);
  }
  const chartDir = join(dir, 'charts');
  mkdirSync(chartDir, { recursive: true });
  const charts: string[] = [];
  const all: RunMeta[] = [
    ...scenarioFiles.flatMap((f) => f.mergedRuns ?? [f]),
    ...sweepFiles,
    ...(wsFiles.flatMap((f) => f.mergedRuns ?? [f]) as unknown as RunMeta[]),
  ];
  const first = all[0] as RunMeta;
  const days = [...new Set(all.map((m) => day(m.started)))].sort();
  const commits = [...new Set(all.map((m) => m.commit).filter((c): c is string => !!c))];
  const commands = [
    ...new Set(
      all
        .map((m) => m.argv)
        .filter((a): a is string[] => !!a)
        .map((a) => a.join(' ')),
    ),
  ];
  const out: string[] = [`# Gale benchmarks: ${basename(dir)}`, ''];
  if (all.some((m) => m.quick)) {
    out.push(
      '> **Quick mode** (`--quick`): every server on every scenario it serves, for a second at a few connections, ' +
        'with each server process reused across scenarios. It proves that every server answers every counted ' +
        'request correctly; its figures are not measurements.',
      '',
    );
  }
  out.push(
    `Machine: ${machine(first)}, host \`${first.hostname}\`. Date: ${days.join(', ')}.${otherNodes(all)}` +
      (commits.length ? ` Commit: ${commits.map((c) => `\`${c.slice(0, 10)}\``).join(', ')}.` : ''),
    '',
  );
  if (commands.length) {
    out.push('Command:', '', '```sh', ...commands.map((c) => `npm run bench -- ${c}`.trimEnd()), '```', '');
  }
  // Every run's versions (a run that merged another, say of the peers, adds theirs); the first run's win.
  const merged: Record<string, string> = {};
  for (const m of all) for (const [k, v] of Object.entries(m.versions ?? {})) if (v && !(k in merged)) merged[k] = v;
  const versions = Object.entries(merged);
  if (versions.length) out.push(`Versions: ${versions.map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  out.push(
    'Every counted response was validated; a server that answered anything wrong, or had any socket error or ' +
      'timeout, is shown as **FAILED** with the reason, never with a figure. "—" = not run (see the notes). ' +
      'Ratios compare median req/s in the same mode. ‡ = the load tool used ≥ 90 % of its core: that figure may ' +
      'measure the tool. Server and load generator run pinned to different cores (`taskset`).',
    '',
  );

  const byTool = new Map<string, ScenarioFile[]>();
  for (const f of scenarioFiles) {
    const t = toolOf(f);
    byTool.set(t, [...(byTool.get(t) ?? []), f]);
  }
  for (const [tool, files] of byTool) {
    const f0 = files[0] as ScenarioFile;
    out.push(`## ${TOOL_NAMES[tool] ?? tool}`, '');
    if (f0.toolValidates) out.push(`- Checked on every counted response: ${f0.toolValidates}.`);
    if (f0.toolLatency) out.push(`- Latency: ${f0.toolLatency}.`);
    out.push(`- Version: ${f0.tool.split(': ').slice(1).join(': ') || f0.tool}.`, '');
    for (const f of files) {
      const sc = f.scenario;
      out.push(`### ${sc.id}: ${sc.description}`, '');
      out.push(`${runShape(f)}; ${day(f.started)}.`, '');
      out.push(headlineTable(f.results, { kind: sc.kind }));
      const b = bars(f);
      if (b.data.length) {
        const name = chartName(sc.id, tool);
        const svg = await renderSvg(
          scenarioChartSpec(
            `${sc.id}: requests/s per server${f.quick ? ' (quick mode: not a measurement)' : ''}`,
            [sc.description, `${runShape(f)}`, `${machine(f)}, ${day(f.started)}`],
            b.data,
            b.servers,
            b.modes,
          ),
        );
        writeFileSync(join(chartDir, name), svg);
        charts.push(join(chartDir, name));
        out.push(`![${sc.id}: median requests/s per server, min–max as a line](charts/${name})`, '');
      }
      out.push(
        '<details><summary>All figures: min–max, latency, CPU, memory, notes</summary>',
        '',
        markdownTable(f.results, tool, { kind: sc.kind }),
        '</details>',
        '',
      );
    }
  }

  for (const f of sweepFiles) {
    const tool = toolOf(f);
    out.push(`## Connection sweep: ${f.sweep.scenario} (${TOOL_NAMES[tool] ?? tool}, ${f.sweep.mode} mode)`, '');
    out.push(`${runShape(f)}; ${day(f.started)}.`, '');
    if (f.toolValidates) out.push(`Checked on every counted response: ${f.toolValidates}.`, '');
    out.push(sweepTables(f));
    const data: SweepDatum[] = f.points
      .filter((p) => !p.result.notRun)
      .map((p) => {
        const s = summarize(p.result);
        return {
          server: p.result.label,
          connections: p.connections,
          rps: s ? s.medianRps : null,
          p99Ms: s?.p99Us == null ? null : s.p99Us / 1000,
        };
      });
    if (data.some((d) => d.rps !== null)) {
      const name = `sweep-${f.sweep.scenario}${tool === 'loadgen' ? '' : `.${tool}`}.svg`;
      const svg = await renderSvg(
        sweepChartSpec(
          `Connection sweep, ${f.sweep.scenario}: requests/s and p99 by connections`,
          [runShape(f), `${machine(f)}, ${day(f.started)}; FAILED points are not drawn (see the table)`],
          data,
          [...new Set(f.points.map((p) => p.result.label))],
        ),
      );
      writeFileSync(join(chartDir, name), svg);
      charts.push(join(chartDir, name));
      out.push(`![Connection sweep: requests/s and p99 latency by connections](charts/${name})`, '');
    }
  }
  const ws = await wsReportSections(wsFiles, chartDir);
  out.push(...ws.md);
  charts.push(...ws.charts);
  out.push(
    '---',
    '',
    'Raw data: the JSON files beside this report. Made again with `npm run bench -- report <this dir>`.',
  );
  const report = join(dir, 'report.md');
  writeFileSync(report, `${out.join('\n').trimEnd()}\n`);
  return { report, charts };
}
