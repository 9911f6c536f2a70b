// Every entry point of every packed package, as a user's project gets it: `npm run release:pack -- --prebuilt`, then
// the tarballs that fit this machine installed by npm (cargo off PATH) into a fresh project with no workspace links.
// Driven by each tarball's own package.json, so packages, subpaths and conditions added later are covered unedited:
// each `exports` subpath is imported where an `import` resolution exists and required where a `require` one does
// (Node's own resolution must land on the file the map names, and the module must export something); a package
// without `exports` is loaded through `main`; every `types` file exists and so does each file its relative imports
// name; every `bin` file exists and parses. A missing file (a `files` list that drops one) fails; a self-test shows
// the checks catch exactly that.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { hostTriple, packageName } from '../../packages/gale/scripts/platforms.mjs';
import {
  declarationFor,
  type Entry,
  entries,
  packageFiles,
  specifiersIn,
  typesFiles,
  typesProblems,
} from './entry-points.js';
import { fitsHost, type Manifest, npmInstall, type Packed, packRelease, root, run, rustlessEnv } from './release.js';

const work = mkdtempSync(join(tmpdir(), 'gale-exports-'));
const consumer = join(work, 'consumer');
after(() => rmSync(work, { recursive: true, force: true }));

let packed: Packed[] = [];
let installed: Packed[] = [];
const dirOf = (name: string) => join(consumer, 'node_modules', ...name.split('/'));

before(
  async () => {
    packed = await packRelease();
    // Engine packages for other machines (cross builds) cannot be installed here; npm would refuse them.
    installed = packed.filter((p) => fitsHost(p.manifest));
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
    );
    // With the optional peers the packages name (Nest for @gale-http/express/nest), at the versions this workspace
    // has, so that every subpath loads as it does in a project that uses it.
    const ours = new Set(packed.map((p) => p.manifest.name));
    const peers = new Set(
      installed.flatMap((p) =>
        Object.entries(p.manifest.peerDependenciesMeta ?? {})
          .filter(([name, v]) => v.optional === true && !ours.has(name))
          .map(([name]) => name),
      ),
    );
    const version = (name: string) =>
      (JSON.parse(readFileSync(join(root, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as Manifest)
        .version;
    npmInstall(consumer, [...installed.map((p) => p.tgz), ...[...peers].map((n) => `${n}@${version(n)}`)]);
  },
  { timeout: 600_000 },
);

interface Loaded {
  resolved?: string;
  /** The module exports something (named exports, a default, or a function). */
  nonEmpty?: boolean;
  error?: string;
}

const ESM_CHECK = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const out = {};
for (const spec of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  try {
    const url = import.meta.resolve(spec);
    const mod = await import(spec, url.endsWith('.json') ? { with: { type: 'json' } } : undefined);
    out[spec] = { resolved: fileURLToPath(url), nonEmpty: Object.keys(mod).length > 0 };
  } catch (e) {
    out[spec] = { error: (e && e.code ? e.code + ': ' : '') + String(e && e.message ? e.message : e) };
  }
}
process.stdout.write(JSON.stringify(out), () => process.exit(0));
`;
const CJS_CHECK = `'use strict';
const out = {};
for (const spec of JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'))) {
  try {
    const resolved = require.resolve(spec);
    const mod = require(spec);
    const nonEmpty = typeof mod === 'function' || (mod !== null && typeof mod === 'object' && Object.keys(mod).length > 0);
    out[spec] = { resolved, nonEmpty };
  } catch (e) {
    out[spec] = { error: (e && e.code ? e.code + ': ' : '') + String(e && e.message ? e.message : e) };
  }
}
process.stdout.write(JSON.stringify(out), () => process.exit(0));
`;

/** Loads each specifier in a fresh Node process of the consumer project, by import or by require. */
function load(kind: 'import' | 'require', specifiers: string[]): Record<string, Loaded> {
  const script = join(consumer, kind === 'import' ? 'check.mjs' : 'check.cjs');
  writeFileSync(script, kind === 'import' ? ESM_CHECK : CJS_CHECK);
  const list = join(consumer, `${kind}.json`);
  writeFileSync(list, JSON.stringify(specifiers));
  const r = run(process.execPath, [script, list], consumer, { timeout: 120_000 });
  return JSON.parse(r.stdout) as Record<string, Loaded>;
}

/** Problems with the loads of `m`'s entries (an empty list when every one worked). */
function loadProblems(m: Manifest, loads: Entry[], results: Record<'import' | 'require', Record<string, Loaded>>) {
  const problems: string[] = [];
  const others = packed.map((p) => p.manifest.name).filter((n) => n !== m.name);
  for (const e of loads) {
    const got = results[e.kind][e.specifier];
    if (got === undefined) {
      problems.push(`${e.kind} ${e.specifier}: not run`);
    } else if (got.error !== undefined) {
      // An old subpath may stay as an entry point that throws at load with the package that replaced it (README,
      // ARCHITECTURE "Package names"): acceptable only when it loaded and names a packed package to install.
      const resolution =
        /^(ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND|ERR_PACKAGE_PATH_NOT_EXPORTED|ERR_UNSUPPORTED|ERR_UNKNOWN_FILE_EXTENSION|ERR_REQUIRE|ERR_INVALID)/;
      const moved =
        !resolution.test(got.error) &&
        !/SyntaxError/.test(got.error) &&
        /install/i.test(got.error) &&
        others.some((n) => got.error?.includes(n));
      if (!moved) problems.push(`${e.kind} ${e.specifier}: ${got.error}`);
    } else {
      if (got.resolved !== e.expected) {
        problems.push(`${e.kind} ${e.specifier} resolved to ${got.resolved}, the exports map names ${e.expected}`);
      }
      if (!got.nonEmpty) problems.push(`${e.kind} ${e.specifier}: the module exports nothing`);
    }
  }
  return problems;
}

/** Problems with `m`'s bin files: missing, not linked into node_modules/.bin, or not parseable JavaScript. */
function binProblems(m: Manifest): string[] {
  const bins = typeof m.bin === 'string' ? { [m.name.split('/').pop() as string]: m.bin } : (m.bin ?? {});
  const problems: string[] = [];
  for (const [name, file] of Object.entries(bins)) {
    const abs = join(dirOf(m.name), file);
    if (!existsSync(abs)) {
      problems.push(`bin ${name}: ${file} is not in the package`);
      continue;
    }
    if (!existsSync(join(consumer, 'node_modules', '.bin', name))) problems.push(`bin ${name}: npm did not link it`);
    const r = spawnSync(process.execPath, ['--check', abs], { encoding: 'utf8', env: rustlessEnv() });
    if (r.status !== 0) problems.push(`bin ${name}: node --check ${file} failed: ${r.stderr}`);
  }
  return problems;
}

test('release:pack packs every public workspace package, and the engine for this machine', () => {
  const names = packed.map((p) => p.manifest.name);
  const packages = readdirSync(join(root, 'packages')).filter((d) =>
    existsSync(join(root, 'packages', d, 'package.json')),
  );
  for (const d of packages) {
    const m = JSON.parse(readFileSync(join(root, 'packages', d, 'package.json'), 'utf8')) as Manifest & {
      private?: boolean;
    };
    if (!m.private) assert.ok(names.includes(m.name), `packages/${d} (${m.name}) is not packed: ${names.join(', ')}`);
  }
  assert.ok(names.includes(packageName(hostTriple())), `no engine package for ${hostTriple()}: ${names.join(', ')}`);
  assert.equal(names[0], 'gale', 'tarballs.json lists the main package first');
});

test('every packed package installs from its tarball, not from the workspace', () => {
  for (const p of installed) {
    const dir = dirOf(p.manifest.name);
    assert.ok(existsSync(join(dir, 'package.json')), `${p.manifest.name} is not installed`);
    const m = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    assert.equal(m.version, p.manifest.version, p.manifest.name);
    // A copy in the project, holding exactly what the tarball holds; never a link into this checkout.
    assert.ok(!relative(consumer, dir).startsWith('..'), `${p.manifest.name} is outside the project`);
    assert.deepEqual(
      packageFiles(dir)
        .map((f) => f.slice(2))
        .sort(),
      [...p.files].sort(),
      `${p.manifest.name}: the installed files are the tarball's`,
    );
  }
  // A package depending on another packed one gets the packed copy (one gale in the project, not a second one).
  const nested = installed.flatMap((p) =>
    installed
      .filter((q) => existsSync(join(dirOf(p.manifest.name), 'node_modules', ...q.manifest.name.split('/'))))
      .map((q) => `${p.manifest.name} → its own ${q.manifest.name}`),
  );
  assert.deepEqual(nested, []);
});

test('every subpath every packed package exports loads with import and with require; types and bins exist', async (t) => {
  const all = installed.map((p) => ({ p, loads: entries(p.manifest, dirOf(p.manifest.name)) }));
  const flat = all.flatMap((a) => a.loads);
  const results = {
    import: load(
      'import',
      flat.filter((e) => e.kind === 'import').map((e) => e.specifier),
    ),
    require: load(
      'require',
      flat.filter((e) => e.kind === 'require').map((e) => e.specifier),
    ),
  };
  for (const { p, loads } of all) {
    await t.test(p.manifest.name, (st) => {
      const problems = [
        ...loadProblems(p.manifest, loads, results),
        ...typesProblems(p.manifest, dirOf(p.manifest.name)),
        ...binProblems(p.manifest),
      ];
      assert.deepEqual(problems, [], `${p.manifest.name}: ${problems.join('\n')}`);
      // Something was checked: an entry point, a types file or a bin.
      const bins = typeof p.manifest.bin === 'string' ? 1 : Object.keys(p.manifest.bin ?? {}).length;
      assert.ok(loads.length + typesFiles(p.manifest).length + bins > 0, `${p.manifest.name} has no entry point`);
      st.diagnostic(`${loads.length} loads, ${typesFiles(p.manifest).length} types entries, ${bins} bins`);
    });
  }
});

test("gale's batteries load by their own subpaths as the very objects the root exports, by import and by require", () => {
  const batteries: Record<string, string[]> = {
    'gale/cors': ['cors', 'corsPolicy'],
    'gale/csrf': ['csrf'],
    'gale/request-id': ['requestId'],
    'gale/security': ['security', 'securityHeaders'],
    'gale/session': ['session', 'Session', 'MemoryStore', 'RedisStore'],
  };
  const script = `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const batteries = JSON.parse(process.argv[2]);
const root = await import('gale');
const problems = [];
for (const [spec, names] of Object.entries(batteries)) {
  const esm = await import(spec);
  const cjs = require(spec);
  const extra = Object.keys(esm).filter((k) => !(k in root));
  if (extra.length > 0) problems.push(spec + ' exports what gale does not: ' + extra.join(', '));
  for (const n of names) {
    if (typeof root[n] !== 'function') problems.push('gale has no ' + n);
    if (esm[n] !== root[n]) problems.push('import ' + spec + ': ' + n + ' is not the one gale exports');
    if (cjs[n] !== root[n]) problems.push('require ' + spec + ': ' + n + ' is not the one gale exports');
  }
}
process.stdout.write(JSON.stringify(problems), () => process.exit(0));
`;
  const file = join(consumer, 'batteries-check.mjs');
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file, JSON.stringify(batteries)], { cwd: consumer, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), []);
});

/** The first relative module `file` imports whose file exists (as `./x.js`), or undefined. */
function siblingOf(file: string): string | undefined {
  return specifiersIn(file).find((s) => s.startsWith('./') && existsSync(join(dirname(file), s)));
}

test('self-test: a module an entry point imports, left out of the package, fails the load check', () => {
  // The first installed package whose "." entry (by import) imports a sibling module.
  const found = installed
    .map((p) => ({
      p,
      entry: entries(p.manifest, dirOf(p.manifest.name)).find(
        (e) => e.kind === 'import' && e.specifier === p.manifest.name,
      ),
    }))
    .find(({ entry }) => entry !== undefined && existsSync(entry.expected) && siblingOf(entry.expected) !== undefined);
  assert.ok(found?.entry, 'no packed package has an entry point importing a sibling module to test with');
  const { p, entry } = found as { p: Packed; entry: Entry };
  const file = join(dirname(entry.expected), siblingOf(entry.expected) as string);
  renameSync(file, `${file}.away`);
  try {
    const problems = loadProblems(p.manifest, [entry], { import: load('import', [entry.specifier]), require: {} });
    assert.equal(problems.length, 1, `removing ${relative(consumer, file)} went unnoticed`);
    assert.match(problems[0] as string, /ERR_MODULE_NOT_FOUND/);
  } finally {
    renameSync(`${file}.away`, file);
  }
});

test('self-test: a declaration file a types entry imports, left out, fails the types check', () => {
  const found = installed
    .flatMap((p) => typesFiles(p.manifest).map((f) => ({ p, file: join(dirOf(p.manifest.name), f) })))
    .map(({ p, file }) => ({
      p,
      file,
      spec: existsSync(file)
        ? specifiersIn(file).find((s) => s.startsWith('./') && declarationFor(file, s))
        : undefined,
    }))
    .find(({ spec }) => spec !== undefined);
  assert.ok(found?.spec, 'no packed types file imports a sibling declaration to test with');
  const decl = declarationFor(found.file, found.spec) as string;
  renameSync(decl, `${decl}.away`);
  try {
    assert.ok(
      typesProblems(found.p.manifest, dirOf(found.p.manifest.name)).some((x) =>
        x.includes(`imports ${found.spec}, which the package lacks`),
      ),
      `removing ${relative(consumer, decl)} went unnoticed by the types check`,
    );
  } finally {
    renameSync(`${decl}.away`, decl);
  }
});
