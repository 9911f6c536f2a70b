// Interop with a second independent client: Python's `websockets` library (Debian python3-websockets, or
// installed from PyPI into a temporary directory when no Python on this machine has it).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { withApp } from '../helpers.js';

const script = join(dirname(fileURLToPath(import.meta.url)), 'py', 'client.py');

/** A Python that can import websockets, and the PYTHONPATH it needs. */
function findPython(): { python: string; env: NodeJS.ProcessEnv } {
  const candidates = ['/usr/bin/python3', 'python3'];
  for (const python of candidates) {
    const r = spawnSync(python, ['-c', 'import websockets'], { stdio: 'ignore' });
    if (r.status === 0) return { python, env: process.env };
  }
  const target = mkdtempSync(join(tmpdir(), 'gale-pyws-'));
  execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', target, 'websockets'], {
    stdio: 'inherit',
    timeout: 120_000,
  });
  return { python: 'python3', env: { ...process.env, PYTHONPATH: target } };
}

for (const compress of [false, true]) {
  test(`Python websockets client (${compress ? 'permessage-deflate' : 'no compression'}): echo, big message, ping, close code`, {
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
      const args = [script, `ws://127.0.0.1:${port}/echo`, compress ? 'deflate' : 'plain'];
      const child = spawn(python, args, { env, timeout: 50_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code: number) =>
        code === 0 ? resolve(stdout) : reject(new Error(`python exited ${code}: ${stderr}`)),
      );
    });
    const r = JSON.parse(out);
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
