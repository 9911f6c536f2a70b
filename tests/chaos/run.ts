// `npm run chaos -- --minutes 30 [--seed N] [--record]`: builds the engine with debug assertions (cargo profile
// `chaos`), runs the live fuzzer against the demo for the given time, prints the result and, with --record,
// appends it to tests/chaos/RUNS.md and writes the full JSON to tests/chaos/runs/.
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChaosResult, runChaos } from './runner.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

/**
 * Builds the chaos-profile addon and returns a loadable copy of it (require() wants a .node name) in the temp dir,
 * and `remove()`, to call once the fuzzer is done with it (the demo loads it again each time it restarts).
 */
export function buildChaosAddon(): { path: string; remove(): void } {
  const b = spawnSync('cargo', ['build', '--profile', 'chaos', '-p', 'gale-node'], { cwd: root, stdio: 'inherit' });
  if (b.error || b.status !== 0)
    throw new Error('cargo build --profile chaos -p gale-node failed (is Rust installed?)');
  const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
  const out = join(tmpdir(), `gale-chaos-${process.pid}.node`);
  copyFileSync(join(target, 'chaos', 'libgale_node.so'), out);
  return { path: out, remove: () => rmSync(out, { force: true }) };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const minutes = Number(arg('minutes') ?? 1);
  const seed = Number(arg('seed') ?? Date.now() % 1_000_000);
  const addon = buildChaosAddon();
  const started = new Date().toISOString();
  console.log(`chaos: seed ${seed}, ${minutes} min, engine built with debug assertions (${addon.path})`);
  let r: ChaosResult;
  try {
    r = await runChaos({
      durationMs: minutes * 60_000,
      seed,
      native: addon.path,
      findingsDir: join(here, 'findings'),
      log: (l) => console.log(`chaos: ${l}`),
    });
  } finally {
    addon.remove();
  }
  console.log(JSON.stringify(r, null, 1));
  if (process.argv.includes('--record')) {
    mkdirSync(join(here, 'runs'), { recursive: true });
    const name = `${started.slice(0, 10)}-seed${seed}.json`;
    writeFileSync(join(here, 'runs', name), `${JSON.stringify({ started, node: process.version, ...r }, null, 1)}\n`);
    const row =
      `| ${started.slice(0, 16).replace('T', ' ')} | ${seed} | ${(r.durationMs / 60_000).toFixed(1)} min | ${r.sessions} ` +
      `(${r.httpSessions} HTTP, ${r.wsSessions} WS, ${r.seedSessions} seeds) | ${r.batches} | ${(r.bytesSent / 1e6).toFixed(0)} MB | ` +
      `${r.findings.length} | ${r.server.rssStartKiB} → ${r.server.rssEndKiB} KiB, ${r.server.fdsStart} → ${r.server.fdsEnd} fds | [json](runs/${name}) |\n`;
    appendFileSync(join(here, 'RUNS.md'), row);
  }
  process.exit(r.findings.length ? 1 : 0);
}
