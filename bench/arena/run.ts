// `npm run bench -- arena [profile …] [options]`: HttpArena's profiles (profiles.ts) on Gale's entry and the peers
// (entries.ts), each server one process pinned to core 0, the load tool on core 1, Postgres on core 1 beside it;
// every server validated first and every answer under load checked (arena.lua, load-*.ts). Prints and writes a table
// per profile (rps, server CPU µs per request, p99, peak RSS) and HttpArena's scores (score.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cacheDir } from '../../scripts/cache-dir.mjs';
import { cpuSeconds, effectiveOpenFileLimit, freePort, spawnPinned, stop, vmKiB, waitForPort } from '../lib/proc.ts';
import { type NodeRuntime, resolveNode, resolveNodes, runtimeBinary } from '../lib/runtimes.ts';
import { benchDir } from '../lib/server-common.ts';
import { wrk } from '../lib/wrk.ts';
import { arenaData } from './data.ts';
import { type Entry, entries, entryByName } from './entries.ts';
import { type ArenaLoad, loadRun } from './load.ts';
import { h2Run } from './load-h2.ts';
import { h3Run, validateH3 } from './load-h3.ts';
import { validateWs, wsRun } from './load-ws.ts';
import { type Postgres, postgresMissing, startPostgres } from './postgres.ts';
import { LISTENERS, type Listener, type Profile, profileById, profiles } from './profiles.ts';
import { type CloseBehaviour, closeBehaviour } from './renewal.ts';
import { type ArenaResult, arenaReport } from './report.ts';
import { validate } from './validate.ts';

const usage = `npm run bench -- arena [profile …] [options]

HttpArena's profiles: ${profiles.map((p) => p.id).join(', ')} (all when none is named).

  --servers a,b,…    entries (default: gale, and the peers GALE_BENCH_PEERS names: ${entries.map((e) => e.name).join(', ')})
  --duration S       seconds of load per connection count (default 5)
  --warmup S         seconds of validated, uncounted load first (default 1)
  --iterations N     runs per connection count; the median rps counts (default 1)
  --connections a,b  connection counts instead of each profile's own
  --node a,b         the Node binaries or majors every entry runs on (default: the harness's); an entry that needs a
                     newer Node (fulmine.js: 22) runs on those of the list that it can, else on Node 26
  --quick            each profile once on gale, 1 s at its smallest count, no warm-up (CI: a wrong answer fails)
  --out DIR          where results.json and report.md go (default bench/results/<date>-<host>-arena)`;

const log = (s: string) => process.stderr.write(`${s}\n`);

export async function arenaCommand(args: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      servers: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      iterations: { type: 'string' },
      connections: { type: 'string' },
      node: { type: 'string' },
      quick: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (v.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const missingWrk = wrk.missing();
  if (missingWrk) {
    log(missingWrk);
    return 2;
  }
  const chosen: Profile[] = positionals.length ? positionals.map(profileById) : [...profiles];
  const quick = v.quick === true;
  const num = (s: string | undefined, d: number, what: string) => {
    const n = s === undefined ? d : Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${what} must be a positive number`);
    return n;
  };
  const durationS = quick ? 1 : num(v.duration, 5, 'duration');
  const warmupS = quick ? 0 : v.warmup === '0' ? 0 : num(v.warmup, 1, 'warmup');
  const iterations = quick ? 1 : num(v.iterations, 1, 'iterations');
  const servers: Entry[] = v.servers
    ? v.servers.split(',').map((s) => entryByName(s.trim()))
    : quick
      ? [entryByName('gale')]
      : entries.filter((e) => e.name === 'gale' || e.unavailable() === null);
  const fixedConnections = v.connections?.split(',').map((s) => num(s, 0, 'connections'));
  const nodes = v.node ? resolveNodes(v.node, log) : [resolveNode(process.versions.node.split('.')[0] as string, log)];
  /** The Nodes an entry runs on (or its Bun or Deno), and the row's name (the Node added when a run has several). */
  const runsOf = (e: Entry): { node: NodeRuntime; label: string }[] => {
    if (e.runtime) {
      const bin = runtimeBinary(e.runtime, log);
      const version = 'version' in bin ? bin.version : 'unavailable';
      return [{ node: { path: 'path' in bin ? bin.path : '', version, major: 0, own: false }, label: e.name }];
    }
    let list = nodes.filter((n) => n.major >= (e.minNode ?? 0));
    if (!list.length) list = [resolveNode('26', log)];
    return list.map((node) => ({ node, label: nodes.length > 1 ? `${e.name} · Node ${node.major}` : e.name }));
  };
  const date = new Date().toISOString().slice(0, 10);
  const out = resolve(v.out ?? join(benchDir, 'results', `${date}-${os.hostname()}-arena`));

  log('arena: making the data (HttpArena generators, once per version into the cache folder) …');
  const data = arenaData();
  let pg: Postgres | null = null;
  const results: ArenaResult[] = [];
  let failed = false;
  try {
    const pgProblem = chosen.some((p) => p.postgres) ? postgresMissing() : null;
    if (chosen.some((p) => p.postgres) && pgProblem === null) {
      // Core 1, beside wrk: the server under test keeps core 0 to itself, as in every row of this bench.
      pg = await startPostgres({ cpu: 1, seed: data.seed, log });
    }
    for (const profile of chosen) {
      for (const [entry, { node, label }] of servers.flatMap((e) => runsOf(e).map((r) => [e, r] as const))) {
        const counts = fixedConnections ?? (quick ? [Math.min(...profile.connections)] : [...profile.connections]);
        const base = { profile: profile.id, entry: label, connections: counts };
        if (!entry.profiles.includes(profile.id)) {
          results.push({ ...base, notRun: 'not in its meta.json' });
          continue;
        }
        const why = entry.unavailable() ?? (profile.postgres ? pgProblem : null);
        if (why) {
          // Postgres missing, or the entry not built, is a failure: the profile cannot be answered.
          results.push({ ...base, failure: why });
          failed = true;
          log(`${profile.id} × ${label}: FAILED: ${why}`);
          continue;
        }
        const r = await runOne(profile, entry, node, base, { data, pg, durationS, warmupS, iterations });
        results.push(r);
        if (r.failure) failed = true;
        log(`${profile.id} × ${label}: ${r.failure ? `FAILED: ${r.failure}` : summary(r)}`);
      }
    }
  } finally {
    await pg?.stop();
  }
  mkdirSync(out, { recursive: true });
  const meta = {
    date,
    host: os.hostname(),
    cpus: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    postgres: pg?.version ?? null,
    durationS,
    warmupS,
    iterations,
    quick,
    wrk: wrk.version(),
  };
  writeFileSync(join(out, 'results.json'), `${JSON.stringify({ meta, results }, null, 2)}\n`);
  const md = arenaReport(meta, results);
  writeFileSync(join(out, 'report.md'), md);
  process.stdout.write(`${md}\n`);
  log(`wrote ${join(out, 'results.json')} and report.md`);
  // Said again last: CI keeps only a run's tail, and the report above is long.
  const lost = results.filter((r) => r.failure);
  if (lost.length)
    log(`FAILED (${lost.length}):\n${lost.map((r) => `  ${r.profile} × ${r.entry}: ${r.failure}`).join('\n')}`);
  return failed ? 1 : 0;
}

function summary(r: ArenaResult): string {
  return (r.runs ?? [])
    .map((x) => `c${x.connections}: ${Math.round(x.rps)} rps, ${x.cpuUsPerRequest.toFixed(1)} µs CPU/req`)
    .join('; ');
}

async function runOne(
  profile: Profile,
  entry: Entry,
  node: NodeRuntime,
  base: { profile: string; entry: string; connections: number[] },
  o: {
    data: ReturnType<typeof arenaData>;
    pg: Postgres | null;
    durationS: number;
    warmupS: number;
    iterations: number;
  },
): Promise<ArenaResult> {
  const counts = base.connections;
  // A profile that writes (crud) starts every entry from the seeded rows: no entry meets another's inserts.
  if (profile.writes) o.pg?.reload();
  // Every HttpArena port an entry may listen on, free ones here (the entries read them from the environment).
  const ports: Record<Listener, number> = {
    h1: await freePort(),
    h1tls: await freePort(),
    h2: await freePort(),
    h2c: await freePort(),
  };
  const listener = profile.listener ?? 'h1';
  const port = ports[listener];
  const nofile = effectiveOpenFileLimit(Math.max(...counts) * 2 + 1024);
  const server = spawnPinned(node.path, launchArgs(entry, port, o.data.dir), {
    cpu: 0,
    nofile,
    env: {
      ...process.env,
      ...entry.env,
      NODE_ENV: 'production',
      ...Object.fromEntries((Object.keys(ports) as Listener[]).map((l) => [LISTENERS[l].env, String(ports[l])])),
      TLS_CERT: o.data.certs.cert,
      TLS_KEY: o.data.certs.key,
      HOST: '127.0.0.1',
      ARENA_WORKERS: '1',
      ARENA_DATA: o.data.dir,
      // Bun and Deno: no telemetry or update check (they would reach outside the registry), Deno's cache in ours.
      DO_NOT_TRACK: '1',
      DENO_NO_UPDATE_CHECK: '1',
      DENO_DIR: cacheDir('bench-runtimes', 'deno-dir'),
      ...(o.pg ? { DATABASE_URL: o.pg.url } : {}),
    },
  });
  try {
    await waitForPort(server, port, 20_000);
    const checks =
      profile.tool === 'loadgen-ws'
        ? validateWs(port)
        : profile.tool === 'loadgen-h3'
          ? validateH3(profile, port, o.data)
          : await validate(profile.id, port, o.data);
    const bad = checks.filter((c) => !c.ok);
    if (bad.length) {
      return { ...base, node: node.version, failure: bad.map((c) => `[${c.label}] ${c.detail}`).join('; '), checks };
    }
    let closes: CloseBehaviour | undefined;
    if (profile.perConnection > 0) {
      closes = await closeBehaviour(port, profile, o.data);
      if (closes === 'kept-open') {
        const why =
          'it keeps a connection open after answering a request that says Connection: close (RFC 9112 §9.6: it ' +
          "MUST close), so the profile's connection renewals would not happen";
        return { ...base, node: node.version, failure: why, checks };
      }
    }
    const unannouncedCloses = closes === 'unannounced';
    const runs: NonNullable<ArenaResult['runs']> = [];
    const secure = LISTENERS[listener].secure;
    for (const connections of counts) {
      const load = (durationS: number): Promise<ArenaLoad> => {
        const l = { profile, data: o.data, port, connections, durationS, cpu: 1, nofile };
        switch (profile.tool) {
          case 'loadgen-ws':
            return wsRun(l);
          case 'loadgen-h3':
            return h3Run(l);
          case 'h2load':
            return h2Run(l);
          default:
            return loadRun({ ...l, secure, unannouncedCloses });
        }
      };
      if (o.warmupS > 0) {
        const w = await load(o.warmupS);
        const f = loadFailure(w);
        if (f) return { ...base, node: node.version, failure: `warm-up at ${connections} connections: ${f}`, checks };
      }
      const its: { load: ArenaLoad; cpuS: number }[] = [];
      for (let i = 0; i < o.iterations; i++) {
        const c0 = cpuSeconds(server.pid) ?? 0;
        const l = await load(o.durationS);
        const cpuS = (cpuSeconds(server.pid) ?? 0) - c0;
        const f = loadFailure(l);
        if (f) return { ...base, node: node.version, failure: `${connections} connections: ${f}`, checks };
        its.push({ load: l, cpuS });
      }
      its.sort((a, b) => a.load.rps - b.load.rps);
      const mid = its[Math.floor(its.length / 2)] as { load: ArenaLoad; cpuS: number };
      runs.push({
        connections,
        rps: mid.load.rps,
        cpuUsPerRequest: (mid.cpuS * 1e6) / mid.load.checked,
        p99Us: mid.load.p99Us,
        bytesPerResponse: mid.load.bytes / mid.load.checked,
        requests: mid.load.checked,
        toolCpuPct: mid.load.toolCpuPct,
        unannounced: mid.load.unannounced,
      });
    }
    return { ...base, node: node.version, runs, peakRssKiB: vmKiB(server.pid, 'VmHWM'), checks, closes };
  } catch (e) {
    return { ...base, node: node.version, failure: `${(e as Error).message} ${server.stderr().trim().slice(-400)}` };
  } finally {
    await stop(server);
  }
}

/**
 * The arguments `node.path` runs the entry with: the file for Node and Bun; for Deno its entry's `deno serve` (one
 * process), allowed the network on 127.0.0.1, the environment, and reads of the repository and the data.
 */
function launchArgs(entry: Entry, port: number, dataDir: string): string[] {
  if (entry.runtime?.name !== 'Deno') return [entry.file];
  const read = [resolve(benchDir, '..'), dataDir].join(',');
  return [
    'serve',
    '--no-prompt',
    `--port=${port}`,
    '--host=127.0.0.1',
    '--allow-net=127.0.0.1',
    '--allow-env',
    '--allow-sys',
    `--allow-read=${read}`,
    entry.file,
  ];
}

/** Why a load run is not a valid figure: the tool failed, lost answers, or an answer was wrong. */
function loadFailure(l: ArenaLoad): string | null {
  if (l.failure) return l.failure;
  if (l.checked === 0) return 'no answer was counted';
  if (l.invalid > 0) return `${l.invalid} of ${l.checked} answers were wrong; the first: ${l.firstInvalid}`;
  return null;
}
