// Builds Gale's native engine (crates/gale-node) with cargo in release mode and copies the addon to
// native/gale.<platform>.node, where src/native.ts looks for it. Downloads nothing but crates.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const root = join(pkg, '..', '..');

function triple() {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
}

if (!existsSync(join(root, 'Cargo.toml'))) {
  console.error('gale: no Cargo workspace next to this package, so the native engine cannot be built here.');
  process.exit(1);
}
const probe = spawnSync('cargo', ['--version'], { stdio: 'ignore' });
if (probe.error || probe.status !== 0) {
  console.error(
    [
      'gale: building the native engine needs Rust (cargo), which was not found on PATH.',
      'Install it from https://rustup.rs (curl --proto "=https" --tlsv1.2 -sSf https://sh.rustup.rs | sh),',
      'or with your package manager (e.g. apt-get install cargo), then run `npm install` again.',
    ].join('\n'),
  );
  process.exit(1);
}
console.log('gale: building the native engine (cargo build --release -p gale-node)…');
const build = spawnSync('cargo', ['build', '--release', '-p', 'gale-node'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('gale: cargo build failed (see above).');
  process.exit(build.status ?? 1);
}
const lib = { darwin: 'libgale_node.dylib', win32: 'gale_node.dll' }[process.platform] ?? 'libgale_node.so';
const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
mkdirSync(join(pkg, 'native'), { recursive: true });
const out = join(pkg, 'native', `gale.${triple()}.node`);
// Copy then rename: servers running now have the old file mapped; overwriting it in place would
// change their code under them. A rename gives the new build a new inode.
const tmp = `${out}.${process.pid}.tmp`;
copyFileSync(join(target, 'release', lib), tmp);
renameSync(tmp, out);
console.log(`gale: native engine ready at ${out}`);
