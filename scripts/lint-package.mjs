// `npm run lint:package`: publint on every tarball `npm run release:pack` wrote to .release/, and
// @arethetypeswrong/cli on gale's (the one with types: node10, node16 from CJS and from ESM, bundler). Both must
// report nothing, warnings and suggestions included; exits non-zero otherwise. Engine and create-gale packages have no
// types to check, and adapter-gale is ESM only as adapter-node is (attw's "dynamic import only" from CommonJS is by
// design), so attw looks at gale only.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dir = join(root, '.release');
const listFile = join(dir, 'tarballs.json');
if (!existsSync(listFile)) {
  console.error('lint:package: no .release/tarballs.json; run npm run release:pack first');
  process.exit(1);
}
const tarballs = JSON.parse(readFileSync(listFile, 'utf8'));
const bin = (name) => join(root, 'node_modules', '.bin', name);
let failed = false;
for (const t of tarballs) {
  const r = spawnSync(bin('publint'), ['run', join(dir, t), '--strict'], { encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`.trim();
  // --strict turns warnings into errors; a suggestion still exits 0, so "All good!" is what counts.
  const clean = r.status === 0 && /All good!/.test(out);
  console.log(`publint ${t}: ${clean ? 'all good' : `PROBLEMS\n${out}`}`);
  failed ||= !clean;
}
const main = tarballs.find((t) => /^gale-\d/.test(t));
const attw = spawnSync(bin('attw'), [join(dir, main), '--format', 'ascii'], { encoding: 'utf8' });
const attwOut = `${attw.stdout}${attw.stderr}`;
const attwClean = attw.status === 0 && /No problems found/.test(attwOut);
console.log(`attw ${main}: ${attwClean ? 'no problems found' : `PROBLEMS\n${attwOut}`}`);
failed ||= !attwClean;
process.exit(failed ? 1 : 0);
