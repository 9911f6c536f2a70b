// What both protocol servers share: which implementation to run (UPSTREAM_IMPL), how to load the reference release
// from the copy (UPSTREAM_REFERENCE), the `listening <port>` line the runner waits for, and a bounded life: the
// process ends when the runner closes its stdin (also when the runner dies), on SIGTERM, or after 15 minutes.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const MAX_LIFE_MS = 15 * 60_000;

/** Runs `setup(impl, reference)`, which builds the server and resolves to the port it listens on. */
export async function startServer(setup) {
  const impl = process.env.UPSTREAM_IMPL;
  if (impl !== 'reference' && impl !== 'gale') throw new Error(`UPSTREAM_IMPL must be reference or gale (got ${impl})`);
  const dir = process.env.UPSTREAM_REFERENCE;
  const reference = (name) => {
    if (!dir) throw new Error('UPSTREAM_REFERENCE (the directory the reference release is installed in) is not set');
    return createRequire(join(dir, 'package.json'))(name);
  };
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
  process.on('SIGTERM', () => process.exit(0));
  setTimeout(() => {
    console.error(`the server ran for ${MAX_LIFE_MS / 60_000} minutes: stopping`);
    process.exit(1);
  }, MAX_LIFE_MS).unref();
  const port = await setup(impl, reference);
  process.stdout.write(`listening ${port}\n`);
}
