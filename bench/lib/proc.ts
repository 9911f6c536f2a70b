// Process helpers for the harness: start children pinned to a core with a raised open-file limit, track them so they
// are always killed (exit, Ctrl-C), wait for a port, and read CPU time and memory from /proc/<pid>.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

const children = new Set<ChildProcess>();
const exitHooks = new Set<() => void>();
let cleanupInstalled = false;

/** Runs `fn` when the harness exits (normally or on a signal); returns a function that unregisters it. */
export function atExit(fn: () => void): () => void {
  installCleanup();
  exitHooks.add(fn);
  return () => exitHooks.delete(fn);
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const fn of exitHooks) fn();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      process.stderr.write(`\n${sig}: stopping servers and load generators\n`);
      // Kill and reap the children ourselves (then exit even if one hangs); 'exit' SIGKILLs any survivor.
      const live = [...children].filter((c) => c.exitCode === null && c.signalCode === null);
      const gone = live.map((c) => new Promise((res) => c.once('close', res)));
      for (const c of live) c.kill('SIGKILL');
      const code = sig === 'SIGINT' ? 130 : 143;
      setTimeout(() => process.exit(code), 2000).unref();
      void Promise.all(gone).then(() => process.exit(code));
    });
  }
}

export interface SpawnOptions {
  /** A core, or a taskset list such as '0,1'. */
  cpu: number | string;
  nofile: number;
  env?: NodeJS.ProcessEnv;
  /** Bytes of stdout/stderr kept (the tail). */
  keep?: number;
}

export interface Pinned {
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `cmd args…` through `bash -c 'ulimit -n N; exec taskset -c CPU cmd args…'`. Every step execs, so the pid we get
 * is the pid of `cmd` itself, which is what /proc measurements need.
 */
export function spawnPinned(cmd: string, args: readonly string[], opts: SpawnOptions): Pinned {
  installCleanup();
  const script = `ulimit -n ${opts.nofile} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec taskset -c ${opts.cpu} "$@"`;
  const child = spawn('bash', ['-c', script, 'bash', cmd, ...args], {
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  children.add(child);
  const keep = opts.keep ?? 64 * 1024;
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out = (out + d).slice(-keep);
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-keep);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      res({ code, signal });
    });
  });
  return { child, pid: child.pid, stdout: () => out, stderr: () => err, exited };
}

export function isRunning(p: Pinned): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stop(p: Pinned, graceMs = 2000): Promise<void> {
  if (!isRunning(p)) {
    await p.exited;
    return;
  }
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Ports this process handed out, never handed out twice (two servers may be started before either binds). */
const handedOut = new Set<number>();

/**
 * A port that was free a moment ago on 127.0.0.1, for a server the bench starts next. It is picked below the kernel's
 * ephemeral range (net.ipv4.ip_local_port_range), which `listen(0)` draws from: a port from that range could go to
 * another process between this check and the server's own bind, and its server would answer the bench's requests (in
 * CI the upstream suites, which start many servers, run beside the bench). Where the range cannot be read, any free
 * port.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low !== null && low > 4096) {
    const base = Math.max(2048, low - 16_384);
    for (let i = 0; i < 64; i++) {
      const port = base + Math.floor(Math.random() * (low - base));
      if (!handedOut.has(port) && (await canListen(port))) {
        handedOut.add(port);
        return port;
      }
    }
  }
  for (let i = 0; i < 64; i++) {
    const port = await canListen(0);
    if (port && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port on 127.0.0.1');
}

/** The first port of the kernel's ephemeral range, or null (not Linux, or unreadable). */
function ephemeralLow(): number | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : null;
  } catch {
    return null;
  }
}

/** Listens on 127.0.0.1:`port` and closes again: the port bound (the kernel's pick for 0), or 0 if it was taken. */
function canListen(port: number): Promise<number> {
  return new Promise((res) => {
    const srv = net.createServer();
    srv.once('error', () => res(0));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      const bound = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(bound));
    });
  });
}

function tryConnect(port: number): Promise<boolean> {
  return new Promise((res) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      sock.destroy();
      res(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** Waits until 127.0.0.1:port accepts a TCP connection; throws if the process exits or `timeoutMs` passes. */
export async function waitForPort(p: Pinned, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(p)) throw new Error(`exited before listening (code ${p.child.exitCode ?? p.child.signalCode})`);
    if (await tryConnect(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`did not listen on 127.0.0.1:${port} within ${timeoutMs / 1000}s`);
}

let clkTck: number | undefined;
export function clockTicks(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** utime + stime of the whole process (all threads), in seconds; null if the process is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return null;
  }
}

/**
 * A line of /proc/<pid>/status in KiB (VmHWM = peak RSS, VmRSS = current, RssAnon = the anonymous part of VmRSS: the
 * process's private memory, without the file-backed pages of its binaries' code it has read in), or null.
 */
export function vmKiB(pid: number, field: 'VmHWM' | 'VmRSS' | 'RssAnon'): number | null {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** How many file descriptors a process has open (its sockets included), or null if it is gone. */
export function openFds(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Soft "Max open files" of a running process, or null. */
export function openFileLimit(pid: number): number | null {
  try {
    const m = readFileSync(`/proc/${pid}/limits`, 'utf8').match(/^Max open files\s+(\d+|unlimited)/m);
    return m ? (m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1])) : null;
  } catch {
    return null;
  }
}

/** The open-file limit spawnPinned() children actually get when asking for `wanted`. */
export function effectiveOpenFileLimit(wanted: number): number {
  const script = `ulimit -n ${wanted} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; ulimit -n`;
  const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' }).trim();
  return out === 'unlimited' ? Number.POSITIVE_INFINITY : Number(out);
}

/** The CPUs this process may run on (from /proc/self/status), e.g. [0, 1]. */
export function allowedCpus(): number[] {
  const m = readFileSync('/proc/self/status', 'utf8').match(/^Cpus_allowed_list:\s+(.+)$/m);
  const out: number[] = [];
  for (const part of (m?.[1] ?? '0').split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || Number.isNaN(a)) continue;
    for (let i = a; i <= (b ?? a); i++) out.push(i);
  }
  return out;
}

export function commandExists(cmd: string): boolean {
  try {
    execFileSync('bash', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
