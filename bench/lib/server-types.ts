// What the harness knows of a server under test (ServerDef) and how one that is not a Node app starts (Launch,
// LaunchContext); servers.ts and the modules it gathers servers from (limit.ts, secure.ts, sveltekit.ts) use them,
// so none of those imports servers.ts for a type. Types only.
import type { ScenarioKind } from './scenario-types.ts';

/** What a server needs to know to start. */
export interface LaunchContext {
  port: number;
  connections: number;
}

/** A server's command line; `cleanup` runs after it stopped. */
export interface Launch {
  cmd: string;
  args: string[];
  env?: Record<string, string>;
  cleanup?: () => void;
}

export interface ServerDef {
  /** CLI name, e.g. `node-http`. */
  name: string;
  /** Human label used in tables. */
  label: string;
  /** Absolute path of the app file (Node apps, started with `node <entry>` and PORT in the environment). */
  entry?: string;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** Starts something other than a Node app (nginx, Bun, Deno). */
  launch?: (ctx: LaunchContext) => Launch;
  /** The Node binary a Node app runs on (default: the harness's own; see `onNodes()`), and its major version. */
  node?: string;
  nodeMajor?: number;
  /** The oldest Node major the app runs on (fulmine.js: 22): on an older one its rows are "—", with the reason. */
  minNode?: number;
  /**
   * Scenario kinds it serves (default: dynamic and static); the others are shown as "—" (not served), never as a
   * figure. Only the servers that list `fetch` run the fetch-handler scenarios.
   */
  kinds?: readonly ScenarioKind[];
  /** Returns a reason when the server cannot be started, or null: the server is reported FAILED. */
  unavailable?: () => string | null;
  /**
   * A variant measured on purpose: it runs when named in `--servers`, not in a full run by default. `'quick'` (the
   * io_uring rows): `--quick` runs it too, since CI's io_uring coverage of the bench apps is that run; `true` (the
   * tracing rows, which tests/otel covers): only when named.
   */
  optIn?: boolean | 'quick';
  /** Returns a reason when the server is left out (an optional system tool is missing), or null: shown as "—". */
  skip?: () => string | null;
  /**
   * The peer's own bugs, each reproduced without the harness: scenario id → the modes it fails in and why. Still run and
   * still shown FAILED everywhere; only `--quick` (CI) does not count them as the harness's failures, and says so.
   */
  knownFailures?: Readonly<Record<string, { modes: readonly string[]; why: string }>>;
}
