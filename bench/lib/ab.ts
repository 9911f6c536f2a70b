// ApacheBench as a load tool, `ab -n N -c C` without (`--tool ab`) and with keep-alive (`--tool ab-k`, `-k`). ab cannot
// check bodies: it counts non-2xx responses and, taking the first response's body length as the document length,
// every later response of another length (a "Length" failure). The harness adds that the document length must be the
// expected body length and that the body bytes received add up to responses × that length. ab sends HTTP/1.0
// requests, one at a time per connection (no pipelining), and runs a number of requests, not a duration.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { atExit, commandExists } from './proc.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';

export const AB_INSTALL = 'sudo apt-get update && sudo apt-get install -y apache2-utils';

/** The figures of ab's report that the harness reads (null when ab did not print the line). */
export interface AbReport {
  complete: number;
  failed: number;
  failedBy: { connect: number; receive: number; length: number; exceptions: number };
  non2xx: number;
  writeErrors: number;
  keepAlive: number | null;
  documentLength: number | null;
  htmlBytes: number | null;
  totalBytes: number | null;
  timeTakenS: number;
  meanMs: number | null;
}

const num = (text: string, re: RegExp): number | null => {
  const m = text.match(re);
  return m?.[1] === undefined ? null : Number(m[1]);
};

/** Parses ab's text report (stdout). Throws when the report has no "Complete requests" line. */
export function parseAbReport(text: string): AbReport {
  const complete = num(text, /^Complete requests:\s+(\d+)/m);
  if (complete === null) throw new Error('no "Complete requests" line in ab output');
  const by = text.match(/\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/);
  return {
    complete,
    failed: num(text, /^Failed requests:\s+(\d+)/m) ?? 0,
    failedBy: {
      connect: Number(by?.[1] ?? 0),
      receive: Number(by?.[2] ?? 0),
      length: Number(by?.[3] ?? 0),
      exceptions: Number(by?.[4] ?? 0),
    },
    non2xx: num(text, /^Non-2xx responses:\s+(\d+)/m) ?? 0,
    writeErrors: num(text, /^Write errors:\s+(\d+)/m) ?? 0,
    keepAlive: num(text, /^Keep-Alive requests:\s+(\d+)/m),
    documentLength: num(text, /^Document Length:\s+(\d+) bytes/m),
    htmlBytes: num(text, /^HTML transferred:\s+(\d+) bytes/m),
    totalBytes: num(text, /^Total transferred:\s+(\d+) bytes/m),
    timeTakenS: num(text, /^Time taken for tests:\s+([\d.]+) seconds/m) ?? 0,
    meanMs: num(text, /^Time per request:\s+([\d.]+) \[ms\] \(mean\)$/m),
  };
}

/** ab's `-e` CSV ("Percentage served,Time in ms", rows 0…100) as percent → µs. */
export function parseAbPercentiles(csv: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const line of csv.split('\n').slice(1)) {
    const [p, ms] = line.split(',');
    if (p !== undefined && ms !== undefined && p.trim() !== '') out.set(Number(p), Number(ms) * 1000);
  }
  return out;
}

/**
 * What ab's figures say about the responses: how many were wrong and the first problem. Non-2xx responses and Length
 * failures are wrong responses; a document length other than the expected one makes every response of that length
 * wrong; body bytes that do not add up to responses × expected length are reported when nothing else explains them.
 */
export function abProblems(r: AbReport, expectedLength: number): { invalid: number; first: string } {
  const problems: string[] = [];
  let invalid = 0;
  if (r.documentLength !== null && r.documentLength !== expectedLength && r.complete > 0) {
    invalid = r.complete - r.failedBy.length;
    problems.push(`body of ${r.documentLength} bytes (expected ${expectedLength}; ab reports only lengths)`);
  }
  if (r.failedBy.length > 0) {
    invalid += r.failedBy.length;
    problems.push(`${r.failedBy.length} bodies whose length differs from the first response's`);
  }
  if (r.non2xx > 0) {
    invalid += r.non2xx;
    problems.push(`${r.non2xx} non-2xx responses (ab reports only their count)`);
  }
  if (!problems.length && r.htmlBytes !== null && r.htmlBytes !== r.complete * expectedLength) {
    invalid = Math.max(1, invalid);
    problems.push(`${r.htmlBytes} body bytes received, expected ${r.complete} × ${expectedLength}`);
  }
  return { invalid: Math.min(invalid, r.complete), first: problems.join('; ') };
}

function makeAb(keepAlive: boolean): LoadTool {
  const id = keepAlive ? 'ab-k' : 'ab';
  async function run(req: LoadRequest): Promise<LoadResult> {
    const requests = req.requests ?? 100000;
    if (req.depth > 1) return emptyResult(`${id} cannot pipeline`);
    if (req.connections > 20000) return emptyResult(`${id} opens at most 20000 connections at once`);
    const dir = mkdtempSync(join(tmpdir(), 'gale-ab-'));
    const removeDir = () => rmSync(dir, { recursive: true, force: true });
    const unhook = atExit(removeDir);
    const csv = join(dir, 'percentiles.csv');
    const args = [
      '-n',
      String(Math.max(requests, req.connections)),
      '-c',
      String(req.connections),
      ...(keepAlive ? ['-k'] : []),
      // -r: count socket receive errors instead of exiting; -s: a response slower than this ends ab with an error.
      '-r',
      '-s',
      String(req.timeoutS),
      '-q',
      '-e',
      csv,
      ...Object.entries(req.scenario.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      req.url,
    ];
    // ab runs until N requests are answered: allow at least 500 req/s, plus a margin.
    const limitMs = (requests / 500 + req.timeoutS + 30) * 1000;
    const x = await runPinnedTool('ab', args, { cpu: req.cpu, nofile: req.nofile, limitMs });
    const percentiles = existsSync(csv) ? parseAbPercentiles(readFileSync(csv, 'utf8')) : new Map<number, number>();
    removeDir();
    unhook();
    const { code, signal, toolCpuPct } = x;
    if (x.killed) return emptyResult(`${id} did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
    let r: AbReport;
    try {
      if (code !== 0) throw new Error('exit');
      r = parseAbReport(x.stdout);
    } catch {
      const why = outputTail(x);
      return emptyResult(`${id} exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
    }
    const bad = abProblems(r, req.scenario.body.length);
    const p = (q: number): number | null => percentiles.get(q) ?? null;
    return {
      requests: r.complete,
      durationS: r.timeTakenS,
      rps: r.timeTakenS > 0 ? r.complete / r.timeTakenS : 0,
      latencyUs: {
        min: p(0) ?? 0,
        mean: r.meanMs === null ? 0 : r.meanMs * 1000,
        max: p(100) ?? 0,
        p50: p(50),
        p90: p(90),
        p99: p(99),
        p999: null,
      },
      errors: {
        connect: r.failedBy.connect,
        read: r.failedBy.receive + r.failedBy.exceptions,
        write: r.writeErrors,
        status: 0,
        timeout: 0,
        closed: 0,
      },
      // ab looks at every response's status class and body length (see `validates`).
      checked: r.complete,
      invalid: bad.invalid,
      firstInvalid: bad.first,
      toolCpuPct,
      extra: {
        keepAliveRequests: r.keepAlive,
        documentLength: r.documentLength,
        htmlBytes: r.htmlBytes,
        totalBytes: r.totalBytes,
        non2xx: r.non2xx,
        failed: r.failed,
        failedBy: r.failedBy,
      },
    };
  }
  return {
    id,
    maxThreads: 1,
    modes: ['plain'],
    countBased: true,
    validates:
      'the status class (ab counts non-2xx responses; the exact code, e.g. 200 vs 206, is not checked) and the ' +
      "body length: ab takes the first response's body length as the document length and counts " +
      'every later response of another length as a failure; the harness requires that length to be the expected ' +
      'one and the body bytes received to equal responses × expected length. The body bytes themselves and the ' +
      'headers are not checked during the run (the pre-run fetch() checks them once). ab sends HTTP/1.0 requests' +
      (keepAlive ? ' with `Connection: Keep-Alive` (`-k`)' : ', a new connection for each'),
    latency: 'per request, from ab -e (whole connection for ab without -k: connect, request, response, close)',
    missing() {
      if (commandExists('ab')) return null;
      return [
        'ab (ApacheBench) is not installed. Install it, then run the benchmark again:',
        `  Debian/Ubuntu: ${AB_INSTALL}`,
        '  macOS:         ab ships with the system (/usr/sbin/ab)',
      ].join('\n');
    },
    version() {
      const r = spawnSync('ab', ['-V'], { encoding: 'utf8' });
      return r.stdout.split('\n')[0]?.trim() ?? 'unknown';
    },
    describe: (connections) => `ab -c ${connections}${keepAlive ? ' -k' : ''}`,
    run,
  };
}

export const ab = makeAb(false);
export const abKeepAlive = makeAb(true);
