// `gale dev [entry]`: runs the app in a child process and restarts it when a source file under the watched
// directories changes. fs.watch per directory (new directories are picked up; node_modules, .git, dist and
// dot-directories are skipped, so a big tree costs nothing), debounced; the old process is stopped (SIGTERM,
// then SIGKILL) before the new one starts, so it can bind the same port. Loads no engine itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { applyEnv, CliError, resolveEntry, shown, typeScriptLoader } from './common.js';
import { START_CANDIDATES } from './start.js';

const DEV_CANDIDATES = ['src/server.ts', 'src/index.ts', 'server.ts', 'index.ts', ...START_CANDIDATES];
const DEFAULT_EXT = ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx', 'json', 'env'];
const SKIP = new Set(['node_modules', 'dist', 'build', 'coverage', 'target']);
/** Changes closer together than this are one restart (an editor's save is often several writes). */
const DEBOUNCE_MS = 150;
/** How long a stopped app gets to close its server (SIGTERM) before it is killed. */
const STOP_GRACE_MS = 3000;

export interface DevOptions {
  entry?: string;
  port?: string;
  host?: string;
  envFile?: string;
  watch?: string[];
  ext?: string;
  args: string[];
}

const say = (msg: string) => process.stderr.write(`gale dev: ${msg}\n`);

/** Runs until interrupted; resolves to -1 (the watcher keeps the process alive). */
export async function dev(o: DevOptions): Promise<number> {
  const entry = resolveEntry(o.entry, DEV_CANDIDATES);
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' };
  applyEnv(env, o);
  const loader = typeScriptLoader(entry);
  const execArgv = loader?.tsx ? ['--import', loader.tsx] : [];
  const exts = new Set((o.ext?.split(',') ?? DEFAULT_EXT).map((e) => `.${e.trim().replace(/^\./, '')}`));
  const roots = (o.watch?.length ? o.watch : [dirname(entry)]).map((d) => resolve(d));
  for (const r of roots) {
    if (!isDir(r)) throw new CliError(`--watch ${shown(r)}: not a directory`);
  }

  let child: ChildProcess | undefined;
  let stopping: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let changed = '';

  const run = () => {
    const c = spawn(process.execPath, [...execArgv, entry, ...o.args], { env, stdio: 'inherit' });
    child = c;
    c.on('exit', (code, signal) => {
      if (child !== c) return; // stopped for a restart: expected
      child = undefined;
      say(`${shown(entry)} exited (${signal ?? `code ${code}`}); waiting for a change to restart`);
    });
  };
  const stop = (c: ChildProcess): Promise<void> => {
    if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
    return new Promise((done) => {
      const kill = setTimeout(() => c.kill('SIGKILL'), STOP_GRACE_MS);
      c.once('exit', () => {
        clearTimeout(kill);
        done();
      });
      c.kill('SIGTERM');
    });
  };
  const restart = async () => {
    if (stopping) return; // the restart under way will start the newest code
    say(`${changed} changed; restarting`);
    const old = child;
    child = undefined;
    stopping = old ? stop(old) : Promise.resolve();
    await stopping;
    stopping = undefined;
    run();
  };
  const onChange = (file: string) => {
    if (!exts.has(extname(file)) && !basename(file).startsWith('.env')) return;
    changed = shown(file);
    clearTimeout(timer);
    timer = setTimeout(restart, DEBOUNCE_MS);
  };

  const watchers = new Map<string, FSWatcher>();
  const watchTree = (dir: string) => {
    if (watchers.has(dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, (_event, name) => {
        if (!name) return;
        const file = join(dir, name.toString());
        if (isDir(file)) {
          if (!skipped(name.toString())) watchTree(file);
        } else onChange(file);
      });
    } catch {
      return; // gone already, or not readable
    }
    w.on('error', () => {
      w.close();
      watchers.delete(dir);
    });
    watchers.set(dir, w);
    let entries: string[] = [];
    try {
      entries = readdirSync(dir);
    } catch {}
    for (const name of entries) {
      const p = join(dir, name);
      if (!skipped(name) && isDir(p)) watchTree(p);
    }
  };
  for (const r of roots) watchTree(r);

  say(`watching ${roots.map((r) => shown(r) || '.').join(', ')} (${[...exts].join(' ')}); running ${shown(entry)}`);
  run();

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      for (const w of watchers.values()) w.close();
      clearTimeout(timer);
      if (child) await stop(child);
      process.exit(0);
    });
  }
  return -1;
}

function skipped(name: string): boolean {
  return SKIP.has(name) || name.startsWith('.');
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
