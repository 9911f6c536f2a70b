// Apps as process managers run them: node:cluster workers and pm2's cluster mode (`pm2 start app -i 2`), each worker
// calling listen(PORT) on the native API, @gale-http/express and /4. Both workers serve the one port; a rolling reload
// (node:cluster by hand, `pm2 reload`) under a constant keep-alive wrk load loses no request; nothing is left running.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureCommand } from '../system-tools.js';
import { freePort, get, Proc, sleep, tempDir, until } from './services.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const repo = join(fixtures, '..', '..', '..');
const pm2Bin = join(repo, 'node_modules', 'pm2', 'bin', 'pm2');
const T = { timeout: 90_000 };
const KINDS = ['native', 'express', 'express4'] as const;

/** The pids answering /pid on new connections, until `n` differ (each connection goes to a worker in turn). */
async function pids(port: number, n: number): Promise<Set<string>> {
  const seen = new Set<string>();
  await until(`${n} workers answering on ${port}`, 15_000, async () => {
    seen.add((await get(port, '/pid')).body);
    return seen.size >= n;
  });
  return seen;
}

/** wrk with keep-alive connections for `seconds`, started now; resolves its summary. */
function wrk(port: number, seconds: number): Promise<{ requests: number; errors: string | undefined; non2xx: number }> {
  const bin = ensureCommand('wrk', 'wrk');
  return new Promise((resolve, reject) => {
    const p = new Proc(bin, ['-t1', '-c16', `-d${seconds}s`, '--timeout', '5s', `http://127.0.0.1:${port}/pid`]);
    p.exited.then(({ code }) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${p.output}`));
      const requests = Number(/(\d+) requests in/.exec(p.output)?.[1] ?? Number.NaN);
      const errors = /Socket errors: [^\n]*/.exec(p.output)?.[0];
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(p.output)?.[1] ?? 0);
      resolve({ requests, errors, non2xx });
    }, reject);
  });
}

for (const kind of KINDS) {
  test(`node:cluster (${kind}): two workers on one port; a rolling reload under wrk loses nothing`, T, async (t) => {
    const port = await freePort();
    const primary = new Proc(process.execPath, [join(fixtures, 'node-cluster.cjs')], {
      ...process.env,
      PORT: String(port),
      APP_KIND: kind,
    });
    t.after(() => primary.stop('SIGTERM'));
    await primary.waitFor(/^ready$/m, 20_000);
    const before = await pids(port, 2);
    // A request in flight when its worker is told to stop is answered.
    const slow = get(port, '/slow', { timeout: 10_000 });
    const load = wrk(port, 4);
    await sleep(1000);
    primary.child.kill('SIGUSR2');
    await primary.waitFor(/^reloaded$/m, 20_000);
    const r = await load;
    assert.equal((await slow).body, 'slow');
    assert.ok(r.requests > 100, `wrk made ${r.requests} requests`);
    assert.equal(r.errors, undefined, `wrk: ${r.errors}`);
    assert.equal(r.non2xx, 0);
    const now = await pids(port, 2);
    assert.equal([...now].filter((p) => before.has(p)).length, 0, 'both workers were replaced');
    const { code } = await primary.stop('SIGTERM', 15_000);
    assert.equal(code, 0);
  });
}

/** Runs pm2 with a PM2_HOME of the test's own (so the machine's daemon, if any, is never touched) and `env`. */
function pm2(home: string, env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync(process.execPath, [pm2Bin, ...args], {
    env: { ...process.env, ...env, PM2_HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `pm2 ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

const homes: string[] = [];
after(() => {
  // Whatever happened, no pm2 daemon of these tests outlives them.
  for (const home of homes) spawnSync(process.execPath, [pm2Bin, 'kill'], { env: { ...process.env, PM2_HOME: home } });
});

for (const kind of KINDS) {
  test(
    `pm2 start -i 2 (${kind}): both workers serve; pm2 reload under wrk loses nothing; pm2 kill ends it`,
    T,
    async () => {
      const home = tempDir('pm2');
      homes.push(home);
      const port = await freePort();
      const env = { PORT: String(port), APP_KIND: kind };
      pm2(home, env, 'start', join(fixtures, 'worker-app.cjs'), '-i', '2', '--name', 'gale-app');
      const before = await pids(port, 2);
      const slow = get(port, '/slow', { timeout: 10_000 });
      const load = wrk(port, 5);
      await sleep(1000);
      pm2(home, env, 'reload', 'gale-app');
      const r = await load;
      assert.equal((await slow).body, 'slow');
      assert.ok(r.requests > 100, `wrk made ${r.requests} requests`);
      assert.equal(r.errors, undefined, `wrk: ${r.errors}`);
      assert.equal(r.non2xx, 0);
      const now = await pids(port, 2);
      assert.equal([...now].filter((p) => before.has(p)).length, 0, 'both workers were replaced');
      pm2(home, env, 'kill');
      await until('the workers gone', 10_000, async () => {
        for (const pid of now) {
          try {
            process.kill(Number(pid), 0);
            return false;
          } catch {}
        }
        return true;
      });
    },
  );
}
