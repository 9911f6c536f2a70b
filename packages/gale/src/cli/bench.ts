// `gale bench <url>`: a quick load test that is checked, not just timed. One probe request first (an error page or
// a refused connection is reported instead of benchmarked), then autocannon (an optional peer dependency, loaded
// from the app's own node_modules first) for the duration; any error, timeout, unexpected status or body fails it.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CliError } from './common.js';

export interface BenchOptions {
  url?: string;
  connections?: string;
  duration?: string;
  pipelining?: string;
  method?: string;
  headers: string[];
  body?: string;
  expectStatus?: string;
  expectBody?: string;
  json: boolean;
}

/** The part of autocannon's result this command reads (autocannon ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
  throughput: { average: number };
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
  duration: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;

function int(name: string, v: string | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(`--${name} ${v}: a whole number from ${min} to ${max}`);
  return n;
}

function loadAutocannon(): Autocannon {
  for (const base of [join(process.cwd(), 'package.json'), import.meta.url]) {
    try {
      return createRequire(base)('autocannon') as Autocannon;
    } catch {}
  }
  throw new CliError('gale bench runs autocannon, an optional peer dependency of gale: npm install -D autocannon');
}

/** Probes, loads, prints; 0 when every answer was as expected, 1 otherwise. */
export async function bench(o: BenchOptions): Promise<number> {
  if (!o.url) throw new CliError('gale bench needs a URL: gale bench http://localhost:3000/');
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new CliError(`${o.url} is not a URL (for example http://localhost:3000/)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${o.url}: only http and https URLs`);
  const connections = int('connections', o.connections, 50, 1, 10_000);
  const duration = int('duration', o.duration, 10, 1, 3600);
  const pipelining = int('pipelining', o.pipelining, 1, 1, 1024);
  const expectStatus = o.expectStatus === undefined ? undefined : int('expect-status', o.expectStatus, 200, 100, 599);
  const method = (o.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const h of o.headers) {
    const i = h.indexOf(':');
    if (i <= 0) throw new CliError(`--header ${JSON.stringify(h)}: write it as 'name: value'`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  const autocannon = loadAutocannon();

  // The probe: what one request gets. Benchmarking a 404 or a server that is not there measures nothing.
  let probe: globalThis.Response;
  try {
    probe = await fetch(url, { method, headers, body: o.body, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `the probe request to ${url} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    );
  }
  const probeBody = await probe.text();
  const statusOk =
    expectStatus === undefined ? probe.status >= 200 && probe.status < 300 : probe.status === expectStatus;
  const note = `probe: ${method} ${url} → ${probe.status}, ${Buffer.byteLength(probeBody)} bytes, ${probe.headers.get('content-type') ?? 'no content-type'}`;
  if (!o.json) process.stderr.write(`${note}\n`);
  if (!statusOk) {
    throw new CliError(
      `the probe got ${probe.status}, not ${expectStatus ?? 'a 2xx'}: load-testing that answer measures nothing. ` +
        `Check the URL, or pass --expect-status ${probe.status} to bench it anyway.`,
    );
  }
  if (o.expectBody !== undefined && probeBody !== o.expectBody) {
    throw new CliError(`the probe's body is not --expect-body's: got ${JSON.stringify(probeBody.slice(0, 200))}`);
  }

  if (!o.json)
    process.stderr.write(`running ${duration} s with ${connections} connections (pipelining ${pipelining})…\n`);
  const r = await autocannon({
    url: url.href,
    method,
    headers,
    body: o.body,
    connections,
    duration,
    pipelining,
    ...(o.expectBody === undefined ? {} : { expectBody: o.expectBody }),
  });
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
  const unexpected = Object.entries(statuses)
    .filter(([code]) => (expectStatus === undefined ? !/^2\d\d$/.test(code) : Number(code) !== expectStatus))
    .reduce((n, [, count]) => n + count, 0);
  const problems: string[] = [];
  if (r.requests.total === 0) problems.push('no request completed');
  if (r.errors > 0) problems.push(`${r.errors} errors (connection failures or resets)`);
  if (r.timeouts > 0) problems.push(`${r.timeouts} timeouts`);
  if (unexpected > 0) problems.push(`${unexpected} answers with another status than ${expectStatus ?? '2xx'}`);
  if (r.mismatches > 0) problems.push(`${r.mismatches} bodies differ from --expect-body`);
  const summary = {
    url: url.href,
    connections,
    pipelining,
    duration: r.duration,
    requestsPerSecond: r.requests.average,
    requests: r.requests.total,
    latencyMs: {
      average: r.latency.average,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
    },
    throughputBytesPerSecond: r.throughput.average,
    statuses,
    errors: r.errors,
    timeouts: r.timeouts,
    mismatches: r.mismatches,
    ok: problems.length === 0,
    problems,
  };
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    const l = summary.latencyMs;
    process.stdout.write(
      `${[
        `requests/s  ${Math.round(r.requests.average).toLocaleString('en-US')} (${r.requests.total.toLocaleString('en-US')} in ${r.duration.toFixed(1)} s)`,
        `latency ms  avg ${l.average.toFixed(2)}  p50 ${l.p50}  p90 ${l.p90}  p99 ${l.p99}  max ${l.max}`,
        `throughput  ${(r.throughput.average / 1048576).toFixed(2)} MiB/s`,
        `statuses    ${
          Object.entries(statuses)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ') || 'none'
        }`,
        problems.length ? `FAILED: ${problems.join('; ')}` : 'ok: every answer as expected',
      ].join('\n')}\n`,
    );
  }
  return problems.length ? 1 : 0;
}
