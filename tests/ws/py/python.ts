// Python's `websockets` client for the interop tests (tests/ws/python.test.ts, tests/tls): Debian's
// python3-websockets when installed, and a pinned PyPI version always (installed once, into the cache folder).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../../scripts/cache-dir.mjs';

/** A Python that can import websockets, and the environment it needs. */
export interface Python {
  python: string;
  env: NodeJS.ProcessEnv;
}

const script = join(dirname(fileURLToPath(import.meta.url)), 'client.py');

/** The PyPI version installed when no Python here has `websockets` (Debian's python3-websockets is 10.x). */
export const PINNED = '17.4';

/** Debian's python3-websockets when installed (the legacy client API), else null. */
export function systemPython(): Python | null {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import websockets'], { stdio: 'ignore' });
  return r.status === 0 ? { python: '/usr/bin/python3', env: process.env } : null;
}

/** websockets==PINNED from PyPI (the asyncio client API), installed once into the cache folder. */
export function pinnedPython(): Python {
  const target = cacheDir(`pyws-${PINNED}`);
  const env = { ...process.env, PYTHONPATH: target };
  if (spawnSync('python3', ['-c', 'import websockets'], { env, stdio: 'ignore' }).status !== 0) {
    mkdirSync(cacheDir(), { recursive: true });
    const staging = mkdtempSync(cacheDir('pyws-staging-'));
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', staging, `websockets==${PINNED}`], {
      stdio: 'inherit',
      timeout: 120_000,
    });
    // A rename is atomic: a parallel run never sees a half-installed folder.
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return { python: 'python3', env };
}

/** Runs client.py with `args` (url, mode[, ca]); resolves its JSON line, rejects with its stderr. */
export function runClient({ python, env }: Python, args: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(python, [script, ...args], { env, timeout: 50_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code: number) =>
      code === 0 ? resolve(stdout) : reject(new Error(`python exited ${code}: ${stderr}`)),
    );
  });
}
