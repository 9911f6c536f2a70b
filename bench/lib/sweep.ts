// Connection sweep (`npm run bench -- sweep`): one scenario (json by default) at 100 … 10 000 connections against
// every server that serves it, with gale-loadgen by default, each point a full validated measurement (its own server
// process, warm-up, iterations). Writes bench/results/<date>-<host>/sweep-<scenario>.json after every point and prints
// req/s, p99 and errors per server and connection count.
import type { Options } from './cli.ts';
import { type Measurement, measure } from './measure.ts';
import { summarize, writeResults } from './report.ts';
import { type SweepFile, sweepFileName } from './report-md.ts';
import { type SweepPoint, sweepTables } from './report-sweep.ts';
import { describeBody } from './scenarios.ts';
import { notRun } from './servers.ts';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Runs the sweep; returns the exit code (1 when any point FAILED). */
export async function runSweep(
  o: Options,
  outDir: string,
  meta: Omit<SweepFile, 'sweep' | 'scenario' | 'points'>,
  log: (s: string) => void,
): Promise<number> {
  const mode = o.modes[0];
  if (!mode) throw new Error('the sweep needs a mode');
  let anyFailed = false;
  const runnable = o.servers.filter((s) => !s.unavailable?.());
  const total =
    o.scenarios.reduce((n, sc) => n + runnable.filter((s) => !notRun(s, sc, mode, o.tool)).length, 0) *
    o.sweepConnections.length;
  let n = 0;
  for (const scenario of o.scenarios) {
    const points: SweepPoint[] = [];
    const save = () =>
      writeResults(outDir, sweepFileName(scenario.id, o.tool.id), {
        ...meta,
        finished: new Date().toISOString(),
        sweep: { scenario: scenario.id, mode: mode.id, connections: o.sweepConnections },
        scenario: { ...scenario, body: describeBody(scenario.body) },
        points: points.map((p) => ({ ...p, result: { ...p.result, summary: summarize(p.result) } })),
      });
    for (const connections of o.sweepConnections) {
      for (const server of o.servers) {
        const runs = !server.unavailable?.() && !notRun(server, scenario, mode, o.tool);
        if (runs) n++;
        const m: Measurement = await measure({
          server,
          scenario,
          mode,
          tool: o.tool,
          durationS: o.durationS,
          requests: o.requests,
          warmupS: o.warmupS,
          iterations: o.iterations,
          connections,
          threads: o.threads,
          timeoutS: o.timeoutS,
          serverCpu: o.serverCpu,
          loadCpu: o.loadCpu,
          nofile: o.nofile,
          onIteration: (i) =>
            log(
              `[${n}/${total}] sweep ${scenario.id} ${server.name} ${int(connections)} connections iteration ` +
                `${i}/${o.iterations} …`,
            ),
        });
        points.push({ connections, result: m });
        save();
        if (m.notRun) continue;
        const s = summarize(m);
        if (s) {
          const p99 = s.p99Us === null ? 'n/a' : `${(s.p99Us / 1000).toFixed(2)} ms`;
          log(`    ${server.name} @ ${int(connections)}: ${int(s.medianRps)} req/s median, p99 ${p99}, no errors`);
        } else {
          anyFailed = true;
          log(`    ${server.name} @ ${int(connections)}: FAILED: ${m.failure}`);
        }
      }
    }
    const file = save();
    process.stdout.write(
      `\n## Connection sweep: ${scenario.id} (${o.tool.id}, ${mode.id})\n\n` +
        sweepTables({ sweep: { connections: o.sweepConnections }, points }),
    );
    log(`raw results: ${file}`);
  }
  return anyFailed ? 1 : 0;
}
