// A real redis-server for the session-store tests: started on a free 127.0.0.1 port with no persistence, reached
// with ioredis, stopped (by its pid) when the test ends. A missing redis-server fails the test with the install
// command (tests/system-tools.ts); it is never skipped.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { HOST, sleep } from '../helpers.js';
import { ensureCommand } from '../system-tools.js';

export interface RunningRedis {
  port: number;
  /** A connected client (closed when the test ends). */
  client: Redis;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A bound on a wait that does not itself keep the process alive once the wait is over. */
const bounded = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

export async function withRedis(t: TestContext): Promise<RunningRedis> {
  const bin = ensureCommand('redis-server', 'redis-server');
  const port = await freePort();
  const child: ChildProcess = spawn(
    bin,
    ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout?.on('data', (d) => {
    log += d;
  });
  child.stderr?.on('data', (d) => {
    log += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, bounded(3000)]);
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await Promise.race([exited, bounded(3000)]);
    }
    // Its output pipes would keep this test process alive until they see EOF (a loaded CI run saw them open).
    child.stdout?.destroy();
    child.stderr?.destroy();
  });
  const client = new Redis({ port, host: HOST, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {}); // refused connects while the server starts are retried below
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') break;
    } catch {
      client.disconnect();
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`redis-server did not start on port ${port}: ${log.slice(-800)}`);
    }
    await sleep(50);
  }
  t.after(() => client.quit().then(undefined, () => client.disconnect()));
  return { port, client };
}
