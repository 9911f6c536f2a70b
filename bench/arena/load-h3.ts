// The arena's HTTP/3 profiles (baseline-h3, static-h3): HttpArena runs h2load built with ngtcp2 (`--alpn-list=h3`,
// -m 64), which Debian's h2load is not; gale-loadgen-h3 (quinn + h3) runs them here, rotating the profile's paths and
// checking every answer's status and exact body (for a static file: the file, or its .br or .gz sibling). The
// validation is one request per path over HTTP/3 (HttpArena's validate.sh has no HTTP/3 section).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastJsonLine } from '../lib/loadgen.ts';
import { loadgenH3, loadgenH3Binary } from '../lib/loadgen-h3.ts';
import { atExit } from '../lib/proc.ts';
import { outputTail, runPinnedTool } from '../lib/toolrun.ts';
import type { Check } from './check-http.ts';
import type { ArenaData } from './data.ts';
import { type ArenaLoad, emptyLoad, type LoadArgs } from './load.ts';
import type { Profile } from './profiles.ts';

/** The tool's --target arguments: each path with the files an answer may be (written into `dir` when literal). */
function targets(profile: Profile, data: ArenaData, dir: string): string[] {
  const h3 = profile.streams;
  if (!h3) throw new Error(`${profile.id} has no paths`);
  return h3.paths.flatMap((path, i) => {
    let files: string[];
    if (path.startsWith('/static/')) {
      const f = join(data.dir, 'static', path.slice('/static/'.length));
      files = [f, `${f}.br`, `${f}.gz`].filter((x) => existsSync(x));
    } else {
      const body = profile.check.bodies?.[0];
      if (body === undefined) throw new Error(`${profile.id}: no body to expect for ${path}`);
      files = [join(dir, `body-${i}`)];
      writeFileSync(files[0] as string, body);
    }
    return ['--target', `${path}=${files.join(',')}`];
  });
}

function common(port: number, profile: Profile, data: ArenaData, dir: string): string[] {
  return [
    '--url',
    `https://127.0.0.1:${port}/`,
    '--ca',
    data.certs.cert,
    '--server-name',
    'localhost',
    ...Object.entries(profile.streams?.headers ?? {}).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    ...targets(profile, data, dir),
  ];
}

/** Builds gale-loadgen-h3 if needed; null when it is there, else why not. */
const built = (): string | null => loadgenH3.missing();

/** One request per path over HTTP/3, each answer checked (status and body). */
export function validateH3(profile: Profile, port: number, data: ArenaData): Check[] {
  const label = `${profile.id}: every path over HTTP/3 (status 200, the exact body)`;
  const missing = built();
  const bin = loadgenH3Binary();
  if (missing || !bin) return [{ label, ok: false, detail: missing ?? 'gale-loadgen-h3 is not built' }];
  const dir = mkdtempSync(join(tmpdir(), 'gale-arena-h3-'));
  try {
    const n = profile.streams?.paths.length ?? 1;
    const args = [...common(port, profile, data, dir), '--connections', '1', '--requests', String(n), '--timeout', '5'];
    const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000 });
    const j = lastJsonLine(r.stdout ?? '');
    if (r.status === 0 && j && j.ok === n) return [{ label, ok: true, detail: '' }];
    const why = j?.first_invalid ?? (`${r.stderr ?? ''}`.trim().split('\n').pop() || `exit ${r.status ?? r.signal}`);
    return [{ label, ok: false, detail: why }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function h3Run(o: LoadArgs): Promise<ArenaLoad> {
  const missing = built();
  const bin = loadgenH3Binary();
  if (missing || !bin) return emptyLoad(missing ?? 'gale-loadgen-h3 is not built');
  const dir = mkdtempSync(join(tmpdir(), 'gale-arena-h3-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  try {
    const timeoutS = 10;
    const args = [
      ...common(o.port, o.profile, o.data, dir),
      '--connections',
      String(o.connections),
      '--streams',
      String(o.profile.streams?.streams ?? 1),
      '--duration',
      String(o.durationS),
      '--timeout',
      String(timeoutS),
    ];
    const limitMs = (o.durationS + timeoutS + 25) * 1000;
    const x = await runPinnedTool(bin, args, { cpu: o.cpu, nofile: o.nofile, limitMs });
    const j = lastJsonLine(x.stdout);
    if (x.killed || (x.code !== 0 && x.code !== 1) || !j) {
      const why = x.killed ? `gale-loadgen-h3 did not finish within ${limitMs / 1000}s` : `exited with ${x.code}`;
      return { ...emptyLoad(`${why}: ${outputTail(x)}`), toolCpuPct: x.toolCpuPct };
    }
    const errs = Object.entries(j.errors).filter(([, v]) => v > 0);
    return {
      failure: errs.length
        ? `gale-loadgen-h3 counted errors: ${errs.map(([k, v]) => `${k} ${v}`).join(', ')}`
        : undefined,
      unannounced: 0,
      closes: 0,
      requests: j.requests,
      durationS: j.duration_s,
      rps: j.duration_s > 0 ? j.ok / j.duration_s : 0,
      bytes: 0,
      p99Us: j.latency_us.p99,
      meanUs: j.latency_us.mean,
      checked: j.ok + j.invalid,
      invalid: j.invalid,
      firstInvalid: j.first_invalid ?? '',
      errors: j.errors,
      toolCpuPct: x.toolCpuPct,
    };
  } finally {
    removeDir();
    unhook();
  }
}
