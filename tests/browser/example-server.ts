// Starts one of the examples (examples/<name>/server.mjs) as its own process on a free port, for the browser suites:
// resolves its URL once it prints `listening on <url>`, or rejects with what it printed.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A running example: its process and the URL it listens on. */
export interface Example {
  child: ChildProcess;
  url: string;
}

/** Runs `examples/<name>/server.mjs` with PORT=0; rejects if it has not said where it listens within 20 s. */
export async function startExample(name: string): Promise<Example> {
  const server = join(import.meta.dirname, '..', '..', 'examples', name, 'server.mjs');
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${name} server did not start in 20 s: ${out}`)), 20_000);
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`the ${name} server exited (${code}): ${out}`)));
  });
  return { child, url };
}
