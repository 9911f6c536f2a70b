// `npm run bench -- scale`: what gale.cluster() buys on this machine. (1) The demo's hello route with 1 and with 2
// workers (WORKERS=n, one port, SO_REUSEPORT) under gale-loadgen: req/s, the server processes' CPU per request and
// req/s per core of server CPU. Nothing is pinned: the workers and the load client share the machine's cores.
// (2) Broadcast delivery latency between two instances through Redis: the demo's /broadcast on instance A reaching
// sockets on instance B (GALE_PUBSUB=redis://…), p50/p99, next to A's local delivery (bench/lib/scale-client.mjs).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadgen, loadgenBinary } from './loadgen.ts';
import { commandExists, cpuSeconds, freePort, type Pinned, spawnPinned, stop, waitForPort } from './proc.ts';
import { benchDir, repoDir } from './servers.ts';

export interface ScaleOptions {
  /** Counted seconds per throughput run. */
  durationS: number;
  connections: number;
  /** Broadcasts measured. */
  samples: number;
  /** Sockets per instance in the latency part. */
  subs: number;
  out: string;
}

interface Throughput {
  workers: number;
  rps: number;
  requests: number;
  serverCpuPct: number;
  cpuUsPerReq: number;
  rpsPerCore: number;
  clientCpuPct: number;
  p99Us: number;
  failure: string | null;
}

const CPUS = () => Array.from({ length: os.cpus().length }, (_, i) => i).join(',');

/** Starts the demo as a cluster of `workers`; resolves with the primary and the worker pids once all listen. */
async function startDemo(
  workers: number,
  port: number,
  env: Record<string, string> = {},
): Promise<{ proc: Pinned; pids: number[] }> {
  const proc = spawnPinned(process.execPath, [join(repoDir, 'examples', 'demo', 'server.mjs')], {
    cpu: CPUS(),
    nofile: 65536,
    env: {
      ...process.env,
      WORKERS: String(workers),
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      ...env,
    },
  });
  await waitForPort(proc, port, 30_000);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pids = [
      ...(proc.stdout() + proc.stderr()).matchAll(/worker \d+ \(pid (\d+), generation \d+\) listening/g),
    ].map((m) => Number(m[1]));
    if (pids.length >= workers) return { proc, pids };
    if (Date.now() > deadline)
      throw new Error(`only ${pids.length} of ${workers} workers listened: ${proc.stderr().slice(-500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (cpuSeconds(p) ?? 0), 0);

async function throughput(workers: number, o: ScaleOptions): Promise<Throughput> {
  const port = await freePort();
  const { proc, pids } = await startDemo(workers, port);
  const server = [proc.pid, ...pids];
  try {
    const bin = loadgenBinary() as string;
    const args = [
      '--url',
      `http://127.0.0.1:${port}/`,
      '--connections',
      String(o.connections),
      '--expect-body',
      '{"hello":"world"}',
    ];
    // Warm-up (JIT, caches), not counted.
    await spawnPinned(bin, [...args, '--duration', '1'], { cpu: CPUS(), nofile: 65536 }).exited;
    const before = cpuOf(server);
    const t0 = process.hrtime.bigint();
    const lg = spawnPinned(bin, [...args, '--duration', String(o.durationS)], { cpu: CPUS(), nofile: 65536 });
    let clientCpu = 0;
    const sample = setInterval(() => {
      clientCpu = cpuSeconds(lg.pid) ?? clientCpu;
    }, 100);
    await lg.exited;
    clearInterval(sample);
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const used = cpuOf(server) - before;
    const line = lg.stdout().trim().split('\n').pop() ?? '';
    const j = JSON.parse(line.startsWith('{') ? line : '{}') as {
      requests?: number;
      rps?: number;
      invalid?: number;
      errors?: Record<string, number>;
      latency_us?: { p99: number };
    };
    const errors = Object.values(j.errors ?? {}).reduce((a, b) => a + b, 0);
    const requests = j.requests ?? 0;
    const rps = j.rps ?? 0;
    // The counted run is `durationS` of the wall time measured here (which also covers opening the connections).
    const serverCpuPct = (100 * used) / wall;
    return {
      workers,
      rps,
      requests,
      serverCpuPct,
      cpuUsPerReq: requests > 0 ? (used * 1e6) / (rps * wall) : 0,
      rpsPerCore: serverCpuPct > 0 ? rps / (serverCpuPct / 100) : 0,
      clientCpuPct: (100 * clientCpu) / wall,
      p99Us: j.latency_us?.p99 ?? 0,
      failure:
        requests === 0
          ? `gale-loadgen: ${lg.stdout().slice(-300)} ${lg.stderr().slice(-300)}`
          : errors || j.invalid
            ? `${errors} errors, ${j.invalid} invalid`
            : null,
    };
  } finally {
    await stop(proc, 8000);
  }
}

interface Latency {
  n: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function latency(o: ScaleOptions): Promise<{ remote: Latency; local: Latency } | { failure: string }> {
  if (!commandExists('redis-server'))
    return { failure: 'redis-server is not installed (apt-get install redis-server)' };
  const rport = await freePort();
  const redis = spawnPinned(
    'redis-server',
    ['--port', String(rport), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      cpu: CPUS(),
      nofile: 4096,
    },
  );
  const started: Pinned[] = [redis];
  try {
    await waitForPort(redis, rport, 10_000);
    const env = { GALE_PUBSUB: `redis://127.0.0.1:${rport}` };
    const [pa, pb] = [await freePort(), await freePort()];
    const a = await startDemo(1, pa, env);
    started.push(a.proc);
    const b = await startDemo(1, pb, env);
    started.push(b.proc);
    const client = spawnPinned(
      process.execPath,
      [join(benchDir, 'lib', 'scale-client.mjs'), String(pa), String(pb), String(o.subs), String(o.samples)],
      { cpu: CPUS(), nofile: 65536 },
    );
    const { code } = await client.exited;
    const line = client.stdout().trim().split('\n').pop() ?? '';
    if (code !== 0 || !line.startsWith('{'))
      return { failure: `scale client exited ${code}: ${client.stderr().slice(-500)}` };
    return JSON.parse(line);
  } finally {
    for (const p of started.reverse()) await stop(p, 8000);
  }
}

export async function runScale(o: ScaleOptions, log: (s: string) => void): Promise<number> {
  const missing = loadgen.missing();
  if (missing) {
    log(missing);
    return 2;
  }
  const started = new Date();
  const cpu = os.cpus();
  log(
    `scale: ${cpu.length} cores (${cpu[0]?.model}), nothing pinned: the server workers and the load client share them`,
  );
  const rows: Throughput[] = [];
  for (const workers of [1, 2]) {
    const t = await throughput(workers, o);
    rows.push(t);
    log(
      `scale: ${workers} worker(s): ${Math.round(t.rps).toLocaleString('en')} req/s, server CPU ${t.serverCpuPct.toFixed(0)} % ` +
        `(${t.cpuUsPerReq.toFixed(2)} µs/req), client ${t.clientCpuPct.toFixed(0)} %${t.failure ? `: FAILED: ${t.failure}` : ''}`,
    );
  }
  const lat = await latency(o);
  if ('failure' in lat) log(`scale: broadcast latency FAILED: ${lat.failure}`);
  else
    log(
      `scale: broadcast A → B through Redis: p50 ${lat.remote.p50Ms.toFixed(3)} ms, p99 ${lat.remote.p99Ms.toFixed(3)} ms`,
    );

  const table = rows
    .map(
      (r) =>
        `| ${r.workers} | ${Math.round(r.rps).toLocaleString('en')} | ${r.serverCpuPct.toFixed(0)} % | ${r.cpuUsPerReq.toFixed(2)} | ` +
        `${Math.round(r.rpsPerCore).toLocaleString('en')} | ${r.clientCpuPct.toFixed(0)} % | ${r.p99Us} | ${r.failure ? `**FAILED**: ${r.failure}` : 'ok'} |`,
    )
    .join('\n');
  const latMd =
    'failure' in lat
      ? `**FAILED**: ${lat.failure}\n`
      : `| delivery | samples | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n` +
        `| instance A → sockets on B (through Redis) | ${lat.remote.n} | ${lat.remote.p50Ms.toFixed(3)} ms | ${lat.remote.p99Ms.toFixed(3)} ms | ${lat.remote.maxMs.toFixed(3)} ms |\n` +
        `| instance A → its own sockets (local) | ${lat.local.n} | ${lat.local.p50Ms.toFixed(3)} ms | ${lat.local.p99Ms.toFixed(3)} ms | ${lat.local.maxMs.toFixed(3)} ms |\n`;
  const md =
    `## scale: workers on one port, broadcasts across instances\n\n` +
    `${cpu.length} cores (${cpu[0]?.model}), Node ${process.version}, ${started.toISOString().slice(0, 10)}. ` +
    `The demo (examples/demo/server.mjs) with WORKERS=n on one port; gale-loadgen, ${o.connections} keep-alive connections, ` +
    `${o.durationS} s after a 1 s warm-up, GET / → {"hello":"world"}. **Nothing is pinned: the workers and the load client ` +
    `share the ${cpu.length} cores**, so two workers cannot double the rate here; server CPU is the primary's and the ` +
    `workers' utime+stime (100 % = one core), and req/s per core = req/s ÷ (server CPU / 100 %).\n\n` +
    `| workers | req/s | server CPU | CPU µs/req | req/s per server core | client CPU | p99 µs | result |\n` +
    `|---:|---:|---:|---:|---:|---:|---:|---|\n${table}\n\n` +
    `Broadcast latency: two instances of the demo (1 worker each, GALE_PUBSUB=redis://…), ${o.subs} sockets on each ` +
    `/broadcast, one broadcast at a time from a socket on A; latency from the send to each socket's receipt, measured ` +
    `in one client process.\n\n${latMd}`;
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, 'scale.md'), md);
  writeFileSync(
    join(o.out, 'scale.json'),
    `${JSON.stringify({ started, node: process.version, rows, latency: lat }, null, 1)}\n`,
  );
  process.stdout.write(`\n${md}\nwritten to ${join(o.out, 'scale.md')}\n`);
  return rows.every((r) => r.failure === null) && !('failure' in lat) ? 0 : 1;
}
