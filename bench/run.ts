// Gale benchmark harness: `npm run bench -- hello [--servers gale,node-http] [--duration 5] …` (see bench/README.md).
// Runs each scenario against each server in plain and pipelined mode with validated load runs (wrk or gale-loadgen);
// prints a Markdown table.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type Options, parseOptions, usage } from './lib/cli.ts';
import { type Measurement, measure } from './lib/measure.ts';
import { nginxVersion } from './lib/nginx.ts';
import { allowedCpus, commandExists, effectiveOpenFileLimit } from './lib/proc.ts';
import { formatDuration, markdownTable, summarize, writeResults } from './lib/report.ts';
import { describeBody, type Scenario } from './lib/scenarios.ts';
import { benchDir, notRun, repoDir } from './lib/servers.ts';

const log = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
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

function meta(o: Options, started: Date) {
  return {
    started: started.toISOString(),
    hostname: os.hostname(),
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    loadavg: os.loadavg(),
    node: process.version,
    tool: `${o.tool.id}: ${o.tool.version()}`,
    versions: {
      express: pkgVersion('express'),
      express4: pkgVersion('express4'),
      fastify: pkgVersion('fastify'),
      '@fastify/static': pkgVersion('@fastify/static'),
      gale: pkgVersion('gale'),
      nginx: o.servers.some((s) => s.name.startsWith('nginx')) ? nginxVersion() : null,
    },
    commit: gitCommit(),
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
    },
  };
}

const STATIC_NOTE =
  'Files from examples/demo (public/ at /static/, prerendered/ at /). Gale: `app.static(…, { cache: true })` keeps ' +
  'the bytes in memory; Gale (no cache): `cache: false`. nginx: one process, `sendfile on`, `open_file_cache` ' +
  '(descriptors and metadata, not content); nginx (no open_file_cache): without it. Express: `express.static`; ' +
  'Fastify: `@fastify/static`; node:http: `fs.stat` + `fs.createReadStream` per request.';

async function main(): Promise<number> {
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
  const missing = o.tool.missing();
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

  const started = new Date();
  const outDir = o.out ?? join(benchDir, 'results', `${localDate(started)}-${os.hostname()}`);
  const runnable = o.servers.filter((s) => !s.unavailable?.());
  const runs = (sc: Scenario) =>
    runnable.reduce((n, s) => n + o.modes.filter((mode) => !notRun(s, sc, mode)).length, 0);
  const pairs = o.scenarios.reduce((n, sc) => n + runs(sc), 0);
  const total = pairs * o.iterations;
  const estimateS = pairs * (1.5 + (o.warmupS ? o.warmupS + 0.3 : 0) + o.iterations * (o.durationS + 0.3));
  const modes = o.modes.map((m) => (m.depth > 1 ? `pipelined ×${m.depth}` : m.id)).join(', ');
  log(
    `Gale bench: ${o.scenarios.map((s) => s.id).join(', ')} · servers ${o.servers.map((s) => s.name).join(', ')} · ${modes}\n` +
      `${o.tool.describe(o.connections, o.threads)}, ${o.iterations} × ${o.durationS}s counted` +
      `${o.warmupS ? ` after ${o.warmupS}s warm-up` : ''} per server and mode; server on CPU ${o.serverCpu}, load on CPU ${o.loadCpu}\n` +
      `Expected duration: ~${formatDuration(estimateS)} (${total} counted runs)`,
  );
  for (const s of o.servers) {
    const why = s.unavailable?.();
    if (why) log(`${s.name}: will be reported FAILED: ${why}`);
    const skip = s.skip?.();
    if (skip) log(`${s.name}: skipped (shown as —): ${skip}`);
  }

  let done = 0;
  let anyFailed = false;
  for (const scenario of o.scenarios) {
    const results: Measurement[] = [];
    const runMeta = meta(o, started);
    for (const server of o.servers) {
      for (const mode of o.modes) {
        const before = done;
        const m = await measure({
          server,
          scenario,
          mode,
          tool: o.tool,
          durationS: o.durationS,
          warmupS: o.warmupS,
          iterations: o.iterations,
          connections: o.connections,
          threads: o.threads,
          timeoutS: o.timeoutS,
          serverCpu: o.serverCpu,
          loadCpu: o.loadCpu,
          nofile: o.nofile,
          onIteration: (i) => {
            done++;
            log(`[${done}/${total}] ${scenario.id} ${server.name} ${mode.id} iteration ${i}/${o.iterations} …`);
          },
        });
        if (runnable.includes(server) && !m.notRun) done = before + o.iterations;
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
    const file = writeResults(outDir, scenario.id, {
      ...runMeta,
      finished: new Date().toISOString(),
      loadavgAfter: os.loadavg(),
      scenario: { ...scenario, body: describeBody(scenario.body) },
      results: results.map((m) => ({ ...m, summary: summarize(m) })),
    });
    process.stdout.write(
      `\n## ${scenario.id}: ${scenario.description}\n\n` +
        `${o.tool.describe(o.connections, o.threads)}, ${o.iterations} × ${o.durationS}s, ${os.cpus().length} cores ` +
        `(${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${localDate(started)}\n\n` +
        (scenario.kind === 'static' ? `${STATIC_NOTE}\n\n` : '') +
        markdownTable(results, o.tool.id, { vsNginx: scenario.kind === 'static' }),
    );
    log(`raw results: ${file}`);
  }
  return anyFailed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
