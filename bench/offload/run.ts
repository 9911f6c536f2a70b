// `npm run bench:h3-offload`: what UDP segmentation offload (GSO for sends, GRO for receives) is worth to Gale's
// HTTP/3: bulk downloads and uploads over loopback with http3.segmentationOffload on and off, side by side in one run
// (the order alternating per trial), server pinned to core 0 and gale-loadgen-h3 to core 1. Reports MiB/s and the
// server's CPU milliseconds per MiB moved. Options: --trials N (3), --seconds S (5), --size KIB (1024).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cargoTool, type LoadgenJson, lastJsonLine } from '../lib/loadgen.ts';
import { allowedCpus, atExit, cpuSeconds, freePort, spawnPinned, stop, waitForPort } from '../lib/proc.ts';
import { benchCert } from '../lib/secure.ts';

const { values: v } = parseArgs({
  options: {
    trials: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    size: { type: 'string', default: '1024' },
  },
});
const trials = Number(v.trials);
const seconds = Number(v.seconds);
const size = Number(v.size) * 1024;
const MiB = 1024 * 1024;

const tool = cargoTool('gale-loadgen-h3', 'tool');
const problem = tool.build();
if (problem) {
  console.error(`bench:h3-offload: ${problem}`);
  process.exit(2);
}
const bin = tool.binary() as string;
const cpus = allowedCpus();
const [serverCpu, loadCpu] = [cpus[0], cpus[1] ?? cpus[0]];
const cert = benchCert();
const dir = mkdtempSync(join(tmpdir(), 'gale-h3-offload-'));
atExit(() => rmSync(dir, { recursive: true, force: true }));
const bodyPath = join(dir, 'body');
writeFileSync(bodyPath, Buffer.alloc(size, 'gale http/3 offload '));

type Direction = 'download' | 'upload';
interface Sample {
  mibPerSec: number;
  cpuMsPerMiB: number;
  p99Ms: number;
}
const samples = new Map<string, Sample[]>();
let offload: LoadgenJson['udp_offload'];

async function measure(on: boolean): Promise<void> {
  const port = await freePort();
  const server = spawnPinned(process.execPath, [join(import.meta.dirname, '..', 'apps', 'h3-offload.mjs')], {
    cpu: serverCpu,
    nofile: 20_000,
    env: {
      ...process.env,
      PORT: String(port),
      NODE_ENV: 'production',
      BENCH_SIZE: String(size),
      BENCH_H3_OFFLOAD: on ? '1' : '0',
      BENCH_TLS_CERT: cert.certPath,
      BENCH_TLS_KEY: cert.keyPath,
    },
  });
  try {
    await waitForPort(server, port, 10_000);
    for (const direction of ['download', 'upload'] as Direction[]) {
      const args = [
        '--url',
        `https://127.0.0.1:${port}/${direction}`,
        '--ca',
        cert.certPath,
        '--connections',
        '4',
        '--streams',
        '2',
        '--duration',
        String(seconds),
        '--timeout',
        '20',
        ...(direction === 'download'
          ? ['--expect-body-file', bodyPath]
          : ['--method', 'POST', '--body-file', bodyPath, '--expect-body', String(size)]),
      ];
      const before = cpuSeconds(server.pid);
      const load = spawnPinned(bin, args, { cpu: loadCpu, nofile: 20_000 });
      const { code } = await load.exited;
      const after = cpuSeconds(server.pid);
      const j = lastJsonLine(load.stdout());
      if (!j || before === null || after === null)
        throw new Error(`${direction}: no result (exit ${code}): ${load.stderr()}`);
      if (code !== 0)
        throw new Error(`${direction}: invalid responses or errors: ${JSON.stringify(j)} ${load.stderr()}`);
      offload = j.udp_offload;
      const moved = (j.requests * size) / MiB;
      const key = `${direction} ${on ? 'on' : 'off'}`;
      samples.set(key, [
        ...(samples.get(key) ?? []),
        {
          mibPerSec: moved / j.duration_s,
          cpuMsPerMiB: ((after - before) * 1000) / moved,
          p99Ms: j.latency_us.p99 / 1000,
        },
      ]);
      process.stderr.write(`${key}: ${(moved / j.duration_s).toFixed(0)} MiB/s\n`);
    }
  } finally {
    await stop(server);
  }
}

for (let t = 0; t < trials; t++) for (const on of t % 2 === 0 ? [true, false] : [false, true]) await measure(on);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (key: string) => {
  const s = samples.get(key) ?? [];
  return {
    mibPerSec: median(s.map((x) => x.mibPerSec)),
    cpuMsPerMiB: median(s.map((x) => x.cpuMsPerMiB)),
    p99Ms: median(s.map((x) => x.p99Ms)),
  };
};
console.log(
  `\nGale HTTP/3, ${size / 1024} KiB bodies, 4 connections × 2 streams, ${seconds} s × ${trials} trials (medians); ` +
    `kernel UDP offload on loopback: ${JSON.stringify(offload)}\n`,
);
console.log('| direction | offload | MiB/s | server CPU ms per MiB | p99 ms |');
console.log('|---|---|---:|---:|---:|');
for (const d of ['download', 'upload'] as Direction[]) {
  const on = row(`${d} on`);
  const off = row(`${d} off`);
  for (const [label, r] of [
    ['on (GSO+GRO)', on],
    ['off', off],
  ] as const)
    console.log(
      `| ${d} | ${label} | ${r.mibPerSec.toFixed(0)} | ${r.cpuMsPerMiB.toFixed(2)} | ${r.p99Ms.toFixed(1)} |`,
    );
  console.log(
    `| ${d} | on ÷ off | ${(on.mibPerSec / off.mibPerSec).toFixed(2)}× | ${(on.cpuMsPerMiB / off.cpuMsPerMiB).toFixed(2)}× | |`,
  );
}
