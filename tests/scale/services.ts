// Real programs for the scale-out tests: redis-server, nginx, haproxy and gale.cluster() instances, each on free
// 127.0.0.1 ports with its config in a temp dir, its output kept for assertions, and stopped by pid when the test
// ends (and killed if the test process exits first). Missing programs are installed with apt-get when root, else
// the test fails with the install command (tests/system-tools.ts): never a silent skip.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { ensureCommand } from '../system-tools.js';

export const HOST = '127.0.0.1';
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const live = new Set<ChildProcess>();
const procs = new Set<Proc>();
const killAll = () => {
  for (const c of live) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    // A process group (npm and what it started) goes as a whole.
    if ((c as ChildProcess & { group?: boolean }).group) {
      try {
        process.kill(-(c.pid as number), 'SIGKILL');
      } catch {}
    } else c.kill('SIGKILL');
  }
};
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAll();
    process.exit(1);
  });
}
// Whatever a test file left running (a failed before() that started only some programs, say) is stopped after the
// file's tests, so the test process can end instead of waiting on its children.
after(async () => {
  await Promise.all([...procs].map((p) => p.stop('SIGTERM', 5000)));
});

/** `p`'s value, or undefined if it takes longer than `ms` (the timer never outlives the wait). */
export async function within<V>(p: Promise<V>, ms: number): Promise<V | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `fn` until it returns something truthy; throws with `what` after `ms`. */
export async function until<V>(
  what: string,
  ms: number,
  fn: () => V | Promise<V>,
  every = 50,
): Promise<NonNullable<V>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<V>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await sleep(every);
  }
}

/** A free port; with `span` > 1, the first of `span` consecutive free ports. */
export async function freePort(span = 1): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, HOST, () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    let ok = true;
    for (let i = 1; i < span && ok; i++) ok = await portFree(port + i);
    if (ok) return port;
  }
  throw new Error(`no ${span} consecutive free ports found`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, HOST, () => s.close(() => resolve(true)));
  });
}

/** Resolves when something accepts connections on `port`. */
export function waitPort(port: number, ms = 10_000): Promise<boolean> {
  return until(`port ${port}`, ms, () => canConnect(port));
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, HOST);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A started program: its pid, everything it printed, and a bounded stop. */
export class Proc {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  /** With `group`, the program leads a process group of its own and stop() signals the whole group (npm start). */
  constructor(
    cmd: string,
    args: string[],
    env: NodeJS.ProcessEnv = process.env,
    cwd?: string,
    readonly group = false,
  ) {
    this.child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
    (this.child as ChildProcess & { group?: boolean }).group = group;
    live.add(this.child);
    procs.add(this);
    const take = (d: Buffer) => {
      this.output += d.toString();
      if (process.env.SCALE_DEBUG) process.stderr.write(d);
    };
    this.child.stdout?.on('data', take);
    this.child.stderr?.on('data', take);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        live.delete(this.child);
        procs.delete(this);
        resolve({ code, signal });
      }),
    );
  }

  get pid(): number {
    return this.child.pid as number;
  }
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until the output matches `re` (counting matches: the `n`th). */
  async waitFor(re: RegExp, ms: number, n = 1): Promise<RegExpMatchArray[]> {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    try {
      return await until(`${re} ×${n} in the output of ${this.child.spawnfile}`, ms, () => {
        if (!this.running) throw new Error('it exited');
        const all = [...this.output.matchAll(g)];
        return all.length >= n ? all : undefined;
      });
    } catch (err) {
      throw new Error(`${(err as Error).message}; its output ends with:\n${this.output.slice(-2000)}`);
    }
  }

  /** Sends `signal`, waits up to `ms` for the exit, then SIGKILL. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', ms = 8000): Promise<{ code: number | null; signal: string | null }> {
    const send = (sig: NodeJS.Signals) => {
      if (!this.running) return;
      try {
        if (this.group) process.kill(-this.pid, sig);
        else this.child.kill(sig);
      } catch {}
    };
    send(signal);
    const r = await within(this.exited, ms);
    if (r !== undefined) return r;
    send('SIGKILL');
    return this.exited;
  }
}

/** A temp dir removed when the process exits. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `gale-${name}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface RedisServer {
  port: number;
  url: string;
  proc: Proc;
  /** Stops it (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server on a free port, without persistence. */
export async function startRedis(): Promise<RedisServer> {
  const bin = ensureCommand('redis-server', 'redis-server');
  const port = await freePort();
  const launch = async () => {
    const p = new Proc(bin, ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no']);
    await waitPort(port, 10_000);
    return p;
  };
  const r: RedisServer = {
    port,
    url: `redis://${HOST}:${port}`,
    proc: await launch(),
    kill: async () => {
      await r.proc.stop('SIGKILL', 3000);
    },
    restart: async () => {
      r.proc = await launch();
    },
    stop: async () => {
      await r.proc.stop('SIGTERM', 3000);
    },
  };
  return r;
}

/** nginx in the foreground with `http` as the body of its http block. */
export async function startNginx(httpBlock: string, ports: number[]): Promise<Proc> {
  const bin = ensureCommand('nginx', 'nginx-light');
  const dir = tempDir('nginx');
  const root = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${root}worker_processes 1;\nerror_log stderr info;\npid ${dir}/nginx.pid;\nevents { worker_connections 1024; }\n` +
      `http {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n` +
      `  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n${httpBlock}\n}\n`,
  );
  const p = new Proc(bin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;']);
  for (const port of ports) await waitPort(port, 10_000);
  return p;
}

/** HAProxy in the foreground with `config` after a global/defaults section. */
export async function startHaproxy(config: string, ports: number[]): Promise<Proc> {
  const bin = ensureCommand('haproxy', 'haproxy');
  const dir = tempDir('haproxy');
  writeFileSync(
    join(dir, 'haproxy.cfg'),
    'global\n  maxconn 4096\n\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n' +
      `  timeout tunnel 60s\n  option http-keep-alive\n\n${config}\n`,
  );
  const p = new Proc(bin, ['-db', '-f', join(dir, 'haproxy.cfg')]);
  for (const port of ports) await waitPort(port, 10_000);
  return p;
}

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface Instance {
  proc: Proc;
  port: number;
  workers: number;
  /** Each worker's listening line so far: slot → pid. */
  pids(): Map<number, number>;
}

/** A gale.cluster() primary running fixtures/app.mjs (see there for `env`); resolves once `workers` listen. */
export async function startInstance(env: Record<string, string>, workers = 2, perWorker = false): Promise<Instance> {
  const port = await freePort(perWorker ? workers : 1);
  const proc = new Proc(process.execPath, [join(fixtures, 'cluster.mjs')], {
    ...process.env,
    WORKERS: String(workers),
    PORT: String(port),
    PER_WORKER_PORT: perWorker ? '1' : '',
    ...env,
  });
  await proc.waitFor(/worker \d+ \(pid \d+, generation \d+\) listening/, 60_000, workers);
  return {
    proc,
    port,
    workers,
    pids: () => {
      const m = new Map<number, number>();
      for (const x of proc.output.matchAll(/worker (\d+) \(pid (\d+), generation \d+\) listening/g)) {
        m.set(Number(x[1]), Number(x[2]));
      }
      return m;
    },
  };
}

/** GET on a new connection (so the kernel picks a worker each time); `local` binds the client address. */
export function get(
  port: number,
  path = '/',
  opts: { local?: string; headers?: Record<string, string>; timeout?: number } = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: HOST,
        port,
        path,
        agent: false,
        localAddress: opts.local,
        headers: { connection: 'close', ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeout ?? 5000, () => req.destroy(new Error(`GET ${path} on ${port} timed out`)));
    req.on('error', reject);
  });
}

/**
 * Sequential GETs on new connections until stopped (or for at most `maxMs`): counts answers with status 200 and
 * records failures (when, and the other status or the connection's error), pausing 10 ms after a failure so a dead
 * port is not hammered.
 */
/** A failed request of `backgroundLoad`: when (Date.now()), and the status it got or its connection's error. */
export interface LoadFailure {
  at: number;
  status?: number;
  error?: string;
}

export function backgroundLoad(port: number, path: string, maxMs = 60_000) {
  const counts = { ok: 0, failures: [] as LoadFailure[] };
  let stopped = false;
  const until = Date.now() + maxMs;
  const done = (async () => {
    while (!stopped && Date.now() < until) {
      try {
        const r = await get(port, path, { timeout: 3000 });
        if (r.status === 200) counts.ok++;
        else counts.failures.push({ at: Date.now(), status: r.status });
      } catch (err) {
        counts.failures.push({ at: Date.now(), error: String(err) });
        await sleep(10);
      }
    }
  })();
  return {
    counts,
    stop: async () => {
      stopped = true;
      await done;
      return counts;
    },
  };
}

/** POST a text body on a new connection. */
export function post(port: number, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { connection: 'close', 'content-type': 'text/plain' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error(`POST ${path} on ${port} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A WebSocket client that keeps every text message (parsed as JSON) and can wait for one. */
export class WsClient {
  readonly ws: WebSocket;
  readonly messages: unknown[] = [];
  readonly opened: Promise<void>;
  closeCode: number | undefined;
  readonly closed: Promise<number>;
  private waiters: (() => void)[] = [];

  constructor(url: string, opts: WebSocket.ClientOptions = {}) {
    this.ws = new WebSocket(url, opts);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    this.opened.catch(() => {});
    this.ws.on('error', () => {});
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code) => {
        this.closeCode = code;
        resolve(code);
        for (const w of this.waiters) w();
      }),
    );
    this.ws.on('message', (d) => {
      try {
        this.messages.push(JSON.parse(String(d)));
      } catch {
        this.messages.push(String(d));
      }
      for (const w of this.waiters) w();
    });
  }

  /** The first message (from index `from`) matching `pred`, within `ms`. */
  next<T = Record<string, unknown>>(pred: (m: T) => boolean, ms = 5000, from = 0): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = from; i < this.messages.length; i++) {
          const m = this.messages[i] as T;
          if (pred(m)) {
            done();
            resolve(m);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no matching WebSocket message within ${ms} ms; got ${JSON.stringify(this.messages).slice(0, 500)}`,
          ),
        );
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const waiter = () => {
        check();
      };
      if (!check()) this.waiters.push(waiter);
    });
  }

  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Moments after a kill: a connection that reached the dying worker may fail; later, or as a wrong answer, none may. */
export const KILL_WINDOW_MS = 1000;

/**
 * Asserts that the load's `failures` around a worker killed at `killedAt` were only connections lost with it: each an
 * error of the connection (no status), each within KILL_WINDOW_MS of the kill.
 */
export function assertKillFailures(failures: LoadFailure[], killedAt: number): void {
  const shown = JSON.stringify(failures.map((f) => ({ ...f, at: f.at - killedAt })));
  for (const f of failures) {
    assert.equal(f.status, undefined, `a wrong answer, not a lost connection: ${shown}`);
    assert.ok(f.at - killedAt <= KILL_WINDOW_MS, `a failure ${f.at - killedAt} ms after the kill: ${shown}`);
  }
}
