// socket.io's own server suite (4.8.3: mocha + tsx, and tsd for the types) against the real socket.io (the baseline,
// on the same Node) and against @gale-http/socket.io. The package root the tests import (`..` from test/) gets, per
// run, an entry and types that re-export the implementation under test.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { prepareCopy, root, suiteDir } from './copy.mjs';
import { runMocha } from './mocha.mjs';

export const SOCKETIO_SUITES = {
  'socket.io': { reference: 'socket.io@4.8.3', gale: '@gale-http/socket.io' },
};

/**
 * Cases that race themselves: what they wait for hangs on the order in which two different connections' packets reach
 * the server, which the test does not order (each client resolves `localhost` and connects on its own), so neither the
 * real socket.io nor Gale decides it. The real socket.io fails them too now and then (in this runner's baseline on
 * Node 26: "emits to rooms avoiding dupes" and "broadcasts binary data to rooms", 2026-12-03). A failure of one of
 * these is judged again (run.mjs): the case alone, RECHECKS times on the same implementation, every one passing.
 */
export const RACING = {
  'test/messaging-many.ts :: messaging many emits to rooms avoiding dupes':
    "socket2's `emit` goes once the server acked socket2's own join; socket1's two joins (another connection) may not have arrived, so the broadcast reaches nobody",
  'test/messaging-many.ts :: messaging many broadcasts to rooms':
    "socket3's `broadcast` goes once its own join is acked; socket1's and socket2's joins may not have arrived",
  'test/messaging-many.ts :: messaging many broadcasts binary data to rooms':
    "socket3's `broadcast` goes once its own join is acked; socket2's join may not have arrived",
  'test/utility-methods.ts :: utility methods disconnectSockets makes all socket instances in a room disconnect':
    "pairs serverSockets[i] (the order of the server's `connection` events) with clientSockets[i] (the order the clients were made): three clients connecting at once may reach the server in another order",
};
/** How many times a racing case runs alone when it failed in a run. */
export const RECHECKS = 3;

/** Two files test/index.ts requires, kept out of both runs (and of tsd, which would not find their dependencies): */
const LEFT_OUT = [
  'test/v2-compatibility.ts', // Engine.IO v3 / socket.io-client 2 clients through `allowEIO3`, which Gale does not support
  'test/uws.ts', // io.attachApp() on a uWebSockets.js app, a server Gale's engine replaces (and not on the npm registry)
];
/**
 * The other files test/index.ts requires, in its order, named one by one (index.ts also wraps them all in
 * `describe("socket.io")`, which the case ids drop).
 */
const FILES = [
  'test/server-attachment.ts',
  'test/handshake.ts',
  'test/close.ts',
  'test/namespaces.ts',
  'test/socket.ts',
  'test/messaging-many.ts',
  'test/middleware.ts',
  'test/socket-middleware.ts',
  'test/socket-timeout.ts',
  'test/utility-methods.ts',
  'test/connection-state-recovery.ts',
];
const TYPE_TEST = 'test/socket.io.test-d.ts';

/**
 * What the tests load. The suite's package.json names none (socket.io's monorepo keeps its dev dependencies at its
 * root): these are the root's ranges at the tag socket.io@4.8.3, the client being that tag's workspace package.
 */
const DEPS = {
  'real-socket.io': 'npm:socket.io@4.8.3', // the baseline, under a name no test requires
  'socket.io-client': '4.8.3',
  'socket.io-adapter': '~2.5.2', // socket.io's own range, so the baseline shares the tests' Adapter class
  'expect.js': '^0.3.1',
  superagent: '^9.0.2',
  supertest: '^7.0.0',
  tsx: '~4.20.6',
  tsd: '^0.31.1',
  '@types/mocha': '^10.0.7', // the type test is written in describe/it
  '@types/node': '18.15.3',
  // The root's mocha ^10.6.0 cannot start on Node 26 (its yargs 16 has extensionless CommonJS files in a "type":
  // "module" package); mocha 11 runs the same files on every Node, for the baseline and Gale alike (as express.mjs).
  mocha: '^11.7.5',
};

/**
 * socket.io's test:unit, less nyc (coverage) and --bail (one failure would hide the rest), plus --exit: on the real
 * socket.io too, timers and sockets of cases that never close their server or client keep the process up 30–45 s
 * after the last case (namespaces.ts, socket.ts), so waiting for the exit says nothing about the server and would cost
 * each run that long. Whether closing the server lets a process end is a case of its own (close.ts,
 * "graceful close", in a child process).
 */
const MOCHA_ARGS = ['--import=tsx', '--slow', '200', '--timeout', '10000', '--exit'];
/** packages/socket.io/tsconfig.json at the tag socket.io@4.8.3, less what only its build uses (outDir, include…). */
const TSCONFIG = {
  compilerOptions: {
    target: 'es2017',
    module: 'commonjs',
    declaration: true,
    esModuleInterop: true,
    skipLibCheck: true,
    strict: true,
    noImplicitAny: false,
    noImplicitThis: false,
    strictPropertyInitialization: false,
    noImplicitReturns: true,
  },
};
const RUN_TIMEOUT_MS = 300_000;
const TSD_TIMEOUT_MS = 180_000;

/** The working copy: the suite, its dependencies, and the two fixtures the source mirror lacks. */
export function prepareSocketIO(suite) {
  const copy = prepareCopy(suite, suite, ['test', 'LICENSE'], DEPS);
  const fixtures = join(copy, 'test', 'fixtures');
  chmodSync(fixtures, 0o755); // copied read-only from ../shared/upstream
  writeFileSync(join(fixtures, 'big.json'), bigJson());
  writeFileSync(join(fixtures, 'big.jpg'), bigBytes());
  const installed = (name) =>
    JSON.parse(readFileSync(join(copy, 'node_modules', name, 'package.json'), 'utf8')).version;
  SOCKETIO_SUITES[suite].reference = `socket.io@${installed('real-socket.io')} (engine.io@${installed('engine.io')})`;
  return copy;
}

/**
 * Runs the suite against `impl` ('reference': the real socket.io; 'gale') on the Node binary `node`: the mocha files,
 * then the type test. Resolves to every case's outcome and the problems seen (as runMocha).
 */
export async function runSocketIO({ suite, impl, node, copy }) {
  const label = `${suite} on ${impl === 'reference' ? SOCKETIO_SUITES[suite].reference : SOCKETIO_SUITES[suite].gale}`;
  pointAt(suite, copy, impl);
  const result = await runMocha({
    node,
    cwd: copy,
    mochaArgs: MOCHA_ARGS,
    files: FILES,
    env: {},
    timeoutMs: RUN_TIMEOUT_MS,
    label,
  });
  const types = await runTsd({ node, copy, label });
  for (const c of types.cases) result.cases.set(c.id, c);
  result.problems.push(...types.problems);
  return result;
}

/**
 * Runs one case of the suite alone (its file, `--fgrep` its full title) against `impl`: resolves to its outcome
 * ('failed' too when the run had a problem: a hang, a crash, a process left running), or undefined when mocha did
 * not report it.
 */
export async function runSocketIOCase({ suite, impl, node, copy, id }) {
  const [file, title] = id.split(' :: ');
  const label = `${suite} on ${impl === 'reference' ? SOCKETIO_SUITES[suite].reference : SOCKETIO_SUITES[suite].gale}`;
  pointAt(suite, copy, impl);
  const result = await runMocha({
    node,
    cwd: copy,
    mochaArgs: [...MOCHA_ARGS, '--fgrep', title],
    files: [file],
    env: {},
    timeoutMs: 60_000,
    label: `${label}, ${id} alone`,
  });
  const got = result.cases.get(id);
  if (got === undefined || result.problems.length === 0) return got;
  return { ...got, state: 'failed', error: result.problems.join('; ') };
}

/**
 * Makes the copy's root the package under test. The suite's own package.json stays (its `main` and `types` are
 * dist/index.js and dist/index.d.ts), but for the version: the tests read it as the version of the client bundle the
 * package serves (socket.io's ETag; socket.io and its client are released together), so it is the version of the
 * socket.io-client the implementation serves (4.8.3 for the real socket.io 4.8.3's client-dist). dist/ gets
 * a shim re-exporting the implementation (which `import … from ".."` and server-close.ts's `require("../..")` reach)
 * and its types, and lib/ (socket.io's sources, which the type test and test/support/util.ts import types from) gets
 * `index` and `typed-events` re-exporting the implementation's. tsconfig.json is the package's own at socket.io@4.8.3
 * (not in the source mirror): tsd type-checks the tests with it, as the package's `test:types` script does.
 */
function pointAt(suite, copy, impl) {
  let entry;
  let types;
  if (impl === 'reference') {
    entry = 'real-socket.io';
    types = join(copy, 'node_modules', 'real-socket.io', 'dist');
  } else {
    // This checkout's workspace package: its CommonJS entry, callable as socket.io's is.
    entry = createRequire(join(root, 'package.json')).resolve(SOCKETIO_SUITES[suite].gale);
    types = join(dirname(dirname(entry)), 'dist');
  }
  const manifest = JSON.parse(readFileSync(join(suiteDir(suite), 'package.json'), 'utf8'));
  if (impl !== 'reference') {
    const client = createRequire(entry).resolve('socket.io-client/package.json');
    manifest.version = JSON.parse(readFileSync(client, 'utf8')).version;
  }
  // (prepareCopy's install wrote a package.json of its own there.)
  writeFileSync(join(copy, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(copy, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  const note = `// Written by Gale's upstream runner (scripts/upstream/socketio.mjs): the package under test is ${impl === 'reference' ? 'the real socket.io' : SOCKETIO_SUITES[suite].gale}.\n`;
  mkdirSync(join(copy, 'dist'), { recursive: true });
  writeFileSync(
    join(copy, 'dist', 'index.js'),
    `'use strict';\n${note}module.exports = require(${JSON.stringify(entry)});\n`,
  );
  writeFileSync(join(copy, 'dist', 'index.d.ts'), `${note}export * from ${JSON.stringify(join(types, 'index'))};\n`);
  mkdirSync(join(copy, 'lib'), { recursive: true });
  for (const name of ['index', 'typed-events']) {
    writeFileSync(join(copy, 'lib', `${name}.d.ts`), `${note}export * from ${JSON.stringify(join(types, name))};\n`);
  }
}

/**
 * Runs tsd with `node` in the copy (tsd's API; the package's `tsd.directory` is test/, so it type-checks every test
 * file, as `test:types` does, less the two FILES leaves out). Each `it()` of the type test is a case, failed by a
 * diagnostic inside it; every other file is one case `(tsd) type-checks`, as is the type test's top level (imports).
 */
async function runTsd({ node, copy, label }) {
  const testFiles = listTs(copy, 'test').filter((f) => !LEFT_OUT.includes(f));
  const script =
    "const tsd = require('tsd').default;" +
    `tsd({ cwd: process.cwd(), testFiles: ${JSON.stringify(testFiles)} })` +
    '.then((d) => { process.stdout.write(JSON.stringify(d)); },' +
    ' (e) => { console.error(e && e.stack || e); process.exit(2); });';
  const r = await new Promise((resolve) => {
    const child = spawn(node, ['-e', script], { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TSD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ out, err, code: code ?? signal });
    });
  });
  if (r.code !== 0) {
    return { cases: [], problems: [`${label}: tsd did not run (exit ${r.code})\n${r.err.trim().slice(-2000)}`] };
  }
  const byFile = new Map(
    testFiles.map((f) => [f, { id: `${f} :: (tsd) type-checks`, file: f, from: 0, to: 0, errors: [] }]),
  );
  const blocks = itBlocks(readFileSync(join(copy, TYPE_TEST), 'utf8'));
  const problems = [];
  for (const d of JSON.parse(r.out)) {
    if (d.severity !== 'error') continue;
    const file = d.fileName ? relative(copy, d.fileName) : '?';
    const text = `${file}:${d.line ?? '?'}:${d.column ?? '?'} ${d.message}`;
    const block = file === TYPE_TEST ? blocks.find((b) => d.line >= b.from && d.line <= b.to) : undefined;
    const owner = block ?? byFile.get(file);
    if (owner) owner.errors.push(text);
    else problems.push(`${label}: tsd: ${text}`); // outside the tests (package.json, a declaration file)
  }
  const cases = [...byFile.values(), ...blocks].map((b) => ({
    id: b.id,
    file: b.file,
    title: b.id.slice(b.file.length + 4),
    state: b.errors.length ? 'failed' : 'passed',
    error: b.errors.length ? b.errors.join(' | ') : undefined,
  }));
  return { cases, problems };
}

/** The .ts files under `dir` of `copy`, relative to it, sorted. */
function listTs(copy, dir) {
  return readdirSync(join(copy, dir), { recursive: true })
    .map((f) => join(dir, f))
    .filter((f) => f.endsWith('.ts'))
    .sort();
}

/**
 * The `it()` blocks of a prettier-formatted test file, ids `file :: describe titles… it title` as mocha's fullTitle
 * makes them, lines 1-based: a block opens on `<indent>it("…"` or `describe("…"` and closes on the first later line
 * `<indent>});`.
 */
function itBlocks(source) {
  const lines = source.split('\n');
  const open = []; // the describe()s around the current line: { indent, title }
  const blocks = [];
  const seen = new Set();
  lines.forEach((line, i) => {
    const m = /^(\s*)(describe|it)\((["'`])(.*?)\3/.exec(line);
    const closes = /^(\s*)\}\);?\s*$/.exec(line);
    if (closes) {
      while (open.length && open.at(-1).indent === closes[1]) open.pop();
      return;
    }
    if (!m) return;
    if (m[2] === 'describe') {
      open.push({ indent: m[1], title: m[4] });
      return;
    }
    const end = lines.findIndex((l, j) => j > i && l === `${m[1]}});`);
    let id = `${TYPE_TEST} :: ${[...open.map((d) => d.title), m[4]].join(' ')}`;
    for (let n = 2; seen.has(id); n++) id = `${TYPE_TEST} :: ${[...open.map((d) => d.title), m[4]].join(' ')} #${n}`;
    seen.add(id);
    blocks.push({ id, file: TYPE_TEST, from: i + 1, to: end === -1 ? lines.length : end + 1, errors: [] });
  });
  return blocks;
}

/** test/fixtures/big.json: a ~500 kB JSON document, the same on every run. */
function bigJson() {
  const rows = [];
  for (let i = 0, size = 0; size < 500_000; i++) {
    const h = createHash('sha256').update(`row ${i}`).digest('hex');
    const row = {
      id: i,
      name: `item-${h.slice(0, 8)}`,
      ok: i % 3 === 0,
      score: i / 7,
      tags: [h.slice(8, 20)],
      text: h,
    };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return JSON.stringify({ rows });
}

/** test/fixtures/big.jpg: ~500 kB of bytes (JPEG-like markers around deterministic noise), the same on every run. */
function bigBytes() {
  const chunks = [Buffer.from([0xff, 0xd8, 0xff, 0xe0])];
  for (let i = 0; i < 500_000 / 32; i++) chunks.push(createHash('sha256').update(`block ${i}`).digest());
  chunks.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(chunks);
}
