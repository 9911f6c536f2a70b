// The arena's echo-ws profile: HttpArena's WebSocket validation (its scripts/validate-ws.py, vendored in data/, run with
// python3) and the load, gale-loadgen-ws in echo mode on /ws (each connection sends a 5-byte text message and awaits
// its exact echo, one in flight, for the whole run, as gcannon --ws does), pinned to its core with a hard time limit.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { outputTail, runPinnedTool } from '../lib/toolrun.ts';
import { wsBinary, wsJudge } from '../lib/ws.ts';
import type { WsJson } from '../lib/ws-types.ts';
import type { Check } from './check-http.ts';
import { type ArenaLoad, emptyLoad, type LoadArgs } from './load.ts';

/** validate-ws.py's checks against 127.0.0.1:port/ws, one Check per PASS or FAIL line it prints. */
export function validateWs(port: number): Check[] {
  const script = join(import.meta.dirname, 'data', 'validate-ws.py');
  const r = spawnSync('python3', [script, '127.0.0.1', String(port), '/ws'], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) return [{ label: 'echo-ws validation', ok: false, detail: `python3 could not run: ${r.error.message}` }];
  const checks: Check[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(PASS|FAIL) \[(.+?)\](?:: (.*)|(?: \((.*)\))?)$/.exec(line);
    if (m) checks.push({ label: m[2] as string, ok: m[1] === 'PASS', detail: m[1] === 'PASS' ? '' : (m[3] ?? '') });
  }
  if (!checks.length || (r.status !== 0 && checks.every((c) => c.ok))) {
    const tail = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ');
    checks.push({ label: 'echo-ws validation', ok: false, detail: `validate-ws.py exited with ${r.status}: ${tail}` });
  }
  return checks;
}

export async function wsRun(o: LoadArgs): Promise<ArenaLoad> {
  const bin = wsBinary();
  if ('failure' in bin) return emptyLoad(bin.failure);
  const timeoutS = 10;
  const args = [
    '--mode',
    'echo',
    '--url',
    `ws://127.0.0.1:${o.port}/ws`,
    '--connections',
    String(o.connections),
    // One connection for the whole run, as gcannon --ws keeps it.
    '--messages',
    '1000000000',
    '--size',
    '5',
    '--duration',
    String(o.durationS),
    '--timeout',
    String(timeoutS),
  ];
  const limitMs = (o.durationS + 2 * timeoutS + 10) * 1000;
  const x = await runPinnedTool(bin.path, args, { cpu: o.cpu, nofile: o.nofile, limitMs });
  const line = x.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (x.killed || !line) {
    const why = x.killed ? `gale-loadgen-ws did not finish within ${limitMs / 1000}s` : `exited with ${x.code}`;
    return { ...emptyLoad(`${why}: ${outputTail(x)}`), toolCpuPct: x.toolCpuPct };
  }
  const j = JSON.parse(line) as WsJson;
  return {
    failure: wsJudge(j) ?? undefined,
    unannounced: 0,
    closes: 0,
    requests: j.echoes,
    durationS: j.duration_s,
    rps: j.duration_s > 0 ? j.valid / j.duration_s : 0,
    bytes: 0,
    p99Us: j.echo_us?.p99 ?? null,
    meanUs: j.echo_us?.mean ?? 0,
    checked: j.valid + j.invalid,
    invalid: j.invalid,
    firstInvalid: j.first_invalid ?? '',
    errors: j.errors,
    toolCpuPct: x.toolCpuPct,
  };
}
