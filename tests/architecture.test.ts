// ARCHITECTURE.md stays true: the "Rooms" table names, for every crate and package, exactly the dependencies its
// Cargo.toml or package.json declares (the backticked names before the dash in "may depend on"), every crate and
// package of the repository has a row, and the protocol crates keep out of I/O and napi.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');
const doc = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

/** The Rooms table: `where` → the backticked dependency names of its "may depend on" cell (before ` — `). */
function rooms(): Map<string, string[]> {
  const section = doc.slice(doc.indexOf('## Rooms'), doc.indexOf('\n## ', doc.indexOf('## Rooms') + 1));
  const out = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| `') || cells.length < 3) continue;
    const where = /^\| `([^`]+)`/.exec(line)?.[1] as string;
    const deps = (cells[cells.length - 1] as string).split(' — ')[0] as string;
    out.set(
      where.replace(/\/$/, ''),
      [...deps.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string),
    );
  }
  return out;
}

/** The names under `[dependencies]` of a Cargo.toml. */
/** A crate's dependencies: `[dependencies]` and each platform's `[target.'cfg(…)'.dependencies]`. */
function cargoDeps(crate: string): string[] {
  const toml = readFileSync(join(root, crate, 'Cargo.toml'), 'utf8');
  const deps: string[] = [];
  for (const section of toml.split(/\n(?=\[)/)) {
    if (!/^\[(?:target\.[^\]]+\.)?dependencies\]/.test(section)) continue;
    deps.push(...[...section.matchAll(/^([A-Za-z0-9_-]+)(?:\.workspace)?\s*=/gm)].map((m) => m[1] as string));
  }
  return [...new Set(deps)];
}

test('every crate and package has a row in the Rooms table', () => {
  const table = rooms();
  const crates = readdirSync(join(root, 'crates')).filter((c) => existsSync(join(root, 'crates', c, 'Cargo.toml')));
  const packages = readdirSync(join(root, 'packages')).filter((p) =>
    existsSync(join(root, 'packages', p, 'package.json')),
  );
  for (const c of crates) assert.ok(table.has(`crates/${c}`), `ARCHITECTURE.md Rooms has no row for crates/${c}`);
  for (const p of packages) assert.ok(table.has(`packages/${p}`), `ARCHITECTURE.md Rooms has no row for packages/${p}`);
});

test("each crate's row names exactly its Cargo.toml dependencies", () => {
  for (const [where, named] of rooms()) {
    if (!where.startsWith('crates/')) continue;
    assert.deepEqual([...named].sort(), cargoDeps(where).sort(), `${where}: ARCHITECTURE.md vs Cargo.toml`);
  }
});

test("each package's row names exactly its dependencies and peer dependencies", () => {
  for (const [where, named] of rooms()) {
    if (!where.startsWith('packages/')) continue;
    const pkg = JSON.parse(readFileSync(join(root, where, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const declared = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    assert.deepEqual([...new Set(named)].sort(), declared.sort(), `${where}: ARCHITECTURE.md vs package.json`);
  }
});

test('the protocol crates depend on no I/O, async runtime or napi crate', () => {
  const forbidden = ['mio', 'socket2', 'libc', 'tokio', 'napi', 'napi-derive', 'rustls', 'h2'];
  for (const crate of ['gale-http', 'gale-router', 'gale-ws', 'gale-h2']) {
    const deps = cargoDeps(`crates/${crate}`);
    for (const f of forbidden) assert.ok(!deps.includes(f), `crates/${crate} depends on ${f}`);
  }
});
