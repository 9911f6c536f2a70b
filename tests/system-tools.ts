// Real system programs the tests drive (wrk, ab, redis-server, nginx, haproxy, chromium, …): found on PATH or in
// /usr/sbin, else installed with apt-get when this machine allows it; otherwise the test fails saying how to
// install it. Never a silent skip.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const SEARCH = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin', '/sbin']);

/** The absolute path of `cmd`, or null. */
export function which(cmd: string): string | null {
  for (const dir of SEARCH) {
    if (dir === '') continue;
    const p = join(dir, cmd);
    if (existsSync(p)) return p;
  }
  return null;
}

const attempted = new Set<string>();

/**
 * The path of `cmd`; installs Debian package `deb` first when it is missing and apt-get can run (root).
 * Throws an Error naming the install command when it still cannot be found.
 *
 * @example
 * const redis = ensureCommand('redis-server', 'redis-server');
 */
export function ensureCommand(cmd: string, deb: string): string {
  const found = which(cmd);
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && which('apt-get') && !attempted.has(deb)) {
    attempted.add(deb);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let r = spawnSync('apt-get', ['install', '-y', '-qq', deb], { env, stdio: 'ignore', timeout: 300_000 });
    if (r.status !== 0) {
      spawnSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore', timeout: 300_000 });
      r = spawnSync('apt-get', ['install', '-y', '-qq', deb], { env, stdio: 'ignore', timeout: 300_000 });
    }
    const now = which(cmd);
    if (now) return now;
  }
  throw new Error(
    `${cmd} is needed by this test and is not installed${isRoot ? ' (apt-get install failed)' : ''}: ` +
      `install it with \`sudo apt-get install -y ${deb}\` (Debian/Ubuntu) and run the tests again`,
  );
}
