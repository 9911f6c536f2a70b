// gale.cluster() on one machine, over real processes and sockets: two workers on one port (SO_REUSEPORT), health
// routes and cluster-wide metrics, pub/sub between workers over IPC, crash → respawn (SIGKILL and uncaught
// exceptions, with backoff), SIGUSR2 memory report, SIGHUP zero-downtime reload, a failed reload, SIGTERM.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  assertKillFailures,
  backgroundLoad,
  get,
  type Instance,
  Proc,
  post,
  sleep,
  startInstance,
  tempDir,
  until,
  WsClient,
  within,
} from './services.js';

const T = { timeout: 45_000 };
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
type Who = { instance: string; slot: number; pid: number; generation: number };

/** New-connection GETs until every slot has answered; returns slot → pid. */
async function bySlot(port: number, workers: number, path = '/'): Promise<Map<number, Who>> {
  const seen = new Map<number, Who>();
  await until(
    `all ${workers} workers answering`,
    15_000,
    async () => {
      const r = await get(port, path);
      const w = JSON.parse(r.body) as Who;
      seen.set(w.slot, w);
      return seen.size === workers;
    },
    0,
  );
  return seen;
}

function pgrp(pid: number): number {
  // /proc/<pid>/stat: "pid (comm) state ppid pgrp …" — comm may hold spaces, so split after the last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('gale.cluster() with two workers', () => {
  let inst: Instance;
  before(async () => {
    inst = await startInstance({ INSTANCE: 'one' });
  });
  after(async () => {
    await inst?.proc.stop('SIGTERM');
  });

  test('both workers answer on one port, in the primary’s process group', T, async () => {
    const seen = await bySlot(inst.port, 2);
    const pids = [...seen.values()].map((w) => w.pid);
    assert.equal(new Set(pids).size, 2);
    for (const pid of pids) assert.equal(pgrp(pid), pgrp(inst.proc.pid), 'worker and primary share a process group');
    assert.match(
      inst.proc.output,
      new RegExp(`listening on 127\\.0\\.0\\.1:${inst.port}[\\s\\S]*listening on 127\\.0\\.0\\.1:${inst.port}`),
    );
  });

  test(
    'health: liveness from the engine, readiness, Prometheus metrics of every worker and the primary',
    T,
    async () => {
      const live = await get(inst.port, '/healthz');
      assert.equal(live.status, 200);
      assert.equal(live.body, 'ok\n');
      const ready = await get(inst.port, '/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.body, 'ready\n');
      const m = await get(inst.port, '/metrics');
      assert.equal(m.status, 200, m.body);
      assert.match(String(m.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      for (const slot of [0, 1]) {
        assert.match(m.body, new RegExp(`gale_connections\\{worker="${slot}"\\} \\d+`));
        assert.match(
          m.body,
          new RegExp(`gale_event_loop_delay_seconds\\{quantile="0.99",worker="${slot}"\\} [\\d.e-]+`),
        );
        assert.match(m.body, new RegExp(`process_resident_memory_bytes\\{worker="${slot}"\\} \\d+`));
      }
      assert.match(m.body, /gale_cluster_workers\{state="listening"\} 2/);
      assert.match(m.body, /gale_requests_total\{worker="0"\} \d+/);
    },
  );

  test(
    'pub/sub over IPC: a publish in one worker reaches sockets on the other; unwanted topics send nothing',
    T,
    async () => {
      const clients: WsClient[] = [];
      const slots = new Map<number, WsClient>();
      try {
        await until(
          'a subscriber on each worker',
          15_000,
          async () => {
            const c = new WsClient(`ws://127.0.0.1:${inst.port}/ws?topics=news`);
            clients.push(c);
            const hello = await c.next<{ hello: Who }>((m) => 'hello' in m);
            if (!slots.has(hello.hello.slot)) slots.set(hello.hello.slot, c);
            return slots.size === 2;
          },
          0,
        );
        const sender = slots.get(0) as WsClient;
        const receiver = slots.get(1) as WsClient;
        // The subscription announcement travels through the primary: retry until the other worker knows.
        await until('the publish reaching the other worker', 5000, async () => {
          const id = Math.random();
          sender.send({ id, topic: 'news', text: 'from 0' });
          await sender.next((m) => m.ack === id, 2000);
          return receiver
            .next((m) => m.id === id, 300)
            .then(
              () => true,
              () => false,
            );
        });
        // From the HTTP side too (whichever worker takes the POST).
        const r = await post(inst.port, '/publish/news', 'by post');
        assert.equal(r.status, 200);
        await Promise.all([...slots.values()].map((c) => c.next<unknown>((m) => m === 'by post')));

        // A topic only worker 0 has: its publishes send no message (the bus counts them as skipped).
        const topic = `solo-${Date.now()}`;
        const solo = new WsClient(`ws://127.0.0.1:${inst.port}/ws?topics=${topic}`);
        clients.push(solo);
        const hello = await solo.next<{ hello: Who }>((m) => 'hello' in m);
        const statsOf = async (slot: number) => {
          let s: { sent: number; skipped: number } | undefined;
          await until(
            `stats of worker ${slot}`,
            10_000,
            async () => {
              const w = JSON.parse((await get(inst.port, '/pubsub')).body);
              if (w.slot === slot) s = w.stats;
              return s;
            },
            0,
          );
          return s as { sent: number; skipped: number };
        };
        const before = await statsOf(hello.hello.slot);
        solo.send({ id: 'solo', topic, text: 'nobody else' });
        await solo.next((m) => m.ack === 'solo');
        const afterStats = await statsOf(hello.hello.slot);
        assert.equal(afterStats.sent, before.sent, 'no message for a topic nobody else has');
        assert.ok(afterStats.skipped > before.skipped);
      } finally {
        for (const c of clients) c.close();
      }
    },
  );

  test('SIGUSR2 logs each worker’s memory', T, async () => {
    inst.proc.child.kill('SIGUSR2');
    const lines = await inst.proc.waitFor(
      /worker (\d) pid \d+ listening, generation \d+, up \d+ s, restarts \d+, RSS [\d.]+ MiB, heap [\d.]+ MiB/,
      5000,
      2,
    );
    assert.deepEqual(new Set(lines.slice(-2).map((l) => l[1])), new Set(['0', '1']));
  });

  test('a worker killed with SIGKILL is respawned while the other keeps serving', T, async () => {
    const before = await bySlot(inst.port, 2);
    const victim = before.get(1) as Who;
    const load = backgroundLoad(inst.port, '/hello');
    let after: Map<number, Who>;
    let okAtKill: number;
    let killedAt = 0;
    try {
      await sleep(200);
      killedAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');
      await inst.proc.waitFor(new RegExp(`worker 1 \\(pid ${victim.pid}\\) was killed by SIGKILL`), 5000);
      okAtKill = load.counts.ok;
      await inst.proc.waitFor(/respawning worker 1 in \d+ ms/, 5000);
      after = await bySlot(inst.port, 2);
    } finally {
      await load.stop();
    }
    const { ok, failures } = load.counts;
    assert.notEqual(after.get(1)?.pid, victim.pid, 'a new process in place 1');
    assert.equal(after.get(0)?.pid, before.get(0)?.pid, 'place 0 untouched');
    assert.ok(ok > okAtKill, 'requests kept succeeding after the kill');
    // Requests go one at a time on new connections. What may fail is what reached the killed worker: the request in
    // flight, and connections the kernel queued on its listener while the process was exiting (SO_REUSEPORT resets a
    // closing listener's queue unless net.ipv4.tcp_migrate_req is on; an io_uring accept holds the listener until the
    // ring's teardown). Those are connection errors within moments of the kill, never a wrong answer or a failure
    // once the new worker serves.
    assertKillFailures(failures, killedAt);
  });

  test('an uncaught exception is reported with its message and the worker replaced', T, async () => {
    const r = await get(inst.port, '/crash');
    assert.equal(r.status, 200);
    const [m] = await inst.proc.waitFor(
      /worker (\d) \(pid \d+\) exited with code 1 after [\d.]+ s \(last RSS [\d.]+ MiB\); uncaught: Error: crash requested in worker (\d)/,
      5000,
    );
    assert.equal(m?.[1], m?.[2]);
    await bySlot(inst.port, 2);
  });

  test(
    'SIGHUP: the new generation listens before the old drains; in-flight requests finish; WebSockets get 1001',
    T,
    async () => {
      const old = await bySlot(inst.port, 2);
      const ws = new WsClient(`ws://127.0.0.1:${inst.port}/ws`);
      await ws.next((m) => 'hello' in m);
      const slow = get(inst.port, '/slow?ms=1500', { timeout: 10_000 });
      await sleep(300);
      const mark = inst.proc.output.length;
      inst.proc.child.kill('SIGHUP');
      await inst.proc.waitFor(/reload done/, 20_000);
      const log = inst.proc.output.slice(mark);
      const lastListen = Math.max(
        ...[...log.matchAll(/generation 1\) listening|generation \d+\) listening/g)].map((x) => x.index ?? 0),
      );
      assert.ok(lastListen < log.indexOf('draining'), `new workers listen before the old ones drain:\n${log}`);
      const s = await slow;
      assert.equal(s.status, 200, 'the in-flight request finished');
      assert.ok(old.has(JSON.parse(s.body).slot));
      assert.equal(await ws.closed, 1001);
      const now = await bySlot(inst.port, 2);
      for (const [slot, w] of now) {
        assert.notEqual(w.pid, old.get(slot)?.pid);
        assert.ok(w.generation > (old.get(slot)?.generation ?? 0));
        assert.ok(!alive(old.get(slot)?.pid as number), 'the old worker exited');
      }
    },
  );

  test('SIGTERM drains everything within the deadline and the primary exits 0', T, async () => {
    const workers = await bySlot(inst.port, 2);
    const slow = get(inst.port, '/slow?ms=800', { timeout: 10_000 });
    await sleep(200);
    inst.proc.child.kill('SIGTERM');
    const s = await slow;
    assert.equal(s.status, 200);
    const exit = await within(inst.proc.exited, 15_000);
    assert.deepEqual(exit, { code: 0, signal: null });
    for (const w of workers.values()) await until(`worker ${w.pid} gone`, 3000, () => !alive(w.pid));
    assert.match(inst.proc.output, /gale cluster: stopped/);
  });
});

test('drainDelay: a stopping worker answers readiness with 503 while it still serves, then goes', T, async () => {
  const inst = await startInstance({ INSTANCE: 'delay', DRAIN_DELAY: '1500' }, 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const on = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: inst.port, path, agent }, (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  try {
    const who = JSON.parse((await on('/')).body) as Who;
    assert.equal((await on('/readyz')).status, 200);
    process.kill(who.pid, 'SIGTERM'); // as the primary does on reload and stop
    await sleep(200);
    assert.deepEqual(await on('/readyz'), { status: 503, body: 'not ready: draining\n' });
    assert.equal(JSON.parse((await on('/')).body).pid, who.pid, 'still serving during the delay');
    await inst.proc.waitFor(new RegExp(`worker 0 \\(pid ${who.pid}\\) exited with code 0`), 10_000);
  } finally {
    agent.destroy();
    await inst.proc.stop('SIGTERM');
  }
});

test('a worker that cannot start is respawned with growing delays; the primary stays up', T, async () => {
  const inst = startInstanceRaw({ ENTRY: join(fixtures, 'crash-at-start.mjs') }, 1);
  try {
    await inst.waitFor(
      /respawning worker 0 in 100 ms[\s\S]*respawning worker 0 in 200 ms[\s\S]*respawning worker 0 in 400 ms/,
      20_000,
    );
    assert.match(inst.output, /uncaught: Error: this app cannot start/);
    assert.ok(inst.running, 'the primary is still running');
  } finally {
    assert.deepEqual(await inst.stop('SIGTERM'), { code: 0, signal: null });
  }
});

test('a reload whose new workers cannot start keeps the old ones serving', T, async () => {
  const flag = join(tempDir('flaky'), 'broken');
  const inst = await startInstance({ ENTRY: join(fixtures, 'flaky.mjs'), FAIL_FLAG: flag }, 1);
  try {
    const first = JSON.parse((await get(inst.port, '/')).body);
    writeFileSync(flag, 'x');
    inst.proc.child.kill('SIGHUP');
    await inst.proc.waitFor(
      /reload failed: a new worker did not start listening; the old workers keep serving/,
      20_000,
    );
    const again = JSON.parse((await get(inst.port, '/')).body);
    assert.equal(again.pid, first.pid);
  } finally {
    await inst.proc.stop('SIGTERM');
  }
});

function startInstanceRaw(env: Record<string, string>, workers: number): Proc {
  return new Proc(process.execPath, [join(fixtures, 'cluster.mjs')], {
    ...process.env,
    WORKERS: String(workers),
    PORT: '0',
    ...env,
  });
}
