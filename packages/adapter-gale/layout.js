// @ts-check
// Build-time plan of how the built server serves files, for adapter-gale: which URLs become native Gale static
// mounts and which go through the catch-all route's file map. Mirrors what adapter-node's sirv serves (client
// files, `.html`/`index.html` aliases, prerendered paths). A Gale static mount at P also owns every path below P,
// so P gets a mount only when no SvelteKit route can match below it; each such file is hard-linked alone into
// `gale/<n>/`, so the mount cannot reach its neighbours. Node only; no SvelteKit imports.
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join, posix } from 'node:path';

/** Characters a Gale route path may hold literally (no param, wildcard or escape syntax). */
const LITERAL = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;
const WELL_KNOWN = /(?:^|\/)\.well-known\//;
const DOT_SEGMENT = /(?:^|\/)\./;
const SIBLING = /\.(?:br|gz)$/;

/**
 * @typedef {{ content: string; dynamic: boolean; rest: boolean }} Segment
 * @typedef {{
 *   immutable: { prefix: string; dir: string } | null;
 *   mounts: [url: string, dir: string, name: string][];
 *   files: [pathname: string, file: string][];
 *   prerendered: string[];
 * }} Layout
 */

/**
 * Whether a route with `segments` can match some path strictly below `path` (a decoded `/a/b`).
 * @param {readonly Segment[]} segments
 * @param {string} path
 * @returns {boolean}
 */
export function routeReachesBelow(segments, path) {
  const route = segments.filter((s) => s.content !== '');
  const parts = path.split('/').filter(Boolean);
  /** @type {(i: number, j: number) => boolean} */
  const below = (i, j) => {
    if (j === parts.length) return i < route.length;
    const s = route[i];
    if (s === undefined) return false;
    if (s.rest) return true;
    if (s.content.startsWith('[[')) return below(i + 1, j) || below(i + 1, j + 1);
    if (s.dynamic) return below(i + 1, j + 1);
    return s.content === parts[j] && below(i + 1, j + 1);
  };
  return below(0, 0);
}

/**
 * Every file below `root` as a relative `a/b.c` path, sorted (dotfiles skipped except under .well-known, as sirv).
 * @param {string} root
 * @returns {string[]}
 */
export function listFiles(root) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} rel */
  const walk = (rel) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && (!DOT_SEGMENT.test(child) || WELL_KNOWN.test(`${child}`))) out.push(child);
    }
  };
  if (existsSync(root)) walk('');
  return out.sort();
}

/**
 * Hard-links `src` (and its .br/.gz siblings) into `destDir` (copies, keeping the mtime, where links fail).
 * @param {string} src
 * @param {string} destDir
 * @param {string} name
 */
function linkAlone(src, destDir, name) {
  mkdirSync(destDir, { recursive: true });
  for (const suffix of ['', '.br', '.gz']) {
    const from = src + suffix;
    if (suffix !== '' && !existsSync(from)) continue;
    const to = join(destDir, name + suffix);
    try {
      linkSync(from, to);
    } catch {
      copyFileSync(from, to);
      const st = statSync(from);
      utimesSync(to, st.atime, st.mtime);
    }
  }
}

/**
 * Plans (and lays out on disk under `out/gale/`) how the built server serves files.
 * @param {{
 *   out: string;
 *   appPath: string;
 *   prerenderedPaths: readonly string[];
 *   routes: readonly { segments: readonly Segment[] }[];
 * }} o
 * @returns {Layout}
 */
export function planStatic(o) {
  const { out, appPath } = o;
  const immutablePrefix = `${appPath}/immutable/`;
  /** @type {Map<string, string>} URL pathname (decoded) → file relative to out */
  const served = new Map();
  /** @type {Map<string, string>} aliases (`/a` for a.html, `/dir` for dir/index.html), taken only if free */
  const aliases = new Map();

  const clientFiles = listFiles(join(out, 'client'));
  const present = new Set(clientFiles);
  for (const rel of clientFiles) {
    if (rel.startsWith(immutablePrefix)) continue;
    // A precompressed sibling is a variant of its file, not a page of its own.
    if (SIBLING.test(rel) && present.has(rel.slice(0, -3))) continue;
    served.set(`/${rel}`, `client/${rel}`);
    const noExt = rel.replace(/\.html?$/, '');
    if (noExt !== rel) {
      aliases.set(`/${noExt}`, `client/${rel}`);
      if (posix.basename(noExt) === 'index')
        aliases.set(`/${posix.dirname(noExt)}`.replace(/^\/\.$/, '/'), `client/${rel}`);
    }
  }
  for (const [pathname, file] of aliases) if (!served.has(pathname)) served.set(pathname, file);

  // Prerendered paths (decoded, without trailing slashes) resolve as sirv resolves them.
  const prerenderedDir = join(out, 'prerendered');
  for (const p of o.prerenderedPaths) {
    const rel = p.replace(/^\/+/, '').replace(/\/+$/, '');
    const candidates =
      rel === '' ? ['index.html', 'index.htm'] : [rel, `${rel}.html`, `${rel}/index.html`, `${rel}.htm`];
    const found = candidates.find((c) => {
      const abs = join(prerenderedDir, c);
      return existsSync(abs) && statSync(abs).isFile();
    });
    if (found !== undefined) served.set(rel === '' ? '/' : `/${rel}`, `prerendered/${found}`);
  }

  /** @type {Layout} */
  const layout = { immutable: null, mounts: [], files: [], prerendered: [...o.prerenderedPaths] };
  if (existsSync(join(out, 'client', immutablePrefix))) {
    layout.immutable = { prefix: `/${appPath}/immutable`, dir: `client/${appPath}/immutable` };
  }
  let n = 0;
  for (const [pathname, file] of served) {
    const native =
      pathname !== '/' &&
      LITERAL.test(pathname) &&
      !o.routes.some((r) => routeReachesBelow(r.segments, pathname)) &&
      // an alias whose path is a directory of other served files would own them
      ![...served.keys()].some((other) => other.startsWith(`${pathname}/`));
    if (!native) {
      layout.files.push([pathname, file]);
      continue;
    }
    const name = posix.basename(file);
    const dir = `gale/${n++}`;
    linkAlone(join(out, file), join(out, dir), name);
    layout.mounts.push([pathname, dir, name]);
  }
  return layout;
}
