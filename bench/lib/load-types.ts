// What a load tool is given and gives back (LoadRequest, LoadResult, LoadErrors) and the LoadTool interface every load
// generator implements (lib/wrk.ts, loadgen.ts, ab.ts, autocannon.ts, h2load.ts); tools.ts is their registry. Types only.
import type { Scenario } from './scenario-types.ts';

export interface LoadRequest {
  /** http://127.0.0.1:<port><scenario.path> (https:// for the TLS scenarios). */
  url: string;
  scenario: Scenario;
  /** Requests in flight per connection: 1 = plain, >1 = pipelined (wrk: per write; loadgen: refilled as answered). */
  depth: number;
  durationS: number;
  /** For count-based tools (ab): the number of requests to send; `durationS` is then unused. */
  requests?: number;
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
  /** Responses with a status ≥ 400 (that was not the expected status). */
  status: number;
  timeout: number;
  /** The server closed a connection (wrk counts these as read errors and reports 0 here). */
  closed: number;
}

export interface LoadResult {
  /** Set when the tool itself failed (crash, no output, killed after its time limit). */
  toolFailure?: string;
  requests: number;
  durationS: number;
  rps: number;
  /**
   * Microseconds. wrk: per write (a whole batch when pipelined), after its coordinated-omission correction; a
   * percentile is null when wrk could not compute it (see bench/README.md, "Latency caveats"). loadgen: per response,
   * from the write that sent its request to the response's end.
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
  /** Tool-specific figures kept in the raw JSON (ab: keep-alive requests, bytes; loadgen: connection opening). */
  extra?: Record<string, unknown>;
}

export interface LoadTool {
  id: string;
  /** Most load-generator threads it can use (--threads). */
  maxThreads: number;
  /** The modes it can run (default: every mode); the others are shown as "—". */
  modes?: readonly string[];
  /** Runs a number of requests (`LoadRequest.requests`, --requests) instead of a duration. */
  countBased?: boolean;
  /** Exactly what it checks on every counted response, for the report (never more than it does). */
  validates: string;
  /** What its latency figures are, for the report. */
  latency: string;
  /** null when usable (building it first if needed), else a message that says exactly how to install it. */
  missing(): string | null;
  version(): string;
  /** How a run is invoked, for the progress line and the table header, e.g. `wrk -t1 -c100`. */
  describe(connections: number, threads: number): string;
  run(req: LoadRequest): Promise<LoadResult>;
}
