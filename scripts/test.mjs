// `npm test`: runs every node:test suite (tests/, packages/*/src, bench/) through tsx, one process
// per file, two or more files at a time. Fails when no test file is found, so an empty run can never pass.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const roots = ['tests', 'packages', 'bench'].map((d) => join(root, d));
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'results') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts') || name.endsWith('.test.mjs')) files.push(relative(root, p));
  }
}
for (const r of roots) {
  try {
    walk(r);
  } catch {}
}
// Arguments pick files by substring of their path; one starting with `!` leaves the matching files out
// (`node scripts/test.mjs '!tests/chaos/'`: everything but the live fuzzer).
const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('!'));
const skip = args.filter((a) => a.startsWith('!')).map((a) => a.slice(1));
const picked = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
const selected = picked.filter((f) => !skip.some((s) => f.includes(s)));
if (selected.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
selected.sort();
// Files at a time: node:test's default is one less than the cores, which is one on a 2-core machine, where most
// files spend their time waiting on sockets and timers (the whole suite measured 574 s one at a time, 382 s two at a
// time, on Node 26 here). GALE_TEST_CONCURRENCY=1 runs them one by one.
const concurrency = Number(process.env.GALE_TEST_CONCURRENCY) || Math.max(2, availableParallelism() - 1);
const left = skip.length ? `; left out: ${picked.length - selected.length} files matching ${skip.join(', ')}` : '';
console.log(
  `${selected.length} test files on Node ${process.version} (${process.execPath}), ${concurrency} at a time${left}`,
);
const nodeArgs = [
  '--import',
  'tsx',
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-reporter=spec',
  ...selected,
];
const r = spawnSync(process.execPath, nodeArgs, { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
