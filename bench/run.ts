// Gale benchmark harness: `npm run bench -- hello [--servers gale,node-http] [--duration 5] …` (see bench/README.md).
// Runs each scenario against each server in plain and pipelined mode with validated load runs (wrk, gale-loadgen, ab,
// autocannon), prints a Markdown table per scenario, and writes the raw JSON, report.md and SVG charts. Also:
// `--quick` (every server × scenario, correctness only, CI), `sweep` (connection sweep), `report <dir>`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { arenaCommand } from './arena/run.ts';
import { type Options, parseOptions, usage } from './lib/cli.ts';
import {
  failedMeasurement,
  joinRound,
  type Measurement,
  type MeasureOptions,
  measure,
  measureOn,
  notRunReason,
  type RunningServer,
  startServer,
  stopServer,
} from './lib/measure.ts';
import { nginxVersion } from './lib/nginx.ts';
import { allowedCpus, commandExists, effectiveOpenFileLimit, isRunning } from './lib/proc.ts';
import { formatDuration, markdownTable, summarize, writeResults } from './lib/report.ts';
import { runShape, scenarioFileName, writeReport } from './lib/report-md.ts';
import { BUN, DENO, type RuntimePackage, runtimeBinary } from './lib/runtimes.ts';
import { runScale } from './lib/scale.ts';
import { describeBody, type Scenario } from './lib/scenarios.ts';
import { fulminePath, uexpressPath, uwsPath } from './lib/server-common.ts';
import { benchDir, knownFailure, notRun, repoDir, type ServerDef } from './lib/servers.ts';
import { runSoak } from './lib/soak.ts';
import { runSweep } from './lib/sweep.ts';
import { toolFor } from './lib/tools.ts';
import { runWs, type WsOptions, wsPlan } from './lib/ws.ts';

const log = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The version in `<dir>/package.json` (a peer's build, `GALE_BENCH_PEERS`), or null. */
function dirVersion(dir: string | undefined): string | null {
  if (dir === undefined) return null;
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

/** Whether server `s` loads a peer's build named by `variable` (every peer row loads uWebSockets.js). */
function usesPeer(s: ServerDef, variable: string): boolean {
  return s.env?.[variable] !== undefined || s.name.startsWith('uws');
}

function pkgVersion(name: string): string | null {
  try {
    return (
      JSON.parse(readFileSync(join(repoDir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return null;
  }
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['-C', repoDir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return null;
  }
}

/** The version of Bun or Deno when a server of `o` runs on it (installing it on first use), else null. */
function runtimeVersion(o: Options, name: string, rt: RuntimePackage): string | null {
  if (!o.servers.some((s) => s.name === name) && !o.wsServerNames.includes(name)) return null;
  const r = runtimeBinary(rt);
  return 'version' in r ? r.version : null;
}

/** The results file suffix of a run whose Node servers ran on other Nodes (`node20-26`), so runs do not overwrite. */
export function nodeVariant(o: Pick<Options, 'nodes'>): string {
  return o.nodes.some((n) => !n.own) ? `node${o.nodes.map((n) => n.major).join('-')}` : '';
}

export function meta(o: Options, started: Date) {
  return {
    started: started.toISOString(),
    hostname: os.hostname(),
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    loadavg: os.loadavg(),
    node: process.version,
    /** The Nodes the Node-based servers ran on (`--node`). */
    serverNodes: o.nodes.map((n) => ({ version: n.version, path: n.path, own: n.own })),
    tool: `${o.tool.id}: ${o.tool.version()}`,
    toolId: o.tool.id,
    toolDescribe: o.command === 'sweep' ? o.tool.id : o.tool.describe(o.connections, o.threads),
    toolValidates: o.tool.validates,
    toolLatency: o.tool.latency,
    versions: {
      express: pkgVersion('express'),
      express4: pkgVersion('express4'),
      fastify: pkgVersion('fastify'),
      '@fastify/static': pkgVersion('@fastify/static'),
      gale: pkgVersion('gale'),
      bun: runtimeVersion(o, 'bun', BUN),
      deno: runtimeVersion(o, 'deno', DENO),
      nginx: o.servers.some((s) => s.name.startsWith('nginx')) ? nginxVersion() : null,
      // The peers on uWebSockets.js, when a row of theirs ran (their builds: lib/server-common.ts).
      'uWebSockets.js': o.servers.some((s) => usesPeer(s, 'GALE_BENCH_UWS')) ? dirVersion(uwsPath) : null,
      'fulmine.js': o.servers.some((s) => s.env?.EXPRESS_IMPL === 'fulmine') ? dirVersion(fulminePath) : null,
      'ultimate-express': o.servers.some((s) => s.env?.EXPRESS_IMPL === 'ultimate-express')
        ? dirVersion(uexpressPath)
        : null,
    },
    commit: gitCommit(),
    argv: o.argv,
    quick: o.quick,
    options: {
      durationS: o.durationS,
      warmupS: o.warmupS,
      iterations: o.iterations,
      connections: o.connections,
      threads: o.threads,
      timeoutS: o.timeoutS,
      modes: o.modes,
      serverCpu: o.serverCpu,
      loadCpu: o.loadCpu,
      nofile: o.nofile,
      requests: o.tool.countBased ? o.requests : undefined,
      countBased: o.tool.countBased ?? false,
    },
  };
}

export type RunMetaData = ReturnType<typeof meta>;

const STATIC_NOTE =
  'Files from examples/demo (public/ at /static/, prerendered/ at /). Gale: `app.static(…, { cache: true })` keeps ' +
  'the bytes in memory; Gale (no cache): `cache: false`. nginx: one process, `sendfile on`, `open_file_cache` ' +
  '(descriptors and metadata, not content); nginx (no open_file_cache): without it. Express: `express.static`; ' +
  'Fastify: `@fastify/static`; node:http: `fs.stat` + `fs.createReadStream` per request.';

function measureOptions(
  o: Options,
  server: ServerDef,
  scenario: Scenario,
  mode: Options['modes'][number],
): MeasureOptions {
  return {
    server,
    scenario,
    mode,
    tool: o.tool,
    durationS: o.durationS,
    requests: o.requests,
    warmupS: o.warmupS,
    iterations: o.iterations,
    connections: o.connections,
    threads: o.threads,
    timeoutS: o.timeoutS,
    serverCpu: o.serverCpu,
    loadCpu: o.loadCpu,
    nofile: o.nofile,
  };
}

/** The run's metadata for one scenario: the tool is the scenario's own when it has one (h2load for HTTP/2). */
function scenarioMeta(o: Options, scenario: Scenario, runMeta: RunMetaData): RunMetaData {
  const tool = toolFor(scenario, o.tool);
  if (tool === o.tool) return runMeta;
  return {
    ...runMeta,
    tool: `${tool.id}: ${tool.version()}`,
    toolId: tool.id,
    toolDescribe: tool.describe(o.connections, o.threads),
    toolValidates: tool.validates,
    toolLatency: tool.latency,
  };
}

/** The per-scenario table printed to stdout (the same as in report.md, under each headline table). */
function scenarioText(
  o: Options,
  scenario: Scenario,
  results: Measurement[],
  runMeta: RunMetaData,
  started: Date,
): string {
  return (
    `\n## ${scenario.id}: ${scenario.description}\n\n` +
    `${runShape(scenarioMeta(o, scenario, runMeta))}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ` +
    `Node ${process.version}, ${localDate(started)}\n\n` +
    (scenario.kind === 'static' ? `${STATIC_NOTE}\n\n` : '') +
    markdownTable(results, toolFor(scenario, o.tool).id, { kind: scenario.kind })
  );
}

function writeScenario(
  o: Options,
  outDir: string,
  scenario: Scenario,
  results: Measurement[],
  runMeta: RunMetaData,
): string {
  return writeResults(outDir, scenarioFileName(scenario.id, o.tool.id, nodeVariant(o)), {
    ...scenarioMeta(o, scenario, runMeta),
    finished: new Date().toISOString(),
    loadavgAfter: os.loadavg(),
    scenario: { ...scenario, body: describeBody(scenario.body) },
    results: results.map((m) => ({ ...m, summary: summarize(m) })),
  });
}

/** The quick mode's summary: servers as rows, scenarios as columns, each cell "plain · pipelined". */
function quickMatrix(
  o: Options,
  byScenario: Map<string, Measurement[]>,
  runMeta: RunMetaData,
): { text: string; failed: number; unknown: string[] } {
  const modes = o.modes.map((m) => (m.depth > 1 ? `pipelined ×${m.depth}` : m.id)).join(' · ');
  const lines = [
    `| server | ${o.scenarios.map((s) => s.id).join(' | ')} |`,
    `|---|${o.scenarios.map(() => ':---:|').join('')}`,
  ];
  const failures: string[] = [];
  const unknown: string[] = [];
  const notes = new Set<string>();
  let passed = 0;
  let failed = 0;
  let knownFailed = 0;
  let skipped = 0;
  for (const server of o.servers) {
    const cells = o.scenarios.map((sc) =>
      o.modes
        .map((mode) => {
          const m = byScenario.get(sc.id)?.find((x) => x.server === server.name && x.mode === mode.id);
          if (!m || m.notRun) {
            skipped++;
            if (m?.notRun) notes.add(m.notRun);
            return '—';
          }
          if (m.ok) {
            passed++;
            return '✓';
          }
          const known = knownFailure(server, sc.id, mode.id);
          if (known !== null) {
            // The peer's own bug, reproduced without the harness: shown, not counted against the harness.
            knownFailed++;
            failures.push(`- **${server.label}, ${sc.id}, ${mode.id}: FAILED** (known: ${known}): ${m.failure}`);
            return '**FAILED** (known)';
          }
          failed++;
          failures.push(`- **${server.label}, ${sc.id}, ${mode.id}: FAILED**: ${m.failure}`);
          unknown.push(`${server.label}, ${sc.id}, ${mode.id}: ${m.failure}`);
          return '**FAILED**';
        })
        .join(' · '),
    );
    lines.push(`| ${server.label} | ${cells.join(' | ')} |`);
  }
  const text = [
    `\n## Quick check: ${runShape(runMeta)}\n`,
    `Each cell: ${modes}. ✓ = every counted response valid, no error; — = not run.\n`,
    `${lines.join('\n')}\n`,
    ...failures,
    ...[...notes].map((n) => `- — ${n}.`),
    `\nquick: ${passed} passed, ${failed} failed, ${knownFailed} known failures of peers, ${skipped} skipped\n`,
  ].join('\n');
  return { text, failed, unknown };
}

/**
 * Quick mode: each server is started once and runs every scenario and mode it serves (correctness, not speed).
 * Returns the failures that are not a peer's known bug, one line each.
 */
async function runQuick(o: Options, outDir: string, started: Date): Promise<string[]> {
  const byScenario = new Map<string, Measurement[]>(o.scenarios.map((s) => [s.id, []]));
  const runMeta = meta(o, started);
  const planned = o.servers.flatMap((server) =>
    o.scenarios.flatMap((scenario) =>
      o.modes
        .map((mode) => measureOptions(o, server, scenario, mode))
        .filter((mo) => !notRunReason(mo) && !server.unavailable?.()),
    ),
  );
  let n = 0;
  for (const server of o.servers) {
    let rs: RunningServer | { failure: string } | null = null;
    for (const scenario of o.scenarios) {
      for (const mode of o.modes) {
        const mo = measureOptions(o, server, scenario, mode);
        let m: Measurement;
        if (notRunReason(mo)) m = failedMeasurement(mo, '');
        else {
          if (rs && !('failure' in rs) && !isRunning(rs.proc)) {
            await stopServer(rs);
            rs = null;
          }
          rs ??= await startServer(mo);
          if ('failure' in rs) m = failedMeasurement(mo, rs.failure);
          else {
            if (!server.unavailable?.()) n++;
            log(`[${n}/${planned.length}] ${scenario.id} ${server.name} ${mode.id} …`);
            m = await measureOn(rs, mo);
          }
          if (!m.ok && !m.notRun) log(`    ${server.name} ${scenario.id} ${mode.id}: FAILED: ${m.failure}`);
        }
        byScenario.get(scenario.id)?.push(m);
      }
    }
    if (rs && !('failure' in rs)) await stopServer(rs);
  }
  for (const scenario of o.scenarios) writeScenario(o, outDir, scenario, byScenario.get(scenario.id) ?? [], runMeta);
  const q = quickMatrix(o, byScenario, runMeta);
  process.stdout.write(q.text);
  return q.unknown;
}

/**
 * `--interleave`: one scenario's measurements made in rounds, each server and mode once per round on a server started
 * for it (its warm-up included), the rounds' iterations joined per server and mode. A round that fails ends that
 * server and mode's measurement with the round named.
 */
async function interleaved(
  o: Options,
  scenario: Scenario,
  progress: (server: ServerDef, mode: Options['modes'][number], round: number) => void,
): Promise<Measurement[]> {
  const pairs = o.servers.flatMap((server) => o.modes.map((mode) => ({ server, mode })));
  const acc: (Measurement | undefined)[] = pairs.map(() => undefined);
  for (let round = 1; round <= o.iterations; round++) {
    for (const [k, { server, mode }] of pairs.entries()) {
      const prev = acc[k];
      if (prev && (!prev.ok || prev.notRun)) continue;
      const m = await measure({
        ...measureOptions(o, server, scenario, mode),
        iterations: 1,
        onIteration: () => progress(server, mode, round),
      });
      acc[k] = joinRound(prev, m, round);
    }
  }
  // --iterations is at least 1, so every pair has its measurement (in the order of o.servers × o.modes).
  return acc as Measurement[];
}

async function runMatrix(o: Options, outDir: string, started: Date, total: number): Promise<number> {
  let done = 0;
  let anyFailed = false;
  for (const scenario of o.scenarios) {
    const results: Measurement[] = [];
    const runMeta = meta(o, started);
    const rounds = o.interleave
      ? await interleaved(o, scenario, (server, mode, round) => {
          done++;
          log(`[${done}/${total}] ${scenario.id} ${server.name} ${mode.id} round ${round}/${o.iterations} …`);
        })
      : null;
    for (const [k, server] of o.servers.entries()) {
      for (const [j, mode] of o.modes.entries()) {
        const before = done;
        const runs = !server.unavailable?.() && !notRun(server, scenario, mode, o.tool);
        const m =
          rounds?.[k * o.modes.length + j] ??
          (await measure({
            ...measureOptions(o, server, scenario, mode),
            onIteration: (i) => {
              done++;
              log(`[${done}/${total}] ${scenario.id} ${server.name} ${mode.id} iteration ${i}/${o.iterations} …`);
            },
          }));
        if (runs && !rounds) done = before + o.iterations;
        results.push(m);
        const s = summarize(m);
        if (m.notRun) continue; // said in the table notes
        if (s) {
          log(
            `    ${server.name} ${mode.id}: ${Math.round(s.medianRps).toLocaleString('en-US')} req/s median, all responses valid`,
          );
        } else {
          anyFailed = true;
          log(`    ${server.name} ${mode.id}: FAILED: ${m.failure}`);
        }
      }
    }
    const file = writeScenario(o, outDir, scenario, results, runMeta);
    process.stdout.write(scenarioText(o, scenario, results, runMeta, started));
    log(`raw results: ${file}`);
  }
  return anyFailed ? 1 : 0;
}

async function main(): Promise<number> {
  if (process.argv[2] === 'arena') return arenaCommand(process.argv.slice(3));
  if (process.argv[2] === 'soak') return soakCommand(process.argv.slice(3));
  if (process.argv[2] === 'scale') return scaleCommand(process.argv.slice(3));
  let o: Options | 'help';
  try {
    o = parseOptions(process.argv.slice(2));
  } catch (err) {
    log(`bench: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (o === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (o.command === 'report') {
    try {
      const r = await writeReport(resolve(o.reportDir ?? '.'));
      process.stdout.write(`${r.report}\n${r.charts.map((c) => `${c}\n`).join('')}`);
      return 0;
    } catch (err) {
      log(`bench report: ${(err as Error).message}`);
      return 2;
    }
  }
  const missing = o.scenarios.length ? o.tool.missing() : null;
  if (missing) {
    log(missing);
    return 2;
  }
  if (!commandExists('taskset')) {
    log('taskset is not installed. Install it with: sudo apt-get install -y util-linux');
    return 2;
  }
  const cpus = allowedCpus();
  for (const c of [o.serverCpu, o.loadCpu]) {
    if (!cpus.includes(c)) {
      log(`CPU ${c} is not available (allowed: ${cpus.join(',')}); use --server-cpu / --load-cpu`);
      return 2;
    }
  }
  const nofile = effectiveOpenFileLimit(o.nofile);
  if (nofile < o.nofile) {
    log(
      `note: the open-file limit can only be raised to ${nofile} here (hard limit); servers and the load generator get ${nofile}`,
    );
  }
  if (o.serverCpu === o.loadCpu) log('warning: server and load generator share one core; figures are not comparable');

  if (o.nodes.some((n) => !n.own)) {
    log(
      `Node-based servers run on: ${o.nodes.map((n) => `${n.version}${n.own ? " (the harness's)" : ` (${n.path})`}`).join(', ')}`,
    );
  }
  const started = new Date();
  const outDir = o.out ?? join(benchDir, 'results', `${localDate(started)}-${os.hostname()}${o.quick ? '-quick' : ''}`);
  const runnable = o.servers.filter((s) => !s.unavailable?.());
  const modes = o.modes.map((m) => (m.depth > 1 ? `pipelined ×${m.depth}` : m.id)).join(', ');
  for (const s of o.servers) {
    const why = s.unavailable?.();
    if (why) log(`${s.name}: will be reported FAILED: ${why}`);
    const skip = s.skip?.();
    if (skip) log(`${s.name}: skipped (shown as —): ${skip}`);
  }
  // Seconds per counted run: count-based tools (ab) are guessed at 10 000 req/s.
  const runS = o.tool.countBased ? o.requests / 10000 : o.durationS;
  const warmS = o.warmupS ? (o.tool.countBased ? runS / 10 : o.warmupS) + 0.3 : 0;
  let code = 0;
  const failedRuns: string[] = [];
  if (!o.scenarios.length) {
    // WebSocket scenarios only.
  } else if (o.command === 'sweep') {
    const points = o.sweepConnections.length * runnable.length * o.scenarios.length;
    log(
      `Gale bench sweep: ${o.scenarios.map((s) => s.id).join(', ')} · servers ${runnable.map((s) => s.name).join(', ')} · ` +
        `${modes} · connections ${o.sweepConnections.join(', ')}\n` +
        `${o.tool.id}, ${o.iterations} × ${o.durationS}s counted${o.warmupS ? ` after ${o.warmupS}s warm-up` : ''} per point\n` +
        `Expected duration: ~${formatDuration(points * (0.5 + warmS + o.iterations * (runS + 0.3)))} (${points} points)`,
    );
    code = await runSweep(o, outDir, meta(o, started), log);
  } else {
    const runs = (sc: Scenario) =>
      runnable.reduce((n, s) => n + o.modes.filter((mode) => !notRun(s, sc, mode, o.tool)).length, 0);
    const pairs = o.scenarios.reduce((n, sc) => n + runs(sc), 0);
    const total = pairs * o.iterations;
    // Per run: server start (once per server in quick mode), fetch() check, tool start and stop.
    const estimateS = o.quick
      ? runnable.length * 0.5 + pairs * (0.2 + warmS + o.iterations * (runS + 0.1)) + 2
      : o.interleave
        ? pairs * o.iterations * (1.8 + warmS + runS)
        : pairs * (1.5 + warmS + o.iterations * (runS + 0.3));
    log(
      `Gale bench${o.quick ? ' --quick (correctness only)' : ''}: ${o.scenarios.map((s) => s.id).join(', ')} · ` +
        `servers ${o.servers.map((s) => s.name).join(', ')} · ${modes}\n` +
        `${runShape(meta(o, started))} per server and mode${o.interleave ? ', in rounds (--interleave)' : ''}\n` +
        `Expected duration: ~${formatDuration(estimateS)} (${total} counted runs)`,
    );
    if (o.quick) {
      failedRuns.push(...(await runQuick(o, outDir, started)));
      if (failedRuns.length) code = 1;
    } else code = await runMatrix(o, outDir, started, total);
  }
  if (o.wsScenarios.length) {
    const names = o.wsServerNames;
    const wsO: WsOptions = {
      scenarios: o.wsScenarios,
      serverNames: names,
      quick: o.quick,
      durationS: o.quick ? 1 : o.durationS,
      iterations: o.quick ? 1 : o.iterations,
      connections: o.connections,
      timeoutS: Math.max(o.timeoutS, 5),
      serverCpu: o.serverCpu,
      loadCpu: o.loadCpu,
      nofile: effectiveOpenFileLimit(o.nofile),
      ...(o.idleConnections ? { idleConnections: o.idleConnections } : {}),
      sioClient: o.sioClient,
      ...(o.sioEchoInFlight ? { sioEchoInFlight: o.sioEchoInFlight } : {}),
      ...(o.sioBroadcastInFlight ? { sioBroadcastInFlight: o.sioBroadcastInFlight } : {}),
      nodes: o.nodes,
    };
    const plan = wsPlan(wsO);
    log(
      `WebSocket: ${o.wsScenarios.join(', ')} · ${plan.runs} server runs · ${wsO.iterations} × ${wsO.durationS}s, ` +
        `gale-loadgen-ws · expected ~${formatDuration(plan.estimateS)}`,
    );
    const ws = await runWs(wsO, outDir, log, nodeVariant(o), {
      ...meta(o, started),
      wsOptions: wsO,
      wsVersions: {
        ws: pkgVersion('ws'),
        'express-ws': pkgVersion('express-ws'),
        'express-ws/ws': pkgVersion('express-ws/node_modules/ws'),
        '@fastify/websocket': pkgVersion('@fastify/websocket'),
        'socket.io': pkgVersion('socket.io'),
        'socket.io-client': pkgVersion('socket.io-client'),
      },
    });
    process.stdout.write(`${ws.text}\nWebSocket: ${ws.failed.length} FAILED\n`);
    log(`WebSocket results: ${join(outDir, 'ws')}`);
    if (ws.failed.length) {
      code = 1;
      failedRuns.push(...ws.failed);
    }
  }
  if (o.scenarios.length || o.wsScenarios.length) {
    try {
      const r = await writeReport(outDir);
      log(`report: ${r.report} (${r.charts.length} SVG charts in ${join(outDir, 'charts')})`);
    } catch (err) {
      log(`the report could not be written: ${(err as Error).stack ?? err}`);
      return 1;
    }
  }
  log(`${o.quick ? 'quick check' : 'bench'} done in ${formatDuration((Date.now() - started.getTime()) / 1000)}`);
  // Said again last: CI keeps only a run's tail, and the HTTP matrix is long printed by then.
  if (failedRuns.length) log(`FAILED (${failedRuns.length}):\n${failedRuns.map((f) => `  ${f}`).join('\n')}`);
  return code;
}

/** `scale [--duration S] [--connections N] [--samples N] [--subs N] [--out DIR]`: see bench/lib/scale.ts. */
async function scaleCommand(args: string[]): Promise<number> {
  const get = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    const n = i >= 0 ? Number(args[i + 1]) : dflt;
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
    return n;
  };
  const i = args.indexOf('--out');
  const out =
    i >= 0 ? resolve(args[i + 1] ?? '.') : join(benchDir, 'results', `${localDate(new Date())}-${os.hostname()}`);
  return runScale(
    {
      durationS: get('duration', 10),
      connections: get('connections', 50),
      samples: get('samples', 1000),
      subs: get('subs', 50),
      out,
    },
    log,
  );
}

/** `soak [--requests N] [--ws-cycles N] [--uploads N] [--out DIR]`: see bench/lib/soak.ts. */
async function soakCommand(args: string[]): Promise<number> {
  const get = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    const n = i >= 0 ? Number(args[i + 1]) : dflt;
    if (!Number.isInteger(n) || n < 10) throw new Error(`--${name} must be an integer ≥ 10`);
    return n;
  };
  const i = args.indexOf('--out');
  const out =
    i >= 0 ? resolve(args[i + 1] ?? '.') : join(benchDir, 'results', `${localDate(new Date())}-${os.hostname()}`);
  return runSoak(
    { requests: get('requests', 1_000_000), wsCycles: get('ws-cycles', 100_000), uploads: get('uploads', 10_000), out },
    log,
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
