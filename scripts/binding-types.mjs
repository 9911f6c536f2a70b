// Generates packages/gale/src/native-options.ts, the TypeScript types of the binding's setup-time options, from
// their napi-rs object types (crates/gale-node/src/options.rs): `cargo check` with napi-derive's type-def output on.
//   node scripts/binding-types.mjs           rewrite the file   (npm run binding-types)
//   node scripts/binding-types.mjs --check   exit 1 when the file is not what the Rust makes (CI's checks)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const target = join(root, 'packages', 'gale', 'src', 'native-options.ts');
const source = join(root, 'crates', 'gale-node', 'src', 'options.rs');
const check = process.argv.includes('--check');

const dir = mkdtempSync(join(tmpdir(), 'gale-typedef-'));
let lines;
try {
  // napi-derive writes a definition for each #[napi] item while it expands it, so the crate must be compiled again:
  // a newer modification time makes cargo re-check gale-node (and nothing else).
  const now = new Date();
  utimesSync(source, now, now);
  const r = spawnSync('cargo', ['check', '-p', 'gale-node', '--lib', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: dir },
  });
  if (r.status !== 0) {
    console.error('binding-types: cargo check -p gale-node failed (see above)');
    process.exit(1);
  }
  lines = readFileSync(join(dir, 'gale-node'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Only the option types: the module's other #[napi] items (its exports function) are not options.
const types = lines.filter((d) => d.kind === 'interface');
if (!types.length) {
  console.error('binding-types: napi-derive wrote no interface (is crates/gale-node/src/options.rs compiled?)');
  process.exit(1);
}
// A field names another option type by its Rust name; the CLI of napi-rs maps those to the JS names, as here.
const jsName = new Map(types.map((d) => [d.original_name, d.name]));
const rename = (s) =>
  s.replace(/\b[A-Z]\w*\b/g, (w) => jsName.get(w) ?? w).replace(/Array<(\w+)>/g, (_, t) => `${t}[]`);

let out =
  "// The binding's setup-time options as it reads them: generated from crates/gale-node/src/options.rs (napi-rs\n" +
  '// object types) by `npm run binding-types`; do not edit. CI fails when this file and the Rust differ.\n';
for (const d of types) {
  const body = rename(d.def)
    .split('\n')
    .map((l) => `  ${l}${l.trimStart().startsWith('/**') ? '' : ';'}`)
    .join('\n');
  out += `\n${d.js_doc}export interface ${d.name} {\n${body}\n}\n`;
}
// The repository's formatter has the last word on layout, so the check compares like with like.
const fmt = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${target}`], {
  cwd: root,
  input: out,
  encoding: 'utf8',
});
if (fmt.status !== 0) {
  console.error(`binding-types: biome format failed:\n${fmt.stderr}`);
  process.exit(1);
}
out = fmt.stdout;

if (check) {
  let now = '';
  try {
    now = readFileSync(target, 'utf8');
  } catch {}
  if (now !== out) {
    console.error(
      'binding-types: packages/gale/src/native-options.ts differs from what crates/gale-node/src/options.rs makes;\n' +
        'run `npm run binding-types` and commit the result',
    );
    process.exit(1);
  }
  console.log(`binding-types: native-options.ts matches options.rs (${types.length} types)`);
} else {
  writeFileSync(target, out);
  console.log(`binding-types: wrote ${target} (${types.length} types)`);
}
