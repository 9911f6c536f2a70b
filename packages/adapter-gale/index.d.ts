// Types of adapter-gale (the SvelteKit adapter that writes a standalone Gale server).
/**
 * `adapter-gale`: the SvelteKit adapter (SvelteKit 2 and 3) that writes a standalone server running on Gale, with
 * client assets and prerendered pages served by the native engine.
 *
 * @example
 * // vite.config.js
 * import { sveltekit } from '@sveltejs/kit/vite';
 * import adapter from 'adapter-gale';
 * import { defineConfig } from 'vite';
 * export default defineConfig({ plugins: [sveltekit({ adapter: adapter({ out: 'build' }) })] });
 *
 * @module adapter-gale
 */
import type { Adapter } from '@sveltejs/kit';
import './ambient.js';

export interface AdapterOptions {
  /**
   * The directory the server is written to; `node build` starts it.
   * @default 'build'
   */
  out?: string;
  /**
   * Write `.br` and `.gz` copies of client assets and prerendered pages; the engine picks one by Accept-Encoding.
   * @default true
   */
  precompress?: boolean;
  /**
   * A prefix for the environment variables the server reads (`MY_PORT` with `envPrefix: 'MY_'`), as adapter-node.
   * @default ''
   */
  envPrefix?: string;
  /**
   * Processes serving the port (`'auto'`: one per CPU), overridden by the `WORKERS` environment variable. Needs
   * Gale's multi-process support: with a gale that lacks it, any value but 1 fails the build (and the server's
   * start) saying so.
   * @default 1
   */
  workers?: number | 'auto';
  /**
   * A module (path relative to the project) whose default export `(app) => void | Promise<void>` gets the Gale app
   * before SvelteKit's handler is added: WebSocket routes (`app.ws`), native routes, middleware. Bundled into the
   * output as `setup` is imported by its `index.js`.
   *
   * @example
   * // src/gale.js
   * export default (app) => app.ws('/ws', { message: (ws, data) => ws.send(data) });
   */
  setup?: string;
}

/**
 * The adapter, for SvelteKit 2 and 3.
 *
 * @example
 * // vite.config.js (SvelteKit 3, and 2 from 2.62; older 2: `kit: { adapter: … }` in svelte.config.js)
 * import { sveltekit } from '@sveltejs/kit/vite';
 * import adapter from 'adapter-gale';
 * import { defineConfig } from 'vite';
 * export default defineConfig({ plugins: [sveltekit({ adapter: adapter({ out: 'build', setup: 'src/gale.js' }) })] });
 */
export default function adapter(options?: AdapterOptions): Adapter;

/** Why `workers` cannot be honoured by the installed gale, or null. */
export function workersUnsupported(workers: number | 'auto' | undefined): Promise<string | null>;
