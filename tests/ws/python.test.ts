// Interop with a second independent client: Python's `websockets` library (Debian python3-websockets, or
// installed from PyPI into a temporary directory when no Python on this machine has it).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { withApp } from '../helpers.js';

/** The PyPI version installed when no Python here has `websockets` (Debian's python3-websockets is 10.x). */
const PINNED = '17.4';
const script = join(dirname(fileURLToPath(import.meta.url)), 'py', 'client.py');

/** Debian's python3-websockets when installed (the legacy client API), else null. */
function systemPython(): { python: string; env: NodeJS.ProcessEnv } | null {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import websockets'], { stdio: 'ignore' });
  return r.status === 0 ? { python: '/usr/bin/python3', env: process.env } : null;
}

/** websockets==PINNED from PyPI (the asyncio client API), installed once per machine into a fixed folder. */
function pinnedPython(): { python: string; env: NodeJS.ProcessEnv } {
  const target = join(tmpdir(), `gale-pyws-${PINNED}`);
  const env = { ...process.env, PYTHONPATH: target };
  if (spawnSync('python3', ['-c', 'import websockets'], { env, stdio: 'ignore' }).status !== 0) {
    const staging = mkdtempSync(join(tmpdir(), 'gale-pyws-staging-'));
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

// Both client generations when this machine has Debian's; the pinned PyPI one always (a fresh machine without
// python3-websockets must pass too).
const clients: [string, () => { python: string; env: NodeJS.ProcessEnv }][] = [[`websockets ${PINNED}`, pinnedPython]];
const sys = systemPython();
if (sys) clients.push(['Debian python3-websockets', () => sys]);

for (const [clientName, findPython] of clients)
  for (const mode of ['plain', 'deflate', 'deflate-server-bits'] as const) {
    const compress = mode !== 'plain';
    const label = {
      plain: 'no compression',
      deflate: 'permessage-deflate',
      'deflate-server-bits': 'permessage-deflate offering server_max_window_bits=15, which the answer must name',
    }[mode];
    test(`Python ${clientName} (${label}): echo, big message, ping, close code`, {
      timeout: 60_000,
    }, async (t) => {
      const closes: [number, string][] = [];
      const { port } = await withApp(t, (app) => {
        app.ws('/echo', {
          compression: compress ? 'shared' : false,
          maxPayloadLength: 4 * 1024 * 1024,
          message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
          close: (_ws, code, reason) => closes.push([code, reason]),
        });
      });
      const { python, env } = findPython();
      const out = await new Promise<string>((resolve, reject) => {
        const args = [script, `ws://127.0.0.1:${port}/echo`, mode];
        const child = spawn(python, args, { env, timeout: 50_000 });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('close', (code: number) =>
          code === 0 ? resolve(stdout) : reject(new Error(`python exited ${code}: ${stderr}`)),
        );
      });
      const { version, ...r } = JSON.parse(out);
      t.diagnostic(`websockets ${version}`);
      assert.deepEqual(r, {
        extensions: compress ? ['permessage-deflate'] : [],
        text: 'héllo',
        binary: [0, 1, 255],
        big_ok: true,
        pong: true,
        close_code: 4000,
      });
      assert.deepEqual(closes, [[4000, 'py bye']]);
    });
  }
