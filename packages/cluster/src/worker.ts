// The worker side of gale.cluster(): every app created here listens with SO_REUSEPORT and gets cross-process
// pub/sub when it starts listening; the first listen tells the primary this worker is ready; SIGTERM/SIGINT drain
// every app (in-flight requests finish, WebSockets get 1001) and exit; memory is reported to the primary; metrics
// are answered for the primary's collection. Installed by worker-main.ts before the entry module is imported.
import type { AddressInfo, App } from 'gale';
import { type ScaleHooks, scaleHooks } from 'gale';
import { autoPubsub, pubsubOf } from './attach.js';
import { ENV, isGaleMessage, type ToPrimary, type ToWorker } from './protocol.js';

/** gale's scale-out hooks, with its App as the app type. */
const hooks = scaleHooks as ScaleHooks<App>;

const apps = new Set<App>();
const shutdownHooks = new Set<() => unknown>();
let draining: Promise<void> | undefined;
let metricsProvider: (() => Promise<unknown[]>) | undefined;
let metricsSeq = 0;
const metricsWaiters = new Map<number, (list: unknown[][]) => void>();

function toPrimary(m: ToPrimary): void {
  if (!process.connected || process.send === undefined) return;
  try {
    process.send(m, undefined, {}, () => {});
  } catch {}
}

function onMessage(msg: unknown): void {
  if (!isGaleMessage(msg)) return;
  const m = msg as ToWorker;
  if (m.gale === 'metrics!') {
    const provider = metricsProvider;
    (provider ? provider() : Promise.resolve([])).then(
      (metrics) => toPrimary({ gale: 'metrics=', id: m.id, metrics }),
      () => toPrimary({ gale: 'metrics=', id: m.id, metrics: [] }),
    );
  } else if (m.gale === 'metrics.') {
    metricsWaiters.get(m.id)?.(m.list);
    metricsWaiters.delete(m.id);
  }
}

function reportMemory(): void {
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  toPrimary({ gale: 'mem', rss, heapUsed, heapTotal, external });
}

/** @internal sets this process up as a cluster worker */
export function installWorker(): void {
  hooks.reusePort = true;
  hooks.created = (app) => {
    apps.add(app);
  };
  let announced = false;
  hooks.listening = (app: App, address: AddressInfo) => {
    try {
      autoPubsub(app);
    } catch (err) {
      console.error('gale cluster: cross-process pub/sub not available:', (err as Error).message);
    }
    if (announced) return;
    announced = true;
    toPrimary({ gale: 'listening', address });
    reportMemory();
  };
  process.on('message', onMessage);
  const every = Number(process.env[ENV.memoryInterval] ?? 5000) || 5000;
  setInterval(reportMemory, every).unref();
  // The primary learns why a worker died (the stack also goes to stderr as usual).
  process.on('uncaughtExceptionMonitor', (err) => {
    toPrimary({ gale: 'crash', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  });
  // SIGTERM (from the primary: reload, shutdown) and SIGINT (Ctrl-C reaches the whole process group) drain;
  // SIGHUP and SIGUSR2 are the primary's (reload, report) and must not kill a worker that receives them too.
  process.on('SIGTERM', () => void drain());
  process.on('SIGINT', () => void drain());
  process.on('SIGHUP', () => {});
  process.on('SIGUSR2', () => {});
}

/**
 * Drains this worker: readiness turns 503 (for `drainDelay` ms first, while still serving), runs the `onShutdown` callbacks, closes every app (in-flight requests finish, keep-alive
 * connections close, WebSockets get 1001, what is left is cut after the drain timeout), closes the pub/sub
 * connections, and exits.
 */
export function drain(): Promise<void> {
  if (draining !== undefined) return draining;
  const timeout = Number(process.env[ENV.drainTimeout] ?? 10_000) || 10_000;
  const delay = Number(process.env[ENV.drainDelay] ?? 0) || 0;
  draining = (async () => {
    if (delay > 0) {
      // Readiness answers 503 while the apps still serve, so a balancer's health check takes this worker out first.
      for (const app of apps) hooks.draining.add(app);
      await new Promise((r) => setTimeout(r, delay));
    }
    await settleWithin(
      [...shutdownHooks].map((fn) => Promise.resolve().then(fn)),
      timeout,
    );
    await Promise.allSettled([...apps].map((app) => app.close({ timeout })));
    await settleWithin(
      [...apps].map((app) => pubsubOf(app)?.close() ?? Promise.resolve()),
      2000,
    );
  })().finally(() => {
    setImmediate(() => process.exit(0));
  });
  return draining;
}

function settleWithin(ps: Promise<unknown>[], ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.allSettled(ps),
    new Promise((r) => {
      timer = setTimeout(r, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs `fn` when this worker is asked to stop (reload, shutdown, SIGTERM), before its apps are closed: close a
 * Socket.IO server, flush a queue. Outside a cluster worker it is never called.
 *
 * @example
 * onShutdown(() => io.close());
 */
export function onShutdown(fn: () => unknown): () => void {
  shutdownHooks.add(fn);
  return () => shutdownHooks.delete(fn);
}

/** @internal health.ts: what this worker answers when the primary collects metrics */
export function setMetricsProvider(fn: (() => Promise<unknown[]>) | undefined): void {
  metricsProvider = fn;
}

/** @internal health.ts: every worker's metrics (prom-client JSON), through the primary. */
export function clusterMetrics(timeoutMs = 3000): Promise<unknown[][]> {
  const id = ++metricsSeq;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      metricsWaiters.delete(id);
      reject(new Error('the cluster primary did not answer with the metrics in time'));
    }, timeoutMs);
    metricsWaiters.set(id, (list) => {
      clearTimeout(timer);
      resolve(list);
    });
    toPrimary({ gale: 'metrics?', id });
  });
}
