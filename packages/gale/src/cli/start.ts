// `gale start [entry]`: runs the app in this process (no supervisor in between: signals, exit codes and
// `process.argv[1]` are the app's own), after applying --port/--host/--env-file to its environment.
// --workers is the hook for multi-core serving; see workersHook.
import { pathToFileURL } from 'node:url';
import { applyEnv, CliError, resolveEntry, typeScriptLoader } from './common.js';

/** Where `gale start` looks when no entry is given (after package.json `main`). */
export const START_CANDIDATES = [
  'server.js',
  'server.mjs',
  'index.js',
  'index.mjs',
  'app.js',
  'app.mjs',
  'dist/server.js',
  'dist/index.js',
  'build/server.js',
  'build/index.js',
];

export interface StartOptions {
  entry?: string;
  port?: string;
  host?: string;
  envFile?: string;
  workers?: string;
  /** Arguments after `--`, seen by the app as process.argv.slice(2). */
  args: string[];
}

/** Runs the app; resolves to -1 (the app's server keeps the process alive and decides its exit). */
export async function start(o: StartOptions): Promise<number> {
  const entry = resolveEntry(o.entry, START_CANDIDATES);
  applyEnv(process.env, o);
  if (o.workers !== undefined) await workersHook(o.workers);
  const loader = typeScriptLoader(entry);
  if (loader?.tsx) await import(loader.tsx);
  process.argv = [process.argv[0] as string, entry, ...o.args];
  await import(pathToFileURL(entry).href);
  return -1;
}

/**
 * `--workers <n>`: multi-core serving is being built as gale's cluster support (`gale.cluster` /
 * `app.listen({ workers })`). Until this version of gale exports it, the option is refused with that message
 * rather than starting one process that looks like n. When it exists, the count reaches the app as GALE_WORKERS,
 * which the cluster support reads as its default worker count.
 */
export async function workersHook(value: string): Promise<void> {
  const n = value === 'auto' ? 0 : Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new CliError(`--workers ${value}: give a count (1, 2, …) or auto (one per core)`);
  }
  const gale = (await import('../index.js')) as Record<string, unknown>;
  const cluster = gale.cluster ?? (gale.gale as Record<string, unknown> | undefined)?.cluster;
  if (cluster === undefined) {
    throw new CliError(
      '--workers: multi-core workers are not available in this version of gale yet. Start without --workers ' +
        '(one process, one core), or run several processes behind a load balancer.',
      2,
    );
  }
  process.env.GALE_WORKERS = String(n);
}
