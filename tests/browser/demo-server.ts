// Starts the `npm start` demo (examples/demo/server.mjs) in a child process on a free port of 127.0.0.1 and stops it.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const server = join(import.meta.dirname, '..', '..', 'examples', 'demo', 'server.mjs');

export interface Demo {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the demo; `env` adds variables (TLS_CERT and TLS_KEY: HTTPS, HTTP/2 and HTTP/3, and `url` is https). */
export async function startDemo(env: Record<string, string> = {}): Promise<Demo> {
  const proc = spawn(process.execPath, [server], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  let out = '';
  let scheme = 'http';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start within 20 s:\n${out}`)), 20_000);
    proc.stdout?.on('data', (d) => {
      out += d;
      const m = /Demo page: (https?):\/\/localhost:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        scheme = m[1];
        resolve(Number(m[2]));
      }
    });
    proc.stderr?.on('data', (d) => {
      out += d;
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
      process.off('exit', kill);
    },
  };
}
