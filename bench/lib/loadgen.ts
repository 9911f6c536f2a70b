// The gale-loadgen load tool (bench/loadgen, Rust): built on demand with cargo, run pinned to its core with a hard time
// limit; it checks the status and exact body of every response itself and prints one JSON line, parsed here.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { atExit, commandExists } from './proc.ts';
import { repoDir } from './servers.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';

/** The JSON line gale-loadgen prints (bench/loadgen/README.md). */
export interface LoadgenJson {
  requests: number;
  ok: number;
  invalid: number;
  first_invalid: string | null;
  errors: { connect: number; read: number; write: number; timeout: number; closed: number; status: number };
  duration_s: number;
  rps: number;
  latency_us: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number; min: number };
  /** Seconds until every connection had connected once (null: not within 10 s), and connect errors before counting. */
  open_s?: number | null;
  open_connect_errors?: number;
  /** gale-loadgen-h3: datagrams per GSO send and per GRO receive this kernel gives a loopback UDP socket. */
  udp_offload?: { gso_segments: number; gro_segments: number } | { error: string };
}

/** Cargo's target directory (honours CARGO_TARGET_DIR and .cargo/config), else <repo>/target. */
function targetDir(): string {
  try {
    const out = execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], {
      cwd: repoDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return (JSON.parse(out) as { target_directory: string }).target_directory;
  } catch {
    return process.env.CARGO_TARGET_DIR ?? join(repoDir, 'target');
  }
}

/** A load tool of this workspace built on demand with cargo (`cargo build --profile <profile> -p <name>`). */
export interface CargoTool {
  /** Builds it once per harness run (cargo is quick when nothing changed); null on success, else what to do. */
  build(): string | null;
  /** Its path, once `build()` returned null. */
  binary(): string | null;
}

/** gale-loadgen (profile release) and gale-loadgen-h3 (profile tool) are built and found the same way. */
export function cargoTool(name: string, profile: 'release' | 'tool'): CargoTool {
  const args = ['build', '--profile', profile, '-p', name];
  let binary: string | null = null;
  let problem: string | null = null;
  const build = (): string | null => {
    if (binary || problem) return problem;
    const fallback = join(process.env.CARGO_TARGET_DIR ?? join(repoDir, 'target'), profile, name);
    if (!commandExists('cargo')) {
      if (existsSync(fallback)) {
        process.stderr.write(`note: cargo not found; using the existing ${fallback}, which may be out of date\n`);
        binary = fallback;
        return null;
      }
      problem = [
        `${name} needs to be built with cargo, which is not installed. Install Rust, then run the benchmark again:`,
        "  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh   (or: sudo apt-get install -y cargo)",
        `  then, optionally, build it yourself: cargo ${args.join(' ')}`,
      ].join('\n');
      return problem;
    }
    process.stderr.write(`${name}: cargo ${args.join(' ')}\n`);
    const r = spawnSync('cargo', [...args, '--quiet'], { cwd: repoDir, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) {
      problem = `building ${name} failed (cargo ${args.join(' ')} exited with ${r.status ?? r.signal}; see above)`;
      return problem;
    }
    const built = join(targetDir(), profile, name);
    if (!existsSync(built)) {
      problem = `cargo ${args.join(' ')} succeeded but ${built} does not exist`;
      return problem;
    }
    binary = built;
    return null;
  };
  return { build, binary: () => binary };
}

const tool = cargoTool('gale-loadgen', 'release');
const build = tool.build;

/** Path of the built binary, once `loadgen.missing()` returned null. */
export function loadgenBinary(): string | null {
  return tool.binary();
}

/** A LoadResult from the JSON line gale-loadgen or gale-loadgen-h3 printed (the same form). */
export function loadgenResult(j: LoadgenJson, toolCpuPct: number | null): LoadResult {
  const l = j.latency_us;
  return {
    requests: j.requests,
    durationS: j.duration_s,
    rps: j.duration_s > 0 ? j.requests / j.duration_s : 0,
    latencyUs: { min: l.min, mean: l.mean, max: l.max, p50: l.p50, p90: l.p90, p99: l.p99, p999: l.p999 },
    // Connect errors while the connections were being opened, before the counted run, count too.
    errors: { ...j.errors, connect: j.errors.connect + (j.open_connect_errors ?? 0) },
    // The tool parses and checks every response it counts.
    checked: j.ok + j.invalid,
    invalid: j.invalid,
    firstInvalid: j.first_invalid ?? '',
    toolCpuPct,
    extra: { openS: j.open_s ?? null, openConnectErrors: j.open_connect_errors ?? 0 },
  };
}

/** The last JSON line of a tool's stdout. */
export function lastJsonLine(stdout: string): LoadgenJson | null {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as LoadgenJson) : null;
}

async function run(req: LoadRequest): Promise<LoadResult> {
  const binary = tool.binary();
  if (!binary) return emptyResult(build() ?? 'gale-loadgen is not built');
  if (req.threads !== 1) return emptyResult(`gale-loadgen is single-threaded (got --threads ${req.threads})`);
  const dir = mkdtempSync(join(tmpdir(), 'gale-loadgen-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const bodyPath = join(dir, 'expected-body');
  writeFileSync(bodyPath, req.scenario.body);
  const args = [
    '--url',
    req.url,
    '--connections',
    String(req.connections),
    '--duration',
    String(req.durationS),
    '--pipeline',
    String(req.depth),
    '--timeout',
    String(req.timeoutS),
    '--method',
    req.scenario.method,
    ...Object.entries(req.scenario.headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    '--expect-status',
    String(req.scenario.status),
    '--expect-body-file',
    bodyPath,
  ];
  // + 10 s: gale-loadgen first opens every connection (at most 64 connecting at once, for up to 10 s).
  const limitMs = (req.durationS + req.timeoutS + 25) * 1000;
  const x = await runPinnedTool(binary, args, { cpu: req.cpu, nofile: req.nofile, limitMs });
  removeDir();
  unhook();
  const { code, signal, toolCpuPct } = x;
  if (x.killed) return emptyResult(`gale-loadgen did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
  // Exit code 1 only says that some response was invalid or some error happened: the JSON tells which.
  const j = lastJsonLine(x.stdout);
  if ((code !== 0 && code !== 1) || !j) {
    const why = outputTail(x);
    return emptyResult(`gale-loadgen exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
  }
  return loadgenResult(j, toolCpuPct);
}

export const loadgen: LoadTool = {
  id: 'loadgen',
  maxThreads: 1,
  validates:
    'the exact status and the exact body bytes (parsed and compared in Rust by gale-loadgen); a ' +
    'connection closed by the server is an error',
  latency:
    'per response, from the write(2) that sent its request to the read(2) that completed it, no ' +
    'coordinated-omission correction',
  missing: build,
  version() {
    const binary = tool.binary();
    if (!binary) return 'gale-loadgen (not built)';
    const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    return r.stdout.trim() || 'unknown';
  },
  describe: (connections) => `gale-loadgen -c${connections}`,
  run,
};
