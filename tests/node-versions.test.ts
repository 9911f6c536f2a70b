// What Gale says about Node versions stays true: every package.json (root, packages/*, create-gale's template) states
// the same engines.node, the Node running this test is inside it (CI runs the suite on 20, 22, 24 and 26, so each of
// them is checked), and the README's "Supported Node versions" line quotes that range and names every major CI tests
// (scripts/test-node-versions.mjs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const read = (p: string): string => readFileSync(join(root, p), 'utf8');
const engines = (p: string): string | undefined =>
  (JSON.parse(read(p)) as { engines?: { node?: string } }).engines?.node;

type Version = [number, number, number];
const parse = (v: string): Version => {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`not a version: "${v}"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};
const cmp = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether `version` is inside `range`, for the two comparators engines.node uses here (`^x.y.z`, `>=x.y.z`, joined
 * by `||`); any other syntax throws, so a range this cannot read fails the test instead of passing it.
 */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((part) => {
    const p = part.trim();
    if (p.startsWith('^')) {
      const min = parse(p.slice(1));
      return cmp(v, min) >= 0 && v[0] === min[0];
    }
    if (p.startsWith('>=')) return cmp(v, parse(p.slice(2))) >= 0;
    throw new Error(`unsupported engines comparator "${p}" in "${range}"`);
  });
}

test('satisfies() reads the engines range the way npm does for ^ and >=', () => {
  const range = '^20.19.0 || >=22.12.0';
  for (const v of ['v20.19.0', 'v20.20.2', 'v22.12.0', 'v24.1.0', 'v26.10.0'])
    assert.equal(satisfies(v, range), true, v);
  for (const v of ['v20.18.3', 'v21.7.0', 'v22.11.0', 'v18.20.0']) assert.equal(satisfies(v, range), false, v);
  assert.throws(() => satisfies('v20.0.0', '~20.1.0'), /unsupported engines comparator/);
});

test('engines.node is the same in every package.json and admits the Node running the tests', () => {
  const range = engines('package.json');
  assert.ok(range, 'package.json has engines.node');
  // Every workspace package (gale, adapter-gale, create-gale, …) and the app create-gale writes.
  const pkgs = readdirSync(join(root, 'packages'))
    .map((d) => `packages/${d}/package.json`)
    .filter((p) => existsSync(join(root, p)));
  assert.ok(pkgs.includes('packages/gale/package.json'));
  if (existsSync(join(root, 'packages/create-gale/template/package.json'))) {
    pkgs.push('packages/create-gale/template/package.json');
  }
  for (const p of pkgs) assert.equal(engines(p), range, `${p} states the same engines.node as package.json`);
  assert.ok(
    satisfies(process.version, range),
    `Node ${process.version} runs the tests but engines.node is "${range}": widen it or refuse this version`,
  );
});

test('README: "Supported Node versions" quotes engines.node and names every major CI tests', async () => {
  const range = engines('package.json') ?? '';
  const line = read('README.md')
    .split('\n')
    .find((l) => l.startsWith('**Supported Node versions**'));
  assert.ok(line, 'README.md has a line starting with **Supported Node versions**');
  assert.ok(line.includes(`\`${range}\``), `the README line quotes engines.node \`${range}\`: ${line}`);
  const script = (await import(pathToFileURL(join(root, 'scripts', 'test-node-versions.mjs')).href)) as {
    DEFAULT_MAJORS: string[];
  };
  for (const major of ['20', ...script.DEFAULT_MAJORS]) {
    assert.match(line, new RegExp(`\\b${major}\\b`), `the README line names Node ${major}`);
  }
  assert.match(read('.ci/run'), /npm run test:node-versions/, '.ci/run runs the suite on the other majors');
});
