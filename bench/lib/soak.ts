// `npm run bench -- soak`: does Gale give back what it takes? The demo runs pinned to the server core; after a
// warm-up (the same part run once before, right before it) its RSS and open descriptors are read, then again after the part,
// once the server has closed what the clients left (its open fds back to the count before, at most 15 s) and 1 s more:
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
/**
 * The warm-up's share of each part: all of it, run once before the measured run. It must reach the steady state: the
 * aborted uploads' 64 KiB body chunks are dead as soon as the handler threw, but V8 collects them only once enough
 * such external memory piled up. Measured in one server after 1 000 warm-up uploads: RSS 87 → 211 MiB over the next
 * 10 000, then 224, 221 and 214 MiB after three more 10 000 (flat); a quarter (2 500) left it at 105 → 147 MiB.
 */
const WARM_UP = 1;
/** How long to wait for the server to close the connections a part left before reading it. */
const SETTLE_MS = 15_000;

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
      `soak: each part after its own warm-up (the part run once) on ${os.cpus()[0]?.model ?? 'CPU'}, server on core ${serverCpu}, load on ${loadCpu}`,
    );
    /** Waits until the server has closed what the clients left (its fds back to `fds`, at most SETTLE_MS), then 1 s. */
    const settle = async (fds: number) => {
      const until = Date.now() + SETTLE_MS;
      while (Date.now() < until && read(server.pid).fds > fds) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1000));
    };
    const baseFds = read(server.pid).fds;
    // Each part's warm-up runs right before it, so its reading starts from that workload's steady state (a part
    // before it may have let V8 collect what this one keeps pending).
    const runPart = async (name: string, work: string, fn: (scale: number) => Promise<string | null>) => {
      await fn(WARM_UP);
      await settle(baseFds);
      const before = read(server.pid);
      const t0 = Date.now();
      let failure = await fn(1);
      // The clients are gone, but the server may still be taking their last connections from the backlog.
      await settle(before.fds);
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
    await runPart('keep-alive requests', `${o.requests.toLocaleString('en')} GET / on 50 connections`, async (k) => {
      const r = await requests(port, o.requests * k, loadCpu);
      return r.failure;
    });
    await runPart(
      'WebSocket cycles',
      `${o.wsCycles.toLocaleString('en')} × connect, echo, close (50 at once)`,
      async (k) => {
        const r = await client('ws', port, Math.round(o.wsCycles * k), loadCpu);
        return r.errors ? `${r.errors} failed cycles (first: ${r.firstError})` : null;
      },
    );
    await runPart(
      'aborted uploads',
      `${o.uploads.toLocaleString('en')} × 64 KiB of a 1 MiB POST, then a reset`,
      async (k) => {
        await client('upload', port, Math.round(o.uploads * k), loadCpu);
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
    `Gale (the demo, examples/demo/server.mjs) on core ${serverCpu}, clients on core ${loadCpu}; each part after its own warm-up ` +
    `(the part run once unmeasured); readings once the server's open fds are back to the count before the part (at most 15 s), plus 1 s. ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, ` +
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
