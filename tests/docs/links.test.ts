// The docs' relative links lead somewhere: every [text](path) and [text](path#anchor) in README.md, docs/ (but the
// generated docs/api/ and docs/bench/) and the package READMEs names a file of the repository, and an anchor names
// a heading of that markdown file (GitHub's slugs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');
const { docFiles } = (await import(pathToFileURL(join(root, 'scripts', 'check-docs.mjs')).href)) as {
  docFiles(): string[];
};

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1] as string)));
}

test('relative links in the docs lead to files and headings that exist', () => {
  const broken: string[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(join(root, file), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1] as string;
      if (/^[a-z]+:/i.test(href)) continue; // https:, mailto:
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? file : relative(root, normalize(join(root, dirname(file), path)));
      if (!existsSync(join(root, target))) {
        broken.push(`${file}: ${href} (no ${target})`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor)) {
        broken.push(`${file}: ${href} (no heading #${anchor} in ${target})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
