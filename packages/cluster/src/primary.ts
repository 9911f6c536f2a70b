// gale.cluster(): the primary process of n workers that each run the app and listen on the same port (SO_REUSEPORT,
// set by the engine). It respawns crashed workers with backoff, reloads them with no downtime on SIGHUP (new workers
// listen before old ones drain), stops them gracefully on SIGTERM/SIGINT, relays pub/sub between them, and collects
// their memory and metrics. It never runs the app itself, so a crashing worker cannot take it down.
// Over 400 lines: it is one Cluster class whose fork, exit/respawn, reload, shutdown, signal and metrics paths all read
// and update the same private state (the slot table, the live worker set, the generation and reload counters, the
// stopping flag, the pending metrics requests).

import nodeCluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { consoleLogger, type Logger } from 'gale';
import { IpcRelay } from './ipc-relay.js';
import {
  type ClusterOptions,
  exitCause,
  mib,
  type ResolvedOptions,
  resolveOptions,
  type WorkerInfo,
} from './options.js';
import { ENV, isGaleMessage, type ToPrimary, type ToWorker } from './protocol.js';

interface Slot {
  index: number;
  /** The worker serving this place now. */
  current?: Tracked;
  /** A worker starting to replace `current` (reload). */
  next?: Tracked;
  /** Quick crashes in a row (for the backoff). */
  failures: number;
  restarts: number;
  timer?: NodeJS.Timeout;
}

interface Tracked {
  worker: Worker;
  slot: number;
  generation: number;
  state: WorkerInfo['state'];
  startedAt: number;
  /** The primary asked it to stop: its exit is not a crash. */
  expected: boolean;
  address?: WorkerInfo['address'];
  memory?: WorkerInfo['memory'];
  lastError?: string;
  listening: Promise<boolean>;
  onListening: (ok: boolean) => void;
  exited: Promise<void>;
  onExit: () => void;
  killTimer?: NodeJS.Timeout;
}

let started: Cluster | undefined;

/** The module a worker starts with: it sets up the worker side, then imports the entry. */
function workerMain(): string {
  const js = fileURLToPath(new URL('./worker-main.js', import.meta.url));
  if (existsSync(js)) return js;
  return fileURLToPath(new URL('./worker-main.ts', import.meta.url)); // running from sources (tsx)
}

/** The entry as a file URL: a path (relative to the working directory), a file URL or `import.meta.url`. */
function entryUrl(entry: string | URL): string {
  if (entry instanceof URL) return entry.href;
  if (typeof entry !== 'string' || entry === '') {
    throw new TypeError('cluster(entry): entry must be the path or file URL of the module that starts the app');
  }
  if (entry.startsWith('file:')) return entry;
  const path = isAbsolute(entry) ? entry : resolve(entry);
  if (!existsSync(path)) throw new Error(`cluster(entry): ${path} does not exist`);
  return pathToFileURL(path).href;
}

/**
 * The primary of a cluster: forks the workers, respawns, reloads and stops them. Made by `cluster()`.
 *
 * Events: `listening` (info), `crash` (info, cause), `respawn` (info), `reload` (ok), `exit` (code).
 *
 * @example
 * import { cluster } from '@gale-http/cluster';
 * const c = cluster('./server.mjs', { workers: 'auto' });
 * c.on('crash', (info, cause) => console.error(`worker ${info.slot} crashed:`, cause));
 * await c.ready; // every worker listens
 * await c.reload(); // new workers first, then the old ones drain
 * process.exitCode = await c.shutdown();
 */
export class Cluster extends EventEmitter {
  private readonly o: ResolvedOptions;
  private readonly log: Logger;
  private readonly slots: Slot[] = [];
  private readonly relay = new IpcRelay();
  private readonly live = new Set<Tracked>();
  private readonly env: Record<string, string | undefined>;
  private generation = 0;
  private stopping = false;
  private reloading: Promise<boolean> | undefined;
  private reloads = 0;
  private signalHandlers: [NodeJS.Signals, () => void][] = [];
  private metricsSeq = 0;
  private readonly clientIds = new Map<number, number>();
  private readonly metricsRequests = new Map<
    number,
    { want: Set<number>; got: unknown[][]; from: Worker; timer: NodeJS.Timeout }
  >();
  /** Resolves once every worker of the first generation is listening (rejects if one cannot start). */
  readonly ready: Promise<void>;
  /** Resolves with the exit code once the cluster has stopped (after `shutdown()`, SIGTERM or SIGINT). */
  readonly done: Promise<number>;
  private resolveDone!: (code: number) => void;

  /** @internal use cluster() */
  constructor(entry: string | URL, options: ClusterOptions) {
    super();
    this.o = resolveOptions(options);
    this.log = options.logger ?? consoleLogger;
    const url = entryUrl(entry);
    this.done = new Promise((r) => {
      this.resolveDone = r;
    });
    nodeCluster.setupPrimary({
      exec: workerMain(),
      args: this.o.args ?? process.argv.slice(2),
      execArgv: this.o.execArgv ?? process.execArgv,
      // Buffers and typed arrays cross as bytes (pub/sub payloads), not as JSON arrays of numbers.
      serialization: 'advanced',
    });
    this.env = { ...this.o.env, [ENV.entry]: url };
    for (let i = 0; i < this.o.workers; i++) this.slots.push({ index: i, failures: 0, restarts: 0 });
    if (this.o.signals) this.installSignals();
    this.info(`starting ${this.o.workers} worker${this.o.workers === 1 ? '' : 's'} for ${url}`);
    const first = this.slots.map((s) => {
      const t = this.fork(s.index);
      s.current = t;
      return t.listening;
    });
    this.ready = Promise.all(first).then((oks) => {
      if (!oks.every(Boolean)) throw new Error('gale cluster: a worker exited or timed out before listening');
    });
    this.ready.catch(() => {}); // reported through the log; callers may await it
  }

  private info(msg: string): void {
    this.log.info(`gale cluster: ${msg}`);
  }
  private error(msg: string): void {
    this.log.error(`gale cluster: ${msg}`);
  }

  private fork(slot: number): Tracked {
    const generation = this.generation;
    const worker = nodeCluster.fork({
      ...this.env,
      [ENV.slot]: String(slot),
      [ENV.generation]: String(generation),
      [ENV.drainTimeout]: String(this.o.drainTimeout),
      [ENV.drainDelay]: String(this.o.drainDelay),
      [ENV.pubsub]: this.o.pubsub === false ? 'off' : this.o.pubsub,
      [ENV.memoryInterval]: String(this.o.memoryInterval),
    });
    let onListening!: (ok: boolean) => void;
    let onExit!: () => void;
    const t: Tracked = {
      worker,
      slot,
      generation,
      state: 'starting',
      startedAt: Date.now(),
      expected: false,
      listening: new Promise((r) => {
        onListening = r;
      }),
      onListening: (ok) => onListening(ok),
      exited: new Promise((r) => {
        onExit = r;
      }),
      onExit: () => onExit(),
    };
    this.live.add(t);
    const startTimer = setTimeout(() => {
      if (t.state !== 'starting') return;
      this.error(
        `worker ${slot} (pid ${worker.process.pid}) did not listen within ${this.o.startTimeout} ms; stopping it`,
      );
      t.onListening(false);
      this.stop(t, 0);
    }, this.o.startTimeout);
    startTimer.unref();
    worker.on('message', (m: unknown) => {
      if (isGaleMessage(m)) this.onMessage(t, m as ToPrimary);
    });
    // A worker that died between a send and its delivery: EPIPE/ERR_IPC_CHANNEL_CLOSED, nothing to do.
    worker.on('error', (err) => this.log.warn(`gale cluster: worker ${slot}: ${(err as Error).message}`));
    worker.on('exit', (code, signal) => {
      clearTimeout(startTimer);
      this.onExit(t, code, signal);
    });
    return t;
  }

  private onMessage(t: Tracked, m: ToPrimary): void {
    switch (m.gale) {
      case 'listening':
        if (t.state === 'starting') {
          t.state = 'listening';
          t.address = m.address;
          this.info(
            `worker ${t.slot} (pid ${t.worker.process.pid}, generation ${t.generation}) listening on ${m.address.address}:${m.address.port}`,
          );
          this.emit('listening', this.describe(t));
          t.onListening(true);
        }
        return;
      case 'mem':
        t.memory = { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, at: Date.now() };
        return;
      case 'crash':
        t.lastError = m.error;
        return;
      case 'ps':
        this.relay.onMessage(t.worker, m.m);
        return;
      case 'metrics?':
        this.collectMetrics(t.worker, m.id);
        return;
      case 'metrics=': {
        const req = this.metricsRequests.get(m.id);
        if (req === undefined || !req.want.delete(t.worker.id)) return;
        req.got.push(m.metrics);
        if (req.want.size === 0) this.answerMetrics(m.id);
        return;
      }
    }
  }

  private onExit(t: Tracked, code: number | null, signal: string | null): void {
    clearTimeout(t.killTimer);
    this.live.delete(t);
    this.relay.removeWorker(t.worker);
    for (const [id, req] of this.metricsRequests) {
      if (req.want.delete(t.worker.id) && req.want.size === 0) this.answerMetrics(id);
    }
    const slot = this.slots[t.slot] as Slot;
    const wasCurrent = slot.current === t;
    const wasNext = slot.next === t;
    if (wasCurrent) slot.current = undefined;
    if (wasNext) slot.next = undefined;
    t.onListening(false);
    t.onExit();
    const pid = t.worker.process.pid;
    if (t.expected) {
      this.info(`worker ${t.slot} (pid ${pid}) stopped (${exitCause(code, signal)})`);
      return;
    }
    const uptime = Date.now() - t.startedAt;
    const cause = exitCause(code, signal);
    const error = t.lastError ? `; uncaught: ${t.lastError.split('\n').slice(0, 3).join(' | ')}` : '';
    this.error(
      `worker ${t.slot} (pid ${pid}) ${cause} after ${(uptime / 1000).toFixed(1)} s (last RSS ${mib(t.memory?.rss)})${error}`,
    );
    slot.restarts++;
    this.emit('crash', this.describe(t), { code, signal, error: t.lastError });
    if (this.stopping || !wasCurrent) return;
    slot.failures = uptime >= this.o.stableAfter ? 0 : slot.failures + 1;
    const delay = Math.min(this.o.backoffMax, this.o.backoffInitial * 2 ** Math.max(0, slot.failures - 1));
    this.info(`respawning worker ${t.slot} in ${delay} ms`);
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (this.stopping || slot.current !== undefined) return;
      const n = this.fork(t.slot);
      slot.current = n;
      this.emit('respawn', this.describe(n));
    }, delay);
  }

  /** Asks a worker to drain (SIGTERM: its apps close gracefully) and kills it if it is still there after `grace`. */
  private stop(t: Tracked, grace = this.o.drainDelay + this.o.drainTimeout): Promise<void> {
    if (t.expected) return t.exited;
    t.expected = true;
    t.state = 'draining';
    if (t.worker.isDead()) return t.exited;
    t.worker.process.kill('SIGTERM');
    t.killTimer = setTimeout(() => {
      if (t.worker.isDead()) return;
      this.error(`worker ${t.slot} (pid ${t.worker.process.pid}) did not stop within ${grace + 3000} ms; killing it`);
      t.worker.process.kill('SIGKILL');
    }, grace + 3000);
    t.killTimer.unref();
    return t.exited;
  }

  /**
   * Zero-downtime reload: starts a new worker for every place and waits until all of them listen; only then are
   * the old ones drained. If a new worker cannot start, the new ones are stopped and the old ones keep serving.
   * Resolves true when the new generation took over.
   */
  reload(): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    if (this.reloading) {
      this.info('a reload is already running');
      return this.reloading;
    }
    this.reloading = this.doReload().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async doReload(): Promise<boolean> {
    this.generation++;
    this.info(`reload: starting generation ${this.generation}`);
    const fresh = this.slots.map((s) => {
      const t = this.fork(s.index);
      s.next = t;
      return t;
    });
    const oks = await Promise.all(fresh.map((t) => t.listening));
    if (this.stopping) return false;
    if (!oks.every(Boolean)) {
      this.error(`reload failed: a new worker did not start listening; the old workers keep serving`);
      for (const t of fresh) this.stop(t, 0);
      this.emit('reload', false);
      return false;
    }
    const old: Tracked[] = [];
    for (const s of this.slots) {
      if (s.current) old.push(s.current);
      s.current = s.next;
      s.next = undefined;
      s.failures = 0;
    }
    this.info(`reload: generation ${this.generation} is listening; draining ${old.length} old worker(s)`);
    this.reloads++;
    await Promise.all(old.map((t) => this.stop(t)));
    this.info('reload done');
    this.emit('reload', true);
    return true;
  }

  /**
   * Stops every worker gracefully (each drains within `drainTimeout`), killing what is left after
   * `shutdownTimeout`; resolves with the exit code (0, or 1 if something had to be killed).
   */
  async shutdown(): Promise<number> {
    if (this.stopping) return this.done;
    this.stopping = true;
    this.info('stopping: draining every worker');
    for (const s of this.slots) clearTimeout(s.timer);
    const all = this.all();
    let killed = false;
    const deadline = setTimeout(() => {
      for (const t of this.all()) {
        if (!t.worker.isDead()) {
          killed = true;
          this.error(`worker ${t.slot} (pid ${t.worker.process.pid}) still running at the deadline; killing it`);
          t.worker.process.kill('SIGKILL');
        }
      }
    }, this.o.shutdownTimeout);
    await Promise.all(all.map((t) => this.stop(t)));
    clearTimeout(deadline);
    this.removeSignals();
    const code = killed ? 1 : 0;
    this.info('stopped');
    this.emit('exit', code);
    started = undefined;
    this.resolveDone(code);
    if (this.o.exit) process.exit(code);
    return code;
  }

  /** Every worker process alive: serving, starting, and old ones still draining after a reload. */
  private all(): Tracked[] {
    return [...this.live];
  }

  /** The workers now (serving and starting ones), with their last memory report. */
  workers(): WorkerInfo[] {
    return this.all().map((t) => this.describe(t));
  }

  private describe(t: Tracked): WorkerInfo {
    return {
      slot: t.slot,
      id: t.worker.id,
      pid: t.worker.process.pid,
      generation: t.generation,
      state: t.state,
      startedAt: t.startedAt,
      restarts: (this.slots[t.slot] as Slot).restarts,
      address: t.address,
      memory: t.memory,
    };
  }

  /** Logs one line per worker: pid, state, uptime, memory. */
  report(): void {
    for (const w of this.workers()) {
      const m = w.memory;
      this.info(
        `worker ${w.slot} pid ${w.pid} ${w.state}, generation ${w.generation}, up ${((Date.now() - w.startedAt) / 1000).toFixed(0)} s, ` +
          `restarts ${w.restarts}, RSS ${mib(m?.rss)}, heap ${mib(m?.heapUsed)} / ${mib(m?.heapTotal)}, external ${mib(m?.external)}`,
      );
    }
  }

  private installSignals(): void {
    let stops = 0;
    const stop = () => {
      stops++;
      if (stops === 1) {
        this.shutdown().catch((err: unknown) => this.error(`shutdown failed: ${String(err)}`));
        return;
      }
      this.error('second stop signal: killing every worker');
      for (const t of this.all()) t.worker.process.kill('SIGKILL');
      process.exit(1);
    };
    const handlers: [NodeJS.Signals, () => void][] = [
      ['SIGTERM', stop],
      ['SIGINT', stop],
      ['SIGHUP', () => void this.reload()],
      ['SIGUSR2', () => this.report()],
    ];
    for (const [sig, fn] of handlers) process.on(sig, fn);
    this.signalHandlers = handlers;
  }

  private removeSignals(): void {
    for (const [sig, fn] of this.signalHandlers) process.off(sig, fn);
    this.signalHandlers = [];
  }

  /** A worker asked for every worker's metrics (its /metrics route): ask all, answer when all replied or after 2 s. */
  private collectMetrics(from: Worker, clientId: number): void {
    const id = ++this.metricsSeq;
    const targets = this.all().filter((t) => t.state !== 'starting' && !t.worker.isDead());
    const want = new Set(targets.map((t) => t.worker.id));
    const timer = setTimeout(() => this.answerMetrics(id), 2000);
    timer.unref();
    this.metricsRequests.set(id, { want, got: [this.ownMetrics()], from, timer });
    this.clientIds.set(id, clientId);
    for (const t of targets) send(t.worker, { gale: 'metrics!', id });
    if (want.size === 0) this.answerMetrics(id);
  }

  private answerMetrics(id: number): void {
    const req = this.metricsRequests.get(id);
    if (req === undefined) return;
    this.metricsRequests.delete(id);
    clearTimeout(req.timer);
    const clientId = this.clientIds.get(id) as number;
    this.clientIds.delete(id);
    send(req.from, { gale: 'metrics.', id: clientId, list: req.got });
  }

  /** The primary's own figures, in prom-client's JSON shape (aggregated with the workers' by the asking worker). */
  private ownMetrics(): unknown[] {
    const workers = this.workers();
    return [
      {
        name: 'gale_cluster_workers',
        help: 'Worker processes of the cluster, by state',
        type: 'gauge',
        aggregator: 'first',
        values: (['starting', 'listening', 'draining'] as const).map((state) => ({
          labels: { state },
          value: workers.filter((w) => w.state === state).length,
        })),
      },
      {
        name: 'gale_cluster_worker_restarts_total',
        help: 'Crashes (and respawns) of each worker place',
        type: 'counter',
        aggregator: 'first',
        values: this.slots.map((s) => ({ labels: { slot: String(s.index) }, value: s.restarts })),
      },
      {
        name: 'gale_cluster_reloads_total',
        help: 'Zero-downtime reloads completed',
        type: 'counter',
        aggregator: 'first',
        values: [{ labels: {}, value: this.reloads }],
      },
    ];
  }
}

/** Sends to a worker, ignoring a channel that just closed (the worker is exiting; its exit is handled). */
export function send(worker: Worker, m: ToWorker): void {
  if (!worker.isConnected()) return;
  try {
    worker.send(m, undefined, () => {});
  } catch {}
}

/**
 * Runs `entry` (a module that creates and starts the app, as for `node entry`) in `workers` processes that all
 * listen on the port the app asks for: the kernel spreads connections among them (SO_REUSEPORT). This process
 * becomes the primary: it respawns crashed workers (with backoff), reloads them with no downtime on SIGHUP, stops
 * them gracefully on SIGTERM/SIGINT, logs each worker's memory on SIGUSR2, and relays `app.publish` between them.
 *
 * @example
 * // cluster.mjs — `node cluster.mjs`; `kill -HUP <pid>` reloads; `kill <pid>` stops
 * import { cluster } from '@gale-http/cluster';
 * cluster('./server.mjs', { workers: 'auto' });
 *
 * @example
 * // One file: the primary forks workers that run this same file (WORKERS=4 node server.mjs).
 * import { cluster } from '@gale-http/cluster';
 * import { gale } from 'gale';
 * if (process.env.WORKERS && cluster.isPrimary) await cluster(import.meta.url, { workers: process.env.WORKERS }).done;
 * const app = gale();
 * app.get('/', () => ({ pid: process.pid }));
 * await app.listen(3000);
 */
export function cluster(entry: string | URL, options: ClusterOptions = {}): Cluster {
  if (!nodeCluster.isPrimary) {
    throw new Error(
      'cluster() was called in a worker: guard it with `if (cluster.isPrimary)` (the workers run the entry module too)',
    );
  }
  if (started !== undefined) throw new Error('cluster() was already called in this process (one cluster per primary)');
  const c = new Cluster(entry, options);
  started = c;
  return c;
}
