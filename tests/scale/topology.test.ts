// The documented topology, on loopback: nginx and HAProxy in front of two gale.cluster() instances (A and B) of two
// workers each, sharing a redis-server; plus instance P behind HAProxy with the PROXY protocol. Worker n of an
// instance listens on its port + n so the balancers can keep Socket.IO long-polling sessions on one worker. Checks:
// client addresses (X-Forwarded-For from nginx, PROXY v2 from HAProxy, a PROXY header refused where not enabled),
// WebSocket upgrades through both, a publish in A reaching sockets on B, sticky sessions (nginx hash, HAProxy
// cookie; plain round robin fails), and a SIGHUP reload under load with no failed request and no lost message.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Socket as ClientSocket, io as connect } from 'socket.io-client';
import {
  freePort,
  get,
  type Instance,
  type Proc,
  post,
  type RedisServer,
  sleep,
  startHaproxy,
  startInstance,
  startNginx,
  startRedis,
  tempDir,
  until,
  WsClient,
  within,
} from './services.js';

const T = { timeout: 60_000 };
const repo = fileURLToPath(new URL('../../', import.meta.url));
type Who = { instance: string; slot: number; pid: number; generation: number; ip?: string };

let redis: RedisServer;
let A: Instance;
let B: Instance;
let P: Instance;
let nginx: Proc;
let haproxy: Proc;
let N: number; // nginx
let H: { proxied: number; refused: number; sticky: number };
let sink: string;

const backends = () => [A.port, A.port + 1, B.port, B.port + 1].map((p) => `127.0.0.1:${p}`);

before(async () => {
  redis = await startRedis();
  sink = join(tempDir('sink'), 'acked.txt');
  const common = { GALE_REDIS: redis.url, TRUST_PROXY: 'loopback', SOCKET_IO: '1', SINK: sink };
  [A, B, P] = await Promise.all([
    startInstance({ ...common, INSTANCE: 'A' }, 2, true),
    startInstance({ ...common, INSTANCE: 'B' }, 2, true),
    startInstance({ INSTANCE: 'P', PROXY_PROTOCOL: '1', GALE_REDIS: redis.url }, 1),
  ]);
  N = await freePort();
  const proxied = (to: string) =>
    `proxy_pass ${to}; proxy_http_version 1.1; proxy_set_header Host $host;` +
    ' proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection $connection_upgrade;' +
    ' proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; proxy_read_timeout 60s;';
  const servers = backends()
    .map((b) => `server ${b};`)
    .join(' ');
  nginx = await startNginx(
    `  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }\n` +
      `  upstream gale_rr { ${servers} keepalive 32; }\n` +
      `  upstream gale_sticky { hash $remote_addr consistent; ${servers} keepalive 32; }\n` +
      `  server {\n    listen 127.0.0.1:${N};\n    keepalive_requests 1000000;\n` +
      `    location / { ${proxied('http://gale_rr')} }\n` +
      `    location /socket.io/ { ${proxied('http://gale_sticky')} }\n` +
      `    location /rr/socket.io/ { ${proxied('http://gale_rr/socket.io/')} }\n  }`,
    [N],
  );
  H = { proxied: await freePort(), refused: await freePort(), sticky: await freePort() };
  const cookieServers = backends()
    .map((b, i) => `  server s${i} ${b} cookie s${i}`)
    .join('\n');
  haproxy = await startHaproxy(
    `frontend proxied\n  bind 127.0.0.1:${H.proxied}\n  default_backend p\n` +
      `backend p\n  server p 127.0.0.1:${P.port} send-proxy-v2\n\n` +
      `frontend refused\n  bind 127.0.0.1:${H.refused}\n  default_backend a\n` +
      `backend a\n  server a0 127.0.0.1:${A.port} send-proxy-v2\n\n` +
      `frontend sticky\n  bind 127.0.0.1:${H.sticky}\n  default_backend sticky\n` +
      `backend sticky\n  balance roundrobin\n  cookie GALESRV insert indirect nocache\n${cookieServers}\n`,
    [H.proxied, H.refused, H.sticky],
  );
});

after(async () => {
  await Promise.all([A?.proc.stop(), B?.proc.stop(), P?.proc.stop(), nginx?.stop('SIGQUIT'), haproxy?.stop()]);
  await redis?.stop();
});

describe('behind nginx and HAProxy', () => {
  test('X-Forwarded-For from nginx gives req.ip (trustProxy: loopback)', T, async () => {
    const r = await get(N, '/', { local: '127.0.0.2' });
    assert.equal(r.status, 200, r.body);
    const w = JSON.parse(r.body) as Who;
    assert.equal(w.ip, '127.0.0.2');
    assert.ok(['A', 'B'].includes(w.instance));
  });

  test('PROXY protocol v2 from HAProxy gives req.ip and ws.remoteAddress', T, async () => {
    const r = await get(H.proxied, '/', { local: '127.0.0.3' });
    assert.equal(r.status, 200, r.body);
    const w = JSON.parse(r.body) as Who;
    assert.equal(w.instance, 'P');
    assert.equal(w.ip, '127.0.0.3');
    const ws = new WsClient(`ws://127.0.0.1:${H.proxied}/ws`, { localAddress: '127.0.0.4' });
    const hello = await ws.next<{ ip: string; reqIp: string }>((m) => 'hello' in m);
    ws.close();
    assert.equal(hello.ip, '127.0.0.4');
    assert.equal(hello.reqIp, '127.0.0.4');
  });

  test('a PROXY header is refused by a server that did not enable it', T, async () => {
    const r = await get(H.refused, '/');
    assert.equal(r.status, 400);
    assert.match(r.body, /PROXY/);
    // The same header sent straight to the worker.
    const sig = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');
    const v2 = Buffer.concat([
      sig,
      Buffer.from([0x21, 0x11, 0x00, 0x0c]),
      Buffer.from([127, 0, 0, 9, 127, 0, 0, 1, 0x30, 0x39, 0x00, 0x50]),
    ]);
    const raw = await new Promise<string>((resolve, reject) => {
      const s = net.connect(A.port, '127.0.0.1', () =>
        s.end(Buffer.concat([v2, Buffer.from('GET / HTTP/1.1\r\nhost: x\r\n\r\n')])),
      );
      let out = '';
      s.on('data', (d) => {
        out += d;
      });
      s.on('close', () => resolve(out));
      s.on('error', reject);
      s.setTimeout(5000, () => s.destroy(new Error('no answer')));
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
  });

  test('WebSocket upgrades pass through nginx and HAProxy', T, async () => {
    for (const port of [N, H.sticky]) {
      const ws = new WsClient(`ws://127.0.0.1:${port}/ws`);
      const hello = await ws.next<{ hello: Who }>((m) => 'hello' in m);
      assert.ok(['A', 'B'].includes(hello.hello.instance));
      ws.send({ id: `through-${port}` });
      await ws.next((m) => m.ack === `through-${port}`);
      ws.close();
    }
  });

  test('a publish in instance A reaches sockets on instance B through nginx and Redis', T, async () => {
    const clients: WsClient[] = [];
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) {
        const c = new WsClient(`ws://127.0.0.1:${N}/ws?topics=news`);
        clients.push(c);
        const h = (await c.next<{ hello: Who }>((m) => 'hello' in m)).hello;
        seen.add(`${h.instance}${h.slot}`);
      }
      assert.deepEqual([...seen].sort(), ['A0', 'A1', 'B0', 'B1'], 'nginx spread the sockets over every worker');
      // Published in worker 0 of A (straight to its port): every socket gets it, B's through Redis.
      let n = 0;
      await until('a publish from A reaching all four workers’ sockets', 10_000, async () => {
        const text = `news ${n++}`;
        const r = await post(A.port, '/publish/news', text);
        assert.equal(JSON.parse(r.body).instance, 'A');
        return Promise.all(clients.map((c) => c.next<unknown>((m) => m === text, 500))).then(
          () => true,
          () => false,
        );
      });
    } finally {
      for (const c of clients) c.close();
    }
  });

  test('Socket.IO long-polling through nginx (hash) and HAProxy (cookie) sticks to one worker', T, async () => {
    const run = async (url: string, opts: Record<string, unknown>) => {
      const c: ClientSocket = connect(url, { transports: ['polling'], reconnection: false, timeout: 4000, ...opts });
      try {
        await new Promise<void>((resolve, reject) => {
          c.once('connect', () => resolve());
          c.once('connect_error', reject);
        });
        const who = (await c.timeout(4000).emitWithAck('whoami')) as Who;
        for (let i = 0; i < 3; i++) assert.equal(await c.timeout(4000).emitWithAck('echo', i), i);
        return `${who.instance}${who.slot}`;
      } finally {
        c.close();
      }
    };
    const viaNginx = new Set<string>();
    for (const local of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) {
      const agent = new http.Agent({ keepAlive: true, localAddress: local });
      try {
        viaNginx.add(await run(`http://127.0.0.1:${N}`, { agent }));
      } finally {
        agent.destroy();
      }
    }
    assert.ok(viaNginx.size >= 2, `clients from different addresses reached different workers: ${[...viaNginx]}`);
    const viaHaproxy = new Set<string>();
    for (let i = 0; i < 4; i++) viaHaproxy.add(await run(`http://127.0.0.1:${H.sticky}`, { withCredentials: true }));
    assert.equal(viaHaproxy.size, 4, `round robin with a cookie: each client on its own worker: ${[...viaHaproxy]}`);
    // The control: without stickiness the session's requests land on other workers and the connection fails.
    await assert.rejects(run(`http://127.0.0.1:${N}`, { path: '/rr/socket.io/' }));
  });

  test('SIGHUP reload of A under load through nginx: 0 failed requests, 0 lost acknowledged messages', T, async () => {
    const loadgen = join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'release', 'gale-loadgen');
    // Built (or found fresh: a no-op then) every time, so an old binary is never used.
    const b = spawnSync('cargo', ['build', '--release', '-p', 'gale-loadgen'], { cwd: repo, stdio: 'inherit' });
    assert.equal(b.status, 0, 'cargo build --release -p gale-loadgen');
    const before = A.pids();
    const mark = A.proc.output.length;
    // Writers: each sends numbered messages one at a time and waits for the ack; a socket closed by the reload
    // (1001) is reopened through nginx and the unacknowledged message sent again. Each socket's worker is known from
    // its hello, so the close codes of the sockets on A are the ones the reload must have given.
    let stop = false;
    const acked = new Set<string>();
    const closesOnA: number[] = [];
    const firstOn: string[] = [];
    const writer = async (w: number, ready: () => void) => {
      let n = 0;
      while (!stop) {
        const c = new WsClient(`ws://127.0.0.1:${N}/ws`);
        let on = '?';
        try {
          const hello = await c.next<{ hello?: Who }>((m) => m.hello !== undefined, 5000);
          on = hello.hello?.instance ?? '?';
          if (firstOn[w] === undefined) firstOn[w] = on;
          ready();
          while (!stop) {
            const id = `w${w}-${n}`;
            c.send({ id, topic: 'chat', text: id });
            const got = await Promise.race([c.next((m) => m.ack === id, 5000), c.closed.then(() => undefined)]);
            if (got === undefined) break;
            acked.add(id);
            n++;
          }
        } catch {
          await sleep(50); // refused or timed out: try again
        } finally {
          if (on === 'A' && c.closeCode !== undefined) closesOnA.push(c.closeCode);
          c.close();
        }
      }
      return n;
    };
    // Every writer's first socket is open before any other traffic, so nginx's round robin (nothing else in flight)
    // puts one on each of the four workers: two on A, whose reload must close them politely.
    const ready: (() => void)[] = [];
    const started = [0, 1, 2, 3].map((w) => new Promise<void>((r) => (ready[w] = r)));
    const writers = ready.map((r, w) => writer(w, r));
    if (
      (await within(
        Promise.all(started).then(() => true),
        10_000,
      )) !== true
    ) {
      stop = true;
      await Promise.all(writers);
      assert.fail(`the four writers' sockets did not all open through nginx within 10 s (on: ${firstOn})`);
    }
    assert.ok(firstOn.includes('A'), `a writer's socket is on instance A before the reload: ${firstOn}`);
    // gale-loadgen in runs of 2 s until the reload is over and one more run has passed.
    const runs: { ok: number; invalid: number; errors: Record<string, number>; requests: number }[] = [];
    let reloaded = false;
    const reload = (async () => {
      await sleep(1000);
      A.proc.child.kill('SIGHUP');
      await A.proc.waitFor(/reload done/, 40_000);
      reloaded = true;
    })();
    reload.catch(() => {});
    try {
      for (let i = 0; i < 20; i++) {
        const doneBefore = reloaded;
        const p = spawn(
          loadgen,
          ['--url', `http://127.0.0.1:${N}/hello`, '--connections', '8', '--duration', '2', '--expect-body', 'hello'],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        p.stdout.on('data', (d) => {
          out += d;
        });
        const code = await new Promise<number | null>((r) => p.once('exit', r));
        const line = out.trim().split('\n').pop() ?? '';
        assert.ok(line.startsWith('{'), `gale-loadgen exited ${code}: ${out}`);
        runs.push(JSON.parse(line));
        if (doneBefore) break;
      }
      await reload;
    } finally {
      stop = true; // the writers end even when something above failed
    }
    const sent = await Promise.all(writers);

    const total = runs.reduce((s, r) => s + r.requests, 0);
    const errors: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
    assert.ok(total > 1000, `${total} requests`);
    assert.equal(
      runs.reduce((s, r) => s + r.invalid, 0),
      0,
      'no invalid response',
    );
    assert.deepEqual(
      errors,
      { connect: 0, read: 0, write: 0, timeout: 0, closed: 0, status: 0 },
      `no failed request; nginx said:\n${nginx.output
        .split('\n')
        .filter((l) => !/prematurely closed|closed keepalive/.test(l))
        .slice(-40)
        .join('\n')}`,
    );

    const log = A.proc.output.slice(mark);
    assert.match(log, /reload: generation 1 is listening; draining 2 old worker\(s\)/);
    const afterPids = A.pids();
    for (const slot of [0, 1]) assert.notEqual(afterPids.get(slot), before.get(slot), `worker ${slot} was replaced`);
    assert.ok(
      closesOnA.length > 0 && closesOnA.every((c) => c === 1001),
      `the sockets on A were closed politely (1001) by the reload: ${closesOnA} (first sockets on: ${firstOn})`,
    );
    const inSink = new Set(readFileSync(sink, 'utf8').split('\n').filter(Boolean));
    const lost = [...acked].filter((id) => !inSink.has(id));
    assert.deepEqual(lost, [], 'every acknowledged message was handled');
    assert.ok(acked.size >= sent.reduce((a, b) => a + b, 0));
    assert.ok(acked.size > 20, `${acked.size} acknowledged messages`);
  });
});
