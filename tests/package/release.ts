// Shared by tests/package: the release as a user gets it. `packRelease` runs `npm run release:pack -- --prebuilt`
// (once per state of the sources: the tarballs are kept in the temp directory under a hash of everything the pack
// reads, so the test files of one run, and the runs on other Node versions, share one pack) and reads each tarball's
// own package.json and file list; `rustlessEnv` is the environment of a machine without Rust; `npmInstall` installs
// into a fresh project and fails saying how to make it work.
import assert from 'node:assert/strict';
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { hostTriple } from '../../packages/gale/scripts/platforms.mjs';
import { cacheDir } from '../../scripts/cache-dir.mjs';

export const root = join(import.meta.dirname, '..', '..');

/** The part of a package.json these tests read. */
export interface Manifest {
  name: string;
  version: string;
  type?: string;
  main?: string;
  types?: string;
  typings?: string;
  typesVersions?: Record<string, Record<string, string[]>>;
  exports?: unknown;
  bin?: string | Record<string, string>;
  files?: string[];
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
}

export interface Packed {
  /** Absolute path of the .tgz. */
  tgz: string;
  /** Its package.json, as packed. */
  manifest: Manifest;
  /** The paths it holds, relative to the package root. */
  files: string[];
}

/** The environment of a machine without Rust: no directory on PATH holds cargo, rustc or rustup. */
export function rustlessEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The outer npm's settings (npm test) must not steer the inner one, nor the outer test runner's context the
    // app's own node --test; cargo's and rustup's homes go too.
    if (/^(npm_|CARGO|RUSTUP)/i.test(k) && k !== 'npm_config_cache' && k !== 'npm_config_registry') continue;
    if (k === 'NODE_TEST_CONTEXT') continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !['cargo', 'rustc', 'rustup'].some((b) => existsSync(join(d, b))))
    .join(delimiter);
  return env;
}

/** Runs a command to completion; a non-zero exit fails the test with its output. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  o: { env?: NodeJS.ProcessEnv; timeout?: number } = {},
): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, {
    cwd,
    env: o.env ?? rustlessEnv(),
    encoding: 'utf8',
    timeout: o.timeout ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} (in ${cwd}) failed: ${r.error ?? ''}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * A hash of what `release:pack --prebuilt` reads: packages/ (sources, manifests, templates, the prebuilt engine; not
 * node_modules or the working tree's dist/, which the pack never uses), the pack script, the root manifests and
 * LICENSE, and the TypeScript that compiles gale.
 */
function packKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === 'dist') continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        hash
          .update(`${relative(root, p)}\0`)
          .update(readFileSync(p))
          .update('\0');
    }
  };
  walk(join(root, 'packages'));
  for (const f of ['scripts/release-pack.mjs', 'package.json', 'LICENSE', 'node_modules/typescript/package.json']) {
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(root, f)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The tarballs of `npm run release:pack -- --prebuilt` (needs no cargo: the engine is the one `npm install` built),
 * main package first, each with its packed package.json and file list. Packed once per state of the sources; a
 * concurrent caller waits for the one packing. When the sources change during the pack, the result serves this
 * caller only and is not kept.
 */
export async function packRelease(): Promise<Packed[]> {
  const env = rustlessEnv();
  assert.notEqual(spawnSync('cargo', ['--version'], { env }).status, 0, 'cargo must not be reachable in the test');
  const cache = cacheDir('release-pack');
  mkdirSync(cache, { recursive: true });
  const key = packKey();
  let out = join(cache, key);
  const lock = `${out}.lock`;
  const deadline = Date.now() + 600_000;
  while (!existsSync(join(out, '.complete'))) {
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Someone else is packing; a lock older than a pack can take is left from a killed one.
      if (Date.now() - statSync(lock).mtimeMs > 360_000) rmSync(lock, { recursive: true, force: true });
      assert.ok(Date.now() < deadline, `timed out waiting for another release:pack (lock ${lock})`);
      await sleep(500);
      continue;
    }
    try {
      if (existsSync(join(out, '.complete'))) break;
      const fresh = `${out}.${process.pid}`;
      const args = [join(root, 'scripts', 'release-pack.mjs'), '--prebuilt', '--quiet', '--out', fresh];
      try {
        run(process.execPath, args, root, { env, timeout: 300_000 });
      } catch (err) {
        rmSync(fresh, { recursive: true, force: true });
        throw err;
      }
      if (packKey() !== key) {
        out = fresh;
        break;
      }
      writeFileSync(join(fresh, '.complete'), new Date().toISOString());
      rmSync(out, { recursive: true, force: true });
      renameSync(fresh, out);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // In use: packs of other sources unused for a day go.
  utimesSync(out, new Date(), new Date());
  for (const name of readdirSync(cache)) {
    const p = join(cache, name);
    try {
      if (p !== out && !name.endsWith('.lock') && Date.now() - statSync(p).mtimeMs > 86_400_000) {
        rmSync(p, { recursive: true, force: true });
      }
    } catch {
      // another process removed it first
    }
  }
  const list = JSON.parse(readFileSync(join(out, 'tarballs.json'), 'utf8')) as string[];
  assert.ok(list.length > 0, 'release:pack listed no tarballs');
  return list.map((name) => {
    const tgz = join(out, name);
    const manifest = JSON.parse(run('tar', ['-xzOf', tgz, 'package/package.json'], out, { env }).stdout) as Manifest;
    const files = run('tar', ['-tzf', tgz], out, { env })
      .stdout.split('\n')
      .filter((f) => f.startsWith('package/') && !f.endsWith('/'))
      .map((f) => f.slice('package/'.length));
    return { tgz, manifest, files };
  });
}

/** This machine's libc as npm's `libc` field names it (the engine triple says musl or gnu). */
export const hostLibc = hostTriple().endsWith('-musl') ? 'musl' : 'glibc';

/** Whether npm would install a package with these `os`/`cpu`/`libc` fields here (`!x` excludes x). */
export function fitsHost(m: Manifest): boolean {
  const ok = (list: string[] | undefined, value: string) => {
    if (!list?.length) return true;
    if (list.includes(`!${value}`)) return false;
    const allowed = list.filter((v) => !v.startsWith('!'));
    return allowed.length === 0 || allowed.includes(value);
  };
  return (
    ok(m.os, process.platform) && ok(m.cpu, process.arch) && (process.platform !== 'linux' || ok(m.libc, hostLibc))
  );
}

/** The npm CLI's own script, so that npm can run under another Node binary (whose engines check it then passes). */
export function npmCli(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const bin = join(dir, 'npm');
    if (!existsSync(bin)) continue;
    const cli = join(dirname(realpathSync(bin)), 'npm-cli.js');
    if (existsSync(cli)) return cli;
  }
  assert.fail('npm is not on PATH (its bin/npm-cli.js is needed); install Node.js with npm');
}

/**
 * `npm install` in `cwd` (with `args`), from the registry with the npm cache preferred; `node` runs npm when given.
 * A failure says what was run and how to get it working.
 */
export function npmInstall(cwd: string, args: string[], o: { node?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const env = o.env ?? rustlessEnv();
  const npmArgs = ['install', '--no-audit', '--no-fund', '--prefer-offline', ...args];
  const [cmd, argv] = o.node ? [o.node, [npmCli(), ...npmArgs]] : ['npm', npmArgs];
  const r = spawnSync(cmd, argv, { cwd, env, encoding: 'utf8', timeout: 420_000 });
  assert.equal(
    r.status,
    0,
    `npm ${npmArgs.join(' ')} (in ${cwd}) failed: ${r.error ?? ''}\n${r.stdout}\n${r.stderr}\n` +
      'These tests install from the npm registry (or the npm cache, ~/.npm): check that `npm ping` answers, or set ' +
      'npm_config_registry to a mirror, then run them again.',
  );
}
