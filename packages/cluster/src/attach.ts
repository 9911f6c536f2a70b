// pubsub(app): gives an app cross-process pub/sub over Redis, or over the cluster primary in gale.cluster()
// workers (where it is attached automatically when the app starts listening). One bus per app.
import type { App } from 'gale';
import { IpcTransport } from './ipc.js';
import { ENV } from './protocol.js';
import { PubSub, type PubSubOptions, type Transport } from './pubsub.js';
import { RedisTransport } from './redis.js';

const buses = new WeakMap<App, { bus: PubSub; auto: boolean }>();

/** Whether this process is a gale.cluster() worker. */
export function inClusterWorker(): boolean {
  return process.env[ENV.slot] !== undefined && typeof process.send === 'function';
}

/**
 * Makes `app.publish` and `ws.publish` reach the subscribers of every process: the other workers of a
 * `cluster()` (through the primary), or every process and machine using the same Redis. A process's own
 * subscribers are reached first, without waiting; a topic that no other process has subscribers for sends
 * nothing. If Redis goes away, publishes reach local subscribers only (the error is logged) until it is back.
 *
 * @example
 * import { pubsub } from '@gale-http/cluster';
 * import { gale } from 'gale';
 * const app = gale();
 * pubsub(app, { redis: 'redis://127.0.0.1:6379' });
 * app.ws('/room/:name', {
 *   open: (ws) => ws.subscribe(ws.data.room),
 *   upgrade: (req) => ({ room: req.params.name }),
 *   message: (ws, data, isBinary) => ws.publish(ws.data.room, data, { binary: isBinary }), // every machine
 * });
 * await app.listen(3000);
 */
export function pubsub(app: App, options: PubSubOptions = {}): PubSub {
  const existing = buses.get(app);
  if (existing !== undefined) {
    if (!existing.auto) throw new Error('pubsub(app): this app already has one');
    // Attached automatically in a cluster worker: the explicit one replaces it.
    void existing.bus.close();
  }
  const bus = new PubSub(app, transportFor(options), options);
  buses.set(app, { bus, auto: false });
  return bus;
}

function transportFor(options: PubSubOptions): Transport {
  if (options.redis !== undefined) return new RedisTransport(options.redis, options.prefix, options.sharded);
  const env = process.env[ENV.pubsub];
  if (env !== undefined && /^rediss?:\/\//.test(env)) return new RedisTransport(env, options.prefix, options.sharded);
  if (inClusterWorker()) return new IpcTransport();
  throw new Error(
    'pubsub(app): say where other processes are: { redis: "redis://host:6379" }, or run the app in cluster() workers of @gale-http/cluster (they use the primary)',
  );
}

/** @internal the worker runtime: a bus for an app that started listening without one, unless turned off */
export function autoPubsub(app: App): PubSub | undefined {
  if (buses.has(app) || process.env[ENV.pubsub] === 'off') return undefined;
  const bus = new PubSub(app, transportFor({}));
  buses.set(app, { bus, auto: true });
  return bus;
}

/**
 * The bus of `app`, if it has one (`pubsub(app)` made it, or a cluster worker's app got one when it listened).
 *
 * @example
 * import { pubsubOf } from '@gale-http/cluster';
 * app.get('/debug/pubsub', () => pubsubOf(app)?.stats() ?? { transport: 'none' });
 */
export function pubsubOf(app: App): PubSub | undefined {
  return buses.get(app)?.bus;
}
