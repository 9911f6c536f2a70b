// Load tools as data: the registry the CLI picks from with --tool (wrk, gale-loadgen from bench/loadgen, ab with and
// without keep-alive, autocannon, h2load, gale-loadgen-h3 from bench/loadgen-h3). The interface they implement is in load-types.ts (re-exported here).
import { ab, abKeepAlive } from './ab.ts';
import { autocannon } from './autocannon.ts';
import { h2load } from './h2load.ts';
import type { LoadTool } from './load-types.ts';
import { loadgen } from './loadgen.ts';
import { loadgenH3 } from './loadgen-h3.ts';
import type { Scenario } from './scenarios.ts';
import { wrk } from './wrk.ts';

export type { LoadErrors, LoadRequest, LoadResult, LoadTool } from './load-types.ts';

export const tools: Readonly<Record<string, LoadTool>> = {
  wrk,
  loadgen,
  ab,
  'ab-k': abKeepAlive,
  autocannon,
  h2load,
  'loadgen-h3': loadgenH3,
};

/** The tool a scenario runs with: its own (`Scenario.tool`, h2load for HTTP/2), else the one --tool chose. */
export function toolFor(scenario: Scenario, chosen: LoadTool): LoadTool {
  return (scenario.tool && tools[scenario.tool]) || chosen;
}
