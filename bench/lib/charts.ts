// SVG charts of a results directory, drawn with Vega-Lite (compiled to Vega, rendered to SVG in Node without a canvas):
// one bar chart per scenario (median req/s per server, or a WebSocket scenario's figure, min–max as a line, one panel
// per mode) and line charts for the
// connection sweep (req/s and p99 against connections).
import type { TopLevelSpec } from 'vega-lite';

/** One bar: a server in one mode. `rps` is null for a FAILED run (drawn as a label only). */
export interface BarDatum {
  server: string;
  mode: string;
  rps: number | null;
  min: number | null;
  max: number | null;
  label: string;
}

/** One sweep point: a server at one connection count. `rps`/`p99Ms` are null when it FAILED. */
export interface SweepDatum {
  server: string;
  connections: number;
  rps: number | null;
  p99Ms: number | null;
}

const GALE = '#d9480f';
const OTHER = '#4c78a8';
/** Line colours of the other servers (Gale keeps its own). */
const PALETTE = ['#4c78a8', '#54a24b', '#b279a2', '#9d755d', '#72b7b2', '#e4b600', '#7f7f7f', '#ff9da6', '#e45756'];
const zeroLabel = "datum.value == 0 ? '0' : datum.label";
const FONT = 'Helvetica, Arial, sans-serif';

const config = {
  font: FONT,
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 11, grid: true, gridColor: '#e5e5e5' },
  header: {
    labelFontSize: 12,
    labelFontWeight: 'bold' as const,
    labelAngle: 0,
    labelOrient: 'top' as const,
    labelAnchor: 'start' as const,
  },
  title: { fontSize: 14, subtitleFontSize: 11, subtitleColor: '#555', anchor: 'start' as const },
};

/** Bar chart of one scenario: rows are servers, one panel per mode with its own x scale. */
export function scenarioChartSpec(
  title: string,
  subtitle: string[],
  data: BarDatum[],
  serverOrder: string[],
  modeOrder: string[],
  xTitle = 'requests/s (median)',
): TopLevelSpec {
  const y = {
    field: 'server',
    type: 'nominal' as const,
    sort: serverOrder,
    title: null,
    axis: { labelLimit: 300 },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle },
    config,
    data: { values: data.map((d) => ({ ...d, gale: d.server.startsWith('Gale') ? 'Gale' : 'other', x: d.rps ?? 0 })) },
    facet: { row: { field: 'mode', type: 'nominal', sort: modeOrder, title: null } },
    resolve: { scale: { x: 'independent' } },
    spec: {
      width: 520,
      height: { step: 22 },
      layer: [
        {
          mark: { type: 'bar', height: { band: 0.7 } },
          encoding: {
            y,
            x: {
              field: 'x',
              type: 'quantitative',
              title: xTitle,
              axis: { format: '~s', labelExpr: zeroLabel },
            },
            color: {
              field: 'gale',
              type: 'nominal',
              scale: { domain: ['Gale', 'other'], range: [GALE, OTHER] },
              legend: null,
            },
          },
        },
        {
          mark: { type: 'rule', color: '#222', strokeWidth: 1.5 },
          encoding: { y, x: { field: 'min', type: 'quantitative' }, x2: { field: 'max' } },
        },
        {
          mark: { type: 'text', align: 'left', dx: 5, fontSize: 11 },
          encoding: {
            y,
            x: { field: 'x', type: 'quantitative' },
            text: { field: 'label' },
            color: {
              condition: { test: "datum.label == 'FAILED' || datum.label == 'not implemented yet'", value: '#c92a2a' },
              value: '#222',
            },
          },
        },
      ],
    },
  } as TopLevelSpec;
}

/** The sweep: req/s and p99 latency against connections (log scale), one line per server. */
export function sweepChartSpec(title: string, subtitle: string[], data: SweepDatum[], servers: string[]): TopLevelSpec {
  const x = {
    field: 'connections',
    type: 'quantitative' as const,
    scale: { type: 'log' as const },
    axis: { values: [...new Set(data.map((d) => d.connections))], format: '~s' },
    title: 'connections',
  };
  let other = 0;
  const range = servers.map((s) => (s.startsWith('Gale') ? GALE : (PALETTE[other++ % PALETTE.length] as string)));
  const color = { field: 'server', type: 'nominal' as const, scale: { domain: servers, range }, title: null };
  const panel = (field: 'rps' | 'p99Ms', yTitle: string, log: boolean) => ({
    width: 360,
    height: 260,
    transform: [{ filter: `datum.${field} != null` }],
    mark: { type: 'line' as const, point: true },
    encoding: {
      x,
      y: {
        field,
        type: 'quantitative' as const,
        title: yTitle,
        ...(log ? { scale: { type: 'log' as const } } : {}),
        axis: { format: '~s', labelExpr: zeroLabel },
      },
      color,
    },
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle },
    config: { ...config, legend: { orient: 'bottom', columns: 4, labelFontSize: 11 } },
    data: { values: data },
    hconcat: [panel('rps', 'requests/s (median)', false), panel('p99Ms', 'p99 latency, ms (log)', true)],
  } as TopLevelSpec;
}

/** Compiles a Vega-Lite spec and renders it to an SVG string (no canvas: text widths are estimated). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]).catch((err: unknown) => {
    throw new Error(
      `the charts need vega and vega-lite (devDependencies): run \`npm install\` at the repo root (${(err as Error).message})`,
    );
  });
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
