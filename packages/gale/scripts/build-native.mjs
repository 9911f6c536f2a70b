// Builds Gale's native engine (crates/gale-node) with cargo in release mode and copies the addon to
// native/gale.<triple>.node, where src/native.ts looks for it, with a gale.<triple>.json beside it (engine version,
// Rust target, rustc, commit) that `gale --version` prints. Downloads nothing but crates.
//
//   node scripts/build-native.mjs                       this machine, `cargo build --release` (what npm install runs)
//   node scripts/build-native.mjs --target linux-arm64-gnu [--out dir]   another target, with cargo-zigbuild
//   node scripts/build-native.mjs --zig                  this machine through cargo-zigbuild (glibc 2.17 baseline)
//   node scripts/build-native.mjs --target win32-x64      Windows from Linux, with mingw-w64 (x86_64-pc-windows-gnu)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cargoLibName, hasZigbuild, hostTriple, MINGW_TOOLS, mingwMissing, TARGETS, targetFor } from './platforms.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const root = join(pkg, '..', '..');

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    zig: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const triple = values.target ?? hostTriple();
const target = targetFor(triple);
if (!target) {
  console.error(`gale: unknown target ${triple}; known: ${TARGETS.map((t) => t.triple).join(', ')}`);
  process.exit(1);
}
const cross = triple !== hostTriple();
const zig = values.zig || (cross && target.zig !== undefined);
// Windows from another OS: the mingw-w64 target (Windows itself builds the MSVC one).
const rustTarget = cross && target.mingw !== undefined ? target.mingw : target.rust;

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
      'Users of the published package never need this: npm installs a prebuilt engine for their platform.',
    ].join('\n'),
  );
  process.exit(1);
}
if (zig && !hasZigbuild()) {
  console.error(
    `gale: building ${triple} here needs cargo-zigbuild and zig: cargo install cargo-zigbuild; pip install ziglang;` +
      ` rustup target add ${target.rust}`,
  );
  process.exit(1);
}

// cargo-zigbuild takes `<rust target>.<glibc>`; plain cargo the Rust target (none for this machine, so the output
// stays in target/release, where incremental rebuilds of the workspace already are).
const args = zig
  ? ['zigbuild', '--release', '-p', 'gale-node', '--target', target.zig ?? target.rust]
  : ['build', '--release', '-p', 'gale-node', ...(cross ? ['--target', rustTarget] : [])];
const env = { ...process.env };
if (rustTarget !== target.rust) mingwSetup(env);
console.log(`gale: building the native engine for ${triple} (cargo ${args.join(' ')})…`);
// musl targets link statically by default, and a static binary cannot be a cdylib: a Node addon on musl links the
// system's libc dynamically, as Node itself does there.
if (target.libc === 'musl') {
  const key = `CARGO_TARGET_${target.rust.toUpperCase().replaceAll('-', '_')}_RUSTFLAGS`;
  env[key] = `${env[key] ?? ''} -C target-feature=-crt-static`.trim();
}
const build = spawnSync('cargo', args, { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) {
  console.error('gale: cargo build failed (see above).');
  process.exit(build.status ?? 1);
}
const targetDir = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
const built = join(targetDir, ...(zig || cross ? [rustTarget] : []), 'release', cargoLibName(rustTarget));
const outDir = values.out ?? join(pkg, 'native');
mkdirSync(outDir, { recursive: true });
const out = join(outDir, `gale.${triple}.node`);
// Copy then rename: servers running now have the old file mapped; overwriting it in place would
// change their code under them. A rename gives the new build a new inode.
const tmp = `${out}.${process.pid}.tmp`;
copyFileSync(built, tmp);
renameSync(tmp, out);
writeFileSync(join(outDir, `gale.${triple}.json`), `${JSON.stringify(buildInfo(), null, 2)}\n`);
console.log(`gale: native engine ready at ${out}`);

/**
 * Prepares a mingw-w64 cross build of Windows: checks the linker and the Rust target, and gives napi's build script
 * the import library it insists on for windows-gnu (`-lnode`, from a `libnode.dll` it looks for in LIBNODE_PATH).
 * Gale links nothing from it — on Windows napi looks its functions up in node.exe at load time (`dyn-symbols`) and
 * the engine finds libuv with GetProcAddress — so an empty import library naming node.exe is enough.
 */
function mingwSetup(env) {
  const missing = mingwMissing(rustTarget);
  if (missing.length > 0) {
    console.error(`gale: building ${triple} here needs ${missing.join('; and ')}`);
    process.exit(1);
  }
  const [gcc, dlltool] = MINGW_TOOLS;
  const dir = join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'mingw-libnode');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'node.def'), 'LIBRARY node.exe\nEXPORTS\n');
  const made = spawnSync(dlltool, ['-d', join(dir, 'node.def'), '-l', join(dir, 'libnode.dll')], { stdio: 'inherit' });
  if (made.status !== 0) {
    console.error(`gale: ${dlltool} could not write the import library for node.exe`);
    process.exit(1);
  }
  env.LIBNODE_PATH = dir;
  env[`CARGO_TARGET_${rustTarget.toUpperCase().replaceAll('-', '_')}_LINKER`] ??= gcc;
}

/** What `gale --version` reports about this build: read from the workspace, not from the binary. */
function buildInfo() {
  const cargoToml = readFileSync(join(root, 'Cargo.toml'), 'utf8');
  const version = /\[workspace\.package\][^[]*?\bversion\s*=\s*"([^"]+)"/.exec(cargoToml)?.[1];
  const napi = /features\s*=\s*\[[^\]]*"napi(\d+)"/.exec(cargoToml)?.[1];
  const run = (cmd, argv) => {
    const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  return {
    engine: version,
    triple,
    rustTarget: zig ? (target.zig ?? target.rust) : rustTarget,
    napi: napi === undefined ? undefined : Number(napi),
    rustc: run('rustc', ['--version']),
    commit: run('git', ['rev-parse', '--short=12', 'HEAD']),
    builtAt: new Date().toISOString(),
  };
}
