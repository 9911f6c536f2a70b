// `npm test`: runs every node:test suite (tests/, packages/*/src, bench/) through tsx, one process per file, two or
// more files at a time, then checks that the run left nothing behind: no file in the temp dir, no process. Fails when
// no test file is found, so an empty run can never pass. A file that runs past GALE_TEST_FILE_LIMIT seconds (default
// 600; the longest takes ~2 min) is reported with its JavaScript stack and open handles, and killed: it fails, the rest
// of the run goes on, instead of the run hanging.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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
// Each file's process (node:test passes these options on to it) writes a diagnostic report when the watchdog below
// sends SIGPWR, which nothing else here sends (SIGUSR2 has other users in tests/scale).
const reports = mkdtempSync(join(tmpdir(), 'gale-test-reports-'));
const nodeArgs = [
  ...(process.platform === 'linux'
    ? ['--report-on-signal', '--report-signal=SIGPWR', `--report-directory=${reports}`]
    : []),
  '--import',
  'tsx',
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-reporter=spec',
  ...selected,
];

// Everything the tests make in the temp dir goes into a folder of this run's own (TMPDIR, which Node's os.tmpdir(),
// Python, Rust and Chromium all honour), and every process they start carries this run's mark in its environment: so
// the checks below see only this run's leftovers, even with other runs or builds going on beside it.
// (The system temp dir itself is not compared before and after: other runs and builds write there meanwhile.)
const runTmp = mkdtempSync(join(tmpdir(), 'gale-test-run-'));
const mark = `GALE_TEST_RUN=${runTmp}`;
const env = { ...process.env, TMPDIR: runTmp, GALE_TEST_RUN: runTmp };
const runner = spawn(process.execPath, nodeArgs, { cwd: root, stdio: 'inherit', env });
const limit = Number(process.env.GALE_TEST_FILE_LIMIT) || 600;
/** pid → when the watchdog first saw that file's process. */
const firstSeen = new Map();
const watchdog = setInterval(() => overdue(limit), 15_000);
const [code] = await once(runner, 'exit');
clearInterval(watchdog);
let status = code ?? 1;
rmSync(reports, { recursive: true, force: true });

// Caches that tools keep in the temp dir on their own (tsx's transform cache, Node's compile cache): not the tests'.
const toolCaches = new Set([`tsx-${process.getuid?.() ?? ''}`, 'node-compile-cache']);
const leftovers = readdirSync(runTmp).filter((name) => !toolCaches.has(name));
const processes = liveProcesses();
for (const p of processes) {
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {}
}
rmSync(runTmp, { recursive: true, force: true });
const problems = [
  ...leftovers.map((name) => `left in the temp dir: ${name}`),
  ...processes.map((p) => `still running after the tests (killed now): pid ${p.pid}: ${p.cmd.slice(0, 160)}`),
];
if (problems.length) {
  console.error(
    `\nnpm test: the tests left ${problems.length} thing(s) behind; each test removes what it makes, also when it ` +
      `fails (t.after / after):\n${problems.map((p) => `  ${p}`).join('\n')}`,
  );
  if (status === 0) status = 1;
} else console.log('npm test: the tests left nothing behind (temp dir and processes checked)');
process.exit(status);

/**
 * The test files' processes (this run's, running one file) seen first more than `limit` seconds ago: each is reported
 * (its JavaScript stack and active handles, from the diagnostic report SIGPWR makes) and killed. Linux only.
 */
function overdue(limit) {
  const now = Date.now();
  const running = new Set();
  for (const p of liveProcesses()) {
    // (node:test's runner names every file too: not it)
    const file =
      p.pid === runner.pid ? undefined : selected.find((f) => p.cmd.endsWith(join(root, f)) || p.cmd.endsWith(` ${f}`));
    if (file === undefined) continue;
    running.add(p.pid);
    if (!firstSeen.has(p.pid)) firstSeen.set(p.pid, now);
    const secs = Math.round((now - firstSeen.get(p.pid)) / 1000);
    if (secs < limit) continue;
    console.error(`\nnpm test: ${file} has run for ${secs} s (GALE_TEST_FILE_LIMIT=${limit}): its state, then SIGKILL`);
    try {
      process.kill(p.pid, 'SIGPWR');
    } catch {}
    const until = Date.now() + 3000;
    let report;
    while (report === undefined && Date.now() < until) {
      const name = readdirSync(reports).find((n) => n.includes(`.${p.pid}.`) && n.endsWith('.json'));
      if (name && existsSync(join(reports, name))) {
        try {
          report = JSON.parse(readFileSync(join(reports, name), 'utf8'));
        } catch {}
      }
    }
    if (report) {
      const handles = (report.libuv ?? [])
        .filter((h) => h.is_active)
        .map((h) => h.type + (h.is_referenced ? '' : ' (unref)'));
      console.error(`  JavaScript stack: ${report.javascriptStack?.message || '(idle: waiting on the event loop)'}`);
      for (const line of report.javascriptStack?.stack ?? []) console.error(`    ${line}`);
      console.error(`  active handles: ${handles.join(', ')}`);
    } else console.error('  (no diagnostic report came within 3 s)');
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
  for (const pid of firstSeen.keys()) if (!running.has(pid)) firstSeen.delete(pid);
}

/** Processes other than this one whose environment carries this run's mark (Linux's /proc; elsewhere none). */
function liveProcesses() {
  if (process.platform !== 'linux') return [];
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      if (!environ.includes(mark)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // exited, waiting for its parent
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(name), cmd });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
