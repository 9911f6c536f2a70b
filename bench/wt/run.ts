// `npm run bench:wt`: WebTransport echo over streams and over datagrams beside WebSocket echo, on one Gale process
// (bench/apps/wt-echo.mjs) pinned to core 0, the load tools on core 1: gale-loadgen-h3 --mode wt-stream/wt-datagram
// (Rust: quinn + h3) and gale-loadgen-ws --mode echo. Every worker keeps one message in flight and every echo is
// checked byte for byte. Reports messages/s and the server's CPU µs per message (utime+stime ÷ echoes), medians over
// the trials, the scenarios' order rotating per trial. Options: --trials N (3), --seconds S (5), --size BYTES (1024),
// --workers N (32: WebSocket connections; WebTransport 4 connections × N/4 streams or datagram workers).
import { parseArgs } from 'node:util';
import { cargoTool, lastJsonLine } from '../lib/loadgen.ts';
import { allowedCpus, cpuSeconds, freePort, spawnPinned, stop, waitForPort } from '../lib/proc.ts';
import { benchCert } from '../lib/secure.ts';
import { wsBinary } from '../lib/ws.ts';

const { values: v } = parseArgs({
  options: {
    trials: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    size: { type: 'string', default: '1024' },
    workers: { type: 'string', default: '32' },
  },
});
const [trials, seconds, size, workers] = [v.trials, v.seconds, v.size, v.workers].map(Number) as number[];
const conns = 4;

const h3 = cargoTool('gale-loadgen-h3', 'tool');
const problem = h3.build();
const ws = wsBinary();
if (problem || 'failure' in ws) {
  console.error(`bench:wt: ${problem ?? (ws as { failure: string }).failure}`);
  process.exit(2);
}
const bins = { h3: h3.binary() as string, ws: ws.path };
const cpus = allowedCpus();
const [serverCpu, loadCpu] = [cpus[0], cpus[1] ?? cpus[0]];
const cert = benchCert();

type Scenario = 'ws-echo' | 'wt-stream' | 'wt-datagram';
const SCENARIOS: Scenario[] = ['ws-echo', 'wt-stream', 'wt-datagram'];
interface Sample {
  perSec: number;
  cpuUs: number;
  p50Ms: number;
  lost: number;
  /** The server's CPU time over the run ÷ its length: near 100 % it was the limit, below it the load tool was. */
  serverPct: number;
}
const samples = new Map<Scenario, Sample[]>();

function argsOf(s: Scenario, port: number, wsPort: number): [string, string[]] {
  if (s === 'ws-echo') {
    const a = ['--mode', 'echo', '--url', `ws://127.0.0.1:${wsPort}/echo`, '--connections', String(workers)];
    return [bins.ws, [...a, '--messages', '1000000', '--size', String(size), '--duration', String(seconds)]];
  }
  const a = ['--mode', s, '--url', `https://127.0.0.1:${port}/echo`, '--ca', cert.certPath, '--size', String(size)];
  const load = ['--connections', String(conns), '--streams', String(workers / conns), '--duration', String(seconds)];
  return [bins.h3, [...a, ...load, '--timeout', '2']];
}

async function trial(order: Scenario[]): Promise<void> {
  const [port, wsPort] = [await freePort(), await freePort()];
  const app = new URL('../apps/wt-echo.mjs', import.meta.url).pathname;
  const server = spawnPinned(process.execPath, [app], {
    cpu: serverCpu,
    nofile: 20_000,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      WS_PORT: String(wsPort),
      BENCH_TLS_CERT: cert.certPath,
      BENCH_TLS_KEY: cert.keyPath,
    },
  });
  try {
    await waitForPort(server, wsPort, 10_000);
    for (const s of order) {
      const [bin, args] = argsOf(s, port, wsPort);
      const before = cpuSeconds(server.pid);
      const load = spawnPinned(bin, args, { cpu: loadCpu, nofile: 20_000 });
      const { code } = await load.exited;
      const after = cpuSeconds(server.pid);
      const j = lastJsonLine(load.stdout()) as Record<string, unknown> | null;
      if (!j || before === null || after === null) throw new Error(`${s}: no result (exit ${code}): ${load.stderr()}`);
      if (code !== 0) throw new Error(`${s}: failed (exit ${code}): ${JSON.stringify(j)} ${load.stderr()}`);
      // gale-loadgen-ws reports echoes; gale-loadgen-h3 reports each echo as a valid "request".
      const n = Number(s === 'ws-echo' ? j.echoes : j.ok);
      const secs = Number(j.duration_s);
      const lat = (s === 'ws-echo' ? j.echo_us : j.latency_us) as Record<string, number> | undefined;
      const p50Ms = Number(s === 'ws-echo' ? lat?.median : lat?.p50) / 1000;
      const cpu = after - before;
      const sample = {
        perSec: n / secs,
        cpuUs: (cpu * 1e6) / n,
        p50Ms,
        lost: Number(j.lost ?? 0),
        serverPct: (cpu / secs) * 100,
      };
      samples.set(s, [...(samples.get(s) ?? []), sample]);
      process.stderr.write(`${s}: ${sample.perSec.toFixed(0)}/s, ${sample.cpuUs.toFixed(2)} µs CPU each\n`);
    }
  } finally {
    await stop(server);
  }
}

for (let t = 0; t < trials; t++) await trial([...SCENARIOS.slice(t % 3), ...SCENARIOS.slice(0, t % 3)]);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const row = (s: Scenario) => {
  const xs = samples.get(s) ?? [];
  return {
    perSec: median(xs.map((x) => x.perSec)),
    cpuUs: median(xs.map((x) => x.cpuUs)),
    p50Ms: median(xs.map((x) => x.p50Ms)),
    lost: xs.reduce((a, x) => a + x.lost, 0),
    serverPct: median(xs.map((x) => x.serverPct)),
  };
};
const wsRow = row('ws-echo');
console.log(
  `\nGale ${process.version}: ${size}-byte echoes, ${workers} workers one message in flight each (WebTransport: ` +
    `${conns} connections × ${workers / conns}), ${seconds} s × ${trials} trials, medians; server on core ${serverCpu}\n`,
);
console.log(
  '| scenario | messages/s | server CPU µs per message | vs WebSocket (CPU) | server CPU % | p50 ms | datagrams lost |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const s of SCENARIOS) {
  const r = row(s);
  const vs = s === 'ws-echo' ? '1.00×' : `${(r.cpuUs / wsRow.cpuUs).toFixed(2)}×`;
  const lost = s === 'wt-datagram' ? String(r.lost) : '';
  const pct = r.serverPct.toFixed(0);
  console.log(
    `| ${s} | ${r.perSec.toFixed(0)} | ${r.cpuUs.toFixed(2)} | ${vs} | ${pct} | ${r.p50Ms.toFixed(2)} | ${lost} |`,
  );
}
