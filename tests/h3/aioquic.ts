// Python's aioquic (PyPI, pinned) as an independent HTTP/3 client for the tests: installed once into
// the cache folder (scripts/cache-dir.mjs), then client.py makes the requests a test describes over one QUIC connection.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../scripts/cache-dir.mjs';

const script = join(dirname(fileURLToPath(import.meta.url)), 'client.py');

/** The aioquic release the tests pin (abi3 wheels: no compiler needed). */
export const AIOQUIC = '1.7.2';

/** An HTTP/3 request as client.py takes it. */
export interface H3Request {
  method?: string;
  path?: string;
  headers?: [string, string][];
  /** The whole body, sent as one DATA frame. */
  body?: Buffer | string;
  /** The body as separate DATA frames, 10 ms apart. */
  chunks?: (Buffer | string)[];
  /** Leave the stream open (no FIN) after the fields and any body, as a stalling client does. */
  open?: boolean;
  /** Send these bytes as the whole request stream instead (frames of the test's own making). */
  raw?: Buffer;
}

export interface H3Response {
  status: number | null;
  headers: [string, string][];
  body: Buffer;
  informational: number[];
  /** The stream was reset with this HTTP/3 error code. */
  reset?: number;
  /** The connection closed with this code before the response ended. */
  closed?: number;
}

/** `PYTHONPATH` with aioquic==AIOQUIC, installed from PyPI on first use; throws saying how to install it. */
export function aioquicPath(): string {
  const target = cacheDir(`aioquic-${AIOQUIC}`);
  const env = { ...process.env, PYTHONPATH: target };
  if (spawnSync('python3', ['-c', 'import aioquic'], { env, stdio: 'ignore' }).status === 0) return target;
  mkdirSync(cacheDir(), { recursive: true });
  const staging = mkdtempSync(cacheDir('aioquic-staging-'));
  try {
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--target', staging, `aioquic==${AIOQUIC}`], {
      stdio: 'inherit',
      timeout: 180_000,
    });
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `the HTTP/3 tests need Python's aioquic ${AIOQUIC} and installing it failed (${(err as Error).message}): ` +
        `install python3 and pip (\`sudo apt-get install -y python3-pip\`), then ` +
        `\`python3 -m pip install --target ${target} aioquic==${AIOQUIC}\``,
    );
  }
  // A rename is atomic: a parallel run never sees a half-installed folder.
  try {
    renameSync(staging, target);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

/** Makes `requests` over one connection to 127.0.0.1:`port` (verifying the server as `servername` against `ca`). */
export function h3Requests(
  port: number,
  ca: string,
  requests: H3Request[],
  opts: { parallel?: boolean; servername?: string; timeout?: number } = {},
): Promise<{ alpn: string; serial: string; responses: H3Response[] }> {
  const spec = {
    port,
    ca,
    servername: opts.servername ?? 'a.test',
    parallel: opts.parallel ?? false,
    timeout: opts.timeout ?? 15,
    requests: requests.map((r) => ({
      method: r.method,
      path: r.path,
      headers: r.headers ?? [],
      ...(r.body !== undefined ? { body: b64(r.body) } : {}),
      ...(r.chunks !== undefined ? { chunks: r.chunks.map(b64) } : {}),
      ...(r.open ? { open: true } : {}),
      ...(r.raw !== undefined ? { raw: b64(r.raw) } : {}),
    })),
  };
  const env = { ...process.env, PYTHONPATH: aioquicPath() };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script], { env, timeout: (spec.timeout + 10) * 1000 });
    child.stdin.end(JSON.stringify(spec));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code: number) => {
      if (code !== 0) return reject(new Error(`aioquic client exited ${code}: ${stderr}`));
      const out = JSON.parse(stdout) as { alpn: string; serial: string; responses: (H3Response & { body: string })[] };
      resolve({
        alpn: out.alpn,
        serial: out.serial,
        responses: out.responses.map((r) => ({ ...r, body: Buffer.from(r.body, 'base64') })),
      });
    });
  });
}
