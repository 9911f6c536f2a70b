// The WebSocket part of report.md: reads <results>/ws/<scenario>.json (written by lib/ws.ts runWs) and gives, per
// WebSocket scenario, a section with the table of lib/ws-table.ts (servers as rows, ratios to Express + express-ws
// and to ws on node:http) and a Vega-Lite SVG chart of its headline figure (echoes/s, clients held, KiB/connection).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BarDatum, renderSvg, scenarioChartSpec } from './charts.ts';
import { byServerFamily } from './servers.ts';
import { sioBroadcastClients, sioBroadcastInFlight, sioClientOf, sioEchoInFlight } from './sio.ts';
import { type WsScenarioId, wsScenarioIds } from './ws.ts';
import { wsSummary, wsTable } from './ws-table.ts';
import type { WsMeasurement, WsOptions } from './ws-types.ts';

/** A saved WebSocket scenario file: the run's meta (run.ts), the WebSocket options and every server's result. */
export interface WsFile {
  started: string;
  cores: number;
  cpu: string;
  kernel: string;
  node: string;
  hostname: string;
  quick?: boolean;
  commit?: string | null;
  argv?: string[];
  options?: { durationS?: number; iterations?: number };
  wsOptions?: Partial<WsOptions>;
  wsVersions?: Record<string, string | null>;
  scenario: WsScenarioId;
  description: string;
  results: WsMeasurement[];
  serverNodes?: { version: string; path: string; own: boolean }[];
  /** Set when several runs' files of one scenario were merged (`ws-echo.json` and `ws-echo.node26.json`). */
  mergedRuns?: WsFile[];
}

/** The WebSocket scenario files of a results directory, in scenario order. */
export function loadWsResults(dir: string): WsFile[] {
  const wsDir = join(dir, 'ws');
  if (!existsSync(wsDir)) return [];
  const files: WsFile[] = [];
  for (const name of readdirSync(wsDir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const j = JSON.parse(readFileSync(join(wsDir, name), 'utf8')) as WsFile;
      if (wsScenarioIds.includes(j.scenario) && Array.isArray(j.results)) files.push(j);
    } catch {
      // not a results file
    }
  }
  return mergeWsRuns(files).sort((a, b) => wsScenarioIds.indexOf(a.scenario) - wsScenarioIds.indexOf(b.scenario));
}

/** One table per scenario from several runs: a later run replaces an earlier row of the same server (report-md.ts). */
function mergeWsRuns(files: readonly WsFile[]): WsFile[] {
  const groups = new Map<WsScenarioId, WsFile[]>();
  for (const f of files) groups.set(f.scenario, [...(groups.get(f.scenario) ?? []), f]);
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0] as WsFile;
    const runs = [...group].sort((a, b) => a.started.localeCompare(b.started));
    const rows = new Map<string, WsMeasurement>();
    for (const f of runs) for (const m of f.results) rows.set(m.server, m);
    const { results: _, ...latest } = runs[runs.length - 1] as WsFile;
    return { ...latest, results: byServerFamily([...rows.values()]), mergedRuns: runs };
  });
}

const AXIS: Record<WsScenarioId, string> = {
  'ws-echo': 'echoes/s (median)',
  'ws-echo-h2': 'echoes/s (median)',
  'fastws-echo': 'echoes/s (median)',
  'sio-echo': 'server CPU µs per acknowledged echo (median; lower is better)',
  'sio-broadcast': 'server CPU µs per broadcast delivery (median; lower is better)',
  'ws-broadcast': 'clients held with p95 round trip ≤ 500 ms (median)',
  'ws-idle': 'server RSS per idle connection on a fresh server, KiB (median; lower is better)',
};

/** How a WebSocket run was shaped, e.g. "gale-loadgen-ws, 3 × 10 s, 100 connections × 100 messages". */
export function wsRunShape(f: WsFile): string {
  const o = f.wsOptions ?? {};
  const its = o.iterations ?? f.options?.iterations ?? 1;
  const d = o.durationS ?? f.options?.durationS ?? 0;
  // Files saved before gale-loadgen-ws spoke Socket.IO name no client: their runs were socket.io-client's (.mjs).
  const nodeClient = sioClientOf(o) === 'socket.io-client' || f.results.some((m) => /\.mjs$/.test(m.args[0] ?? ''));
  // What the client says it ran with (files saved by an older harness have no option for it).
  const inFlight = (k: 'in_flight' | 'concurrent'): number | undefined =>
    f.results.map((m) => m.median?.json?.detail[k]).find((x) => typeof x === 'number');
  const tool =
    f.scenario === 'sio-echo' && nodeClient
      ? 'socket.io-client in a worker thread'
      : f.scenario === 'sio-broadcast' && nodeClient
        ? 'socket.io-client in one thread'
        : f.scenario === 'sio-echo' || f.scenario === 'sio-broadcast'
          ? `gale-loadgen-ws --mode ${f.scenario}`
          : 'gale-loadgen-ws';
  const what =
    f.scenario === 'ws-idle'
      ? `${o.idleConnections ?? (o.quick ? 1000 : 10000)} connections at ${o.idleRate ?? 1000}/s, held ${o.holdS ?? (o.quick ? 1 : 3)} s`
      : f.scenario === 'sio-broadcast'
        ? `${sioBroadcastClients({ sioClients: o.sioClients, quick: o.quick ?? false })} clients in one room, ${inFlight('in_flight') ?? sioBroadcastInFlight({ ...o, sioClient: nodeClient ? 'socket.io-client' : 'loadgen' })} broadcasts in flight, ${d} s`
        : f.scenario === 'ws-broadcast'
          ? `clients added ${o.step ?? (o.quick ? 5 : 50)} at a time, ${o.samples ?? (o.quick ? 5 : 20)} broadcasts per step, time budget ${d} s`
          : `${o.connections ?? '?'} connections × ${o.messages ?? (o.quick ? 10 : 100)} messages${
              f.scenario === 'sio-echo' && !nodeClient
                ? `, ${inFlight('concurrent') ?? sioEchoInFlight(o)} in flight per socket`
                : ''
            }, ${d} s`;
  return `${tool}, ${its} iteration${its === 1 ? '' : 's'}: ${what}; server on CPU ${o.serverCpu ?? 0}, load on CPU ${o.loadCpu ?? 1}`;
}

function bars(f: WsFile): BarDatum[] {
  const fixed = f.scenario === 'ws-idle' || f.scenario === 'sio-echo' || f.scenario === 'sio-broadcast' ? 2 : 0;
  return f.results.map((m) => {
    const s = wsSummary(m);
    const label = m.notImplemented ? 'not implemented yet' : s ? s.median.toFixed(fixed) : 'FAILED';
    return {
      server: m.label,
      mode: AXIS[f.scenario],
      rps: s?.median ?? null,
      min: s?.min ?? null,
      max: s?.max ?? null,
      label: s ? Number(label).toLocaleString('en-US', { maximumFractionDigits: fixed }) : label,
    };
  });
}

/** The WebSocket sections of report.md and their charts (written to chartDir). */
export async function wsReportSections(
  files: readonly WsFile[],
  chartDir: string,
): Promise<{ md: string[]; charts: string[] }> {
  const md: string[] = [];
  const charts: string[] = [];
  if (!files.length) return { md, charts };
  md.push(
    '## WebSocket scenarios',
    '',
    'Every echo, reply, ack, broadcast delivery and pong was checked against the exact expected text; a server with ' +
      'any invalid message, error or timeout is **FAILED** with the reason. Ratios compare the median headline figure ' +
      'with Express 5 + express-ws and with ws on node:http in the same scenario (sio-echo and sio-broadcast: the ' +
      'server CPU per event with Socket.IO 4 on node:http; lower is better there).',
    '',
  );
  const versions = Object.entries(files[0]?.wsVersions ?? {}).filter(([, v]) => v);
  if (versions.length) md.push(`Versions: ${versions.map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  for (const f of files) {
    md.push(`### ${f.scenario}: ${f.description}`, '', `${wsRunShape(f)}; ${f.started.slice(0, 10)}.`, '');
    md.push(wsTable(f.scenario, f.results));
    const data = bars(f);
    if (data.length) {
      const name = `${f.scenario}.svg`;
      const svg = await renderSvg(
        scenarioChartSpec(
          `${f.scenario}: ${AXIS[f.scenario]}${f.quick ? ' (quick mode: not a measurement)' : ''}`,
          [f.description, wsRunShape(f), `${f.cores} cores (${f.cpu}), Node ${f.node}, ${f.started.slice(0, 10)}`],
          data,
          [...new Set(f.results.map((m) => m.label))],
          [AXIS[f.scenario]],
          AXIS[f.scenario],
        ),
      );
      writeFileSync(join(chartDir, name), svg);
      charts.push(join(chartDir, name));
      md.push(`![${f.scenario}: ${AXIS[f.scenario]} per server, min–max as a line](charts/${name})`, '');
    }
  }
  return { md, charts };
}
