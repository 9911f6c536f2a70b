// The WebSocket scenarios (ws-echo, fastws-echo, sio-echo, sio-broadcast, ws-broadcast, ws-idle;
// ../shared/bench/scenarios.md): each server app in bench/apps/ws-*.mjs (sio-node-http.mjs) is started pinned to the
// server core and driven by gale-loadgen-ws (bench/loadgen/src/ws, Rust, one thread; its sio-echo and sio-broadcast
// modes speak Socket.IO directly, or, with --sio-client socket.io-client, the Node clients of lib/sio.ts) pinned to
// the load core. The generator checks every echo, ack and broadcast delivery against the exact text; a run with an
// invalid message or any error is FAILED with the reason, never given a figure. Gale serves every scenario (the sio-*
// ones with @gale-http/socket.io) from apps/ws-gale.mjs.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadgen, loadgenBinary } from './loadgen.ts';
import { type RunningServer, startServer, stopServer } from './measure.ts';
import { cpuSeconds, effectiveOpenFileLimit, openFds, type Pinned, vmKiB } from './proc.ts';
import { writeResults } from './report.ts';
import { ownNode } from './runtimes.ts';
import {
  baseName,
  benchDir,
  bunServer,
  denoServer,
  galeUnavailable,
  onNodes,
  peerEnv,
  repoDir,
  type ServerDef,
  uwsPath,
  uwsUnavailable,
} from './servers.ts';
import { npmMissing, sioBroadcastClients, sioBroadcastLimitS, sioClientOf, sioRun, sioUnavailable } from './sio.ts';
import { outputTail, runPinnedTool } from './toolrun.ts';
import { wsFigure, wsTable } from './ws-table.ts';
import {
  type WsIteration,
  type WsJson,
  type WsMeasurement,
  type WsOptions,
  type WsScenarioId,
  wsScenarioIds,
} from './ws-types.ts';

export {
  type IdleMemory,
  type LatencySummary,
  type WsIteration,
  type WsJson,
  type WsMeasurement,
  type WsOptions,
  type WsScenarioId,
  wsScenarioIds,
} from './ws-types.ts';

const BUN_DENO_WS: readonly WsScenarioId[] = ['ws-echo', 'fastws-echo', 'ws-broadcast', 'ws-idle'];

/** The scenarios measured in echoes/s (one message at a time per connection, waiting for each answer). */
export const isEcho = (s: WsScenarioId): boolean =>
  s === 'ws-echo' || s === 'ws-echo-h2' || s === 'fastws-echo' || s === 'sio-echo';

/** The Socket.IO scenarios (only Socket.IO servers serve them; lib/sio.ts picks their client). */
export const isSio = (s: WsScenarioId): boolean => s === 'sio-echo' || s === 'sio-broadcast';

export const wsScenarioText: Record<WsScenarioId, string> = {
  'ws-echo':
    "each connection sends N text messages of 1024 '0' one after another, waiting for each exact echo, then closes " +
    'and reconnects',
  'ws-echo-h2':
    'ws-echo with each WebSocket on a stream of a cleartext HTTP/2 connection of its own (RFC 8441 extended ' +
    'CONNECT) instead of an HTTP/1.1 upgrade; reconnecting opens a new connection, as in ws-echo. Only servers ' +
    'that implement RFC 8441 have a row',
  'fastws-echo':
    "the same over the fast-ws protocol: each message is emit('echo', 1024 '0', reply) (subprotocol fast-ws, after " +
    'the server greeting), answered by exactly its reply',
  'sio-echo':
    "the same over Socket.IO (Engine.IO 4, websocket transport): emit('echo', 1024 '0', ack), 4 in flight per socket, " +
    'each ack must carry exactly the payload; server CPU per acknowledged echo',
  'sio-broadcast':
    "1 000 Socket.IO sockets in room 'all'; they take turns emitting 'broadcast' with {id, ts, pad} and an ack (16 in " +
    "flight) and the server sends each to the room (nsp.to('all').emit('broadcastResult', payload)); every client " +
    'must get each exactly once with the exact payload, the sender its ack; server CPU per delivery',
  'ws-broadcast':
    'clients added in steps; each step sends broadcasts that every client must receive as {"type":"broadcastResult",' +
    '"payload":P}; stepping stops when the p95 broadcast round trip exceeds 500 ms',
  'ws-idle':
    'idle WebSocket connections opened at 1 000/s to /echo and held open without traffic; server memory (RSS) per ' +
    'connection on a fresh server, then again for a second wave on the same server (steady state); every connection ' +
    'must still answer a ping',
};

/** A server of the WebSocket scenarios; `notImplemented` rows are shown as "— not implemented yet". */
export interface WsServer extends ServerDef {
  notImplemented?: string;
  /** The WebSocket scenarios it serves (default: all but the sio-* ones and ws-echo-h2); it has no row in the others. */
  serves?: readonly WsScenarioId[];
}

const app = (file: string): string => join(benchDir, 'apps', file);

/** Whether `server` has a row in `scenario`'s table. */
export const wsServes = (server: WsServer, scenario: WsScenarioId): boolean =>
  server.serves ? server.serves.includes(scenario) : !isSio(scenario) && scenario !== 'ws-echo-h2';

/** Why `scenario` cannot run on any server right now (reported FAILED with it), or null. */
export function wsScenarioUnavailable(scenario: WsScenarioId, o: Pick<WsOptions, 'sioClient'> = {}): string | null {
  if (isSio(scenario)) return sioUnavailable(o);
  if (scenario !== 'fastws-echo') return null;
  // The file apps/fastws.mjs loads.
  const built = join(repoDir, 'packages', 'fast-ws', 'dist', 'server.js');
  if (existsSync(built)) return null;
  return (
    "Gale's fast-ws protocol class is not built: packages/fast-ws/dist/server.js is missing " +
    '(run `npm run build`, or only its TypeScript part: `npx tsc -p packages/fast-ws/tsconfig.build.json`)'
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
  { name: 'gale', label: 'Gale', entry: app('ws-gale.mjs'), serves: wsScenarioIds },
  // The engine's io_uring backend (opt-in, as its HTTP row in lib/servers.ts).
  {
    name: 'gale-uring',
    label: 'Gale (io_uring)',
    entry: app('ws-gale.mjs'),
    env: { GALE_IO: 'uring' },
    serves: wsScenarioIds,
  },
  {
    name: 'socketio',
    label: 'Socket.IO 4 on node:http',
    entry: app('sio-node-http.mjs'),
    serves: ['sio-echo', 'sio-broadcast'],
    unavailable: () => npmMissing('socket.io'),
  },
  // @gale-http/socket.io attached to the same node:http server (`new Server(httpServer)`): Engine.IO on node:http's
  // request and upgrade events, WebSockets through the `ws` library, as socket.io does.
  {
    name: 'gale-sio-node',
    label: '@gale-http/socket.io on node:http',
    entry: app('sio-node-http.mjs'),
    env: { BENCH_SIO: 'gale' },
    serves: ['sio-echo', 'sio-broadcast'],
  },
  // Only when a local uWebSockets.js build is named (GALE_BENCH_PEERS or GALE_BENCH_UWS: lib/server-common.ts).
  ...(uwsPath
    ? [{ name: 'uws', label: 'uWebSockets.js', entry: app('uws.mjs'), env: peerEnv, unavailable: uwsUnavailable }]
    : []),
  // The same apps as their HTTP rows (apps/bun.mjs, apps/deno.mjs): Bun's built-in WebSockets and pub/sub, Deno's
  // WebSocket API (broadcast by looping over the open sockets). Neither speaks Socket.IO here.
  { ...bunServer, label: 'Bun.serve (built-in WebSocket, pub/sub)', serves: BUN_DENO_WS },
  { ...denoServer, label: 'Deno.serve (Deno.upgradeWebSocket)', serves: BUN_DENO_WS },
];

/** The servers of `o`: those named (by their plain names), Node-based ones once per Node of `o.nodes`. */
export function pickWsServers(o: Pick<WsOptions, 'serverNames' | 'nodes'>): WsServer[] {
  return onNodes(wsServers, o.nodes ?? [ownNode()]).filter((s) => o.serverNames.includes(baseName(s.name)));
}

/** Servers that take part only in the WebSocket scenarios (accepted by `--servers` beside the HTTP ones). */
export const wsOnlyServers: readonly string[] = ['socketio', 'gale-sio-node'];

/** Connections ws-idle holds. */
export const idleConnections = (o: Pick<WsOptions, 'idleConnections' | 'quick'>): number =>
  o.idleConnections ?? (o.quick ? 1000 : 10000);

/** Path of gale-loadgen-ws (built with gale-loadgen), or the reason it is missing. */
export function wsBinary(): { path: string } | { failure: string } {
  const missing = loadgen.missing();
  if (missing) return { failure: missing };
  const main = loadgenBinary();
  if (!main) return { failure: 'gale-loadgen is not built' };
  const path = join(dirname(main), 'gale-loadgen-ws');
  return existsSync(path) ? { path } : { failure: `${path} does not exist after the build` };
}

/**
 * ws-broadcast's most clients: what the open-file limit the server and the generator really get allows (each holds
 * one descriptor per client), less room for everything else; the step that reaches it is "max-clients reached".
 */
export function broadcastCeiling(nofile: number): number {
  const limit = effectiveOpenFileLimit(nofile);
  return Math.max(100, Math.min(limit, 100_000) - 512);
}

/**
 * ws-broadcast's time budget for stepping, in seconds: at least two minutes outside the quick mode, so that the
 * stepping ends at a limit (p95, the generator's core, the open-file limit) rather than when the budget runs out.
 */
export const broadcastBudgetS = (o: Pick<WsOptions, 'durationS' | 'quick'>): number =>
  o.quick ? o.durationS : Math.max(o.durationS, 120);

/** The generator's arguments for one run (sio-echo and sio-broadcast: lib/sio.ts). */
export function wsArgs(o: WsOptions, scenario: WsScenarioId, port: number): string[] {
  const common = ['--duration', String(o.durationS), '--timeout', String(o.timeoutS)];
  if (scenario === 'ws-idle') {
    return [
      '--mode',
      'idle',
      '--url',
      `ws://127.0.0.1:${port}/echo`,
      '--connections',
      String(idleConnections(o)),
      '--rate',
      String(o.idleRate ?? 1000),
      '--hold',
      String(o.holdS ?? (o.quick ? 1 : 3)),
      '--timeout',
      String(o.timeoutS),
    ];
  }
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
      ...(scenario === 'ws-echo-h2' ? ['--over', 'h2c'] : []),
      ...common,
    ];
  }
  return [
    '--mode',
    'broadcast',
    '--url',
    `ws://127.0.0.1:${port}/broadcast`,
    '--step',
    String(o.step ?? (o.quick ? 5 : 500)),
    '--max-clients',
    String(o.maxClients ?? (o.quick ? 20 : broadcastCeiling(o.nofile))),
    '--samples',
    String(o.samples ?? (o.quick ? 5 : 50)),
    '--concurrent',
    String(o.quick ? 2 : 10),
    '--limit-ms',
    '500',
    '--duration',
    String(broadcastBudgetS(o)),
    '--timeout',
    String(o.timeoutS),
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

/**
 * Runs the generator once against `port` (pinned to o.loadCpu), sampling the server's CPU time. `idle`: also reads
 * the server's RSS before the run and, every 200 ms, while the generator holds every connection open (between its
 * `holding` and `checking` lines on stderr).
 */
export async function wsRunOnce(
  bin: string,
  args: string[],
  o: Pick<WsOptions, 'loadCpu' | 'nofile' | 'durationS' | 'timeoutS'> & { limitS?: number },
  serverPid?: number,
  idle = false,
): Promise<WsIteration> {
  const c0 = serverPid ? cpuSeconds(serverPid) : null;
  const baseline = idle && serverPid ? vmKiB(serverPid, 'VmRSS') : null;
  const baselineAnon = idle && serverPid ? vmKiB(serverPid, 'RssAnon') : null;
  let openRss: number | null = null;
  let openAnon: number | null = null;
  const onSample = (p: Pinned) => {
    const err = p.stderr();
    if (!serverPid || !err.includes('holding') || err.includes('checking')) return;
    const rss = vmKiB(serverPid, 'VmRSS');
    if (rss !== null) openRss = Math.max(openRss ?? 0, rss);
    const anon = vmKiB(serverPid, 'RssAnon');
    if (anon !== null) openAnon = Math.max(openAnon ?? 0, anon);
  };
  const limitMs = (o.limitS ?? o.durationS + 2 * o.timeoutS + 10) * 1000;
  const x = await runPinnedTool(bin, args, { cpu: o.loadCpu, nofile: o.nofile, limitMs, onSample });
  const c1 = serverPid ? cpuSeconds(serverPid) : null;
  const serverCpuS = c0 !== null && c1 !== null ? c1 - c0 : null;
  const base: Pick<WsIteration, 'toolCpuPct' | 'serverCpuS' | 'idle'> = { toolCpuPct: x.toolCpuPct, serverCpuS };
  if (idle) {
    base.idle = {
      baselineRssKiB: baseline,
      openRssKiB: openRss,
      opened: 0,
      perConnectionKiB: null,
      baselineAnonKiB: baselineAnon,
      openAnonKiB: openAnon,
      perConnectionAnonKiB: null,
    };
  }
  const tool = /sio-[a-z-]*client\.mjs$/.test(args[0] ?? '') ? 'the Socket.IO client' : 'gale-loadgen-ws';
  if (x.killed) return { ...base, json: null, failure: `${tool} did not finish within ${limitMs / 1000}s` };
  const line = x.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if ((x.code !== 0 && x.code !== 1) || !line) {
    const why = outputTail(x);
    return {
      ...base,
      json: null,
      failure: `${tool} exited with ${x.code ?? x.signal}${why ? `: ${why}` : ''}`,
    };
  }
  const json = JSON.parse(line) as WsJson;
  let failure = wsJudge(json) ?? (x.code === 1 ? `${tool} exited with 1` : null);
  if (base.idle) {
    const m = base.idle;
    m.opened = json.detail.opened ?? 0;
    if (m.openRssKiB !== null && m.baselineRssKiB !== null && m.opened > 0) {
      m.perConnectionKiB = (m.openRssKiB - m.baselineRssKiB) / m.opened;
      if (m.openAnonKiB != null && m.baselineAnonKiB != null) {
        m.perConnectionAnonKiB = (m.openAnonKiB - m.baselineAnonKiB) / m.opened;
      }
    } else failure ??= "the server's memory could not be read while the connections were open";
  }
  return { ...base, json, failure };
}

/** How long ws-idle waits, after the server closed the first wave's sockets, before the second wave's baseline. */
export const SETTLE_MS = 1500;

/**
 * Waits until the server at `pid` has closed the first ws-idle wave's sockets (its open descriptors back to `fds`,
 * the count before the wave, give or take a few), then SETTLE_MS more: engines free memory on a timer (Gale's tick
 * trims malloc's free pages once a burst of connections is over). Null when done, else why not (within 20 s).
 */
async function closedAll(pid: number, fds: number | null, timeoutMs = 20_000): Promise<string | null> {
  const t0 = Date.now();
  for (;;) {
    const now = openFds(pid);
    if (now === null) return 'the server exited after the first wave';
    if (fds === null || now <= fds + 8) break;
    if (Date.now() - t0 > timeoutMs) {
      return `the server still had ${now} descriptors open ${timeoutMs / 1000}s after the first wave (${fds} before it)`;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return null;
}

/** The headline figure the median iteration is picked by (lib/ws-table.ts wsFigure). */
const key = (scenario: WsScenarioId, it: WsIteration): number => wsFigure(scenario, it) ?? 0;

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
  const unavailable =
    wsScenarioUnavailable(scenario, o) ?? (server.name.startsWith('gale') && server.entry ? galeUnavailable() : null);
  if (unavailable) {
    m.failure = unavailable;
    return m;
  }
  // ws-idle starts a fresh server for every iteration, so each baseline is a server that never held a connection
  // (the harness's own port check aside: one TCP connect, no WebSocket); the second wave then measures the same server
  // again after the first wave has come and gone.
  const idle = scenario === 'ws-idle';
  const connections = idle ? idleConnections(o) : scenario === 'sio-broadcast' ? sioBroadcastClients(o) : o.connections;
  const runO = idle
    ? { ...o, limitS: connections / (o.idleRate ?? 1000) + (o.holdS ?? 3) + 3 * o.timeoutS + 10 }
    : scenario === 'ws-broadcast'
      ? { ...o, limitS: broadcastBudgetS(o) + 3 * o.timeoutS + 30 }
      : scenario === 'sio-broadcast'
        ? { ...o, limitS: sioBroadcastLimitS(o) }
        : o;
  for (let i = 1; i <= o.iterations && !m.failure; i++) {
    const rs = await startServer({ server, connections, serverCpu: o.serverCpu, nofile: o.nofile });
    if ('failure' in rs) {
      m.failure = rs.failure;
      break;
    }
    try {
      for (; i <= o.iterations; i++) {
        if (rs.openFileLimit !== null && rs.openFileLimit < connections + 256) {
          m.failure = `server open-file limit is ${rs.openFileLimit}, too low for ${connections} connections`;
          break;
        }
        onIteration?.(i);
        const run =
          scenario === 'sio-echo' || scenario === 'sio-broadcast'
            ? sioRun(o, scenario, bin, rs.port, rs.proc.pid)
            : { cmd: bin, args: wsArgs(o, scenario, rs.port) };
        m.args = run.args;
        const fds = idle ? openFds(rs.proc.pid) : null;
        const it = await wsRunOnce(run.cmd, m.args, runO, rs.proc.pid, idle);
        m.iterations.push(it);
        if (it.failure) {
          m.failure = `iteration ${i}: ${it.failure}`;
          break;
        }
        if (idle) {
          // The steady state: once the server has let the first wave go, a second one on the same process.
          const gone = await closedAll(rs.proc.pid, fds);
          const second = gone ?? (await wsRunOnce(run.cmd, m.args, runO, rs.proc.pid, true));
          if (typeof second === 'string') m.failure = `iteration ${i}: ${second}`;
          else if (second.failure) m.failure = `iteration ${i}, second wave: ${second.failure}`;
          else it.steady = second.idle;
          break;
        }
      }
      m.peakRssMiB = Math.max(m.peakRssMiB ?? 0, peakRss(rs) ?? 0) || null;
    } finally {
      const stderr = await stopServer(rs);
      if (m.failure && stderr.trim()) {
        m.failure += ` (server stderr: ${stderr.trim().split('\n').slice(-2).join(' | ')})`;
      }
    }
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

/** How many server runs `o` makes and about how long they take, in seconds. */
export function wsPlan(o: WsOptions): { runs: number; estimateS: number } {
  const picked = pickWsServers(o).filter((s) => !s.notImplemented);
  let runs = 0;
  let estimateS = 0;
  for (const sc of o.scenarios) {
    const n = picked.filter((s) => wsServes(s, sc)).length;
    runs += n;
    const perIteration =
      sc === 'ws-idle'
        ? 1.5 +
          2 * (idleConnections(o) / (o.idleRate ?? 1000) + (o.holdS ?? (o.quick ? 1 : 3)) + 0.5) +
          SETTLE_MS / 1000
        : sc === 'ws-broadcast'
          ? broadcastBudgetS(o) / 2
          : sc === 'sio-broadcast'
            ? sioClientOf(o) === 'socket.io-client'
              ? // Node's start and socket.io-client's load (~1 s), then connecting (100 clients/s assumed).
                1 + sioBroadcastClients(o) / 100 + o.durationS
              : // gale-loadgen-ws connects 64 sockets at a time (1 000 in well under a second).
                1 + o.durationS
            : o.durationS + 0.5;
    estimateS += n * (0.8 + o.iterations * perIteration);
  }
  return { runs, estimateS };
}

/** Runs every WebSocket scenario × server; returns the report text (Markdown) and the FAILED rows, a line each. */
export async function runWs(
  o: WsOptions,
  outDir: string,
  log: (s: string) => void,
  /** Results file suffix (run.ts nodeVariant): `ws/<scenario>.<variant>.json`. */
  variant = '',
  meta: Record<string, unknown> = {},
): Promise<{ text: string; failed: string[] }> {
  const bin = wsBinary();
  const out: string[] = [];
  const failed: string[] = [];
  const picked = pickWsServers(o);
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
      const ownClient = isSio(scenario) && sioClientOf(o) === 'socket.io-client';
      if ('failure' in bin && !server.notImplemented && !ownClient) {
        m = await wsMeasure(o, { ...server, unavailable: () => bin.failure }, scenario, '');
      } else {
        m = await wsMeasure(o, server, scenario, 'path' in bin ? bin.path : '', (i) => {
          n++;
          log(`[ws ${n}/${total}] ${scenario} ${server.name} iteration ${i}/${o.iterations} …`);
        });
      }
      if (m.notImplemented) log(`    ${server.name}: — not implemented yet`);
      else if (!m.ok) {
        failed.push(`${server.name} ${scenario}: ${m.failure}`);
        log(`    ${server.name} ${scenario}: FAILED: ${m.failure}`);
      }
      results.push(m);
    }
    writeResults(join(outDir, 'ws'), variant ? `${scenario}.${variant}` : scenario, {
      ...meta,
      scenario,
      description: wsScenarioText[scenario],
      results,
    });
    out.push(`\n## ${scenario}: ${wsScenarioText[scenario]}\n\n${wsTable(scenario, results)}`);
  }
  return { text: out.join(''), failed };
}
