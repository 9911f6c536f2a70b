// Instructions per request of a server, counted by Valgrind's callgrind over an exact number of requests after a
// warm-up: a figure that does not move with the machine's noise (CPU time on a shared VM moves ±10 % run to run), for
// before/after comparisons of hot-path changes. User-space instructions of the server process only (no kernel, no
// load tool); JIT code included (--smc-check=all-non-file). Needs valgrind (apt-get install -y valgrind).
// Run: node --import tsx bench/instructions.ts --app <server.mjs> [--path /] [--requests 20000] [--pipeline 16]
//      [--connections 16] [--rounds 1] [--keep <file>]   (the app listens on $PORT; e.g. GALE_IMPL=… picks a build in an A/B app;
//      `{n}` in --path numbers the requests, so each differs: --path '/u/{n}'; --keep saves the counted window's
//      callgrind file, for `callgrind_annotate --inclusive=yes <file>`)
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { drive } from './lib/drive.ts';
import { freePort } from './lib/proc.ts';

const { values: v } = parseArgs({
  options: {
    app: { type: 'string' },
    path: { type: 'string', default: '/' },
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '20000' },
    pipeline: { type: 'string', default: '16' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '1' },
    keep: { type: 'string' },
  },
});
if (v.app === undefined) throw new Error('instructions: --app <server file> is required');
if (spawnSync('valgrind', ['--version']).status !== 0) {
  throw new Error('instructions: valgrind is not installed: apt-get install -y valgrind');
}
const requests = Number(v.requests);
const shape = { path: v.path as string, connections: Number(v.connections), pipeline: Number(v.pipeline) };

const listening = async (port: number, until: number): Promise<void> => {
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => r(s.destroy() !== undefined));
      s.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('instructions: the app did not listen within 120 s');
};

async function once(): Promise<number> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gale-instr-'));
  const out = join(dir, 'callgrind.out');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file', // V8 writes and rewrites its JIT code
      '--instr-atstart=no', // the start and warm-up run uninstrumented (fast); counting is switched on below
      `--callgrind-out-file=${out}`,
      process.execPath,
      resolve(v.app as string),
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' },
  );
  try {
    await listening(port, Date.now() + 120_000);
    await drive({ port, requests: Number(v.warmup), ...shape });
    const control = (arg: string) => spawnSync('callgrind_control', [arg, String(child.pid)], { stdio: 'ignore' });
    control('--instr=on');
    const answered = await drive({ port, requests, ...shape });
    control('--instr=off');
    control('--dump');
    if (answered !== requests) throw new Error(`instructions: ${answered} of ${requests} answered`);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    // The dump holds the counted window; the file written at exit holds nothing after --instr=off.
    let most = 0;
    let mostFile = '';
    for (const f of readdirSync(dir)) {
      const m = /^totals:\s+(\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
      if (m && Number(m[1]) > most) {
        most = Number(m[1]);
        mostFile = join(dir, f);
      }
    }
    if (v.keep !== undefined && mostFile !== '') copyFileSync(mostFile, v.keep);
    return most / requests;
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = 0; r < Number(v.rounds); r++) {
  const perRequest = await once();
  console.log(
    `${v.app} ${v.path} ×${shape.pipeline}: ${Math.round(perRequest)} instructions per request (${requests} requests)`,
  );
}
