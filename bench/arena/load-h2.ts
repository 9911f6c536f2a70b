// One load run of an arena HTTP/2 profile: h2load as HttpArena's h2load.sh runs it (`-i` with the profile's URIs, or
// its one URL; `-m` streams; `-p h2c` in cleartext), pinned to its core with a hard time limit. Every response's
// status is checked from h2load's --log-file; where the profile has one body, the DATA bytes must be one body per
// response (h2load checks no body bytes itself).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseH2loadSummary, readH2loadLog } from '../lib/h2load.ts';
import { atExit } from '../lib/proc.ts';
import { outputTail, runPinnedTool } from '../lib/toolrun.ts';
import { type ArenaLoad, emptyLoad, type LoadArgs } from './load.ts';
import { LISTENERS } from './profiles.ts';

export async function h2Run(o: LoadArgs): Promise<ArenaLoad> {
  const h2 = o.profile.streams;
  if (!h2) throw new Error(`${o.profile.id} has no streams to load`);
  const secure = LISTENERS[o.profile.listener ?? 'h1'].secure;
  const origin = `${secure ? 'https' : 'http'}://127.0.0.1:${o.port}`;
  const dir = mkdtempSync(join(tmpdir(), 'gale-arena-h2-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  try {
    const logPath = join(dir, 'requests.tsv');
    const target: string[] = [];
    if (h2.paths.length === 1) target.push(`${origin}${h2.paths[0]}`);
    else {
      writeFileSync(join(dir, 'uris.txt'), `${h2.paths.map((p) => `${origin}${p}`).join('\n')}\n`);
      target.push('-i', join(dir, 'uris.txt'));
    }
    const timeoutS = 10;
    const args = [
      ...target,
      ...(secure ? [] : ['-p', 'h2c']),
      ...Object.entries(h2.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      '-c',
      String(o.connections),
      '-m',
      String(h2.streams),
      '-t',
      '1',
      '-D',
      String(o.durationS),
      '-N',
      `${timeoutS}s`,
      `--log-file=${logPath}`,
    ];
    const limitMs = (o.durationS + timeoutS + 15) * 1000;
    const x = await runPinnedTool('h2load', args, { cpu: o.cpu, nofile: o.nofile, limitMs });
    const s = parseH2loadSummary(x.stdout);
    const secs = /finished in ([\d.]+)(m?s)/.exec(x.stdout);
    if (x.killed || x.code !== 0 || !s || !secs) {
      const why = x.killed ? `h2load did not finish within ${limitMs / 1000}s` : `h2load exited with ${x.code}`;
      return { ...emptyLoad(`${why}: ${outputTail(x)}`), toolCpuPct: x.toolCpuPct };
    }
    let log = '';
    try {
      log = readFileSync(logPath, 'latin1');
    } catch {}
    const l = readH2loadLog(log, typeof o.profile.check.status === 'number' ? o.profile.check.status : 200);
    let invalid = l.wrongStatus;
    let firstInvalid = l.firstWrong;
    const body = o.profile.check.bodies?.length === 1 ? o.profile.check.bodies[0] : undefined;
    if (body !== undefined && (s.dataBytes < s.done * body.length || s.dataBytes > s.started * body.length)) {
      invalid = Math.max(invalid, 1);
      firstInvalid ||= `${s.dataBytes} DATA bytes for ${s.done} answers (expected ${body.length} per answer)`;
    }
    const durationS = Number(secs[1]) / (secs[2] === 'ms' ? 1000 : 1);
    let sum = 0;
    for (const v of l.latencies) sum += v;
    const lost = s.failed + s.errored + s.timeout;
    return {
      // A failed, errored or timed-out request lost its answer: the row is not a valid figure then.
      failure: lost
        ? `h2load counted ${s.failed} failed, ${s.errored} errored, ${s.timeout} timed out requests`
        : undefined,
      unannounced: 0,
      closes: 0,
      requests: s.done,
      durationS,
      rps: durationS > 0 ? l.count / durationS : 0,
      bytes: s.dataBytes,
      p99Us: l.count ? (l.latencies[Math.min(l.count - 1, Math.floor(0.99 * l.count))] ?? null) : null,
      meanUs: l.count ? sum / l.count : 0,
      checked: l.count,
      invalid,
      firstInvalid,
      errors: { failed: s.failed, errored: s.errored, timeout: s.timeout },
      toolCpuPct: x.toolCpuPct,
    };
  } finally {
    removeDir();
    unhook();
  }
}
