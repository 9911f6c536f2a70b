// Scale-out: cluster() (workers on one port, respawn, zero-downtime reload), pubsub() (app.publish across
// processes and machines, over IPC or Redis) and health() (liveness, readiness, metrics): @gale-http/cluster.
/**
 * `@gale-http/cluster`: workers on one port (`cluster()`: SO_REUSEPORT, respawn, zero-downtime reload on SIGHUP,
 * graceful SIGTERM), pub/sub across processes and machines (`pubsub()`: over IPC between workers, over Redis between
 * machines), and health, readiness and Prometheus metrics (`health()`).
 *
 * @example
 * import { cluster } from '@gale-http/cluster';
 * import { gale } from 'gale';
 * if (cluster.isPrimary && process.env.WORKERS) {
 *   await cluster(import.meta.url, { workers: process.env.WORKERS }).done;
 * } else {
 *   const app = gale();
 *   app.get('/', () => ({ worker: cluster.worker?.slot ?? null }));
 *   await app.listen(3000);
 * }
 *
 * @module @gale-http/cluster
 */
import nodeCluster from 'node:cluster';
import { cluster as start } from './primary.js';
import { ENV } from './protocol.js';

export { pubsub, pubsubOf } from './attach.js';
export type { GaleMetrics, Health, HealthOptions, LoopDelay, MetricsRegistry } from './health.js';
export { health } from './health.js';
export type { ClusterOptions, WorkerInfo } from './options.js';
export type { Cluster } from './primary.js';
export type { PubSubOptions, PubSubStats, RedisLike } from './pubsub.js';
export { PubSub } from './pubsub.js';
export { onShutdown } from './worker.js';

const slot = process.env[ENV.slot];

/**
 * `cluster(entry, options)` starts the workers (see `Cluster`); `cluster.isPrimary` is true in a process that is
 * not a cluster worker, and `cluster.worker` tells a worker its place (`slot`, 0 … n-1) and `generation`.
 *
 * @example
 * import { cluster } from '@gale-http/cluster';
 * import { gale } from 'gale';
 * if (process.env.WORKERS && cluster.isPrimary) await cluster(import.meta.url, { workers: process.env.WORKERS }).done;
 * const app = gale();
 * app.get('/', () => ({ worker: cluster.worker?.slot ?? null }));
 * await app.listen(3000);
 */
export const cluster: typeof start & {
  readonly isPrimary: boolean;
  readonly isWorker: boolean;
  readonly worker: { slot: number; generation: number } | undefined;
} = Object.assign(start, {
  isPrimary: nodeCluster.isPrimary,
  isWorker: !nodeCluster.isPrimary,
  worker:
    slot === undefined || nodeCluster.isPrimary
      ? undefined
      : { slot: Number(slot), generation: Number(process.env[ENV.generation] ?? 0) },
});
