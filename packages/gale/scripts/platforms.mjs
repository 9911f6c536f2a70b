// The platforms Gale ships a prebuilt engine for: one npm package each (napi-rs layout), named from the same
// `<platform>-<arch>[-<abi>]` triple src/native.ts computes at run time. Used by build-native.mjs, the release
// pack (scripts/release-pack.mjs) and .github/workflows/release.yml's matrix; tests check they agree.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** npm scope of the per-platform packages: `@gale-http/linux-x64-gnu` and so on. */
export const SCOPE = '@gale-http';

/**
 * Each target: the triple (also the addon's file name, `gale.<triple>.node`), the Rust target, and the npm
 * `os`/`cpu`/`libc` fields that let npm skip the packages that do not fit the machine.
 * `zig` is the cargo-zigbuild target: glibc 2.17 for the gnu builds, so one binary loads on every Linux
 * since CentOS 7 instead of needing the builder's glibc.
 * `mingw` is the Rust target a Linux machine cross-builds Windows with (Debian's mingw-w64 links it); Windows itself
 * builds `rust` with MSVC (the release workflow). Both are Node-API DLLs that load into the same node.exe, so they
 * ship in one package.
 */
export const TARGETS = [
  {
    triple: 'linux-x64-gnu',
    rust: 'x86_64-unknown-linux-gnu',
    zig: 'x86_64-unknown-linux-gnu.2.17',
    os: 'linux',
    cpu: 'x64',
    libc: 'glibc',
  },
  {
    triple: 'linux-x64-musl',
    rust: 'x86_64-unknown-linux-musl',
    zig: 'x86_64-unknown-linux-musl',
    os: 'linux',
    cpu: 'x64',
    libc: 'musl',
  },
  {
    triple: 'linux-arm64-gnu',
    rust: 'aarch64-unknown-linux-gnu',
    zig: 'aarch64-unknown-linux-gnu.2.17',
    os: 'linux',
    cpu: 'arm64',
    libc: 'glibc',
  },
  {
    triple: 'linux-arm64-musl',
    rust: 'aarch64-unknown-linux-musl',
    zig: 'aarch64-unknown-linux-musl',
    os: 'linux',
    cpu: 'arm64',
    libc: 'musl',
  },
  { triple: 'darwin-x64', rust: 'x86_64-apple-darwin', os: 'darwin', cpu: 'x64' },
  { triple: 'darwin-arm64', rust: 'aarch64-apple-darwin', os: 'darwin', cpu: 'arm64' },
  { triple: 'win32-x64', rust: 'x86_64-pc-windows-msvc', mingw: 'x86_64-pc-windows-gnu', os: 'win32', cpu: 'x64' },
];

/** Whether `cargo zigbuild` runs here (cargo-zigbuild and zig, for the other Linux and the macOS targets). */
export const hasZigbuild = () => spawnSync('cargo', ['zigbuild', '--help'], { stdio: 'ignore' }).status === 0;

/** The mingw-w64 tools a Windows cross build runs (the linker, and dlltool for the import library of node.exe). */
export const MINGW_TOOLS = ['x86_64-w64-mingw32-gcc', 'x86_64-w64-mingw32-dlltool'];

/**
 * What a mingw-w64 cross build of Rust target `rust` lacks on this machine, each with how to install it; empty when
 * it can build. Used by build-native.mjs (which stops with it) and the release pack (which then leaves Windows out).
 */
export function mingwMissing(rust) {
  const missing = [];
  const tools = MINGW_TOOLS.filter((t) => spawnSync(t, ['--version'], { stdio: 'ignore' }).status !== 0);
  if (tools.length > 0) missing.push(`mingw-w64 (${tools.join(', ')} not found): apt-get install mingw-w64`);
  const libdir = spawnSync('rustc', ['--print', 'target-libdir', '--target', rust], { encoding: 'utf8' });
  if (libdir.status !== 0 || !existsSync(libdir.stdout.trim())) {
    missing.push(`Rust's ${rust} target: rustup target add ${rust}`);
  }
  return missing;
}

/** The npm package that carries the engine for `triple`. */
export const packageName = (triple) => `${SCOPE}/${triple}`;

/** The shared library cargo writes for a Rust target. */
export function cargoLibName(rust) {
  if (rust.includes('apple-darwin')) return 'libgale_node.dylib';
  if (rust.includes('windows')) return 'gale_node.dll';
  return 'libgale_node.so';
}

/** This machine's triple, computed as src/native.ts computes it. */
export function hostTriple() {
  const { platform, arch } = process;
  if (platform === 'win32') return `win32-${arch}`;
  if (platform !== 'linux') return `${platform}-${arch}`;
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
}

/** The target entry for a triple, or undefined. */
export const targetFor = (triple) => TARGETS.find((t) => t.triple === triple);
