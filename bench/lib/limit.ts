// The `limit` server: bench/limit/limit.c (raw epoll, one thread, fixed response bytes per path), built here with gcc
// into .cache/bench-limit and given a responses file made from the dynamic scenarios. Its row shows what this machine
// can do, so every other server reads as a fraction of it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Scenario, scenarios } from './scenarios.ts';
import type { Launch, LaunchContext } from './server-types.ts';

const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = resolve(benchDir, '..');
const SOURCE = join(benchDir, 'limit', 'limit.c');
const BIN = join(repoDir, '.cache', 'bench-limit', 'limit');
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

let built: string | null | undefined;

/** Builds the binary when it is missing or older than its source; returns why it cannot be built, or null. */
export function limitUnavailable(): string | null {
  if (built !== undefined) return built;
  let fresh = false;
  try {
    fresh = statSync(BIN).mtimeMs >= statSync(SOURCE).mtimeMs;
  } catch {}
  if (!fresh) {
    mkdirSync(join(BIN, '..'), { recursive: true });
    const r = spawnSync('gcc', ['-O2', '-Wall', '-Wextra', '-o', BIN, SOURCE], { encoding: 'utf8' });
    if (r.error)
      built = `gcc is needed for the limit row (install it with: apt-get install -y gcc): ${r.error.message}`;
    else if (r.status !== 0) built = `gcc could not build bench/limit/limit.c: ${r.stderr.trim().slice(0, 500)}`;
    else built = null;
    return built;
  }
  built = null;
  return built;
}

/** How the harness starts `limit` on ctx.port; the responses file goes away after the run. */
export function limitLaunch(ctx: LaunchContext): Launch {
  const why = limitUnavailable();
  if (why) throw new Error(why);
  const dir = mkdtempSync(join(tmpdir(), 'gale-limit-'));
  const file = join(dir, 'responses');
  writeFileSync(file, limitResponses());
  return { cmd: BIN, args: [String(ctx.port), file], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
