// Load tools as data: the interface every load generator implements (wrk today; ab and autocannon later) and the
// registry the CLI picks from with --tool.
import type { Scenario } from './scenarios.ts';
import { wrk } from './wrk.ts';

export interface LoadRequest {
  /** Always http://127.0.0.1:<port><scenario.path>. */
  url: string;
  scenario: Scenario;
  /** Requests per write: 1 = plain, >1 = pipelined. */
  depth: number;
  durationS: number;
  connections: number;
  threads: number;
  /** A response slower than this counts as a timeout error. */
  timeoutS: number;
  /** Core the load generator is pinned to. */
  cpu: number;
  nofile: number;
}

export interface LoadErrors {
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

export interface LoadResult {
  /** Set when the tool itself failed (crash, no output, killed after its time limit). */
  toolFailure?: string;
  requests: number;
  durationS: number;
  rps: number;
  /**
   * Microseconds, as wrk reports them: per write (a whole batch when pipelined), after wrk's coordinated-omission
   * correction. A percentile is null when wrk could not compute it (see bench/README.md, "Latency caveats").
   */
  latencyUs: {
    min: number;
    mean: number;
    max: number;
    p50: number | null;
    p90: number | null;
    p99: number | null;
    p999: number | null;
  };
  errors: LoadErrors;
  /** Responses whose status and body were checked, and how many of them were wrong. */
  checked: number;
  invalid: number;
  firstInvalid: string;
  /** Load generator's own CPU use over the run, in % of one core (≈100 means the tool is the bottleneck). */
  toolCpuPct: number | null;
}

export interface LoadTool {
  id: string;
  /** null when usable, else a message that says exactly how to install it. */
  missing(): string | null;
  version(): string;
  run(req: LoadRequest): Promise<LoadResult>;
}

export const tools: Readonly<Record<string, LoadTool>> = { wrk };
