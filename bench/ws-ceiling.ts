// gale-loadgen-ws's own ceiling: the same runs against a trivial Rust WebSocket server
// (loadgen/examples/ws-echo-server.rs, one thread; it speaks fast-ws and, at the frame level, Engine.IO/Socket.IO
// too) and against the Node apps (sio-echo: the Socket.IO client against it and against Socket.IO on node:http), interleaved over rounds, server pinned to
// core 0 and generator to core 1. If the generator drives the trivial server much faster than any Node server, it is
// not what limits the Node figures. Usage: node --import tsx bench/ws-ceiling.ts [--rounds 3] [--duration 3]
// [--runs ws-echo,fastws-echo,ws-broadcast] (a subset of the runs)
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
  serves: wsScenarioIds,
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
  // socket.io-client in one worker thread (the client is pinned to one core), as the harness runs it.
  ['sio-echo, 100 connections × 100 messages', 'sio-echo', base],
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
  const val = its.map((i) =>
    echo
      ? (i.json?.echoes_per_s ?? 0)
      : ((i.json?.detail.broadcast_rtt_us as { median: number } | undefined)?.median ?? 0),
  );
  const cpu = its.map((i) => i.toolCpuPct ?? 0);
  const scpu = its.map((i) => (100 * (i.serverCpuS ?? 0)) / (i.json?.duration_s || 1));
  // Per message: an echo (echo runs) or one delivery of a broadcast to one client (every valid message counts).
  const perMsg = (cpuS: (i: (typeof its)[number]) => number) =>
    med(its.map((i) => (cpuS(i) * 1e6) / Math.max(1, i.json?.valid ?? 0))).toFixed(1);
  const genUs = perMsg((i) => ((i.toolCpuPct ?? 0) / 100) * (i.json?.duration_s ?? 0));
  const srvUs = perMsg((i) => i.serverCpuS ?? 0);
  const fmt = (n: number) => (echo ? `${int(n)} echoes/s` : `${(n / 1000).toFixed(2)} ms RTT`);
  lines.push(
    `| ${what} | ${label} | ${fmt(med(val))} | ${fmt(echo ? Math.max(...val) : Math.min(...val))} | ${int(med(cpu))} | ${int(med(scpu))} | ${genUs} | ${srvUs} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
