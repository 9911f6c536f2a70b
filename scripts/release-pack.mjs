// `npm run release:pack`: the npm tarballs of a release, in .release/: `gale` (the TypeScript build, fresh from tsc
// into a staging folder, so the working tree's dist/ is never touched), every other workspace package that is not
// private (`@gale-http/express` and the other TypeScript packages built the same way; `adapter-gale`, `create-gale`
// as committed), and one `@gale-http/<triple>`
// package per engine binary this machine can build (packages/gale/scripts/platforms.mjs). Nothing in them needs
// cargo to install. .release/tarballs.json lists them, the main package first.
//
//   npm run release:pack                         this machine's engine (cargo), plus cross builds when
//                                                cargo-zigbuild is installed (musl, arm64) and Windows x64
//                                                when mingw-w64 and Rust's x86_64-pc-windows-gnu are
//   npm run release:pack -- --prebuilt           reuse packages/gale/native/gale.<host>.node (built by npm install)
//   npm run release:pack -- --targets linux-x64-gnu,linux-arm64-gnu [--zig]
//   npm run release:pack -- --binaries dir       package gale.<triple>.node files built elsewhere (the release
//                                                workflow's publish job); builds nothing
//   npm run release:pack -- --out dir            write somewhere else (tests/package does)
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  hasZigbuild,
  hostTriple,
  mingwMissing,
  packageName,
  TARGETS,
  targetFor,
} from '../packages/gale/scripts/platforms.mjs';

const root = join(import.meta.dirname, '..');
const galeDir = join(root, 'packages', 'gale');

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, '.release') },
    targets: { type: 'string' },
    prebuilt: { type: 'boolean', default: false },
    binaries: { type: 'string' },
    zig: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});
const out = resolve(values.out);
const log = (msg) => values.quiet || console.log(`release:pack: ${msg}`);
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: values.quiet ? 'pipe' : 'inherit', encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})\n${r.stdout ?? ''}${r.stderr ?? ''}`,
    );
  }
  return r;
};
// Windows from Linux: mingw-w64's tools and Rust's windows-gnu target (build-native.mjs says what is missing).
const hasMingw = (t) => t.mingw !== undefined && mingwMissing(t.mingw).length === 0;

const pkg = JSON.parse(readFileSync(join(galeDir, 'package.json'), 'utf8'));
const stage = join(out, 'stage');
rmSync(out, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

// 1. The engine binaries: built here, reused, or taken from a folder of artifacts.
const binaries = new Map(); // triple → folder holding gale.<triple>.node (and .json)
if (values.binaries) {
  const dir = resolve(values.binaries);
  for (const f of readdirSync(dir, { recursive: true })) {
    const m = /(?:^|[/\\])gale\.([a-z0-9-]+)\.node$/.exec(String(f));
    if (m && targetFor(m[1])) binaries.set(m[1], join(dir, String(f), '..'));
  }
  if (binaries.size === 0) throw new Error(`no gale.<triple>.node files under ${dir}`);
} else {
  const host = hostTriple();
  const wanted = values.targets
    ? values.targets.split(',').map((t) => t.trim())
    : [
        host,
        ...(hasZigbuild() && !values.prebuilt ? TARGETS.filter((t) => t.zig && t.triple !== host) : []).map(
          (t) => t.triple,
        ),
        // With --prebuilt, only a Windows engine already built (build-native.mjs --target win32-x64).
        ...TARGETS.filter(
          (t) =>
            t.triple !== host &&
            hasMingw(t) &&
            (!values.prebuilt || existsSync(join(galeDir, 'native', `gale.${t.triple}.node`))),
        ).map((t) => t.triple),
      ];
  for (const triple of wanted) {
    if (!targetFor(triple)) throw new Error(`unknown target ${triple}`);
    const native = join(galeDir, 'native');
    // --prebuilt reuses what build-native.mjs already put in native/: this machine's engine, and a cross build
    // (the Windows one CI builds for its Wine run) when there is one.
    if (values.prebuilt && existsSync(join(native, `gale.${triple}.node`))) {
      binaries.set(triple, native);
      continue;
    }
    const dir = join(stage, 'bin', triple);
    const zig = values.zig || (triple !== host && targetFor(triple).zig !== undefined);
    log(`building the engine for ${triple}${zig ? ' (cargo-zigbuild)' : ''}`);
    run(process.execPath, [
      join(galeDir, 'scripts', 'build-native.mjs'),
      '--target',
      triple,
      '--out',
      dir,
      ...(zig ? ['--zig'] : []),
    ]);
    binaries.set(triple, dir);
  }
}

const license = readFileSync(join(root, 'LICENSE'), 'utf8');
const pack = (dir) => {
  const r = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], { cwd: dir, stdio: 'pipe' });
  const [info] = JSON.parse(r.stdout);
  log(`${info.filename} (${info.files.length} files, ${(info.size / 1024).toFixed(0)} KiB)`);
  return join(out, info.filename);
};
const tarballs = [];

// 2. One package per engine binary, in the napi-rs layout: os/cpu/libc let npm install only the one that fits.
for (const [triple, dir] of binaries) {
  const t = targetFor(triple);
  const name = packageName(triple);
  const pdir = join(stage, triple);
  mkdirSync(pdir, { recursive: true });
  const files = [`gale.${triple}.node`];
  copyFileSync(join(dir, files[0]), join(pdir, files[0]));
  if (existsSync(join(dir, `gale.${triple}.json`))) {
    files.push(`gale.${triple}.json`);
    copyFileSync(join(dir, files[1]), join(pdir, files[1]));
  }
  const manifest = {
    name,
    version: pkg.version,
    description: `Gale's native HTTP engine for ${triple} (installed by the gale package; not used directly)`,
    license: pkg.license,
    repository: pkg.repository,
    homepage: pkg.homepage,
    bugs: pkg.bugs,
    type: 'commonjs',
    main: files[0],
    files,
    os: [t.os],
    cpu: [t.cpu],
    ...(t.libc ? { libc: [t.libc] } : {}),
    engines: { node: '>=20' },
    publishConfig: pkg.publishConfig,
  };
  writeFileSync(join(pdir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(pdir, 'README.md'),
    `# ${name}\n\nThe prebuilt native engine of [gale](${pkg.homepage}) for \`${triple}\` (Rust target \`${t.rust}\`,` +
      ' Node-API 8: one binary for every Node.js from 20 on).\n\nInstall `gale`, not this package: npm picks the engine' +
      " package that fits the machine from gale's optional dependencies.\n",
  );
  writeFileSync(join(pdir, 'LICENSE'), license);
  tarballs.push(pack(pdir));
}

// 3. The main package: package.json as committed plus the engine packages as optionalDependencies, a fresh tsc build,
// the CommonJS entries, README, LICENSE, CHANGELOG. The optional dependencies are added here, as napi-rs's
// prepublish adds them, not committed: in the repository they would name packages not yet on the registry, and npm ci
// refuses a lockfile that lacks them; in a checkout the engine comes from source anyway.
const gdir = join(stage, 'gale');
mkdirSync(gdir, { recursive: true });
for (const f of ['README.md', 'CHANGELOG.md']) copyFileSync(join(galeDir, f), join(gdir, f));
const optionalDependencies = Object.fromEntries(TARGETS.map((t) => [packageName(t.triple), pkg.version]));
writeFileSync(join(gdir, 'package.json'), `${JSON.stringify({ ...pkg, optionalDependencies }, null, 2)}\n`);
writeFileSync(join(gdir, 'LICENSE'), license);
cpSync(join(galeDir, 'cjs'), join(gdir, 'cjs'), { recursive: true });
log('compiling the TypeScript build (tsc)');
run(process.execPath, [
  join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '-p',
  join(galeDir, 'tsconfig.build.json'),
  '--outDir',
  join(gdir, 'dist'),
  '--sourceMap',
  'false',
]);
tarballs.unshift(pack(gdir));

// 4. Every other public workspace package (@gale-http/express, @gale-http/socket.io, …, adapter-gale, create-gale), with
// the LICENSE: npm pack takes what its `files` lists. A TypeScript package (a tsconfig.build.json and the build
// script `tsc -p tsconfig.build.json`) gets a fresh tsc build into its staging folder, as gale does above; any other
// build step stops the pack until a step for it is added here (its output would be missing or stale).
const packagesDir = join(root, 'packages');
const TSC_BUILD = 'tsc -p tsconfig.build.json';
for (const name of readdirSync(packagesDir).sort()) {
  const src = join(packagesDir, name);
  if (src === galeDir || !existsSync(join(src, 'package.json'))) continue;
  const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  const tsc = manifest.scripts?.build === TSC_BUILD && existsSync(join(src, 'tsconfig.build.json'));
  if ((manifest.scripts?.build && !tsc) || manifest.scripts?.prepack || manifest.scripts?.prepare) {
    throw new Error(
      `packages/${name} has a build step other than \`${TSC_BUILD}\` (scripts.build/prepack/prepare): add a step to ` +
        'scripts/release-pack.mjs that builds it into its staging folder',
    );
  }
  const dir = join(stage, 'packages', name);
  cpSync(src, dir, { recursive: true, filter: (p) => !/[/\\](node_modules|dist)([/\\]|$)/.test(p) });
  writeFileSync(join(dir, 'LICENSE'), license);
  if (tsc) {
    log(`compiling ${manifest.name} (tsc)`);
    run(process.execPath, [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(src, 'tsconfig.build.json'),
      '--outDir',
      join(dir, 'dist'),
      '--sourceMap',
      'false',
    ]);
  }
  tarballs.push(pack(dir));
}

writeFileSync(
  join(out, 'tarballs.json'),
  `${JSON.stringify(
    tarballs.map((t) => t.slice(out.length + 1)),
    null,
    2,
  )}\n`,
);
log(`wrote ${tarballs.length} tarballs to ${out}`);
