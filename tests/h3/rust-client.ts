// The Rust HTTP/3 client for the tests: bench/loadgen-h3 (quinn + h3), built with cargo on first use, run against a
// test app; it validates every response against the expectation it is given and prints one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The directory cargo built the binaries into, once built. */
let built: string | undefined;

/**
 * Builds bench/loadgen-h3 (profile `tool`: gale-loadgen-h3 and gale-quic-fuzz) once per process and returns the path
 * of `bin`; throws saying how to get cargo.
 */
export function loadgenH3(bin: 'gale-loadgen-h3' | 'gale-quic-fuzz' = 'gale-loadgen-h3'): string {
  if (built) return join(built, bin);
  const probe = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error('the Rust HTTP/3 client (bench/loadgen-h3) is built with cargo: install Rust (https://rustup.rs)');
  }
  const b = spawnSync('cargo', ['build', '--profile', 'tool', '-p', 'gale-loadgen-h3'], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (b.status !== 0) throw new Error(`cargo build --profile tool -p gale-loadgen-h3 failed:\n${b.stderr}`);
  const dir = join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'tool');
  if (!existsSync(join(dir, bin))) throw new Error(`cargo built bench/loadgen-h3, but ${join(dir, bin)} is missing`);
  built = dir;
  return join(dir, bin);
}

export interface H3Run {
  /** The exit code: 0 every response valid and no error, 1 otherwise, 2 usage. */
  code: number | null;
  /** The JSON line (undefined when it printed none). */
  result?: {
    requests: number;
    ok: number;
    invalid: number;
    first_invalid: string | null;
    errors: Record<'connect' | 'read' | 'write' | 'timeout' | 'closed' | 'status', number>;
    rps: number;
    latency_us: Record<'p50' | 'p99' | 'max', number>;
    protocol: string;
    /** Seconds until every connection was open (null: not all within 10 s). */
    open_s: number | null;
    /** Failed attempts to open the connections before the run. */
    open_connect_errors: number;
  };
  stderr: string;
}

/** Runs the client with `args` (its options after --url and --ca) against https://127.0.0.1:`port``path`. */
export function runH3(port: number, path: string, caPath: string, args: string[]): Promise<H3Run> {
  const bin = loadgenH3();
  const child = spawn(
    bin,
    ['--url', `https://127.0.0.1:${port}${path}`, '--ca', caPath, '--server-name', 'a.test', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // Bounded: the longest run the tests ask for is a few seconds.
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(kill);
      const line = out.trim().split('\n').pop();
      resolve({ code, result: line ? JSON.parse(line) : undefined, stderr });
    });
  });
}
