// Temporary copies of the upstream suites (../shared/upstream, never edited there): the suite's files copied fresh
// into <tmp>/gale-upstream/<suite>, with the dependencies its package.json names installed once per manifest.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');
/** Where the suites are kept, unchanged: GALE_UPSTREAM overrides the workplace's `../shared/upstream`. */
export const upstreamDir = process.env.GALE_UPSTREAM ?? join(root, '..', 'shared', 'upstream');
// In the system's temporary directory, not under the repo's .cache: `send` refuses a file whose absolute path has a
// dot-directory in it, and Express's sendFile/download cases serve fixtures by absolute path.
export const cacheDir = join(tmpdir(), 'gale-upstream');

/** The folder of the upstream suite `source`; throws saying where it was looked for and how to point elsewhere. */
export function suiteDir(source) {
  const from = join(upstreamDir, source);
  if (!existsSync(from)) {
    throw new Error(
      `the upstream suite ${source} is missing at ${from}: set GALE_UPSTREAM to the folder that holds ` +
        'express-5/, express-4/, socket.io-protocol/, engine.io-protocol/, socket.io/ and ultimate-express/',
    );
  }
  return from;
}

/**
 * Copies `entries` of the suite folder `name` into a clean working copy and installs `deps` (name → version range)
 * with npm when they changed since the last install. Returns the copy's directory. With `lockfile`, `entries` carry
 * the suite's own package.json and package-lock.json, and `npm ci` installs exactly what the lock names (`deps` unused).
 */
export function prepareCopy(name, source, entries, deps, { lockfile = false } = {}) {
  const from = suiteDir(source);
  const dir = join(cacheDir, name);
  mkdirSync(dir, { recursive: true });
  for (const entry of entries) {
    rmSync(join(dir, entry), { recursive: true, force: true });
    cpSync(join(from, entry), join(dir, entry), { recursive: true });
  }
  if (lockfile) return installLocked(name, dir);
  const manifest = JSON.stringify({ name: `upstream-${name}`, private: true, dependencies: deps }, null, 2);
  const stamp = createHash('sha256').update(manifest).digest('hex');
  const stampFile = join(dir, 'node_modules', '.upstream-stamp');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
    writeFileSync(join(dir, 'package.json'), manifest);
    rmSync(join(dir, 'package-lock.json'), { force: true });
    console.log(`upstream ${name}: npm install (${Object.keys(deps).length} packages the suite names)`);
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-package-lock'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_ignore_scripts: 'true' },
    });
    if (r.status !== 0) {
      throw new Error(`npm install in ${dir} failed:\n${(r.stderr || r.stdout || '').trim().slice(-2000)}`);
    }
    writeFileSync(stampFile, stamp);
  }
  return dir;
}

/** `npm ci` in `dir` when its package-lock.json changed since the last install. */
function installLocked(name, dir) {
  const lock = join(dir, 'package-lock.json');
  if (!existsSync(lock)) throw new Error(`upstream ${name}: no package-lock.json to install from in ${dir}`);
  const stamp = createHash('sha256')
    .update(readFileSync(join(dir, 'package.json')))
    .update(readFileSync(lock))
    .digest('hex');
  const stampFile = join(dir, 'node_modules', '.upstream-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  console.log(`upstream ${name}: npm ci (the suite's package-lock.json)`);
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_ignore_scripts: 'true' },
  });
  if (r.status !== 0) throw new Error(`npm ci in ${dir} failed:\n${(r.stderr || r.stdout || '').trim().slice(-2000)}`);
  writeFileSync(stampFile, stamp);
  return dir;
}
