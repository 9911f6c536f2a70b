// The gale package's manifest and loader, without packing: every export has types/import/require that exist after
// the build, the engine packages in optionalDependencies are the platform table's (scripts/platforms.mjs) at the
// package's version, the workflow's matrix builds each of them, and the loader's refusals say what to do.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageName, TARGETS } from '../../packages/gale/scripts/platforms.mjs';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, 'packages', 'gale');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every publishable workspace package written in TypeScript: gale and the packages by job. */
const TS_PACKAGES = ['gale', 'engine.io', 'socket.io', 'express', 'fast-ws', 'cluster', 'otel'];

test('every subpath export of every TypeScript package has import and require conditions, types first, files built', () => {
  const gale = Object.keys(pkg.exports).filter((k) => k !== './package.json');
  // The core's own entry, the typed client, the batteries (src/batteries/), and the old subpaths that now say where
  // they moved (src/moved/).
  assert.deepEqual(gale.sort(), [
    '.',
    './client',
    './cors',
    './csrf',
    './express',
    './express4',
    './fast-ws-client',
    './request-id',
    './security',
    './session',
    './socket.io',
  ]);
  for (const name of TS_PACKAGES) {
    const pdir = join(root, 'packages', name);
    const p = JSON.parse(readFileSync(join(pdir, 'package.json'), 'utf8'));
    for (const key of Object.keys(p.exports).filter((k) => k !== './package.json')) {
      const entry = p.exports[key];
      assert.deepEqual(Object.keys(entry), ['import', 'require'], `${p.name} ${key}`);
      for (const cond of ['import', 'require'] as const) {
        assert.deepEqual(Object.keys(entry[cond]), ['types', 'default'], `${p.name} ${key} ${cond}`);
        for (const file of Object.values(entry[cond]) as string[]) {
          assert.ok(existsSync(join(pdir, file)), `${p.name} ${key} ${cond}: ${file} is missing (npm run build)`);
        }
      }
      assert.match(entry.require.types, /\.d\.cts$/, `${p.name} ${key}: CommonJS types are .d.cts`);
      assert.match(entry.require.default, /^\.\/cjs\/.*\.cjs$/, `${p.name} ${key}`);
      if (key !== '.') {
        assert.deepEqual(
          p.typesVersions?.['*']?.[key.slice(2)],
          [entry.import.types],
          `${p.name}: typesVersions (moduleResolution node10) for ${key}`,
        );
      }
    }
    if (name !== 'gale') {
      assert.equal(p.repository.directory, `packages/${name}`, p.name);
      assert.ok(p.peerDependencies?.gale === pkg.version, `${p.name} names gale ${pkg.version} as a peer`);
      assert.ok(existsSync(join(pdir, 'README.md')), `${p.name} has a README`);
    }
  }
  assert.ok(existsSync(join(dir, pkg.bin.gale)), 'the gale bin');
});

test('the release matrix builds every engine package of the platform table; the loader uses the same names', () => {
  // release:pack adds them as optionalDependencies (tests/package/package.test.ts checks the packed manifest); the
  // committed manifest must not: npm ci would refuse a lockfile without the not-yet-published packages.
  assert.equal(pkg.optionalDependencies, undefined);
  assert.deepEqual(
    TARGETS.map((t) => packageName(t.triple)),
    TARGETS.map((t) => `@gale-http/${t.triple}`),
  );
  const workflow = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
  for (const t of TARGETS)
    assert.match(workflow, new RegExp(`triple: ${t.triple}\\b`), `release.yml builds ${t.triple}`);
  const native = readFileSync(join(dir, 'src', 'native.ts'), 'utf8');
  assert.match(native, /`@gale-http\/\$\{triple\}`/, 'the loader looks for the same scope');
});

test('package hygiene: license, engines, sideEffects, repository, provenance, what ships', () => {
  assert.equal(pkg.license, 'MIT');
  assert.ok(
    existsSync(join(root, 'LICENSE')) && existsSync(join(dir, 'CHANGELOG.md')) && existsSync(join(dir, 'README.md')),
  );
  assert.equal(pkg.engines.node, '^20.19.0 || >=22.12.0');
  assert.equal(pkg.sideEffects, false);
  assert.match(pkg.repository.url, /^git\+https:\/\/github\.com\/.+\.git$/);
  assert.equal(pkg.repository.directory, 'packages/gale');
  assert.deepEqual(pkg.publishConfig, { access: 'public', provenance: true });
  assert.ok(!pkg.files.some((f: string) => /native|scripts|src/.test(f)), `files: ${pkg.files}`);
  assert.equal(
    pkg.scripts.install ?? pkg.scripts.postinstall ?? pkg.scripts.preinstall,
    undefined,
    'no install script',
  );
  assert.equal(pkg.peerDependenciesMeta.autocannon.optional, true);
  assert.equal(pkg.peerDependenciesMeta.qs.optional, true, 'qs only for nested parsing, on demand');
  assert.equal(pkg.peerDependenciesMeta['swagger-ui-dist'].optional, true, 'swagger-ui-dist only for openApiUi()');
});

test('the loader refuses a missing engine file and names what it tried', () => {
  const r = spawnSync(
    process.execPath,
    ['-e', "import('gale').catch((e) => { console.log(e.message); process.exit(3); })"],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, GALE_NATIVE: join(root, 'no-such-dir', 'gale.node') },
    },
  );
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stdout, /Cannot find module/);
});

test('the loader refuses Node.js older than 20 with a message saying what to install', () => {
  // The check runs before anything is loaded; an older Node is simulated by what process.versions reports.
  const script = `Object.defineProperty(process.versions, 'node', { value: '18.20.4' });
import('gale').then(() => process.exit(0), (e) => { console.log(e.message); process.exit(3); });`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 3, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^Gale needs Node\.js 20 or newer \(this is Node\.js 18\.20\.4, Node-API \d+\)\. Install a current LTS/m,
  );
});
