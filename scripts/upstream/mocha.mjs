// Runs a mocha suite in a child process and reads every case's outcome from shims/reporter.cjs (one line per case,
// written as it happens). When the run does not reach its end (a file that fails to load stops mocha before any case
// runs; a crash stops it midway), each file is run on its own so one bad file cannot hide the others' results.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const reporter = join(import.meta.dirname, 'shims', 'reporter.cjs');
const EXIT_GRACE_MS = 20_000;

/**
 * @typedef {{ id: string, file: string, title: string, state: 'passed' | 'failed' | 'pending', error?: string }} Case
 * @typedef {{ cases: Map<string, Case>, problems: string[] }} MochaResult
 */

/** Runs `node mocha <args> <files>` in `cwd` within `timeoutMs`; resolves to the reported lines and its output. */
function runOnce({ node, cwd, mochaArgs, files, env, timeoutMs, out }) {
  rmSync(out, { force: true });
  const mocha = join(cwd, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const args = [mocha, ...mochaArgs, '--reporter', reporter, ...files];
  return new Promise((resolve) => {
    const child = spawn(node, args, {
      cwd,
      env: { ...process.env, ...env, UPSTREAM_REPORT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (d) => {
      output += d;
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const kill = () => {
      timedOut = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(kill, timeoutMs);
    // Once the run reached its end, the process has EXIT_GRACE_MS to exit (mocha runs without --exit, as upstream).
    let exitTimer;
    const watch = setInterval(() => {
      if (exitTimer === undefined && existsSync(out) && readFileSync(out, 'utf8').includes('{"end":true}')) {
        exitTimer = setTimeout(kill, EXIT_GRACE_MS);
      }
    }, 500);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(exitTimer);
      clearInterval(watch);
      const lines = existsSync(out)
        ? readFileSync(out, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
      rmSync(out, { force: true });
      const ended = lines.some((l) => l.end === true);
      resolve({ lines: lines.filter((l) => l.end !== true), ended, output, code, signal, timedOut });
    });
  });
}

/** Adds reported lines to `into`, ids `file :: full title` (a repeated title gets ` #2`, ` #3`, … in run order). */
function collect(lines, cwd, into) {
  for (const l of lines) {
    const file = l.file ? relative(cwd, l.file) : '(no file)';
    let id = `${file} :: ${l.title}`;
    for (let n = 2; into.has(id); n++) id = `${file} :: ${l.title} #${n}`;
    into.set(id, { id, file, title: l.title, state: l.state, error: l.error });
  }
}

/**
 * Runs `files` with mocha: all in one process, or each on its own when that run did not reach its end. Resolves to
 * every case mocha reported and the problems seen (a file that did not load, a run that crashed, hung or left the
 * process running after its last case).
 *
 * @returns {Promise<MochaResult>}
 */
export async function runMocha({ node, cwd, mochaArgs, files, env, timeoutMs, label }) {
  const out = join(cwd, `.mocha-report-${process.pid}.jsonl`);
  const cases = new Map();
  const problems = [];
  const whole = await runOnce({ node, cwd, mochaArgs, files, env, timeoutMs, out });
  if (whole.ended) {
    collect(whole.lines, cwd, cases);
    if (whole.timedOut) {
      problems.push(
        `${label}: every case ran, but mocha did not exit within ${EXIT_GRACE_MS / 1000} s (an open handle)`,
      );
    }
    return { cases, problems };
  }
  const how = whole.timedOut ? `timed out after ${timeoutMs / 1000} s` : `stopped (exit ${whole.code ?? whole.signal})`;
  problems.push(`${label}: the run ${how} before its end; running each file on its own\n${tail(whole.output)}`);
  const perFile = Math.max(60_000, Math.floor(timeoutMs / 4));
  for (const file of listFiles(cwd, mochaArgs, files)) {
    const r = await runOnce({ node, cwd, mochaArgs, files: [file], env, timeoutMs: perFile, out });
    collect(r.lines, cwd, cases);
    if (!r.ended || r.timedOut) {
      const what = r.ended ? 'did not exit after its last case' : r.lines.length ? 'crashed or hung' : 'did not load';
      problems.push(`${label}: ${file} ${what} (exit ${r.code ?? r.signal})\n${tail(r.output)}`);
    }
  }
  return { cases, problems };
}

/** The test files mocha would load for `files` (directories expanded one level, `--ignore` applied). */
function listFiles(cwd, mochaArgs, files) {
  const ignore = [];
  for (let i = 0; i < mochaArgs.length; i++) if (mochaArgs[i] === '--ignore') ignore.push(mochaArgs[i + 1]);
  const list = [];
  for (const f of files) {
    if (statSync(join(cwd, f)).isDirectory()) {
      for (const name of readdirSync(join(cwd, f)).sort()) {
        const rel = join(f, name);
        if (name.endsWith('.js') && statSync(join(cwd, rel)).isFile() && !ignore.includes(rel)) list.push(rel);
      }
    } else if (!ignore.includes(f)) list.push(f);
  }
  return list;
}

const tail = (s) =>
  s
    .trim()
    .split('\n')
    .slice(-15)
    .map((l) => `    ${l}`)
    .join('\n');
