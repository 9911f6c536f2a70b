// The WebSocket load clients' own ceiling: the same runs against a trivial Rust WebSocket server
// (loadgen/examples/ws-echo-server.rs, one thread; it speaks fast-ws and, at the frame level, Engine.IO/Socket.IO
// too: acks, namespaces, broadcasts to a namespace) and against the Node apps, interleaved over rounds, server pinned
// to core 0 and client to core 1. If a client drives the trivial server much faster than any Node server, it is not
// what limits the Node figures. sio-echo and sio-broadcast run gale-loadgen-ws's Socket.IO modes, and sio-echo once
// more with socket.io-client for comparison. Usage: node --import tsx bench/ws-ceiling.ts [--rounds 3] [--duration 3]
// [--runs ws-echo,fastws-echo,sio-echo,sio-broadcast,ws-broadcast] (a subset of the runs' scenarios)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { effectiveOpenFileLimit } from './lib/proc.ts';
import { repoDir } from './lib/servers.ts';
import {
  isEcho,
  type WsMeasurement,
  type WsOptions,
  type WsScenarioId,
  type WsServer,
  wsBinary,
  wsMeasure,
  wsScenarioIds,
  wsServers,
  wsServes,
} from './lib/ws.ts';

const { values: v } = parseArgs({
  options: { rounds: { type: 'string' }, duration: { type: 'string' }, runs: { type: 'string' } },
});
const only = v.runs?.split(',');
const rounds = Number(v.rounds ?? 3);
const durationS = Number(v.duration ?? 3);
const bin = wsBinary();
if ('failure' in bin) throw new Error(bin.failure);
const built = spawnSync('cargo', ['build', '--release', '-p', 'gale-loadgen', '--examples', '--quiet'], {
  cwd: repoDir,
  stdio: 'inherit',
});
if (built.status !== 0) throw new Error('cargo build --examples failed');
const rust: WsServer = {
  name: 'rust',
  label: 'trivial Rust server',
  launch: (ctx) => ({
    cmd: join(bin.path, '..', 'examples', 'ws-echo-server'),
    args: [String(ctx.port), '--broadcast'],
  }),
  // Not ws-echo-h2: the trivial server has no HTTP/2.
  serves: wsScenarioIds.filter((s) => s !== 'ws-echo-h2'),
};
const servers = [rust, ...wsServers.filter((s) => ['node-http', 'express', 'fastify', 'socketio'].includes(s.name))];
const base: WsOptions = {
  scenarios: [],
  serverNames: [],
  quick: false,
  durationS,
  iterations: 1,
  connections: 100,
  timeoutS: 5,
  serverCpu: 0,
  loadCpu: 1,
  nofile: effectiveOpenFileLimit(65535),
  messages: 100,
};
// Broadcast at a fixed 500 clients: 400 broadcasts one after another, each to every client (200 000 deliveries).
const runs: [string, WsScenarioId, WsOptions][] = [
  ['ws-echo, 100 connections × 100 messages', 'ws-echo', base],
  ['fastws-echo, 100 connections × 100 messages', 'fastws-echo', base],
  // gale-loadgen-ws as the harness runs it (4 events in flight per socket), then deeper, to find its own limit.
  ['sio-echo, 100 sockets × 100 messages, 4 in flight', 'sio-echo', base],
  ['sio-echo, 100 sockets × 100 messages, 16 in flight', 'sio-echo', { ...base, sioEchoInFlight: 16 }],
  // socket.io-client in one worker thread (the client is pinned to one core), as `--sio-client socket.io-client`.
  [
    'sio-echo by socket.io-client, 100 connections × 100 messages',
    'sio-echo',
    { ...base, sioClient: 'socket.io-client' },
  ],
  ['sio-broadcast, 1 000 sockets, 16 in flight', 'sio-broadcast', { ...base, sioClients: 1000 }],
  [
    'ws-broadcast, 500 clients, 400 broadcasts',
    'ws-broadcast',
    { ...base, durationS: 10, step: 500, maxClients: 500, samples: 400 },
  ],
];
const results = new Map<string, WsMeasurement[]>();
const scenarioOf = new Map(runs.map(([what, scenario]) => [what, scenario]));
for (let r = 1; r <= rounds; r++) {
  for (const [what, scenario, o] of runs) {
    if (only && !only.includes(scenario)) continue;
    for (const s of servers.filter((x) => wsServes(x, scenario))) {
      process.stderr.write(`round ${r}/${rounds}: ${what}: ${s.name} …\n`);
      const m = await wsMeasure(o, s, scenario, bin.path);
      if (!m.ok) process.stderr.write(`  FAILED: ${m.failure}\n`);
      const k = `${what}|${s.label}`;
      results.set(k, [...(results.get(k) ?? []), m]);
    }
  }
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const lines = [
  '| run | server | median | best | generator CPU % | server CPU % | generator CPU µs per message | server CPU µs per message |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const [k, ms] of results) {
  const [what, label] = k.split('|');
  const ok = ms.filter((m) => m.ok && m.median?.json);
  if (!ok.length) {
    lines.push(`| ${what} | ${label} | FAILED | | | | | |`);
    continue;
  }
  const its = ok.map((m) => m.iterations[0]).filter((i) => i !== undefined);
  const scenario = scenarioOf.get(what ?? '');
  const echo = scenario !== undefined && isEcho(scenario);
  // sio-broadcast: deliveries/s, and both CPU times over the broadcast phase alone (as the client reads them).
  const sioB = scenario === 'sio-broadcast';
  const val = its.map((i) =>
    echo
      ? (i.json?.echoes_per_s ?? 0)
      : sioB
        ? (i.json?.detail.deliveries_per_s ?? 0)
        : ((i.json?.detail.broadcast_rtt_us as { median: number } | undefined)?.median ?? 0),
  );
  const genS = (i: (typeof its)[number]) =>
    sioB ? (i.json?.detail.client_cpu_s ?? 0) : ((i.toolCpuPct ?? 0) / 100) * (i.json?.duration_s ?? 0);
  const srvS = (i: (typeof its)[number]) => (sioB ? (i.json?.detail.server_cpu_s ?? 0) : (i.serverCpuS ?? 0));
  const cpu = its.map((i) => (sioB ? (i.json?.detail.client_cpu_pct ?? 0) : (i.toolCpuPct ?? 0)));
  const scpu = its.map((i) => (100 * srvS(i)) / (i.json?.duration_s || 1));
  // Per message: an echo or ack (echo runs) or one delivery of a broadcast to one client (deliveries only).
  const perMsg = (cpuS: (i: (typeof its)[number]) => number) =>
    med(
      its.map(
        (i) => (cpuS(i) * 1e6) / Math.max(1, (sioB ? i.json?.detail.deliveries : undefined) ?? i.json?.valid ?? 0),
      ),
    ).toFixed(1);
  const genUs = perMsg(genS);
  const srvUs = perMsg(srvS);
  const fmt = (n: number) =>
    echo ? `${int(n)} echoes/s` : sioB ? `${int(n)} deliveries/s` : `${(n / 1000).toFixed(2)} ms RTT`;
  lines.push(
    `| ${what} | ${label} | ${fmt(med(val))} | ${fmt(echo || sioB ? Math.max(...val) : Math.min(...val))} | ${int(med(cpu))} | ${int(med(scpu))} | ${genUs} | ${srvUs} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
