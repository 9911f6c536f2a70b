// One validated measurement: start one server (pinned, raised open-file limit), validate the scenario with fetch(),
// warm up, run the counted iterations with per-response checks, read server CPU time and peak RSS, stop the server.
// `startServer()` / `measureOn()` / `stopServer()` let the quick mode keep one server process for all its scenarios.

import { execFileSync } from 'node:child_process';
import { validateH3 } from './loadgen-h3.ts';
import {
  cpuSeconds,
  freePort,
  isRunning,
  openFileLimit,
  type Pinned,
  spawnPinned,
  stop,
  vmKiB,
  waitForPort,
} from './proc.ts';
import type { Scenario } from './scenarios.ts';
import { validateSecure } from './secure.ts';
import { type Launch, launchServer, type Mode, notRun, type ServerDef } from './servers.ts';
import { type LoadRequest, type LoadResult, type LoadTool, toolFor } from './tools.ts';
import { type Validation, validateOnce } from './validate.ts';

/** How every measured run is made: the settings the CLI and each measurement share. */
export interface RunSettings {
  tool: LoadTool;
  durationS: number;
  warmupS: number;
  iterations: number;
  connections: number;
  threads: number;
  timeoutS: number;
  serverCpu: number;
  loadCpu: number;
}

export interface MeasureOptions extends RunSettings {
  server: ServerDef;
  scenario: Scenario;
  mode: Mode;
  /** Requests per counted run for count-based tools (ab); the warm-up sends a tenth (at least 1000). */
  requests?: number;
  nofile?: number;
  startTimeoutS?: number;
  /** Called before each counted iteration (1-based). */
  onIteration?: (iteration: number) => void;
}

export interface IterationResult extends LoadResult {
  /** Server utime+stime over the counted run, its share of one core, and per response. */
  serverCpuS: number | null;
  serverCpuPct: number | null;
  serverCpuUsPerReq: number | null;
}

export interface Measurement {
  server: string;
  label: string;
  scenario: string;
  mode: string;
  depth: number;
  /** The load tool's id (absent in results written before ab and autocannon were added: wrk or loadgen). */
  tool?: string;
  ok: boolean;
  /** Why this server/mode is FAILED; null when every check passed (or when it was not run). */
  failure: string | null;
  /** Why this server/mode was not run (a server that does not serve the scenario, nginx not installed): "—". */
  notRun: string | null;
  validation: Validation | null;
  warmup: LoadResult | null;
  iterations: IterationResult[];
  startRssKiB: number | null;
  peakRssKiB: number | null;
  serverOpenFileLimit: number | null;
  serverStderr: string;
}

/**
 * Why a load run does not count, or null when every response was checked and valid and nothing errored.
 * `warmup` tolerates timeouts (cold JIT); wrong answers and socket errors still fail it.
 */
export function judge(r: LoadResult, warmup = false): string | null {
  if (r.toolFailure) return r.toolFailure;
  const p: string[] = [];
  const names = {
    connect: 'connect',
    read: 'read',
    write: 'write',
    status: 'HTTP ≥400',
    timeout: 'timeout',
    closed: 'closed-connection',
  } as const;
  for (const k of Object.keys(names) as (keyof typeof names)[]) {
    if (warmup && k === 'timeout') continue;
    if (r.errors[k] > 0) p.push(`${r.errors[k]} ${names[k]} error${r.errors[k] === 1 ? '' : 's'}`);
  }
  if (r.invalid > 0) p.push(`${r.invalid} of ${r.checked} responses invalid (first: ${r.firstInvalid})`);
  if (r.requests === 0) p.push('no responses');
  else if (r.checked !== r.requests) p.push(`${r.requests - r.checked} of ${r.requests} responses not checked`);
  return p.length ? p.join('; ') : null;
}

/**
 * Who answered on `port` when a server's answer was wrong: the listening sockets with their processes (`ss`), and
 * whether the server the bench started is still running, so a foreign listener on the port names itself.
 */
function whoListens(port: number, proc: Pinned): string {
  const mine = isRunning(proc) ? `server pid ${proc.pid} running` : `server exited: ${tail(proc.stderr())}`;
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8', timeout: 5000 }).trim();
    return `${mine}; listening on :${port}: ${out.replace(/\s+/g, ' ') || 'nothing'}`;
  } catch (err) {
    return `${mine}; ss failed: ${(err as Error).message}`;
  }
}

/** The gist of a crashed server's stderr: its first error line (and error code), else the last lines. */
function tail(s: string): string {
  const lines = s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = lines.find((l) => /\b\w*Error\b|^error/i.test(l));
  const code = lines.find((l) => /^code: /.test(l));
  return first ? [first, code].filter(Boolean).join(' ') : lines.slice(-5).join(' | ');
}

/** A started server process, reused by `measureOn()` (quick mode) or owned by one `measure()`. */
export interface RunningServer {
  server: ServerDef;
  proc: Pinned;
  port: number;
  launch: Launch;
  openFileLimit: number | null;
}

export type StartOptions = Pick<MeasureOptions, 'server' | 'connections' | 'serverCpu' | 'nofile' | 'startTimeoutS'>;

/** Starts `o.server` pinned to its core and waits until it listens; a failure is a reason (the server is stopped). */
export async function startServer(o: StartOptions): Promise<RunningServer | { failure: string }> {
  const unavailable = o.server.unavailable?.() ?? null;
  if (unavailable) return { failure: unavailable };
  const port = await freePort();
  let launch: Launch;
  try {
    launch = launchServer(o.server, { port, connections: o.connections });
  } catch (err) {
    return { failure: `server could not be launched: ${(err as Error).message}` };
  }
  const proc = spawnPinned(launch.cmd, launch.args, {
    cpu: o.serverCpu,
    nofile: o.nofile ?? 65535,
    env: { ...process.env, ...launch.env },
  });
  try {
    await waitForPort(proc, port, (o.startTimeoutS ?? 20) * 1000);
  } catch (err) {
    await stop(proc);
    launch.cleanup?.();
    return {
      failure: `server did not start: ${(err as Error).message}${proc.stderr() ? `: ${tail(proc.stderr())}` : ''}`,
    };
  }
  return { server: o.server, proc, port, launch, openFileLimit: openFileLimit(proc.pid) };
}

/** Stops a server started by `startServer()`; returns its stderr. */
export async function stopServer(rs: RunningServer): Promise<string> {
  await stop(rs.proc);
  rs.launch.cleanup?.();
  return rs.proc.stderr();
}

function emptyMeasurement(o: MeasureOptions): Measurement {
  return {
    server: o.server.name,
    label: o.server.label,
    scenario: o.scenario.id,
    mode: o.mode.id,
    depth: o.mode.depth,
    tool: toolFor(o.scenario, o.tool).id,
    ok: false,
    failure: null,
    notRun: null,
    validation: null,
    warmup: null,
    iterations: [],
    startRssKiB: null,
    peakRssKiB: null,
    serverOpenFileLimit: null,
    serverStderr: '',
  };
}

/** A measurement that failed before it ran (e.g. its server could not start). */
/**
 * `--interleave`: one round's measurement of a server and mode joined to the rounds before it (`prev`, undefined for
 * the first). Iterations add up; a failed round makes the whole measurement failed, naming the round; a "not run"
 * stands as it is.
 */
export function joinRound(prev: Measurement | undefined, m: Measurement, round: number): Measurement {
  if (!prev || m.notRun) return m;
  if (!m.ok) return { ...m, iterations: prev.iterations, failure: `round ${round}: ${m.failure}` };
  return {
    ...prev,
    iterations: [...prev.iterations, ...m.iterations],
    peakRssKiB: Math.max(prev.peakRssKiB ?? 0, m.peakRssKiB ?? 0) || null,
    serverStderr: prev.serverStderr + m.serverStderr,
  };
}

export function failedMeasurement(o: MeasureOptions, failure: string): Measurement {
  const m = emptyMeasurement(o);
  m.notRun = notRunReason(o);
  if (!m.notRun) m.failure = failure;
  return m;
}

/** Whether `o` is run at all ("—" with the reason in `notRun` when not). */
export function notRunReason(o: Pick<MeasureOptions, 'server' | 'scenario' | 'mode' | 'tool'>): string | null {
  return notRun(o.server, o.scenario, o.mode, toolFor(o.scenario, o.tool));
}

export async function measure(o: MeasureOptions): Promise<Measurement> {
  const m = emptyMeasurement(o);
  m.notRun = notRunReason(o);
  if (m.notRun) return m;
  const rs = await startServer(o);
  if ('failure' in rs) {
    m.failure = rs.failure;
    return m;
  }
  let result: Measurement | undefined;
  try {
    result = await measureOn(rs, o);
    return result;
  } finally {
    const stderr = await stopServer(rs);
    if (result) result.serverStderr = stderr;
  }
}

/**
 * One measurement on a server that is already running (its figures then include what ran on it before: the quick
 * mode only asserts correctness). The caller stops it.
 */
export async function measureOn(rs: RunningServer, o: MeasureOptions): Promise<Measurement> {
  const m = emptyMeasurement(o);
  m.notRun = notRunReason(o);
  if (m.notRun) return m;
  const { proc, port } = rs;
  const nofile = o.nofile ?? 65535;
  const serverGone = () => `server exited (${proc.child.exitCode ?? proc.child.signalCode}): ${tail(proc.stderr())}`;
  if (!isRunning(proc)) {
    m.failure = serverGone();
    return m;
  }
  m.serverOpenFileLimit = rs.openFileLimit;
  if (m.serverOpenFileLimit !== null && m.serverOpenFileLimit < o.connections + 256) {
    m.failure = `server open-file limit is ${m.serverOpenFileLimit}, too low for ${o.connections} connections`;
    return m;
  }
  const tool = toolFor(o.scenario, o.tool);
  const missing = tool === o.tool ? null : tool.missing();
  if (missing) {
    m.failure = missing.replace(/\n\s*/g, ' ');
    return m;
  }
  const base = `${o.scenario.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const v =
    o.scenario.kind === 'h3'
      ? await validateH3(base, o.scenario)
      : o.scenario.tls || o.scenario.kind === 'h2c'
        ? await validateSecure(base, o.scenario)
        : await validateOnce(base, o.scenario);
  m.validation = v.seen;
  if (v.problem) {
    m.failure = `${v.problem} [${whoListens(port, proc)}]`;
    return m;
  }
  m.startRssKiB = vmKiB(proc.pid, 'VmRSS');
  const requests = o.requests ?? 100000;
  const req = (durationS: number, warmup: boolean): LoadRequest => ({
    url: base + o.scenario.path,
    scenario: o.scenario,
    depth: o.mode.depth,
    durationS,
    ...(tool.countBased ? { requests: warmup ? Math.max(1000, Math.round(requests / 10)) : requests } : {}),
    connections: o.connections,
    threads: o.threads,
    timeoutS: o.timeoutS,
    cpu: o.loadCpu,
    nofile,
  });
  if (o.warmupS > 0) {
    m.warmup = await tool.run(req(o.warmupS, true));
    const bad = isRunning(proc) ? judge(m.warmup, true) : serverGone();
    if (bad) {
      m.failure = `warm-up: ${bad}`;
      return m;
    }
  }
  for (let i = 1; i <= o.iterations; i++) {
    o.onIteration?.(i);
    const c0 = cpuSeconds(proc.pid);
    const r = await tool.run(req(o.durationS, false));
    const c1 = cpuSeconds(proc.pid);
    const cpu = c0 !== null && c1 !== null ? c1 - c0 : null;
    m.iterations.push({
      ...r,
      serverCpuS: cpu,
      serverCpuPct: cpu !== null && r.durationS > 0 ? (100 * cpu) / r.durationS : null,
      serverCpuUsPerReq: cpu !== null && r.requests > 0 ? (cpu * 1e6) / r.requests : null,
    });
    const bad = isRunning(proc) ? judge(r) : serverGone();
    if (bad) {
      m.failure = `iteration ${i}: ${bad}`;
      return m;
    }
  }
  m.peakRssKiB = vmKiB(proc.pid, 'VmHWM');
  m.ok = true;
  return m;
}
