// The few places where the App talks to the scale-out layer (cluster workers, cross-process pub/sub, health):
// a process-wide registry the worker runtime fills in. Kept on globalThis so two copies of the package in one
// process (ESM and CJS entry points, say) still share it. No imports: app.ts and ws.ts load this on every start.
import type { App } from '../app.js';
import type { AddressInfo } from '../options.js';

/** A cross-process publish: what `app.publish`/`ws.publish` hand on after the engine published locally. */
export type Relay = (
  topic: string | readonly string[],
  data: string | Uint8Array,
  binary: boolean,
  compress: boolean,
  except: readonly string[] | undefined,
  volatile: boolean | undefined,
) => void;

/** @internal what the worker runtime and the health layer hook into */
export interface ScaleHooks {
  /** Apps created in this process listen with SO_REUSEPORT unless told otherwise (set in cluster workers). */
  reusePort: boolean;
  /** Called for every App created (the worker runtime keeps them, to drain them on reload). */
  created?: (app: App) => void;
  /** Called after an App started listening. */
  listening?: (app: App, address: AddressInfo) => void;
  /** Apps whose `close()` has begun: readiness turns false for them. */
  readonly draining: WeakSet<App>;
}

const KEY = Symbol.for('gale.scale.hooks');
const g = globalThis as { [KEY]?: ScaleHooks };

/** @internal the process's hooks */
export const hooks: ScaleHooks = g[KEY] ?? { reusePort: false, draining: new WeakSet() };
g[KEY] = hooks;
