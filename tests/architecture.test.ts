// ARCHITECTURE.md stays true: the "Rooms" table names, for every crate and package, exactly the dependencies its
// Cargo.toml or package.json declares (the backticked names before the dash in "may depend on"), every crate and
// package of the repository has a row, the protocol crates keep out of I/O and napi, every repository path the text
// cites exists, the engine's constants it quotes are the code's, and no crate's files import each other in a circle, and
// no source file is over 600 lines (over 400 only with a reason in its opening comment).
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
  for (const crate of ['gale-http', 'gale-router', 'gale-ws', 'gale-h2', 'gale-wt']) {
    const deps = cargoDeps(`crates/${crate}`);
    for (const f of forbidden) assert.ok(!deps.includes(f), `crates/${crate} depends on ${f}`);
  }
});

test('every repository path ARCHITECTURE.md cites exists', () => {
  const cited = new Set(
    [...doc.matchAll(/\b(?:crates|packages|tests|scripts|bench|examples|docs)\/[A-Za-z0-9_./@-]+/g)].map((m) =>
      m[0].replace(/[.,;:]+$/, ''),
    ),
  );
  assert.ok(cited.size > 50, `paths found (${cited.size})`);
  const missing = [...cited].filter((p) => !existsSync(join(root, p)));
  assert.deepEqual(missing, [], 'cited paths that do not exist');
});

/** The value of `const NAME: T = expr;` in a Rust file, evaluated for the integer forms used (`4 * 1024`, `4096`). */
function rustConst(file: string, name: string): number {
  const src = readFileSync(join(root, file), 'utf8');
  const expr = new RegExp(`const ${name}: \\w+ = ([0-9_ *]+);`).exec(src)?.[1];
  assert.ok(expr, `${name} in ${file}`);
  return expr.split('*').reduce((acc, f) => acc * Number(f.trim().replaceAll('_', '')), 1);
}

/** A number as the text writes it: `4 096`, `256`. */
const num = (s: string) => Number(s.replace(/\s/g, ''));

test("the io_uring figures ARCHITECTURE.md quotes are the code's", () => {
  const ring = /a ring of ([\d ]+) provided (\d+) KiB buffers/.exec(doc);
  assert.ok(ring, 'the provided-buffer sentence');
  assert.equal(num(ring[1] as string), rustConst('crates/gale-server/src/uring/mod.rs', 'BUF_COUNT'));
  assert.equal(num(ring[2] as string) * 1024, rustConst('crates/gale-server/src/uring/mod.rs', 'BUF_SIZE'));
  const queued = /queues behind it, up to (\d+) KiB/.exec(doc);
  assert.ok(queued, 'the send-queue sentence');
  assert.equal(num(queued[1] as string) * 1024, rustConst('crates/gale-server/src/uring/conn.rs', 'RING_CAP'));
});

/** A Rust file's lines without its `#[cfg(test)] mod x { … }` blocks (braces counted from the opening line). */
function withoutTests(lines: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() === '#[cfg(test)]' && /^\s*mod \w+ \{/.test(lines[i + 1] ?? '')) {
      let depth = 0;
      for (i++; i < lines.length; i++) {
        for (const c of lines[i] as string) depth += c === '{' ? 1 : c === '}' ? -1 : 0;
        if (depth === 0) break;
      }
      continue;
    }
    kept.push(lines[i] as string);
  }
  return kept;
}

/**
 * A crate's modules (`a::b` for `src/a/b.rs` or `src/a/b/mod.rs`; the root and test modules left out) → the modules
 * each names through `crate::…` or `super::…`, outside comments and `#[cfg(test)]` modules.
 */
function moduleGraph(crate: string): Map<string, Set<string>> {
  const src = join(root, 'crates', crate, 'src');
  const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.rs'));
  const name = (f: string) =>
    f
      .replace(/\.rs$/, '')
      .split('/')
      .filter((p, i, all) => !(i === all.length - 1 && (p === 'mod' || p === 'lib')))
      .join('::');
  const text = new Map<string, string>();
  for (const f of files) {
    const m = name(f);
    if (m === '' || m.split('::').includes('tests')) continue;
    const lines = withoutTests(readFileSync(join(src, f), 'utf8').split('\n'));
    text.set(m, lines.filter((l) => !l.trimStart().startsWith('//')).join('\n'));
  }
  const resolve = (path: string[]): string | undefined => {
    for (let n = path.length; n > 0; n--) {
      const m = path.slice(0, n).join('::');
      if (text.has(m)) return m;
    }
    return undefined;
  };
  const graph = new Map<string, Set<string>>();
  for (const [m, t] of text) {
    const out = new Set<string>();
    const parent = m.split('::').slice(0, -1);
    for (const [, head, rest] of t.matchAll(/\b(crate|super)::(\{[^;]*?\}|\w+(?:::\w+)*)/g)) {
      const base = head === 'crate' ? [] : parent;
      const items = (rest as string).startsWith('{') ? (rest as string).slice(1, -1).split(',') : [rest as string];
      for (const item of items) {
        const path =
          item
            .trim()
            .split('{')[0]
            ?.split('::')
            .filter((p) => p !== '' && p !== 'self') ?? [];
        const target = resolve([...base, ...path]);
        if (target !== undefined && target !== m) out.add(target);
      }
    }
    graph.set(m, out);
  }
  return graph;
}

/** The groups of two or more modules that reach each other (Tarjan's strongly connected components). */
function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

test("no crate's files import each other in a circle", () => {
  const crates = readdirSync(join(root, 'crates')).filter((c) => existsSync(join(root, 'crates', c, 'src')));
  assert.ok(crates.length >= 6, `crates found (${crates.length})`);
  for (const crate of crates) {
    const graph = moduleGraph(crate);
    assert.ok(graph.size > 0, `${crate} has modules`);
    for (const group of circles(graph)) assert.fail(`${crate}: ${group.join(' ↔ ')} import each other`);
  }
});

test('the circle finder finds a circle', () => {
  const graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
    ['d', new Set(['a'])],
  ]);
  assert.deepEqual(circles(graph), [['a', 'b', 'c']]);
});

/** Source files: Rust under crates/<name>/src, TypeScript under packages/<name>/src (not tests or declarations). */
function sources(): string[] {
  const out: string[] = [];
  for (const [dir, ext] of [
    ['crates', '.rs'],
    ['packages', '.ts'],
  ] as const) {
    for (const name of readdirSync(join(root, dir))) {
      const src = join(root, dir, name, 'src');
      if (!existsSync(src)) continue;
      for (const f of readdirSync(src, { recursive: true }) as string[]) {
        if (f.endsWith(ext) && !f.endsWith('.test.ts') && !f.endsWith('.d.ts')) out.push(join(dir, name, 'src', f));
      }
    }
  }
  return out;
}

/** What a file's length rule finds wrong: over 600 lines, or over 400 with no reason in its opening comment. */
function lengthProblem(file: string, text: string): string | undefined {
  const all = text.replace(/\n$/, '').split('\n');
  // Rust keeps its unit tests beside the code (the style guide): they do not count.
  const lines = file.endsWith('.rs') ? withoutTests(all).length : all.length;
  if (lines > 600) return `${file}: ${lines} lines (at most 600: split it)`;
  const opening = all
    .slice(
      0,
      all.findIndex((l) => !l.startsWith('//')),
    )
    .join(' ');
  if (lines > 400 && !/Over 400 lines: \S/.test(opening)) {
    return `${file}: ${lines} lines, and its opening comment does not say why ("Over 400 lines: …")`;
  }
  return undefined;
}

test('no source file is over 600 lines, and one over 400 says why in its opening comment', () => {
  const files = sources();
  assert.ok(files.length > 200, `sources found (${files.length})`);
  const problems = files.map((f) => lengthProblem(f, readFileSync(join(root, f), 'utf8'))).filter(Boolean);
  assert.deepEqual(problems, []);
});

test('the length rule counts what it says', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`).join('\n');
  assert.equal(lengthProblem('a.ts', `// A file.\n${lines(380)}`), undefined);
  assert.match(lengthProblem('a.ts', `// A file.\n${lines(420)}`) ?? '', /does not say why/);
  assert.equal(lengthProblem('a.ts', `// A file.\n// Over 400 lines: one parser.\n${lines(420)}`), undefined);
  assert.match(lengthProblem('a.ts', `// A file.\n// Over 400 lines: one parser.\n${lines(620)}`) ?? '', /at most 600/);
  const tests = `#[cfg(test)]\nmod tests {\n${lines(300)}\n}`;
  assert.equal(lengthProblem('a.rs', `//! A file.\n${lines(380)}\n${tests}`), undefined);
});
