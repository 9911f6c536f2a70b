// Builds examples/sveltekit with `vite build`, with adapter-gale or @sveltejs/adapter-node, into a folder of the
// cache (scripts/cache-dir.mjs) keyed by a hash of everything the build reads (the app's sources, adapter-gale, the
// versions of SvelteKit, Svelte, Vite and the adapters; not Node's: the output is plain JavaScript). Tests, the
// benchmark and `npm run sveltekit` share it, so one run (whatever the Node version) builds each variant once;
// concurrent callers wait for the one that builds. CLI: node build.mjs gale|node
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../../scripts/cache-dir.mjs';

export const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = join(exampleDir, '..', '..');
const adapterDir = join(repoDir, 'packages', 'adapter-gale');
// scripts/ holds this file and the servers that run a build; only this file can change what a build writes.
const SKIP = new Set(['node_modules', 'build', '.svelte-kit', 'scripts']);
const VERSIONED = [
  '@sveltejs/kit',
  'svelte',
  'vite',
  '@sveltejs/vite-plugin-svelte',
  '@sveltejs/adapter-node',
  'rollup',
];

function hashTree(hash, root, dir = root) {
  for (const name of readdirSync(dir).sort()) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) hashTree(hash, root, p);
    else
      hash
        .update(`${relative(root, p)}\0`)
        .update(readFileSync(p))
        .update('\0');
  }
}

/** The cache key: the checkout, the sources and tool versions a build with `adapter` depends on. */
export function buildKey(adapter) {
  const hash = createHash('sha256');
  // The build links this checkout's node_modules (the server imports gale by name): another checkout, which may be
  // deleted later, gets its own build.
  hash.update(`${repoDir}\0`);
  hashTree(hash, exampleDir);
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  if (adapter === 'gale') hashTree(hash, adapterDir);
  for (const name of VERSIONED) {
    const pkg = JSON.parse(readFileSync(join(repoDir, 'node_modules', name, 'package.json'), 'utf8'));
    hash.update(`${name}@${pkg.version}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

function runVite(adapter, dir) {
  const vite = join(repoDir, 'node_modules', 'vite', 'bin', 'vite.js');
  const env = {
    ...process.env,
    SVELTEKIT_ADAPTER: adapter,
    SVELTEKIT_BUILD_DIR: join(dir, 'build'),
    SVELTEKIT_OUT_DIR: join(dir, '.svelte-kit'),
    NODE_ENV: 'production',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
      cwd: exampleDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`vite build (${adapter}) failed (${signal ?? `exit ${code}`}):\n${output.slice(-4000)}`));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Removes builds of other sources not used for a day (each is a few MB; edits make new ones). */
function pruneOld(cache, keep) {
  if (!existsSync(cache)) return;
  for (const name of readdirSync(cache)) {
    const p = join(cache, name);
    try {
      if (p !== keep && Date.now() - statSync(p).mtimeMs > 86_400_000) rmSync(p, { recursive: true, force: true });
    } catch {
      // another process removed it first
    }
  }
}

/**
 * The directory of a finished build of the example with `adapter` ('gale' or 'node'); its `build/` holds the
 * server (`build/index.js`). Built on first use, then reused while the sources stay the same.
 */
export async function buildExample(adapter, { log = () => {} } = {}) {
  if (adapter !== 'gale' && adapter !== 'node') throw new TypeError(`adapter must be 'gale' or 'node', got ${adapter}`);
  const cache = cacheDir('sveltekit-build');
  const root = join(cache, buildKey(adapter));
  pruneOld(cache, root);
  const dir = join(root, adapter);
  const done = join(dir, '.complete');
  const lock = `${dir}.lock`;
  mkdirSync(root, { recursive: true });
  utimesSync(root, new Date(), new Date()); // in use: pruneOld keeps it
  // The built server imports its production dependencies (gale) by name: resolve them from the repository.
  if (!existsSync(join(root, 'node_modules'))) {
    try {
      symlinkSync(join(repoDir, 'node_modules'), join(root, 'node_modules'), 'dir');
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
  const deadline = Date.now() + 600_000;
  while (!existsSync(done)) {
    try {
      mkdirSync(lock);
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // Someone else is building; a lock older than the build timeout is left from a killed build.
      if (Date.now() - statSync(lock).mtimeMs > 360_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for another build of ${dir} (lock ${lock})`);
      await sleep(500);
      continue;
    }
    try {
      if (existsSync(done)) break;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const t = Date.now();
      log(`building examples/sveltekit with ${adapter === 'gale' ? 'adapter-gale' : '@sveltejs/adapter-node'}…`);
      await runVite(adapter, dir);
      writeFileSync(done, new Date().toISOString());
      log(`built in ${((Date.now() - t) / 1000).toFixed(1)} s: ${dir}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const adapter = process.argv[2] ?? 'gale';
  const dir = await buildExample(adapter, { log: (s) => console.error(s) });
  console.log(join(dir, 'build'));
}
