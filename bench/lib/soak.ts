// `npm run bench -- soak`: does Gale give back what it takes? The demo runs pinned to the server core; after a
// warm-up (a tenth of each part) its RSS and open descriptors are read, then after each part of the soak:
// 1 000 000 keep-alive requests (gale-loadgen, every response validated), 100 000 WebSocket connect → echo → close
// cycles and 10 000 uploads cut off mid-body (bench/lib/soak-client.mjs). Growth over 10 % fails the part.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadgen, loadgenBinary } from './loadgen.ts';
import { allowedCpus, freePort, isRunning, spawnPinned, stop, vmKiB, waitForPort } from './proc.ts';
import { benchDir, repoDir } from './servers.ts';

export interface SoakOptions {
  requests: number;
  wsCycles: number;
  uploads: number;
  out: string;
}

interface Reading {
  rssKiB: number;
  fds: number;
}

interface Part {
  name: string;
  work: string;
  before: Reading;
  after: Reading;
  seconds: number;
  ok: boolean;
  failure: string | null;
}

const LIMIT = 0.1;

function read(pid: number): Reading {
  let fds = 0;
  try {
    fds = readdirSync(`/proc/${pid}/fd`).length;
  } catch {}
  return { rssKiB: vmKiB(pid, 'VmRSS') ?? 0, fds };
}

const growth = (a: number, b: number) => (a === 0 ? 0 : (b - a) / a);

/** Runs the Node soak client (ws | upload) on the load core; resolves its JSON line. */
async function client(
  mode: 'ws' | 'upload',
  port: number,
  count: number,
  cpu: number,
): Promise<{ ok: number; errors: number; firstError: string | null }> {
  const p = spawnPinned(
    process.execPath,
    [join(benchDir, 'lib', 'soak-client.mjs'), mode, String(port), String(count), '50'],
    {
      cpu,
      nofile: 4096,
    },
  );
  const { code } = await p.exited;
  const line = p.stdout().trim().split('\n').pop() ?? '';
  if (code !== 0 || !line) throw new Error(`soak client ${mode} exited ${code}: ${p.stderr().slice(-500)}`);
  return JSON.parse(line);
}

/** Sends `total` validated keep-alive requests with gale-loadgen in runs of a few seconds. */
async function requests(port: number, total: number, cpu: number): Promise<{ sent: number; failure: string | null }> {
  const bin = loadgenBinary();
  if (!bin) return { sent: 0, failure: loadgen.missing() ?? 'gale-loadgen is not built' };
  let sent = 0;
  while (sent < total) {
    const p = spawnPinned(
      bin,
      [
        '--url',
        `http://127.0.0.1:${port}/`,
        '--connections',
        '50',
        '--duration',
        '3',
        '--expect-body',
        '{"hello":"world"}',
      ],
      { cpu, nofile: 4096 },
    );
    const { code } = await p.exited;
    const j = JSON.parse(p.stdout().trim().split('\n').pop() ?? '{}') as {
      ok?: number;
      invalid?: number;
      errors?: unknown;
    };
    if (code !== 0) return { sent, failure: `gale-loadgen: ${p.stdout().slice(-400)} ${p.stderr().slice(-400)}` };
    sent += j.ok ?? 0;
  }
  return { sent, failure: null };
}

export async function runSoak(o: SoakOptions, log: (s: string) => void): Promise<number> {
  const missing = loadgen.missing();
  if (missing) {
    log(missing);
    return 2;
  }
  const cpus = allowedCpus();
  const serverCpu = cpus[0] ?? 0;
  const loadCpu = cpus[1] ?? serverCpu;
  const port = await freePort();
  // The demo `npm start` serves: GET / (hello), POST /stream (streamed echo of the body), /echo (WebSocket).
  const server = spawnPinned(process.execPath, [join(repoDir, 'examples', 'demo', 'server.mjs')], {
    cpu: serverCpu,
    nofile: 65536,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
  });
  const parts: Part[] = [];
  const started = new Date();
  try {
    await waitForPort(server, port, 15_000);
    log(
      `soak: warm-up (a tenth of each part) on ${os.cpus()[0]?.model ?? 'CPU'}, server on core ${serverCpu}, load on ${loadCpu}`,
    );
    await requests(port, o.requests / 10, loadCpu);
    await client('ws', port, o.wsCycles / 10, loadCpu);
    await client('upload', port, o.uploads / 10, loadCpu);
    await new Promise((r) => setTimeout(r, 1000));
    const runPart = async (name: string, work: string, fn: () => Promise<string | null>) => {
      const before = read(server.pid);
      const t0 = Date.now();
      let failure = await fn();
      await new Promise((r) => setTimeout(r, 1000));
      if (!isRunning(server)) failure = `the server exited: ${server.stderr().slice(-500)}`;
      const after = read(server.pid);
      const g = Math.max(growth(before.rssKiB, after.rssKiB), growth(before.fds, after.fds));
      if (failure === null && g > LIMIT) failure = `grew ${(g * 100).toFixed(1)} % (limit ${LIMIT * 100} %)`;
      const part = { name, work, before, after, seconds: (Date.now() - t0) / 1000, ok: failure === null, failure };
      parts.push(part);
      log(
        `soak ${name}: RSS ${before.rssKiB} → ${after.rssKiB} KiB, fds ${before.fds} → ${after.fds} in ${part.seconds.toFixed(1)} s` +
          (failure ? `: FAILED: ${failure}` : ''),
      );
    };
    await runPart('keep-alive requests', `${o.requests.toLocaleString('en')} GET / on 50 connections`, async () => {
      const r = await requests(port, o.requests, loadCpu);
      return r.failure;
    });
    await runPart(
      'WebSocket cycles',
      `${o.wsCycles.toLocaleString('en')} × connect, echo, close (50 at once)`,
      async () => {
        const r = await client('ws', port, o.wsCycles, loadCpu);
        return r.errors ? `${r.errors} failed cycles (first: ${r.firstError})` : null;
      },
    );
    await runPart(
      'aborted uploads',
      `${o.uploads.toLocaleString('en')} × 64 KiB of a 1 MiB POST, then a reset`,
      async () => {
        await client('upload', port, o.uploads, loadCpu);
        return null;
      },
    );
  } finally {
    await stop(server);
  }
  const rows = parts.map(
    (p) =>
      `| ${p.name} | ${p.work} | ${p.before.rssKiB.toLocaleString('en')} → ${p.after.rssKiB.toLocaleString('en')} KiB ` +
      `(${(growth(p.before.rssKiB, p.after.rssKiB) * 100).toFixed(1)} %) | ${p.before.fds} → ${p.after.fds} | ` +
      `${p.seconds.toFixed(1)} s | ${p.ok ? 'ok' : `**FAILED**: ${p.failure}`} |`,
  );
  const md =
    `## soak: memory and descriptors given back\n\n` +
    `Gale (the demo, examples/demo/server.mjs) on core ${serverCpu}, clients on core ${loadCpu}; warm-up of a tenth of each part ` +
    `first; readings 1 s after each part. ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, ` +
    `${started.toISOString().slice(0, 10)}. Goal: ≤ ${LIMIT * 100} % growth.\n\n` +
    `| part | work | server RSS | open fds | time | result |\n|---|---|---|---|---:|---|\n${rows.join('\n')}\n`;
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, 'soak.md'), md);
  writeFileSync(
    join(o.out, 'soak.json'),
    `${JSON.stringify({ started, node: process.version, repo: repoDir, parts }, null, 1)}\n`,
  );
  process.stdout.write(`\n${md}\nwritten to ${join(o.out, 'soak.md')}\n`);
  return parts.length === 3 && parts.every((p) => p.ok) ? 0 : 1;
}
