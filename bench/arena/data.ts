// The arena's data, made once into the cache folder (scripts/cache-dir.mjs) and reused: HttpArena's 50-item data set
// (vendored in data/), its 20 static files with their .gz/.br siblings and the 100 000-row Postgres seed (its own
// generators, vendored in data/, run with Debian's python3), the four upload bodies (random bytes), and a TLS
// certificate as HttpArena's certs/ holds (RSA 2048, SHA-256, CN=localhost; made with openssl, not vendored: a key;
// a leaf where HttpArena's says CA:TRUE, so that verifying clients accept it).
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../scripts/cache-dir.mjs';
import { UPLOAD_SIZES } from './profiles.ts';

const vendored = join(import.meta.dirname, 'data');

export interface ArenaData {
  /** What the entries read as ARENA_DATA (HttpArena's /data): dataset.json and static/. */
  dir: string;
  /** The Postgres seed (CREATE TABLE items … COPY …, 100 000 rows). */
  seed: string;
  /** The upload bodies by size name. */
  uploads: Record<keyof typeof UPLOAD_SIZES, string>;
  /** HttpArena's /certs/server.crt and server.key (the entries read TLS_CERT and TLS_KEY). */
  certs: { cert: string; key: string };
}

/** Python with the brotli module (Debian's python3-brotli); a pyenv shim on PATH may lack it, /usr/bin's has it. */
function python(): string {
  for (const p of ['/usr/bin/python3', 'python3']) {
    if (spawnSync(p, ['-c', 'import brotli'], { stdio: 'ignore' }).status === 0) return p;
  }
  throw new Error(
    "the arena's static files are made by HttpArena's generator, which needs Python 3 with brotli: " +
      'apt-get install -y python3 python3-brotli',
  );
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed (${cmd} ${args.join(' ')}): ${r.stderr || r.stdout}`);
}

/** Makes the data if this version of the generators has not made it yet; returns where it is. */
export function arenaData(): ArenaData {
  const key = createHash('sha256');
  for (const f of ['dataset.json', 'generate_static.py', 'generate-pgdb.py'])
    key.update(readFileSync(join(vendored, f)));
  key.update('certs: rsa 2048, CA:FALSE'); // what this function makes besides the generators' output
  const root = cacheDir('arena', key.digest('hex').slice(0, 12));
  const data: ArenaData = {
    dir: join(root, 'data'),
    seed: join(root, 'pgdb-seed.sql'),
    uploads: Object.fromEntries(
      Object.keys(UPLOAD_SIZES).map((k) => [k, join(root, 'uploads', `upload-${k}.bin`)]),
    ) as ArenaData['uploads'],
    certs: { cert: join(root, 'certs', 'server.crt'), key: join(root, 'certs', 'server.key') },
  };
  if (existsSync(join(root, 'complete'))) return data;

  // Made in a sibling folder and renamed into place (never over a folder another process made), so an interrupted
  // run leaves nothing that looks complete and a concurrent one never sees a half-made folder.
  const tmp = `${root}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'scripts'), { recursive: true });
  mkdirSync(join(tmp, 'data', 'static'), { recursive: true });
  mkdirSync(join(tmp, 'uploads'), { recursive: true });
  mkdirSync(join(tmp, 'certs'), { recursive: true });
  copyFileSync(join(vendored, 'dataset.json'), join(tmp, 'data', 'dataset.json'));
  // generate_static.py writes to ../data/static from its own folder, as in HttpArena's tree.
  copyFileSync(join(vendored, 'generate_static.py'), join(tmp, 'scripts', 'generate_static.py'));
  const py = python();
  run(py, [join(tmp, 'scripts', 'generate_static.py')], "HttpArena's static file generator");
  run(
    py,
    [join(vendored, 'generate-pgdb.py'), join(vendored, 'dataset.json'), join(tmp, 'pgdb-seed.sql')],
    "HttpArena's Postgres seed generator",
  );
  for (const [k, size] of Object.entries(UPLOAD_SIZES)) {
    writeFileSync(join(tmp, 'uploads', `upload-${k}.bin`), randomBytes(size));
  }
  run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-sha256',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      // A leaf, not a CA (HttpArena's is CA:TRUE, which clients that verify, as gale-loadgen-h3's rustls, refuse).
      '-addext',
      'basicConstraints=critical,CA:FALSE',
      '-keyout',
      join(tmp, 'certs', 'server.key'),
      '-out',
      join(tmp, 'certs', 'server.crt'),
    ],
    'making the TLS certificate (apt-get install -y openssl)',
  );
  writeFileSync(join(tmp, 'complete'), '');
  try {
    renameSync(tmp, root);
  } catch (e) {
    // Another process (two test suites side by side) made it first: theirs is complete and may be in use.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(root, 'complete'))) throw e;
  }
  return data;
}
