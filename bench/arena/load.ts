// One load run of an arena profile: writes the profile's requests as HttpArena's .raw files (and their closing forms),
// runs wrk with arena.lua pinned to its core with a hard time limit, and parses the BENCH_JSON line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from '../lib/proc.ts';
import { outputTail, runPinnedTool } from '../lib/toolrun.ts';
import type { ArenaData } from './data.ts';
import { type Profile, rawRequest } from './profiles.ts';

const script = readFileSync(new URL('./arena.lua', import.meta.url), 'utf8');

export interface ArenaLoad {
  /** Set when wrk itself failed or a connection error happened (the row is FAILED with it). */
  failure?: string;
  /** Read and write errors forgiven as closes the server made without saying so (renewal.ts), at most `closes`. */
  unannounced: number;
  /** Requests sent with `Connection: close` (the renewals). */
  closes: number;
  requests: number;
  durationS: number;
  rps: number;
  /** Bytes wrk read (heads and bodies), for json-comp's bytes per response. */
  bytes: number;
  /** Per request (per batch when pipelined), wrk's coordinated-omission corrected figures; null when unknown. */
  p99Us: number | null;
  meanUs: number;
  checked: number;
  invalid: number;
  firstInvalid: string;
  errors: Record<string, number>;
  toolCpuPct: number | null;
}

const lua = (s: string) => JSON.stringify(s); // JSON string escapes are valid Lua for the ASCII we write

/** The Lua config table arena.lua expects. */
export function arenaConfig(p: Profile, files: string[], closeFiles: string[]): string {
  const statuses = [p.check.status]
    .flat()
    .map((x) => `[${x}] = true`)
    .join(', ');
  const bodies = p.check.bodies ? `{ ${p.check.bodies.map((b) => `[${lua(b)}] = true`).join(', ')} }` : 'nil';
  return (
    `local arena = { files = { ${files.map(lua).join(', ')} }, close_files = { ${closeFiles.map(lua).join(', ')} }, ` +
    `per_connection = ${p.perConnection}, pipeline = ${p.pipeline}, status = { ${statuses} }, bodies = ${bodies}, ` +
    `header = ${p.check.header ? lua(p.check.header) : 'nil'} }\n`
  );
}

/** What every load run of a profile is given (load.ts, load-h2.ts, load-h3.ts, load-ws.ts). */
export interface LoadArgs {
  profile: Profile;
  data: ArenaData;
  port: number;
  connections: number;
  durationS: number;
  /** The load tool's core. */
  cpu: number;
  nofile: number;
}

export async function loadRun(
  o: LoadArgs & {
    /** HTTPS (json-tls): wrk speaks TLS to the port. */
    secure?: boolean;
    /** The server closes unannounced (renewal.ts): read and write errors up to one per renewal are not failures. */
    unannouncedCloses?: boolean;
  },
): Promise<ArenaLoad> {
  const dir = mkdtempSync(join(tmpdir(), 'gale-arena-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  try {
    const files: string[] = [];
    const closeFiles: string[] = [];
    o.profile.templates.forEach((t, i) => {
      const upload = t.body && 'upload' in t.body ? readFileSync(o.data.uploads[t.body.upload]) : undefined;
      files.push(join(dir, `req-${i}.raw`));
      closeFiles.push(join(dir, `req-${i}-close.raw`));
      writeFileSync(files[i] as string, rawRequest(t, upload));
      writeFileSync(closeFiles[i] as string, rawRequest(t, upload, true));
    });
    const scriptPath = join(dir, 'arena.lua');
    writeFileSync(scriptPath, arenaConfig(o.profile, files, closeFiles) + script);
    const timeoutS = 10;
    const args = [
      '-t1',
      `-c${o.connections}`,
      `-d${o.durationS}s`,
      '--timeout',
      `${timeoutS}s`,
      '-s',
      scriptPath,
      `${o.secure ? 'https' : 'http'}://127.0.0.1:${o.port}`,
    ];
    const limitMs = (o.durationS + timeoutS + 15) * 1000;
    const x = await runPinnedTool('wrk', args, { cpu: o.cpu, nofile: o.nofile, limitMs });
    const line = x.stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
    if (x.killed || x.code !== 0 || !line) {
      const why = x.killed ? `wrk did not finish within ${limitMs / 1000}s` : `wrk exited with ${x.code ?? x.signal}`;
      return { ...emptyLoad(`${why}: ${outputTail(x)}`), toolCpuPct: x.toolCpuPct };
    }
    const j = JSON.parse(line.slice('BENCH_JSON '.length)) as {
      requests: number;
      duration_us: number;
      bytes: number;
      errors: Record<string, number>;
      latency_us: { mean: number; max: number; p50: number; p99: number };
      checked: number;
      invalid: number;
      first_invalid: string;
      closes: number;
    };
    const durationS = j.duration_us / 1e6;
    // wrk takes an answer without `Connection: close` for keep-alive, writes its next request and meets the close: a
    // read or write error per renewal at most, which loses no answer (the request was never the server's to answer).
    const closeErrors = (j.errors.read ?? 0) + (j.errors.write ?? 0);
    const forgiven = o.unannouncedCloses && closeErrors <= j.closes ? closeErrors : 0;
    const errs = Object.entries(j.errors).filter(([k, v]) => v > 0 && !(forgiven && (k === 'read' || k === 'write')));
    return {
      // A socket error or a timeout loses answers: the row is not a valid figure then.
      failure: errs.length ? `wrk counted errors: ${errs.map(([k, v]) => `${k} ${v}`).join(', ')}` : undefined,
      unannounced: forgiven,
      closes: j.closes,
      requests: j.requests,
      durationS,
      rps: durationS > 0 ? j.checked / durationS : 0,
      bytes: j.bytes,
      p99Us: j.latency_us.p99 === 0 && j.latency_us.max > 0 ? null : j.latency_us.p99,
      meanUs: j.latency_us.mean,
      checked: j.checked,
      invalid: j.invalid,
      firstInvalid: j.first_invalid,
      errors: j.errors,
      toolCpuPct: x.toolCpuPct,
    };
  } finally {
    removeDir();
    unhook();
  }
}

/** A load run with no figures: `failure` says why (the other load files share it). */
export function emptyLoad(failure?: string): ArenaLoad {
  return {
    failure,
    unannounced: 0,
    closes: 0,
    requests: 0,
    durationS: 0,
    rps: 0,
    bytes: 0,
    p99Us: null,
    meanUs: 0,
    checked: 0,
    invalid: 0,
    firstInvalid: '',
    errors: {},
    toolCpuPct: null,
  };
}
