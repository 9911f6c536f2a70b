// `npm run check:darwin`: cross-builds the engine for both macOS targets with cargo-zigbuild and checks that each
// links into a Node-API Mach-O dylib (right CPU, exports napi_register_module_v1, takes napi_* from node). It does
// not run them: the release workflow's macOS jobs build with Xcode and run the suite on real Macs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { cargoLibName, hasZigbuild, TARGETS } from '../packages/gale/scripts/platforms.mjs';

const root = join(import.meta.dirname, '..');
// cargo-zigbuild from PyPI, pinned; it depends on the `ziglang` wheel, which carries zig itself.
const ZIGBUILD = 'cargo-zigbuild==0.24.1';
const started = Date.now();
const fail = (msg) => {
  console.error(`check:darwin: ${msg}`);
  process.exit(1);
};
const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });

/** Puts cargo-zigbuild on PATH: the one installed already, or one in a virtualenv outside the checkout. */
function ensureZigbuild() {
  if (hasZigbuild()) return 'on PATH';
  const venv = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gale-zig');
  const bin = join(venv, 'bin');
  if (!existsSync(join(bin, 'cargo-zigbuild'))) {
    console.log(`check:darwin: installing ${ZIGBUILD} (with zig, from PyPI) into ${venv}`);
    if (run('python3', ['-m', 'venv', venv]).status !== 0) {
      fail('python3 -m venv failed: install Python 3 and its venv module (Debian: apt-get install python3-venv)');
    }
    if (run(join(bin, 'pip'), ['install', '-q', '--disable-pip-version-check', ZIGBUILD]).status !== 0) {
      fail(`pip install ${ZIGBUILD} failed (it needs PyPI)`);
    }
  }
  // cargo-zigbuild finds zig through `python3 -m ziglang`, so the virtualenv's python3 goes first too.
  process.env.PATH = `${bin}${delimiter}${process.env.PATH}`;
  return relative(root, venv).startsWith('..') ? venv : relative(root, venv);
}

// Mach-O (64-bit, little-endian) constants: <mach-o/loader.h> and <mach-o/nlist.h>.
const MH_MAGIC_64 = 0xfeedfacf;
const MH_DYLIB = 6;
const LC_SYMTAB = 0x2;
const CPU = { 'aarch64-apple-darwin': 0x0100000c, 'x86_64-apple-darwin': 0x01000007 };
const N_EXT = 0x01;
const N_TYPE = 0x0e;
const N_SECT = 0x0e;
const N_UNDF = 0x0;

/** Reads a dylib's header and symbol table; throws saying what is wrong. */
export function inspectMachO(buf, rust) {
  if (buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error('not a 64-bit Mach-O file');
  const cpu = buf.readUInt32LE(4);
  if (cpu !== CPU[rust]) throw new Error(`CPU type 0x${cpu.toString(16)}, not ${rust}'s`);
  if (buf.readUInt32LE(12) !== MH_DYLIB) throw new Error(`file type ${buf.readUInt32LE(12)}, not a dylib`);
  const ncmds = buf.readUInt32LE(16);
  let off = 32;
  const exported = new Set();
  const imported = new Set();
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(off);
    if (cmd === LC_SYMTAB) {
      const [symoff, nsyms, stroff] = [
        buf.readUInt32LE(off + 8),
        buf.readUInt32LE(off + 12),
        buf.readUInt32LE(off + 16),
      ];
      for (let s = 0; s < nsyms; s++) {
        const e = symoff + s * 16;
        const type = buf[e + 4];
        if (!(type & N_EXT)) continue;
        const strx = stroff + buf.readUInt32LE(e);
        const name = buf.toString('latin1', strx, buf.indexOf(0, strx));
        if ((type & N_TYPE) === N_SECT) exported.add(name);
        else if ((type & N_TYPE) === N_UNDF) imported.add(name);
      }
    }
    off += buf.readUInt32LE(off + 4);
  }
  if (!exported.has('_napi_register_module_v1')) throw new Error('napi_register_module_v1 is not exported');
  const napi = [...imported].filter((n) => n.startsWith('_napi_'));
  if (napi.length === 0) throw new Error('no napi_* symbol is left for node to provide');
  return { exported: exported.size, napiImports: napi.length };
}

if (process.argv[1] === import.meta.filename) {
  const darwin = TARGETS.filter((t) => t.os === 'darwin');
  const where = ensureZigbuild();
  if (spawnSync('rustup', ['--version'], { stdio: 'ignore' }).status !== 0) {
    fail('rustup is needed to add the darwin targets (https://rustup.rs)');
  }
  if (run('rustup', ['target', 'add', ...darwin.map((t) => t.rust)]).status !== 0) fail('rustup target add failed');
  // A link check, not a release build: the dev profile without debug info, both targets in one cargo run so the
  // build scripts and proc macros compile once.
  const targetDir = join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'darwin-link');
  const args = ['zigbuild', '-p', 'gale-node', '--target-dir', targetDir];
  for (const t of darwin) args.push('--target', t.rust);
  const b = run('cargo', args, { env: { ...process.env, CARGO_PROFILE_DEV_DEBUG: '0' } });
  if (b.status !== 0) fail(`cargo ${args.join(' ')} failed`);
  for (const t of darwin) {
    const lib = join(targetDir, t.rust, 'debug', cargoLibName(t.rust));
    try {
      const r = inspectMachO(readFileSync(lib), t.rust);
      const mb = (statSync(lib).size / 1e6).toFixed(1);
      console.log(
        `check:darwin: ${t.triple} (${t.rust}) links: ${relative(root, lib)}, ${mb} MB, Mach-O dylib, ` +
          `exports napi_register_module_v1, ${r.napiImports} napi_* symbols left to node`,
      );
    } catch (e) {
      fail(`${t.triple}: ${relative(root, lib)}: ${e.message}`);
    }
  }
  console.log(
    `check:darwin: both darwin targets link (cargo-zigbuild ${where}), ${Math.round((Date.now() - started) / 1000)} s`,
  );
}
