// Shared by the SvelteKit suites (tests/sveltekit, tests/browser): the example app built with adapter-gale and with
// @sveltejs/adapter-node (examples/sveltekit/scripts/build.mjs, cached per run), servers started in child processes
// on 127.0.0.1 and stopped by the test, and a plain node:http client that shows exactly what was sent.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const buildModule = join(import.meta.dirname, '..', '..', 'examples', 'sveltekit', 'scripts', 'build.mjs');
const { buildExample, exampleDir } = (await import(pathToFileURL(buildModule).href)) as {
  buildExample(adapter: Kind, o?: { log?: (s: string) => void }): Promise<string>;
  exampleDir: string;
};

export { exampleDir };

export type Kind = 'gale' | 'node';

/** The directory of the example's build with `kind` (its `build/` holds the server); built once per run. */
export function built(kind: Kind): Promise<string> {
  return buildExample(kind, { log: (s) => process.stderr.write(`# ${s}\n`) });
}

/** A port that was free a moment ago (the server needs it in ORIGIN before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface KitServer {
  kind: Kind;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  proc: ChildProcess;
  /** stdout + stderr so far */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `ms`; resolves when the process is gone. */
  stop(ms?: number): Promise<number | string>;
}

export interface StartOptions {
  /** Extra environment; `ORIGIN: ''` leaves ORIGIN unset (default: this server's own URL). */
  env?: Record<string, string>;
  /** The file to run, relative to the build directory (default `build/index.js`), or an absolute path. */
  entry?: string;
  /** Wait for "Listening on" (default true); false returns at once (for servers expected to fail). */
  wait?: boolean;
  /** The Node binary that runs it (default: this process's). */
  node?: string;
  /** The environment the settings above are added to (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
}

/** Starts the example's build with `kind` on a free port of 127.0.0.1 (see startBuilt). */
export async function startServer(kind: Kind, o: StartOptions = {}): Promise<KitServer> {
  return startBuilt(kind, await built(kind), o);
}

/**
 * Starts the server of a build (`dir` holds its `build/`) on a free port of 127.0.0.1; it is killed if the test
 * process exits first.
 */
export async function startBuilt(kind: Kind, dir: string, o: StartOptions = {}): Promise<KitServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...((o.baseEnv ?? process.env) as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    ORIGIN: url,
    NODE_ENV: 'production',
    ...o.env,
  };
  if (env.ORIGIN === '') delete env.ORIGIN;
  const entry = o.entry?.startsWith('/') ? o.entry : join(dir, o.entry ?? 'build/index.js');
  const proc = spawn(o.node ?? process.execPath, [entry], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    out += d;
  });
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => {
      process.off('exit', kill);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const server: KitServer = {
    kind,
    port,
    url,
    proc,
    output: () => out,
    exited,
    async stop(ms = 5000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), ms);
        const r = await exited;
        clearTimeout(t);
        return r;
      }
      return exited;
    },
  };
  if (o.wait === false) return server;
  const deadline = Date.now() + 20_000;
  while (!out.includes('Listening on')) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`${kind} server exited before listening:\n${out}`);
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${kind} server did not listen within 20 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return server;
}

export interface HttpAnswer {
  status: number;
  /** Header values by lower-case name; repeated headers (Set-Cookie) as arrays. */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** When each body chunk arrived, in ms after the head. */
  chunkTimes: number[];
}

/** One request over a fresh connection (no compression asked unless the headers ask for it). */
export function request(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: o.method ?? 'GET', headers: o.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const chunkTimes: number[] = [];
      const t0 = Date.now();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        chunkTimes.push(Date.now() - t0);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), chunkTimes });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no complete answer to ${url} within time`)),
      o.timeoutMs ?? 10_000,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(o.body);
  });
}
