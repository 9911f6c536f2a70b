// Shared by the load tools: run a load generator pinned to its core with a hard time limit while sampling its own CPU
// use, and the empty result reported when the tool itself failed.

import type { LoadResult } from './load-types.ts';
import { cpuSeconds, type Pinned, spawnPinned, stop } from './proc.ts';

export interface ToolExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the tool overran `limitMs` and was killed. */
  killed: boolean;
  stdout: string;
  stderr: string;
  /** The tool's CPU use over the run, in % of one core; null for runs too short to sample. */
  toolCpuPct: number | null;
}

export async function runPinnedTool(
  cmd: string,
  args: readonly string[],
  o: { cpu: number; nofile: number; limitMs: number; onSample?: (proc: Pinned) => void },
): Promise<ToolExit> {
  const proc = spawnPinned(cmd, args, { cpu: o.cpu, nofile: o.nofile });
  // Sample the tool's own CPU time to tell when the load generator, not the server, is the limit.
  const t0 = performance.now();
  const c0 = cpuSeconds(proc.pid) ?? 0;
  let last = { t: t0, c: c0 };
  const sampler = setInterval(() => {
    const c = cpuSeconds(proc.pid);
    if (c !== null) last = { t: performance.now(), c };
    o.onSample?.(proc);
  }, 200);
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    void stop(proc, 1000);
  }, o.limitMs);
  const { code, signal } = await proc.exited;
  clearInterval(sampler);
  clearTimeout(killer);
  const toolCpuPct = last.t - t0 > 500 ? (100 * (last.c - c0)) / ((last.t - t0) / 1000) : null;
  return { code, signal, killed, stdout: proc.stdout(), stderr: proc.stderr(), toolCpuPct };
}

/** The last lines of a failed tool's output, for the failure reason. */
export function outputTail(x: Pick<ToolExit, 'stdout' | 'stderr'>): string {
  return (x.stderr.trim() || x.stdout.trim()).split('\n').slice(-3).join(' | ');
}

export function emptyResult(toolFailure: string, toolCpuPct: number | null = null): LoadResult {
  return {
    toolFailure,
    requests: 0,
    durationS: 0,
    rps: 0,
    latencyUs: { min: 0, mean: 0, max: 0, p50: null, p90: null, p99: null, p999: null },
    errors: { connect: 0, read: 0, write: 0, status: 0, timeout: 0, closed: 0 },
    checked: 0,
    invalid: 0,
    firstInvalid: '',
    toolCpuPct,
  };
}
