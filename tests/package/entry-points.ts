// What a package.json promises, read as Node and TypeScript read it: the entry points of `exports` (or `main`) with
// the file each condition resolves to, patterns expanded over the files shipped; the types files it names and the
// declarations those import. Pure functions over an installed package directory, for tests/package/exports.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { Manifest } from './release.js';

/** One module load to check: `specifier` through `kind` must resolve to `expected` (absolute). */
export interface Entry {
  specifier: string;
  kind: 'import' | 'require';
  expected: string;
}

// The conditions Node (20.19 and later) matches for each kind, besides `default`.
const CONDITIONS = {
  import: new Set(['node', 'node-addons', 'module-sync', 'import']),
  require: new Set(['node', 'node-addons', 'module-sync', 'require']),
};

/** Node's target resolution over one exports value: a path, null (excluded) or undefined (no match). */
function target(value: unknown, conditions: Set<string>): string | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = target(v, conditions);
      if (t !== undefined) return t;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key !== 'default' && !conditions.has(key)) continue;
      const t = target(v, conditions);
      if (t !== undefined) return t;
    }
  }
  return undefined;
}

/** The exports map as subpath → value (a bare value or a conditions object is the "." subpath). */
export function subpaths(exports: unknown): [string, unknown][] {
  if (typeof exports === 'object' && exports !== null && !Array.isArray(exports)) {
    const keys = Object.keys(exports);
    if (keys.length > 0 && keys.every((k) => k.startsWith('.'))) return Object.entries(exports);
  }
  return [['.', exports]];
}

/** Every file of an installed package, as `./relative/path`. */
export function packageFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile() && !relative(dir, join(d.parentPath, d.name)).startsWith('node_modules'))
    .map((d) => `./${relative(dir, join(d.parentPath, d.name)).replaceAll('\\', '/')}`);
}

/**
 * The loads the manifest of the package installed at `dir` promises, patterns (`./x/*`) expanded over the files it
 * ships.
 */
export function entries(m: Manifest, dir: string): Entry[] {
  const out: Entry[] = [];
  if (m.exports === undefined) {
    // No exports: `main` for require; for import too unless it is a native addon. Without `main` either, the
    // package is not meant to be loaded (create-gale is a bin; its index.js would run as the CLI).
    const main = m.main;
    if (main === undefined) return out;
    out.push({ specifier: m.name, kind: 'require', expected: join(dir, main) });
    if (!main.endsWith('.node')) out.push({ specifier: m.name, kind: 'import', expected: join(dir, main) });
    return out;
  }
  for (const [key, value] of subpaths(m.exports)) {
    for (const kind of ['import', 'require'] as const) {
      const t = target(value, CONDITIONS[kind]);
      if (typeof t !== 'string') continue;
      if (!key.includes('*')) {
        out.push({ specifier: m.name + key.slice(1), kind, expected: join(dir, t) });
        continue;
      }
      const [pre, post] = t.split('*') as [string, string];
      for (const f of packageFiles(dir)) {
        if (f.length <= pre.length + post.length || !f.startsWith(pre) || !f.endsWith(post)) continue;
        const star = f.slice(pre.length, f.length - post.length);
        out.push({ specifier: m.name + key.slice(1).replace('*', star), kind, expected: join(dir, f) });
      }
    }
  }
  return out;
}

/** Every string under a `types` condition, at any depth of an exports value. */
function typesLeaves(value: unknown, underTypes = false): string[] {
  if (typeof value === 'string') return underTypes || /\.d\.[cm]?ts$/.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => typesLeaves(v, underTypes));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => typesLeaves(v, underTypes || k === 'types'));
  }
  return [];
}

/** The types files a manifest names: `types`/`typings`, the `types` conditions of `exports`, `typesVersions`. */
export function typesFiles(m: Manifest): string[] {
  const files = new Set<string>();
  for (const f of [m.types, m.typings]) if (f) files.add(f);
  for (const [, value] of subpaths(m.exports ?? {})) for (const f of typesLeaves(value)) files.add(f);
  for (const map of Object.values(m.typesVersions ?? {})) {
    for (const list of Object.values(map)) for (const f of list) if (!f.includes('*')) files.add(f);
  }
  return [...files];
}

/** The module specifiers a declaration file names (comments and import attributes removed, `/// <reference>` kept). */
export function specifiersIn(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/(?!\/\s*<reference).*$/gm, '')
    // Import attributes name no module: `import('./x.js', { with: { 'resolution-mode': 'import' } })`, `from 'x' with {…}`.
    .replace(/\{\s*with\s*:\s*\{[^}]*\}\s*\}/g, '{}')
    .replace(/\bwith\s*\{[^}]*\}/g, '');
  const found: string[] = [];
  for (const re of [
    /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\/\/\/\s*<reference\s+path="([^"]+)"/g,
  ]) {
    for (const match of text.matchAll(re)) found.push(match[1] as string);
  }
  return found;
}

/** The declaration file a relative specifier in a .d.ts names, or undefined when none of its forms exists. */
export function declarationFor(from: string, spec: string): string | undefined {
  const base = join(dirname(from), spec);
  const candidates = /\.d\.[cm]?ts$|\.json$/.test(spec)
    ? [base]
    : /\.m?js$/.test(spec)
      ? [base.replace(/\.(m?)js$/, '.d.$1ts')]
      : /\.cjs$/.test(spec)
        ? [base.replace(/\.cjs$/, '.d.cts')]
        : /\.[cm]?ts$/.test(spec)
          ? [base.replace(/\.([cm]?)ts$/, '.d.$1ts')]
          : [`${base}.d.ts`, join(base, 'index.d.ts')];
  return candidates.find((c) => existsSync(c));
}

/**
 * Problems with the types of the package installed at `dir`: a named file missing, a relative import with no file,
 * an import of a package it does not depend on.
 */
export function typesProblems(m: Manifest, dir: string): string[] {
  const problems: string[] = [];
  const declared = new Set([
    m.name,
    ...Object.keys({ ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies }),
  ]);
  const builtins = new Set(builtinModules);
  const seen = new Set<string>();
  const queue = typesFiles(m).map((f) => {
    const abs = join(dir, f);
    if (!existsSync(abs)) problems.push(`the types file ${f} is not in the package`);
    return abs;
  });
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file) || !existsSync(file) || file.endsWith('.json')) continue;
    seen.add(file);
    for (const spec of specifiersIn(file)) {
      if (spec.startsWith('.')) {
        const decl = declarationFor(file, spec);
        if (decl === undefined) problems.push(`${relative(dir, file)} imports ${spec}, which the package lacks`);
        else queue.push(decl);
        continue;
      }
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
      const typesName = `@types/${name.replace(/^@/, '').replace('/', '__')}`;
      if (spec.startsWith('node:') || builtins.has(name) || declared.has(name) || declared.has(typesName)) continue;
      problems.push(`${relative(dir, file)} imports ${spec}, which the package does not depend on`);
    }
  }
  return problems;
}
