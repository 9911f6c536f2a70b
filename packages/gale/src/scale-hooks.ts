// The few places where the App talks to the scale-out layer (@gale-http/cluster: workers, cross-process pub/sub,
// health): a process-wide registry the worker runtime fills in. Kept on globalThis so two copies of the package in
// one process (ESM and CJS entry points, say) still share it. Below app.ts: an app is `A` (gale's App, by default
// `object` here so this file imports nothing above it).
import type { AddressInfo } from './options.js';

/**
 * A cross-process publish: what `app.publish`/`ws.publish` hand on after the engine published locally (set by
 * `@gale-http/cluster`'s `pubsub(app)`; an app does not call it).
 *
 * @example
 * // What @gale-http/cluster sends on for app.publish('news', 'hi'):
 * const relay: Relay = (topic, data) => console.log('to the other processes:', topic, data);
 */
export type Relay = (
  topic: string | readonly string[],
  data: string | Uint8Array,
  binary: boolean,
  compress: boolean,
  except: readonly string[] | undefined,
  volatile: boolean | undefined,
) => void;

/**
 * What a scale-out layer hooks into (@gale-http/cluster's worker runtime and health checks use it; an app needs
 * none of it).
 *
 * @example
 * import { scaleHooks } from 'gale';
 * scaleHooks.listening = (app, address) => console.log('listening on', address.port);
 */
export interface ScaleHooks<A extends object = object> {
  /** Apps created in this process listen with SO_REUSEPORT unless told otherwise (set in cluster workers). */
  reusePort: boolean;
  /** Called for every App created (the worker runtime keeps them, to drain them on reload). */
  created?: (app: A) => void;
  /** Called after an App started listening. */
  listening?: (app: A, address: AddressInfo) => void;
  /** Apps whose `close()` has begun: readiness turns false for them. */
  readonly draining: WeakSet<A>;
}

const KEY = Symbol.for('gale.scale.hooks');
const g = globalThis as { [KEY]?: ScaleHooks };

/**
 * The process's scale-out hooks (see {@link ScaleHooks}).
 *
 * @example
 * import { scaleHooks } from 'gale';
 * console.log(scaleHooks.reusePort); // true inside a @gale-http/cluster worker
 */
export const scaleHooks: ScaleHooks = g[KEY] ?? { reusePort: false, draining: new WeakSet() };
g[KEY] = scaleHooks;
