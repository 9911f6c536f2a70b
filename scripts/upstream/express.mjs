// Express's own suite (5.x and 4.21.2) against the real Express (the baseline, on the same Node) and against Gale's
// Express layers, served by node:http (supertest's http.createServer(app)) and by Gale's engine (app.listen(0)).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { prepareCopy, root, suiteDir } from './copy.mjs';
import { runMocha } from './mocha.mjs';

const shims = join(import.meta.dirname, 'shims');

/** The two Express suites: the folder, the Express release it is scored against, and Gale's module for it. */
export const EXPRESS_SUITES = {
  'express-5': { version: '5.3.0', gale: '@gale-http/express', utils: join(shims, 'express5-utils.cjs') },
  'express-4': { version: '4.21.2', gale: '@gale-http/express/4', utils: undefined },
};

/** Tools the suites' package.json names that the test command does not run. */
const UNUSED = ['eslint', 'nyc'];
/**
 * Express 4.21.2 pins mocha 10.2.0, whose yargs 16 cannot load on Node 26 (an extensionless file in a "type":
 * "module" package is ES module there), so not even real Express runs that suite on Node 26 with it. The Express 5
 * suite's mocha runs the same files on every Node; the baseline uses it too, so both sides run alike.
 */
const MOCHA = { 'express-4': '^11.7.5' };

export function prepareExpress(suite) {
  const pkg = JSON.parse(readFileSync(join(suiteDir(suite), 'package.json'), 'utf8'));
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  for (const name of UNUSED) delete deps[name];
  if (MOCHA[suite] !== undefined) deps.mocha = MOCHA[suite];
  // The baseline: the real release, under a name no test requires.
  deps['real-express'] = `npm:express@${EXPRESS_SUITES[suite].version}`;
  return prepareCopy(suite, suite, ['test', 'examples', 'LICENSE'], deps);
}

/**
 * Runs one Express suite. `impl` is 'express' (the real release, node:http) or 'gale'; `serve` is 'node' (supertest's
 * http.createServer(app)) or 'engine' (each request(app) served through app.listen(0)).
 */
export async function runExpress({ suite, impl, serve, node, copy }) {
  const cfg = EXPRESS_SUITES[suite];
  const req = createRequire(join(copy, 'package.json'));
  const galeReq = createRequire(join(root, 'package.json'));
  const env = {
    UPSTREAM_COPY: copy,
    UPSTREAM_IMPL: impl === 'express' ? req.resolve('real-express') : galeReq.resolve(cfg.gale),
    UPSTREAM_UTILS: impl === 'express' ? join(copy, 'node_modules', 'real-express', 'lib', 'utils.js') : cfg.utils,
    UPSTREAM_REAL_SUPERTEST: req.resolve('supertest'),
    UPSTREAM_SUPERTEST: serve === 'engine' ? join(shims, 'supertest-engine.cjs') : '',
  };
  const mochaArgs = [
    '--require',
    'test/support/env',
    '--require',
    join(shims, 'hook.cjs'),
    '--check-leaks',
    // test/utils.js tests Express's private helpers (lib/utils), not its API: not scored (../shared/upstream/README).
    '--ignore',
    'test/utils.js',
  ];
  return runMocha({
    node,
    cwd: copy,
    mochaArgs,
    files: ['test/', 'test/acceptance/'],
    env,
    timeoutMs: 600_000,
    label: `${suite} on ${impl === 'express' ? `express@${cfg.version}` : cfg.gale} (${serve})`,
  });
}
