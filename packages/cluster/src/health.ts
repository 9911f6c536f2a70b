// health(app): liveness (a fixed route the engine answers), readiness (503 while the app drains or a check
// fails) and metrics — as an object, and as Prometheus text through prom-client (an optional peer dependency,
// loaded on the first scrape). In a gale.cluster() worker the metrics route answers for every worker (and the
// primary), each worker's series labelled `worker`, via prom-client's AggregatorRegistry.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { App, ServerStats } from 'gale';
import { type ScaleHooks, scaleHooks } from 'gale';
import { inClusterWorker, pubsubOf } from './attach.js';
import { ENV } from './protocol.js';
import type { PubSubStats } from './pubsub.js';
import { clusterMetrics, setMetricsProvider } from './worker.js';

/** gale's scale-out hooks, with its App as the app type. */
const hooks = scaleHooks as ScaleHooks<App>;

/**
 * What health() needs of a prom-client Registry (your own metrics, served along Gale's).
 *
 * @example
 * import { Registry } from 'prom-client';
 * const register = new Registry();
 * health(app, { register });
 */
export interface MetricsRegistry {
  metrics(): Promise<string>;
  getMetricsAsJSON(): Promise<unknown[]>;
  getSingleMetric(name: string): unknown;
}

/**
 * Options of `health(app, options)`.
 *
 * @example
 * health(app, { live: '/live', ready: '/ready', metrics: false, check: async () => (await db.ping()) || 'no database' });
 */
export interface HealthOptions {
  /** Liveness path, answered by the engine with 200 `ok` (never enters JavaScript). Default '/healthz'; false: none. */
  live?: string | false;
  /** Readiness path: 200 `ready`, or 503 while the app drains (from `app.close()` on) or `check` says no. Default '/readyz'. */
  ready?: string | false;
  /** Prometheus text path. Default '/metrics'; false: none. */
  metrics?: string | false;
  /** An extra readiness condition: true, or false / a reason string for 503. */
  check?: () => boolean | string | Promise<boolean | string>;
  /** A prom-client Registry whose metrics are served too. Default: prom-client's global `register`. */
  register?: MetricsRegistry;
  /** prom-client's default process metrics (CPU, memory, event loop lag, GC…). Default true. */
  defaultMetrics?: boolean;
}

/**
 * Event-loop delay over the last 10 s window, in ms.
 *
 * @example
 * const h = health(app);
 * const { p99, max } = h.metrics().eventLoopDelay;
 */
export interface LoopDelay {
  min: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * The numbers health() reports.
 *
 * @example
 * const h = health(app);
 * const m = h.metrics();
 * console.log(m.ready, m.uptime, m.memory.rss, m.eventLoopDelay.p99, m.worker?.slot);
 */
export interface GaleMetrics extends ServerStats {
  /** Not draining (the readiness route also runs `check`). */
  ready: boolean;
  /** `app.close()` began, or `drain()` was called. */
  draining: boolean;
  /** Seconds since the process started. */
  uptime: number;
  eventLoopDelay: LoopDelay;
  memory: NodeJS.MemoryUsage;
  pubsub?: PubSubStats;
  /** In a cluster() worker: its place and generation. */
  worker?: { slot: number; generation: number };
}

/**
 * What health() returns.
 *
 * @example
 * const h = health(app);
 * process.on('SIGTERM', () => {
 *   h.drain(); // readiness answers 503 while requests still run
 *   setTimeout(() => app.close(), 5_000);
 * });
 */
export interface Health {
  /** The numbers now, as an object. */
  metrics(): GaleMetrics;
  /** Prometheus text (this process, or every worker of the cluster). */
  prometheus(): Promise<{ contentType: string; text: string }>;
  /** Whether the readiness route answers 200 now, or why not. */
  readiness(): Promise<true | string>;
  /**
   * Readiness answers 503 `draining` from now on while the app keeps serving: call it, wait for the balancer's health
   * check to notice, then `app.close()` (what a cluster worker does with `drainDelay`).
   */
  drain(): void;
  /** Stops the event-loop delay monitor. */
  close(): void;
}

// biome-ignore lint/suspicious/noExplicitAny: prom-client is loaded at run time (optional peer dependency)
type Prom = any;
let promPromise: Promise<Prom> | undefined;

function loadProm(): Promise<Prom> {
  promPromise ??= import('prom-client').then(
    (m: Prom) => m.default ?? m,
    () => {
      promPromise = undefined;
      throw new Error('the prom-client package is needed for the metrics route: npm install prom-client');
    },
  );
  return promPromise;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/**
 * Adds health routes to `app`: `/healthz` (liveness, answered by the engine), `/readyz` (503 while draining or
 * when `check` fails) and `/metrics` (Prometheus text via prom-client, for every worker in a cluster). Call it
 * before `app.use(...)` middleware that should not apply to them.
 *
 * @example
 * import { health } from '@gale-http/cluster';
 * import { gale } from 'gale';
 * const app = gale();
 * const h = health(app, { check: () => db.isConnected() || 'database down' });
 * setInterval(() => console.log(h.metrics().eventLoopDelay.p99), 10_000).unref();
 */
export function health(app: App, options: HealthOptions = {}): Health {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let window: LoopDelay | undefined;
  const roll = setInterval(() => {
    window = snapshot();
    loop.reset();
  }, 10_000);
  roll.unref();
  function snapshot(): LoopDelay {
    if (loop.count === 0) return window ?? { min: 0, mean: 0, p50: 0, p99: 0, max: 0 };
    return {
      min: ms(loop.min),
      mean: ms(loop.mean),
      p50: ms(loop.percentile(50)),
      p99: ms(loop.percentile(99)),
      max: ms(loop.max),
    };
  }
  const worker = inClusterWorker()
    ? { slot: Number(process.env[ENV.slot]), generation: Number(process.env[ENV.generation] ?? 0) }
    : undefined;

  const metrics = (): GaleMetrics => {
    const draining = hooks.draining.has(app);
    const m: GaleMetrics = {
      ...app.stats(),
      ready: !draining,
      draining,
      uptime: process.uptime(),
      eventLoopDelay: window ?? snapshot(),
      memory: process.memoryUsage(),
    };
    const bus = pubsubOf(app);
    if (bus !== undefined) m.pubsub = bus.stats();
    if (worker !== undefined) m.worker = worker;
    return m;
  };

  const readiness = async (): Promise<true | string> => {
    if (hooks.draining.has(app)) return 'draining';
    if (options.check === undefined) return true;
    try {
      const r = await options.check();
      if (r === true) return true;
      return typeof r === 'string' && r !== '' ? r : 'check failed';
    } catch (err) {
      return `check failed: ${(err as Error)?.message ?? String(err)}`;
    }
  };

  // prom-client objects, made on the first scrape (or the primary's first collection).
  let setup: Promise<{ prom: Prom; own: Prom; theirs: MetricsRegistry }> | undefined;
  const promSetup = () => {
    setup ??= loadProm().then((prom) => {
      const own = new prom.Registry();
      if (worker !== undefined) own.setDefaultLabels({ worker: String(worker.slot) });
      const theirs: MetricsRegistry = options.register ?? prom.register;
      registerGauges(prom, own, metrics);
      if (options.defaultMetrics !== false && !theirs.getSingleMetric('process_cpu_user_seconds_total')) {
        prom.collectDefaultMetrics({ register: own });
      }
      return { prom, own, theirs };
    });
    return setup;
  };
  const json = async (): Promise<unknown[]> => {
    const { own, theirs } = await promSetup();
    return [...(await own.getMetricsAsJSON()), ...(await theirs.getMetricsAsJSON())];
  };
  if (worker !== undefined && options.metrics !== false) setMetricsProvider(json);

  const prometheus = async () => {
    const { prom, own, theirs } = await promSetup();
    const contentType: string = prom.register.contentType;
    if (worker !== undefined) {
      const list = await clusterMetrics();
      return { contentType, text: await prom.AggregatorRegistry.aggregate(list).metrics() };
    }
    return { contentType, text: `${await own.metrics()}\n${await theirs.metrics()}` };
  };

  if (options.live !== false) app.fixed('GET', options.live ?? '/healthz', { body: 'ok\n' });
  if (options.ready !== false) {
    app.get(options.ready ?? '/readyz', async (_req, res) => {
      res.header('cache-control', 'no-store');
      const r = await readiness();
      if (r === true) res.send('ready\n');
      else res.status(503).send(`not ready: ${r}\n`);
    });
  }
  if (options.metrics !== false) {
    app.get(options.metrics ?? '/metrics', async (_req, res) => {
      res.header('cache-control', 'no-store');
      try {
        const { contentType, text } = await prometheus();
        res.type(contentType).send(text);
      } catch (err) {
        res
          .status(503)
          .type('text/plain; charset=utf-8')
          .send(`metrics unavailable: ${(err as Error).message}\n`);
      }
    });
  }
  return {
    metrics,
    prometheus,
    readiness,
    drain: () => {
      hooks.draining.add(app);
    },
    close: () => {
      clearInterval(roll);
      loop.disable();
    },
  };
}

/** Gale's figures as prom-client metrics in `reg`, read from `metrics()` at each scrape. */
function registerGauges(prom: Prom, reg: Prom, metrics: () => GaleMetrics): void {
  let snap: GaleMetrics | undefined;
  // One metrics() per scrape: the first collect of a scrape takes it, the last one lets it go.
  const get = () => {
    snap ??= metrics();
    queueMicrotask(() => {
      snap = undefined;
    });
    return snap;
  };
  const gauge = (name: string, help: string, read: (m: GaleMetrics) => number) =>
    new prom.Gauge({
      name,
      help,
      registers: [reg],
      collect(this: Prom) {
        this.set(read(get()));
      },
    });
  const counter = (name: string, help: string, read: (m: GaleMetrics) => number) =>
    new prom.Counter({
      name,
      help,
      registers: [reg],
      collect(this: Prom) {
        this.reset();
        this.inc(read(get()));
      },
    });
  gauge('gale_connections', 'Open connections (WebSockets included)', (m) => m.connections);
  gauge('gale_websockets', 'Open WebSocket connections', (m) => m.websockets);
  gauge('gale_requests_in_flight', 'Requests being answered', (m) => m.requestsInFlight);
  counter('gale_requests_total', 'Requests parsed since the server started', (m) => m.requestsTotal);
  gauge('gale_pending_output_bytes', 'Output waiting for slow clients', (m) => m.pendingOutput);
  gauge('gale_accept_paused', '1 while accepting is paused for want of file descriptors', (m) => +m.acceptPaused);
  gauge('gale_ready', '1 when the readiness route answers 200 (not draining)', (m) => +m.ready);
  new prom.Gauge({
    name: 'gale_event_loop_delay_seconds',
    help: 'Event-loop delay over the last 10 s (perf_hooks.monitorEventLoopDelay)',
    labelNames: ['quantile'],
    registers: [reg],
    collect(this: Prom) {
      const d = get().eventLoopDelay;
      this.set({ quantile: '0.5' }, d.p50 / 1000);
      this.set({ quantile: '0.99' }, d.p99 / 1000);
      this.set({ quantile: '1' }, d.max / 1000);
    },
  });
  gauge('gale_pubsub_connected', '1 when cross-process pub/sub is connected', (m) => +(m.pubsub?.connected ?? 0));
  gauge('gale_pubsub_peers', 'Other processes on the pub/sub', (m) => m.pubsub?.peers ?? 0);
  counter('gale_pubsub_sent_total', 'Publishes sent to other processes', (m) => m.pubsub?.sent ?? 0);
  counter('gale_pubsub_skipped_total', 'Publishes no other process wanted', (m) => m.pubsub?.skipped ?? 0);
  counter('gale_pubsub_received_total', 'Publishes received from other processes', (m) => m.pubsub?.received ?? 0);
  counter('gale_pubsub_failed_total', 'Publishes delivered locally only (Redis away)', (m) => m.pubsub?.failed ?? 0);
}
