// `gale start [entry]`: runs the app in this process (no supervisor in between: signals, exit codes and
// `process.argv[1]` are the app's own), after applying --port/--host/--env-file to its environment; with
// --workers, this process is gale.cluster()'s primary and the workers run the entry.
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

/** Runs the app; resolves to -1 (the app's server, or the cluster's primary, keeps the process alive). */
export async function start(o: StartOptions): Promise<number> {
  const entry = resolveEntry(o.entry, START_CANDIDATES);
  applyEnv(process.env, o);
  const loader = typeScriptLoader(entry);
  if (o.workers !== undefined) return startWorkers(entry, o, loader?.tsx);
  if (loader?.tsx) await import(loader.tsx);
  process.argv = [process.argv[0] as string, entry, ...o.args];
  await import(pathToFileURL(entry).href);
  return -1;
}

/** What `--workers` needs: `cluster(entry, options)` of @gale-http/cluster (packages/cluster). */
type ClusterFn = (
  entry: string | URL,
  options: { workers?: number | string; args?: string[]; execArgv?: string[] },
) => { done: Promise<number> };

/**
 * `--workers <n|auto>`: this process becomes the primary of @gale-http/cluster's `cluster()`, which forks n workers
 * that each run the entry (one port for all, SO_REUSEPORT; respawn on crash; SIGHUP reloads without downtime;
 * SIGTERM/SIGINT drain and stop). The primary never imports the entry itself. Without @gale-http/cluster installed
 * the option is refused (exit 2), saying what to install, rather than starting one process that looks like n.
 */
async function startWorkers(entry: string, o: StartOptions, tsx: string | undefined): Promise<number> {
  const value = o.workers as string;
  if (value !== 'auto' && !(Number.isInteger(Number(value)) && Number(value) >= 1)) {
    throw new CliError(`--workers ${value}: give a count (1, 2, …) or auto (one per core)`);
  }
  // A specifier TypeScript does not follow: the core does not depend on the cluster package.
  const pkg = '@gale-http/cluster';
  let cluster: ClusterFn | undefined;
  try {
    cluster = ((await import(pkg)) as { cluster?: ClusterFn }).cluster;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
  }
  if (typeof cluster !== 'function') {
    throw new CliError(
      `--workers needs the ${pkg} package: npm install ${pkg} (or start without --workers: one process, one core)`,
      2,
    );
  }
  const c = cluster(pathToFileURL(entry), {
    workers: value,
    args: o.args,
    // The workers load a TypeScript entry the way this process would have (tsx's loader).
    ...(tsx ? { execArgv: [...process.execArgv, '--import', tsx] } : {}),
  });
  process.exitCode = await c.done;
  return -1;
}
