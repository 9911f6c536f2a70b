// A real Postgres for the arena's database profiles: Debian's server binaries (/usr/lib/postgresql/<major>/bin), a
// cluster made with initdb in a temporary folder, started on a free port of 127.0.0.1 pinned to a core, seeded with
// HttpArena's 100 000 rows, and removed when stopped. Postgres refuses to run as root, so as root it runs as the
// `postgres` user (Debian's package makes it) through runuser.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { atExit, freePort, type Pinned, spawnPinned, stop } from '../lib/proc.ts';

export const POSTGRES_INSTALL = 'apt-get update && apt-get install -y postgresql';

export interface Postgres {
  /** For the entries' DATABASE_URL. */
  url: string;
  /** Postgres's major version and where its binaries are. */
  version: string;
  /** Drops the table and loads the seed again (for a profile that writes: each entry starts from the same rows). */
  reload: () => void;
  stop: () => Promise<void>;
}

/** The newest Debian Postgres bin folder, or null. */
export function postgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const majors = readdirSync(base)
    .filter((d) => existsSync(join(base, d, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? null : join(base, majors[0], 'bin');
}

/** Why Postgres cannot run here (with the install command), or null. */
export function postgresMissing(): string | null {
  if (postgresBin() === null) {
    return `Postgres is not installed (no /usr/lib/postgresql/<major>/bin/postgres). Install it: ${POSTGRES_INSTALL}`;
  }
  if (userInfo().uid === 0 && spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status !== 0) {
    return `running as root, Postgres needs an unprivileged user and there is no \`postgres\` user: ${POSTGRES_INSTALL}`;
  }
  return null;
}

/**
 * Starts Postgres on `cpu` and loads `seed`. Settings for a benchmark whose data is thrown away: no fsync, no
 * synchronous commit; 256 connections as HttpArena's sidecar has.
 */
export async function startPostgres(o: {
  cpu: number | string;
  seed: string;
  log?: (s: string) => void;
}): Promise<Postgres> {
  const missing = postgresMissing();
  if (missing !== null) throw new Error(missing);
  const bin = postgresBin() as string;
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'gale-arena-pg-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const as = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const sync = (cmd: string, args: string[], what: string) => {
    const [c, a] = as(cmd, args);
    const r = spawnSync(c, a, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${what} failed: ${(r.stderr || r.stdout).trim().slice(-800)}`);
    return r.stdout;
  };
  let server: Pinned | undefined;
  try {
    if (asRoot) {
      const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
      chownSync(dir, id('-u'), id('-g'));
    }
    const data = join(dir, 'data');
    sync(join(bin, 'initdb'), ['-D', data, '-U', 'bench', '--auth=trust', '-E', 'UTF8', '--no-sync'], 'initdb');
    const port = await freePort();
    const [c, a] = as(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=256',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ]);
    server = spawnPinned(c, a, { cpu: o.cpu, nofile: 4096 });
    const psql = (db: string, args: string[]) =>
      spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'bench', '-d', db, ...args], {
        encoding: 'utf8',
      });
    const deadline = Date.now() + 30_000;
    while (psql('postgres', ['-tAc', 'SELECT 1']).stdout.trim() !== '1') {
      if (server.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`Postgres did not start on port ${port}: ${server.stderr().trim().slice(-800)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const created = psql('postgres', ['-v', 'ON_ERROR_STOP=1', '-c', 'CREATE DATABASE benchmark']);
    if (created.status !== 0) throw new Error(`CREATE DATABASE failed: ${created.stderr}`);
    const load = () => {
      const dropped = psql('benchmark', ['-v', 'ON_ERROR_STOP=1', '-qc', 'DROP TABLE IF EXISTS items']);
      if (dropped.status !== 0) throw new Error(`DROP TABLE failed: ${dropped.stderr.slice(-800)}`);
      const seeded = psql('benchmark', ['-v', 'ON_ERROR_STOP=1', '-q', '-f', o.seed]);
      if (seeded.status !== 0) throw new Error(`seeding Postgres failed: ${seeded.stderr.slice(-800)}`);
      const count = psql('benchmark', ['-qtAc', 'ANALYZE items; SELECT count(*) FROM items']).stdout.trim();
      if (count !== '100000') throw new Error(`the seeded table holds ${count} rows, not 100000`);
    };
    const t0 = Date.now();
    load();
    o.log?.(`postgres: ${bin} on 127.0.0.1:${port}, core ${o.cpu}, seeded 100 000 rows in ${Date.now() - t0} ms`);
    const running = server;
    return {
      url: `postgres://bench@127.0.0.1:${port}/benchmark`,
      version: spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim(),
      reload: load,
      stop: async () => {
        await stop(running, 5000);
        removeDir();
        unhook();
      },
    };
  } catch (e) {
    if (server) await stop(server, 2000);
    removeDir();
    unhook();
    throw e;
  }
}
