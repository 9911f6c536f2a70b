// Types of the WebSocket runs (lib/ws.ts): the scenario ids, options, the generator's JSON line, iterations and
// measurements. Below ws.ts, ws-table.ts and sio.ts, which all use them. No runtime code but the ids.
import type { NodeRuntime } from './runtimes.ts';

export const wsScenarioIds = [
  'ws-echo',
  'ws-echo-h2',
  'fastws-echo',
  'sio-echo',
  'sio-broadcast',
  'ws-broadcast',
  'ws-idle',
] as const;
export type WsScenarioId = (typeof wsScenarioIds)[number];

/** Parameters of the WebSocket runs. */
export interface WsOptions {
  scenarios: WsScenarioId[];
  /** Server names (the HTTP `--servers`); unknown or HTTP-only ones (nginx, gale-nocache) are left out. */
  serverNames: string[];
  quick: boolean;
  durationS: number;
  iterations: number;
  connections: number;
  timeoutS: number;
  serverCpu: number;
  loadCpu: number;
  nofile: number;
  /** Overrides of the generator's parameters (tests). */
  messages?: number;
  step?: number;
  maxClients?: number;
  samples?: number;
  /** ws-idle: connections to hold (default 10 000; quick 1 000), opened per second (1 000), seconds held (3; quick 1). */
  idleConnections?: number;
  idleRate?: number;
  holdS?: number;
  /**
   * sio-echo and sio-broadcast's client: gale-loadgen-ws's Socket.IO modes (`loadgen`, the default) or the real
   * socket.io-client in Node (`socket.io-client`: lib/sio-client.mjs, lib/sio-broadcast-client.mjs).
   */
  sioClient?: SioClient;
  /** sio-echo with gale-loadgen-ws: events in flight per socket (default 4; lib/sio.ts sioEchoInFlight). */
  sioEchoInFlight?: number;
  /** sio-broadcast: broadcasts in flight (default 16, socket.io-client 4; lib/sio.ts sioBroadcastInFlight). */
  sioBroadcastInFlight?: number;
  /** sio-echo with socket.io-client: its worker threads (default 1: the client is pinned to one core). */
  sioWorkers?: number;
  /** sio-broadcast: clients in the room (default 1 000; quick 20). */
  sioClients?: number;
  /** The Nodes the Node-based servers run on (default: the harness's own; `--node`). */
  nodes?: NodeRuntime[];
}

/** The Socket.IO scenarios' load clients (WsOptions.sioClient). */
export type SioClient = 'loadgen' | 'socket.io-client';

/** The generator's JSON line (bench/loadgen/README.md, "gale-loadgen-ws"). */
export interface WsJson {
  /** `sio`: sio-echo by socket.io-client (lib/sio-client.mjs); `sio-echo`: by gale-loadgen-ws. */
  mode: 'echo' | 'fastws' | 'broadcast' | 'idle' | 'sio' | 'sio-echo' | 'sio-broadcast';
  duration_s: number;
  connects: number;
  connects_per_s: number;
  echoes: number;
  echoes_per_s: number;
  valid: number;
  invalid: number;
  first_invalid: string | null;
  errors: Record<'connect' | 'read' | 'write' | 'timeout' | 'closed', number>;
  first_error: string | null;
  connect_us: LatencySummary | null;
  echo_us: LatencySummary | null;
  detail: {
    clients_held?: number;
    held_rtt_us?: { min: number; median: number; mean: number; p95: number; max: number } | null;
    /** Deliveries per second (clients × broadcasts ÷ the step's time) at the held step. */
    held_deliveries_per_s?: number | null;
    /** Broadcasts in flight at once. */
    concurrent?: number;
    stopped?: string;
    steps?: unknown[];
    opened?: number;
    open_s?: number;
    pong_us?: LatencySummary | null;
    /** sio-broadcast: clients in the room, broadcasts in flight at once. */
    clients?: number;
    in_flight?: number;
    /** sio-broadcast: broadcasts delivered to every client, per second; valid deliveries per second. */
    broadcasts?: number;
    broadcasts_per_s?: number;
    deliveries_per_s?: number;
    /** sio-broadcast by gale-loadgen-ws: valid deliveries and the senders' acks (`valid` counts both). */
    deliveries?: number;
    acks?: number;
    /** sio-broadcast: each broadcast's round trip, from its emit until the last client got it. */
    rtt_us?: LatencySummary | null;
    /** sio-broadcast: the server's utime+stime and the client's CPU time over the broadcast phase (no connects). */
    server_cpu_s?: number | null;
    client_cpu_s?: number;
    client_cpu_pct?: number | null;
  } & Record<string, unknown>;
}

export interface LatencySummary {
  min: number;
  mean: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
  stddev: number;
}

export interface WsIteration {
  json: WsJson | null;
  /** Why the run failed, or null. */
  failure: string | null;
  toolCpuPct: number | null;
  /** Server utime+stime over the run, seconds. */
  serverCpuS: number | null;
  /**
   * ws-idle: server RSS before the run and the most seen while every connection was open and idle, in KiB. The
   * first wave on a fresh server process (no connection before it): what a connection costs a new server.
   */
  idle?: IdleMemory;
  /**
   * ws-idle: the same for a second wave of as many connections on the same process, after the first closed: the
   * steady state, where the allocators reuse what the first wave left them (files saved before it existed lack it).
   */
  steady?: IdleMemory;
}

export interface IdleMemory {
  baselineRssKiB: number | null;
  openRssKiB: number | null;
  opened: number;
  /** (openRssKiB − baselineRssKiB) / opened. */
  perConnectionKiB: number | null;
  /**
   * The same for `RssAnon`, the anonymous (private) part of the RSS: without the pages of the node binary's and the
   * addons' code a fresh process reads in for the first time (V8's optimizing compilers, run once the upgrade path is
   * hot, are most of those), which no connection holds. Absent in files saved before it was measured.
   */
  baselineAnonKiB?: number | null;
  openAnonKiB?: number | null;
  perConnectionAnonKiB?: number | null;
}

export interface WsMeasurement {
  scenario: WsScenarioId;
  server: string;
  label: string;
  ok: boolean;
  failure: string | null;
  /** Set for a server without the feature (Gale): shown as "— not implemented yet". */
  notImplemented: string | null;
  iterations: WsIteration[];
  /** The iteration with the median echoes/s (echo scenarios), clients held (ws-broadcast), deliveries/s
   *  (sio-broadcast) or RSS per connection (ws-idle). */
  median: WsIteration | null;
  peakRssMiB: number | null;
  args: string[];
}
