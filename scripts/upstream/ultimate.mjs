// ultimate-express's compatibility suite (scripts that serve an Express app and print what it answers) run with the
// real Express 4 and 5 (the baseline) and with @gale-http/express/4 and @gale-http/express on Gale's engine; each
// script's stdout on Gale must equal, byte for byte, what it printed on the real Express of the same major.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { prepareCopy, root, suiteDir } from './copy.mjs';

export const ULTIMATE_SUITES = {
  'ultimate-express': {
    // Per major: the package the suite installs the real Express as, and Gale's module for it.
    majors: {
      4: { real: 'express', gale: '@gale-http/express/4' },
      5: { real: 'express5', gale: '@gale-http/express' },
    },
  },
};

/** The line the suite's own runner (tests/index.js) replaces to load the implementation under test. */
const EXPRESS_LINE = 'const express = require("express");';
/** tests/index.js's marker on a script's second line: kept out for one major (SKIP_V4, SKIP_V5) or both (OFF). */
const MARKER = /^\/\/\s*(SKIP_V4|SKIP_V5|OFF)(?::\s*(.*))?$/;
/** tests/index.js's TEST_TIMEOUT: a script that has not exited by then failed. */
const TIMEOUT_MS = 60_000;
/** The suite's tooling (coverage, type tests, its CI), which no script loads. */
const TOOLING = ['@codechecks/client', '@types/node', 'nyc', 'pkg-pr-new', 'tsd', 'exit-hook'];
/**
 * Scripts kept out although real Express runs them, `<major> :: <script>` → why (one line each), and, with `when`,
 * only when the baseline's stdout shows it.
 */
const KEPT_OUT = {
  ...both('middlewares/multer.js', {
    why:
      'racy on real Express too: its client spends ~4-5 s building a 209,715-part FormData on a kept-alive ' +
      "connection that Express's 5 s keepAliveTimeout may close first (ECONNRESET with two other scripts running)",
  }),
  ...both('res/res-connection.js', {
    why: "this Node's res.socket is still the socket in end()'s callback: it prints the whole net.Socket object",
    when: (out) => /\bSocket \{/.test(out),
  }),
};
/**
 * Scripts whose stdout is compared with the stack frames left out (each run of `at …` lines, in text or in Express's
 * HTML error page, counts as one): they print an error's stack, whose frames name Express's or Gale's own files.
 */
const FRAMES = {
  '5 :: app/issue-304.js': "the EADDRINUSE error Express 5 passes to listen's callback, printed with its stack",
  '5 :: req/req-param.js': "Express 5's error page for calling req.param (gone in 5) shows the error's stack",
  '5 :: middlewares/express-mongo-sanitize.js':
    "Express 5's error page for assigning req.query (a getter) shows the stack",
};

/**
 * The working copy: tests/ and the suite's dev dependencies (the packages its scripts load, with Express 4 as
 * `express` and 5 as `express5`), plus the files the scripts read that the source mirror does not have.
 */
export function prepareUltimate(suite) {
  const pkg = JSON.parse(readFileSync(join(suiteDir(suite), 'package.json'), 'utf8'));
  const deps = { ...pkg.devDependencies };
  for (const name of TOOLING) delete deps[name];
  // `latest-4` is a dist-tag Express keeps on its newest 4.x; a registry mirror may carry only `latest`, and the
  // range `4` names the same release everywhere. (`dependencies` are ultimate-express's own, for its src/: not loaded.)
  for (const [name, spec] of Object.entries(deps)) {
    const tag = /^latest-(\d+)$/.exec(spec);
    if (tag) deps[name] = tag[1];
  }
  const copy = prepareCopy(suite, suite, ['tests', 'LICENSE'], deps);
  writable(join(copy, 'tests')); // copied read-only from ../shared/upstream; the runner writes each script's variant
  standIns(copy);
  const cfg = ULTIMATE_SUITES[suite];
  const version = (name) => JSON.parse(readFileSync(join(copy, 'node_modules', name, 'package.json'), 'utf8')).version;
  for (const m of Object.values(cfg.majors)) m.version = version(m.real);
  return copy;
}

/**
 * Runs the suite's scripts on `impl`: 'reference' (the real Express, both majors) or 'gale' (Gale's module for
 * `major`), which runs only the scripts the baseline (`baseline`, the reference run's result) ran without error and
 * compares their stdout with the baseline's. Resolves to { cases, problems } as runMocha does, case ids
 * `<major> :: <folder>/<script>`; each case also keeps its stdout (`out`) and wall time (`ms`).
 */
export async function runUltimate({ suite, impl, major, node, copy, baseline }) {
  const cfg = ULTIMATE_SUITES[suite];
  const majors = impl === 'reference' ? Object.keys(cfg.majors) : [String(major)];
  const galeReq = createRequire(join(root, 'package.json'));
  const cases = new Map();
  const problems = [];
  const todo = [];
  for (const script of listScripts(copy)) {
    const source = readFileSync(join(suiteDir(suite), 'tests', 'tests', script), 'utf8');
    if (!source.includes(EXPRESS_LINE)) {
      problems.push(`${script}: no line ${EXPRESS_LINE} to replace`);
      continue;
    }
    const marker = MARKER.exec((source.split('\n')[1] ?? '').trim());
    const runs = [];
    for (const m of majors) {
      const id = `${m} :: ${script}`;
      const why =
        marker && (marker[1] === 'OFF' || marker[1] === `SKIP_V${m}`)
          ? `// ${marker[1]}${marker[2] ? `: ${marker[2]}` : ''}`
          : KEPT_OUT[id] && !KEPT_OUT[id].when
            ? `kept out by the runner: ${KEPT_OUT[id].why}`
            : undefined;
      if (why) {
        if (impl === 'reference') cases.set(id, { id, file: script, state: 'pending', error: why });
        continue;
      }
      const expected = baseline?.cases.get(id);
      if (impl !== 'reference' && expected?.state !== 'passed') continue;
      const express = impl === 'reference' ? cfg.majors[m].real : galeReq.resolve(cfg.majors[m].gale);
      const text = source.replace(EXPRESS_LINE, `const express = require(${JSON.stringify(express)});`);
      runs.push({ id, text, expected });
    }
    if (runs.length) todo.push({ script, runs });
  }
  const spaces = namespaces(jobs());
  if (impl === 'reference') console.log(`upstream ${suite}: ${spaces.why}`);
  try {
    // One script per worker at a time (its majors in turn): each variant is written over the script itself, whose
    // folder and name the scripts' relative paths and printed stack traces depend on.
    await pool(todo, spaces.list, async ({ script, runs }, ns) => {
      for (const t of runs) {
        writeFileSync(join(copy, 'tests', 'tests', script), t.text);
        const attempt = async () => {
          const r = await runScript({ node, copy, script, ns });
          const failure = r.timedOut
            ? `timed out after ${TIMEOUT_MS / 1000} s`
            : r.code !== 0
              ? `exit ${r.code ?? r.signal}: ${errorLine(r.err)}`
              : undefined;
          return { r, failure, error: failure ?? (t.expected ? compare(t.id, t.expected.out, r.out) : undefined) };
        };
        let { r, failure, error } = await attempt();
        if (error) {
          // Some scripts print what they timed (routing/async-use.js: a 100 ms timer rounded to 100s), which a loaded
          // machine can push over; a script that fails gets one more run, and passes only if that one matches. The
          // first failure is still printed, so a flaky script shows.
          const first = error;
          ({ r, failure, error } = await attempt());
          if (!error) console.log(`  ~ ${t.id}: passed on its second run; the first: ${first}`);
        }
        const kept = KEPT_OUT[t.id];
        if (impl === 'reference' && !failure && kept?.when?.(r.out)) {
          cases.set(t.id, { id: t.id, file: script, state: 'pending', error: `kept out by the runner: ${kept.why}` });
          continue;
        }
        cases.set(t.id, { id: t.id, file: script, state: error ? 'failed' : 'passed', error, out: r.out, ms: r.ms });
      }
    });
  } finally {
    spaces.close();
  }
  return { cases, problems };
}

/** `folder/script.js` for every script under tests/tests, in order (UPSTREAM_ONLY, a regex, picks some). */
function listScripts(copy) {
  const dir = join(copy, 'tests', 'tests');
  const only = process.env.UPSTREAM_ONLY ? new RegExp(process.env.UPSTREAM_ONLY) : undefined;
  return readdirSync(dir)
    .sort()
    .flatMap((folder) =>
      readdirSync(join(dir, folder))
        .filter((f) => f.endsWith('.js'))
        .sort()
        .map((f) => `${folder}/${f}`),
    )
    .filter((script) => only === undefined || only.test(script));
}

/**
 * Runs `node tests/tests/<script>` in the copy (the scripts read tests/parts/… and src/… from the working directory),
 * in the network namespace `ns` when given. Its own process group, so a script's children (app-cluster.js forks
 * workers) end with it.
 */
function runScript({ node, copy, script, ns }) {
  const args = [join('tests', 'tests', script)];
  const [cmd, argv] = ns ? ['ip', ['netns', 'exec', ns, node, ...args]] : [node, args];
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = [];
    let err = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-20_000);
    });
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(); // what the script left running (its output is complete: stdout closed)
      resolve({ out: Buffer.concat(out).toString('utf8'), err, code, signal, timedOut, ms: Date.now() - started });
    });
  });
}

/** Runs `work(item, ns)` over `items`, one worker per entry of `spaces` (a namespace, or undefined: this one). */
async function pool(items, spaces, work) {
  let next = 0;
  await Promise.all(
    spaces.map(async (ns) => {
      while (next < items.length) await work(items[next++], ns);
    }),
  );
}

/**
 * Where the scripts run. They all listen on fixed ports (13333 and up), so two at once need a network namespace each
 * (`ip netns`, as root): then `jobs` run side by side; without namespaces, one at a time in this one (`why` says so).
 */
function namespaces(jobs) {
  if (jobs <= 1) return { list: [undefined], why: 'one at a time (UPSTREAM_JOBS=1)', close() {} };
  const made = [];
  try {
    clearStale();
    for (let i = 0; i < jobs; i++) {
      const ns = `gale-ue-${process.pid}-${i}`;
      execFileSync('ip', ['netns', 'add', ns], { stdio: 'pipe' });
      made.push(ns);
      execFileSync('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'pipe' });
    }
  } catch (err) {
    for (const ns of made) deleteNs(ns);
    const why = String(err.stderr || err.message)
      .trim()
      .split('\n')[0];
    return { list: [undefined], why: `one at a time: no network namespaces (ip netns: ${why})`, close() {} };
  }
  return {
    list: made,
    why: `${jobs} at a time, each in a network namespace of its own`,
    close() {
      for (const ns of made) deleteNs(ns);
    },
  };
}

/** Namespaces left by a runner that was killed before it could delete them (its pid no longer runs). */
function clearStale() {
  const list = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const m of list.matchAll(/^gale-ue-(\d+)-\d+/gm)) {
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      deleteNs(m[0]);
    }
  }
}

function deleteNs(ns) {
  try {
    execFileSync('ip', ['netns', 'del', ns], { stdio: 'pipe' });
  } catch {}
}

/**
 * How many scripts run side by side: UPSTREAM_JOBS, else the cores plus one. A script mostly starts Node and loads
 * its modules (CPU), then waits on its own fetches: on 2 cores the whole suite took 258, 242 and 245 s 2, 3 and 4 at a
 * time on Node 26, and the baseline alone 258 s one at a time on Node 20.
 */
function jobs() {
  const env = Number(process.env.UPSTREAM_JOBS);
  return Number.isInteger(env) && env > 0 ? env : availableParallelism() + 1;
}

/** `entry` for the script in both majors. */
function both(script, entry) {
  return { [`4 :: ${script}`]: entry, [`5 :: ${script}`]: entry };
}

/** Undefined when Gale's stdout is the baseline's (FRAMES: but for stack frames), else where they first differ. */
function compare(id, expected, got) {
  if (got === expected) return undefined;
  if (!(id in FRAMES)) return diff(expected, got, '');
  const [a, b] = [withoutFrames(expected), withoutFrames(got)];
  return a === b ? undefined : diff(a, b, ' (stack frames left out)');
}

/** `out` with each run of stack frames as one line (in text, and in Express's HTML error page). */
function withoutFrames(out) {
  return out
    .replace(/^([ \t]+)at .*(?:\n\1at .*)*/gm, '$1at … (stack frames)')
    .replace(/(?:<br> &nbsp; &nbsp;at [^<]*)+/g, '<br> &nbsp; &nbsp;at … (stack frames)');
}

/** One line: where the two outputs first differ. */
function diff(expected, got, note) {
  const a = expected.split('\n');
  const b = got.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (s) => (s === undefined ? '(no line)' : JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s));
  return `stdout line ${i + 1}${note}: express ${show(a[i])}, gale ${show(b[i])} (${a.length} vs ${b.length} lines)`;
}

/** What a script's stderr says went wrong: its first error line (`TypeError: …`), else its last line. */
function errorLine(err) {
  const lines = err.split('\n').filter((l) => l.trim());
  const line = lines.find((l) => /^[\w.]*(Error|Exception)\b.*:/.test(l)) ?? lines.at(-1) ?? '(no output on stderr)';
  return line.trim().slice(0, 300);
}

/** Makes `dir` and everything in it writable by its owner. */
function writable(dir) {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) writable(p);
    else chmodSync(p, 0o644);
  }
}

/**
 * Files the scripts read that the copy lacks, the same bytes on every run: tests/parts/huge.jpg (48 MiB) and
 * large-file.json (30 MB), too large for the source mirror (../shared/upstream/README), and src/index.js and
 * src/router.js, ultimate-express's own sources, which 19 send-file/res scripts serve as "some file" from the working
 * directory (without them those scripts would only ever see a 404).
 */
function standIns(copy) {
  const parts = join(copy, 'tests', 'parts');
  writeFileSync(join(parts, 'huge.jpg'), noise(48 * 1024 * 1024));
  writeFileSync(join(parts, 'large-file.json'), largeJson(30_000_000));
  mkdirSync(join(copy, 'src'), { recursive: true });
  writeFileSync(join(copy, 'src', 'index.js'), sourceFile('index', 4_000));
  writeFileSync(join(copy, 'src', 'router.js'), sourceFile('router', 40_000));
}

/** `size` bytes of JPEG-framed pseudo-random noise (xorshift32, fixed seed). */
function noise(size) {
  const buf = Buffer.allocUnsafe(size);
  let x = 2463534242;
  for (let i = 0; i + 4 <= size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buf.writeUInt32LE(x >>> 0, i);
  }
  buf.fill(0, size - (size % 4));
  buf.set([0xff, 0xd8, 0xff, 0xe0], 0);
  buf.set([0xff, 0xd9], size - 2);
  return buf;
}

/** A JSON document of about `size` bytes: an array of rows. */
function largeJson(size) {
  const rows = [];
  for (let i = 0, n = 2; n < size; i++) {
    const h = createHash('sha256').update(`row ${i}`).digest('hex');
    const row = JSON.stringify({ id: i, name: `item-${h.slice(0, 8)}`, ok: i % 3 === 0, score: i / 7, text: h });
    rows.push(row);
    n += row.length + 1;
  }
  return `[${rows.join(',')}]`;
}

/** A CommonJS file of about `size` bytes. */
function sourceFile(name, size) {
  const lines = [
    `'use strict';`,
    `// Stand-in for ultimate-express's src/${name}.js, written by Gale's upstream runner.`,
  ];
  for (let i = 0, n = 0; n < size; i++) {
    const line = `exports.f${i} = function f${i}(a, b) { return a * ${i} + b; };`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}
