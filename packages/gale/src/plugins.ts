// Plugins as Fastify has them: `register(plugin, { prefix, ...options })` runs the plugin with a router of its own
// (its routes, middleware, hooks and decorations stay inside it) mounted at the prefix, or with the router it was
// registered on when the plugin says it does not encapsulate; async plugins load in order, awaited by `ready()`,
// `listen()` and `app.request()`. Knows routers only by the members it uses (router.ts calls it: no import circle).

/**
 * A plugin: given a router of its own (mounted at the `prefix` it was registered with) and its options, it adds
 * routes, middleware, hooks and decorations there. It may be async: the app waits for it before listening.
 *
 * @example
 * const health: Plugin<{ path: string }> = (instance, options) => {
 *   instance.get(options.path, () => ({ ok: true }));
 * };
 * app.register(health, { path: '/health' });
 */
export type Plugin<O = Record<string, unknown>, I = PluginInstance> = (instance: I, options: O) => unknown;

/**
 * What `register` takes besides the plugin's own options: `prefix`, the path its routes are mounted under.
 *
 * @example
 * app.register(usersPlugin, { prefix: '/users', table: 'users' }); // RegisterOptions & { table: string }
 */
export interface RegisterOptions {
  /** The path the plugin's routes are mounted under (default `/`). */
  prefix?: string;
}

/**
 * Marks a plugin as not encapsulating (as `fastify-plugin` does, whose mark Gale reads too): it runs with the router
 * it is registered on, so its hooks, decorations and middleware apply to that router's routes. `name` names it in
 * errors.
 *
 * @example
 * const db = definePlugin((instance) => {
 *   instance.decorate('db', new Map<string, string>());
 * }, { encapsulate: false, name: 'db' });
 * app.register(db);
 */
export function definePlugin<F extends (instance: never, options: never) => unknown>(
  plugin: F,
  options: { encapsulate?: boolean; name?: string } = {},
): F {
  if (typeof plugin !== 'function') throw new TypeError('definePlugin(): the plugin must be a function');
  const marked = plugin as unknown as Record<symbol, unknown>;
  if (options.encapsulate === false) marked[SKIP_OVERRIDE] = true;
  if (options.name !== undefined) marked[DISPLAY_NAME] = options.name;
  return plugin;
}

/** fastify-plugin's marks: the plugin does not encapsulate; the name it goes by. */
const SKIP_OVERRIDE = Symbol.for('skip-override');
const DISPLAY_NAME = Symbol.for('fastify.display-name');

/**
 * The least a plugin's instance is (a Router is one): what `Plugin` gives a plugin typed without naming Router.
 *
 * @example
 * const instance: PluginInstance = router();
 */
export interface PluginInstance {
  use(prefix: string, router: never): unknown;
}

/** @internal what register() keeps on a router: the plugins still loading, in order. */
export interface PluginState {
  pending: Promise<void> | undefined;
}

/** The name a plugin goes by in errors. */
function pluginName(plugin: (...args: never[]) => unknown): string {
  const named = (plugin as unknown as Record<symbol, unknown>)[DISPLAY_NAME];
  return typeof named === 'string' ? named : plugin.name || 'an anonymous plugin';
}

/**
 * Registers `plugin` on `parent` (whose loading state is `state`): with a child from `makeChild` mounted at the
 * prefix, or with `parent` itself for a plugin that does not encapsulate. A plugin runs at once when nothing before
 * it is still loading, else after it; `childReady` waits for what the plugin registered in turn.
 *
 * @internal
 */
export function registerPlugin<I extends object>(
  parent: I,
  state: PluginState,
  plugin: (...args: never[]) => unknown,
  options: Record<string, unknown> | undefined,
  makeChild: () => I,
  mount: (prefix: string, child: I) => void,
  childReady: (child: I) => Promise<void> | undefined,
): void {
  if (typeof plugin !== 'function') {
    throw new TypeError(`register(): a plugin is a function (instance, options) => …, got ${typeof plugin}`);
  }
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`register(${pluginName(plugin)}): options must be an object`);
  }
  const { prefix, ...rest } = options ?? {};
  if (prefix !== undefined && (typeof prefix !== 'string' || !prefix.startsWith('/'))) {
    throw new TypeError(
      `register(${pluginName(plugin)}): prefix must be a path starting with '/', got ${JSON.stringify(prefix)}`,
    );
  }
  const shared = (plugin as unknown as Record<symbol, unknown>)[SKIP_OVERRIDE] === true;
  if (shared && prefix !== undefined) {
    throw new TypeError(
      `register(${pluginName(plugin)}, { prefix }): this plugin does not encapsulate (definePlugin(…, { encapsulate: false }) ` +
        "or fastify-plugin), so its routes are the parent router's and take no prefix; register it without one",
    );
  }
  const instance = shared ? parent : makeChild();
  if (!shared) mount(prefix ?? '/', instance);
  const load = (): Promise<void> | undefined => {
    let out: unknown;
    try {
      out = (plugin as (i: I, o: unknown) => unknown)(instance, rest);
    } catch (err) {
      return Promise.reject(failed(plugin, err));
    }
    const own = shared ? undefined : childReady(instance);
    if (typeof (out as PromiseLike<unknown> | undefined)?.then !== 'function') return own;
    return Promise.resolve(out).then(
      () => (shared ? undefined : childReady(instance)),
      (err) => Promise.reject(failed(plugin, err)),
    );
  };
  if (state.pending === undefined) {
    const loading = load();
    if (loading !== undefined) state.pending = settleInto(state, loading);
  } else {
    state.pending = settleInto(state, state.pending.then(load));
  }
}

/** `p`, clearing `state.pending` once it resolves and it is still the last thing loading. */
function settleInto(state: PluginState, p: Promise<void>): Promise<void> {
  const tracked: Promise<void> = p.then(() => {
    if (state.pending === tracked) state.pending = undefined;
  });
  // A failure is reported by ready()/listen(); marked handled here so that it is not also an unhandled rejection.
  tracked.catch(() => {});
  return tracked;
}

/** A plugin's failure, with its name. */
function failed(plugin: (...args: never[]) => unknown, err: unknown): unknown {
  if (err instanceof Error) {
    err.message = `plugin ${pluginName(plugin)} failed to load: ${err.message}`;
    return err;
  }
  return new Error(`plugin ${pluginName(plugin)} failed to load: ${String(err)}`, { cause: err });
}

/**
 * Waits for every plugin registered on a router (and those they registered) to load.
 *
 * @internal
 */
export async function pluginsReady(state: PluginState): Promise<void> {
  while (state.pending !== undefined) await state.pending;
}
