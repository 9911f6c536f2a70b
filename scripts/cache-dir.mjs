// The one folder where Gale's scripts and tests keep what they download or build once and reuse on purpose (Node
// binaries for other majors, Bun and Deno, aioquic, SvelteKit builds, the release pack, the upstream suites' installs).
// `GALE_CACHE_DIR` moves it (CI points it outside the clone); by default it is the checkout's `.cache/` (git-ignored).
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/**
 * The cache folder, or a path inside it: `cacheDir('node-versions', '26')`. Never the system temp dir: `npm test`
 * fails when a test leaves anything there (scripts/test.mjs).
 */
export function cacheDir(...parts) {
  return join(process.env.GALE_CACHE_DIR || join(root, '.cache'), ...parts);
}
