// `WORKERS=2 npm start`: the demo served by two gale.cluster() workers on one port, the primary and its workers in
// one process group; a worker killed with SIGKILL is replaced while requests keep succeeding; SIGTERM to the
// primary stops everything.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertKillFailures, backgroundLoad, freePort, get, Proc, sleep, until } from './services.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

function stat(pid: number): { ppid: number; pgrp: number } {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), pgrp: Number(f[2]) };
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('WORKERS=2 npm start serves the demo from two workers on one port; SIGKILL of one is survived', {
  timeout: 90_000,
}, async () => {
  const port = await freePort();
  const env = { ...process.env, WORKERS: '2', PORT: String(port), HOST: '127.0.0.1' };
  const npm = new Proc('npm', ['start'], env, repo, true);
  try {
    const lines = await npm.waitFor(
      new RegExp(`worker (\\d) \\(pid (\\d+), generation 0\\) listening on 127\\.0\\.0\\.1:${port}`),
      60_000,
      2,
    );
    // Listening order is not slot order: index the pids by slot.
    const workers = [0, 1].map((slot) => Number(lines.find((m) => Number(m[1]) === slot)?.[2]));
    const primary = stat(workers[0] as number).ppid;
    assert.equal(stat(workers[1] as number).ppid, primary, 'both are children of the primary');
    for (const w of workers) assert.equal(stat(w).pgrp, stat(primary).pgrp, 'one process group');
    assert.match(readFileSync(`/proc/${primary}/cmdline`, 'utf8'), /examples\/demo\/server\.mjs/);

    const r = await get(port, '/json');
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });

    const load = backgroundLoad(port, '/json');
    let killedAt = 0;
    try {
      await sleep(200);
      killedAt = Date.now();
      process.kill(workers[1] as number, 'SIGKILL');
      await npm.waitFor(/worker 1 \(pid \d+\) was killed by SIGKILL/, 10_000);
      const atKill = load.counts.ok;
      await npm.waitFor(/worker 1 \(pid \d+, generation 0\) listening/, 60_000, 2);
      await until('requests after the respawn', 10_000, () => load.counts.ok > atKill + 20);
    } finally {
      await load.stop();
    }
    // What may fail is what reached the killed worker while it was exiting (tests/scale/cluster.test.ts says why).
    assertKillFailures(load.counts.failures, killedAt);

    process.kill(primary, 'SIGTERM');
    const exit = await npm.exited;
    assert.equal(exit.code, 0, npm.output.slice(-2000));
    for (const w of workers) await until(`worker ${w} gone`, 5000, () => !alive(w));
    assert.match(npm.output, /gale cluster: stopped/);
  } finally {
    await npm.stop('SIGKILL');
  }
});
