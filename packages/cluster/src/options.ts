// Options and reports of gale.cluster() (types, and the checks that turn bad options into clear errors).
// No process or network code here.
import os from 'node:os';
import type { Logger } from 'gale';

/**
 * Options of `cluster(entry, options)`.
 *
 * @example
 * import { cluster } from '@gale-http/cluster';
 * cluster('./server.mjs', { workers: 4, drainTimeout: 5_000, pubsub: process.env.REDIS_URL ?? 'ipc' });
 */
export interface ClusterOptions {
  /**
   * Worker processes: a number, `'auto'` or 0 (one per core: `os.availableParallelism()`), or the same as a string
   * (so `process.env.WORKERS` can be passed as it is). Default: `GALE_WORKERS` from the environment (what
   * `gale start --workers n` sets), else `'auto'`.
   */
  workers?: number | 'auto' | string;
  /** ms a worker gets to drain (in-flight requests finish, WebSockets closed with 1001) on reload and shutdown. Default 10 000. */
  drainTimeout?: number;
  /**
   * ms a stopping worker keeps serving with its readiness route answering 503 before it closes, so a balancer's
   * health check takes it out first (the Kubernetes preStop pattern). Default 0: with one port, the kernel stops
   * sending connections to a worker as soon as it closes its listener.
   */
  drainDelay?: number;
  /** ms SIGTERM/SIGINT may take in all before the workers left are killed. Default `drainTimeout` + `drainDelay` + 5 000. */
  shutdownTimeout?: number;
  /** ms a new worker may take to start listening before it counts as failed. Default 30 000. */
  startTimeout?: number;
  /** Delay before respawning a crashed worker: `initial` ms, doubled for each quick crash in a row, at most `max`. Default 100 / 10 000. */
  backoff?: { initial?: number; max?: number };
  /** A worker that ran this long (ms) before crashing is respawned after `backoff.initial` again. Default 5 000. */
  stableAfter?: number;
  /** Extra environment variables for the workers. */
  env?: Record<string, string | undefined>;
  /** Node options of the workers. Default: the primary's (`process.execArgv`, so `--import tsx` carries over). */
  execArgv?: string[];
  /** Arguments of the workers (`process.argv.slice(2)` inside them). Default: the primary's. */
  args?: string[];
  /** Where the primary logs crashes, respawns, reloads and memory. Default: the console. */
  logger?: Logger;
  /**
   * Handle SIGHUP (zero-downtime reload), SIGTERM/SIGINT (graceful stop; a second one kills) and SIGUSR2 (log each
   * worker's memory). Default true.
   */
  signals?: boolean;
  /** After a shutdown, end the primary process with `process.exit`. Default true. */
  exit?: boolean;
  /**
   * Cross-process pub/sub of the workers' apps (`app.publish`/`ws.publish` reach every worker): `'ipc'` (through
   * the primary), a Redis URL (every worker talks to Redis: other machines too), or `false`. Default: the
   * `GALE_PUBSUB` environment variable (`ipc`, a Redis URL or `off`), else `'ipc'`.
   */
  pubsub?: 'ipc' | string | false;
  /** ms between the memory reports of each worker. Default 5 000. */
  memoryInterval?: number;
}

/**
 * One worker, as `cluster.workers()` reports it.
 *
 * @example
 * const c = cluster('./server.mjs', { workers: 2 });
 * await c.ready;
 * for (const w of c.workers()) console.log(w.slot, w.pid, w.state, w.restarts);
 */
export interface WorkerInfo {
  /** Its place, 0 … workers-1; a respawned or reloaded worker keeps the place. */
  slot: number;
  /** node:cluster's worker id (new for every process). */
  id: number;
  pid: number | undefined;
  /** Incremented by every reload. */
  generation: number;
  state: 'starting' | 'listening' | 'draining';
  /** When it was forked (ms since the epoch). */
  startedAt: number;
  /** Crashes of this slot so far. */
  restarts: number;
  /** The first address it listened on. */
  address?: { address: string; port: number; family: string };
  /** Its last memory report (bytes), if any yet. */
  memory?: { rss: number; heapUsed: number; heapTotal: number; external: number; at: number };
}

/** @internal options with defaults filled in */
export interface ResolvedOptions {
  workers: number;
  drainTimeout: number;
  drainDelay: number;
  shutdownTimeout: number;
  startTimeout: number;
  backoffInitial: number;
  backoffMax: number;
  stableAfter: number;
  env: Record<string, string | undefined>;
  execArgv: string[] | undefined;
  args: string[] | undefined;
  signals: boolean;
  exit: boolean;
  pubsub: string | false;
  memoryInterval: number;
}

function ms(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new TypeError(`cluster(): ${name} must be a number of milliseconds ≥ 0 (got ${String(v)})`);
  }
  return v;
}

/** The worker count `workers` asks for. */
export function workerCount(workers: ClusterOptions['workers']): number {
  // GALE_WORKERS is what `gale start --workers n` sets (0 meaning one per core).
  const w = workers ?? process.env.GALE_WORKERS;
  if (w === undefined || w === 'auto' || w === 0 || w === '0') return os.availableParallelism();
  workers = w;
  const n = typeof workers === 'string' && /^\s*\d+\s*$/.test(workers) ? Number(workers) : workers;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1024) {
    throw new TypeError(
      `cluster(): workers must be a whole number from 1 to 1024 or 'auto' (got ${JSON.stringify(workers)})`,
    );
  }
  return n;
}

/** @internal */
export function resolveOptions(o: ClusterOptions): ResolvedOptions {
  const drainTimeout = ms('drainTimeout', o.drainTimeout, 10_000);
  const drainDelay = ms('drainDelay', o.drainDelay, 0);
  const env = process.env.GALE_PUBSUB;
  const pubsub = o.pubsub ?? (env === 'off' ? false : env || 'ipc');
  if (pubsub !== false && typeof pubsub !== 'string') {
    throw new TypeError(`cluster(): pubsub must be 'ipc', a Redis URL or false (got ${String(pubsub)})`);
  }
  return {
    workers: workerCount(o.workers),
    drainTimeout,
    drainDelay,
    shutdownTimeout: ms('shutdownTimeout', o.shutdownTimeout, drainTimeout + drainDelay + 5000),
    startTimeout: ms('startTimeout', o.startTimeout, 30_000),
    backoffInitial: ms('backoff.initial', o.backoff?.initial, 100),
    backoffMax: ms('backoff.max', o.backoff?.max, 10_000),
    stableAfter: ms('stableAfter', o.stableAfter, 5000),
    env: o.env ?? {},
    execArgv: o.execArgv,
    args: o.args,
    signals: o.signals ?? true,
    exit: o.exit ?? true,
    pubsub,
    memoryInterval: ms('memoryInterval', o.memoryInterval, 5000),
  };
}

/** Bytes as MiB with one decimal, for log lines. */
export function mib(bytes: number | undefined): string {
  return bytes === undefined ? '?' : `${(bytes / 1048576).toFixed(1)} MiB`;
}

/** Why a process ended, for log lines. */
export function exitCause(code: number | null, signal: string | null): string {
  if (signal) return `was killed by ${signal}`;
  return `exited with code ${code ?? '?'}`;
}
