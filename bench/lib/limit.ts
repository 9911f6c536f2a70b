// The `limit` servers: bench/limit/limit.c (raw epoll) and limit-uring.c (io_uring), one thread each, fixed response
// bytes per path, built here with gcc into .cache/bench-limit and given a responses file made from the dynamic
// scenarios. Their rows show what this machine can do, so every other server reads as a fraction of them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../scripts/cache-dir.mjs';
import { type Scenario, scenarios } from './scenarios.ts';
import type { Launch, LaunchContext } from './server-types.ts';

const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The two responders: the same answers from raw epoll (limit.c) and from io_uring (limit-uring.c). */
const VARIANTS = {
  epoll: { source: join(benchDir, 'limit', 'limit.c'), bin: cacheDir('bench-limit', 'limit') },
  uring: {
    source: join(benchDir, 'limit', 'limit-uring.c'),
    bin: cacheDir('bench-limit', 'limit-uring'),
  },
} as const;
type Variant = keyof typeof VARIANTS;
/** What both include: the responses file and the answer for a request line. */
const COMMON = join(benchDir, 'limit', 'limit-common.h');
const REASONS: Record<number, string> = { 200: 'OK', 206: 'Partial Content', 404: 'Not Found' };

/** The exact response `limit` sends for `s`: status line, Content-Type, Content-Length, the body. */
export function limitResponse(s: Scenario): Buffer {
  const head =
    `HTTP/1.1 ${s.status} ${REASONS[s.status] ?? 'OK'}\r\n` +
    `Content-Type: ${s.contentType}\r\nContent-Length: ${s.body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), s.body]);
}

/** The responses file: `<path> <length>\n<bytes>` for every dynamic scenario. */
export function limitResponses(list: readonly Scenario[] = scenarios): Buffer {
  const parts: Buffer[] = [];
  for (const s of list) {
    if (s.kind !== 'dynamic' || Object.keys(s.headers).length > 0) continue;
    const r = limitResponse(s);
    parts.push(Buffer.from(`${s.path} ${r.length}\n`, 'latin1'), r);
  }
  return Buffer.concat(parts);
}

const built: Partial<Record<Variant, string | null>> = {};

/** Builds a responder when it is missing or older than its sources; returns why it cannot be built, or null. */
function buildVariant(v: Variant): string | null {
  const cached = built[v];
  if (cached !== undefined) return cached;
  const { source, bin } = VARIANTS[v];
  let fresh = false;
  try {
    fresh = statSync(bin).mtimeMs >= Math.max(statSync(source).mtimeMs, statSync(COMMON).mtimeMs);
  } catch {}
  let why: string | null = null;
  if (!fresh) {
    mkdirSync(join(bin, '..'), { recursive: true });
    const r = spawnSync('gcc', ['-O2', '-Wall', '-Wextra', '-o', bin, source], { encoding: 'utf8' });
    if (r.error) why = `gcc is needed for the limit rows (install it with: apt-get install -y gcc): ${r.error.message}`;
    else if (r.status !== 0) why = `gcc could not build ${source}: ${r.stderr.trim().slice(0, 500)}`;
  }
  built[v] = why;
  return why;
}

/** Why the epoll responder cannot run here, or null. */
export const limitUnavailable = (): string | null => buildVariant('epoll');

/** Why the io_uring responder cannot run here (no gcc, or io_uring switched off for this process), or null. */
export function limitUringUnavailable(): string | null {
  let disabled = '0';
  try {
    disabled = readFileSync('/proc/sys/kernel/io_uring_disabled', 'utf8');
  } catch {}
  return uringRefusal(disabled, process.getuid?.()) ?? buildVariant('uring');
}

/**
 * Why a process of user `uid` may not use io_uring, given the `kernel.io_uring_disabled` sysctl's text, or null.
 * 1 lets only the io_uring_group use it (root included), 2 nobody; a missing sysctl (kernels before 6.6) is 0.
 */
export function uringRefusal(disabled: string, uid: number | undefined): string | null {
  const v = disabled.trim();
  if (v === '2') return 'io_uring is disabled on this machine (sysctl kernel.io_uring_disabled = 2)';
  if (v === '1' && uid !== 0) {
    return 'io_uring is limited to kernel.io_uring_group on this machine (sysctl kernel.io_uring_disabled = 1)';
  }
  return null;
}

function launcher(v: Variant, unavailable: () => string | null) {
  return (ctx: LaunchContext): Launch => {
    const why = unavailable();
    if (why) throw new Error(why);
    const dir = mkdtempSync(join(tmpdir(), 'gale-limit-'));
    const file = join(dir, 'responses');
    writeFileSync(file, limitResponses());
    return {
      cmd: VARIANTS[v].bin,
      args: [String(ctx.port), file],
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  };
}

/** How the harness starts `limit` (epoll) on ctx.port; the responses file goes away after the run. */
export const limitLaunch = launcher('epoll', limitUnavailable);
/** How the harness starts `limit-uring` on ctx.port. */
export const limitUringLaunch = launcher('uring', limitUringUnavailable);
