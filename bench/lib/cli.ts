// Command-line options of `npm run bench -- <scenario…> [--servers a,b] [--duration s] …`, with defaults and checks.
import { parseArgs } from 'node:util';
import { findScenario, type Scenario, scenarios } from './scenarios.ts';
import { findServer, type Mode, makeModes, type ServerDef, servers } from './servers.ts';
import { type LoadTool, tools } from './tools.ts';

export interface Options {
  scenarios: Scenario[];
  servers: ServerDef[];
  modes: Mode[];
  tool: LoadTool;
  durationS: number;
  warmupS: number;
  iterations: number;
  connections: number;
  threads: number;
  timeoutS: number;
  serverCpu: number;
  loadCpu: number;
  nofile: number;
  out: string | null;
}

export const usage = `Usage: npm run bench -- [scenario…] [options]

Scenarios: hello (default), ${scenarios
  .filter((s) => s.id !== 'hello')
  .map((s) => s.id)
  .join(', ')}
  (static, static-large, static-range and prerendered serve the files of examples/demo)
Options:
  --servers a,b,…     servers to compare (default: ${servers.map((s) => s.name).join(',')});
                      gale-nocache and nginx* run only the static scenarios (the others show "—"), nginx* are
                      skipped when nginx is not installed (apt-get install -y nginx-light)
  --modes a,b         plain,pipelined (default: both)
  --duration S        seconds per counted run (default 10)
  --warmup S          seconds of uncounted warm-up per server and mode (default 2; 0 = none)
  --iterations N      counted runs per server and mode (default 3)
  --connections N     open connections (default 100)
  --pipeline N        requests per write in pipelined mode (default 16)
  --threads N         load-generator threads (default 1; loadgen is single-threaded)
  --timeout S         a response slower than this is a timeout error (default 2)
  --server-cpu N      core the server is pinned to (default 0)
  --load-cpu N        core the load generator is pinned to (default 1)
  --tool NAME         load generator (default wrk; known: ${Object.keys(tools).join(', ')}); loadgen is
                      bench/loadgen, built on first use with cargo
  --out DIR           results directory (default bench/results/<YYYY-MM-DD>-<hostname>)
`;

function num(name: string, v: string | undefined, def: number, min: number, max: number, int = true): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) {
    throw new Error(`--${name} must be ${int ? 'an integer' : 'a number'} from ${min} to ${max} (got "${v}")`);
  }
  return n;
}

const list = (v: string | undefined): string[] | undefined =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Parses argv (without node and script); throws Error with a message meant for the user. */
export function parseOptions(argv: string[]): Options | 'help' {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      servers: { type: 'string' },
      modes: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      iterations: { type: 'string' },
      connections: { type: 'string' },
      pipeline: { type: 'string' },
      threads: { type: 'string' },
      timeout: { type: 'string' },
      'server-cpu': { type: 'string' },
      'load-cpu': { type: 'string' },
      tool: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) return 'help';
  const scenarioIds = positionals.length ? positionals : ['hello'];
  const sc = scenarioIds.map((id) => {
    const s = findScenario(id);
    if (!s) throw new Error(`unknown scenario "${id}"`);
    return s;
  });
  const sv = (list(v.servers) ?? servers.map((s) => s.name)).map((name) => {
    const s = findServer(name);
    if (!s) throw new Error(`unknown server "${name}" (known: ${servers.map((x) => x.name).join(', ')})`);
    return s;
  });
  const toolName = v.tool ?? 'wrk';
  const tool = tools[toolName];
  if (!tool) throw new Error(`unknown tool "${toolName}" (known: ${Object.keys(tools).join(', ')})`);
  const threads = num('threads', v.threads, 1, 1, 64);
  if (threads > tool.maxThreads) {
    throw new Error(`--tool ${tool.id} uses at most ${tool.maxThreads} thread(s) (got --threads ${threads})`);
  }
  const connections = num('connections', v.connections, 100, 1, 60000);
  if (connections < threads) throw new Error('--connections must be at least --threads');
  return {
    scenarios: sc,
    servers: sv,
    modes: makeModes(list(v.modes) ?? ['plain', 'pipelined'], num('pipeline', v.pipeline, 16, 2, 1024)),
    tool,
    durationS: num('duration', v.duration, 10, 1, 600),
    warmupS: num('warmup', v.warmup, 2, 0, 600),
    iterations: num('iterations', v.iterations, 3, 1, 100),
    connections,
    threads,
    timeoutS: num('timeout', v.timeout, 2, 1, 60),
    serverCpu: num('server-cpu', v['server-cpu'], 0, 0, 4095),
    loadCpu: num('load-cpu', v['load-cpu'], 1, 0, 4095),
    nofile: Math.max(65535, connections * 2 + 1024),
    out: v.out ?? null,
  };
}
