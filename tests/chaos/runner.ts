// The live fuzzer: starts the real demo app (`npm start`'s server) in its own process, sends it batches of
// generated and mutated HTTP and WebSocket sessions over real sockets (split at random offsets, pipelined,
// dripped, cut or reset mid-message), and after every batch checks that the process is alive and still answers
// a plain request and a WebSocket echo correctly. A crash, a hang or a wrong answer is a finding: the batch's
// bytes are saved for replay and the server is restarted.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpRequest } from './http-gen.js';
import { mutateN, Rng } from './rng.js';
import { encodeFrame, messageFrames, upgradeRequest } from './ws-gen.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChaosOptions {
  durationMs: number;
  seed: number;
  /** Path of the addon to load (GALE_NATIVE), e.g. a build with debug assertions. */
  native?: string;
  /** Sessions per batch. */
  concurrency?: number;
  /** Where a finding's batch is written for replay. */
  findingsDir?: string;
  log?: (line: string) => void;
}

export interface Finding {
  /** A 500 is a finding too: bad input must get a 4xx that says what was wrong, never an internal error. */
  kind: 'crash' | 'hang' | 'wrong answer' | 'server error';
  batch: number;
  detail: string;
  file?: string;
}

export interface ChaosResult {
  seed: number;
  durationMs: number;
  batches: number;
  sessions: number;
  /** Sessions by kind: generated HTTP (one request or a pipelined run), WebSocket, sans-IO corpus seeds. */
  httpSessions: number;
  wsSessions: number;
  seedSessions: number;
  /** Separate writes (a split or dripped message counts once per piece). */
  writes: number;
  bytesSent: number;
  statuses: Record<string, number>;
  closeCodes: Record<string, number>;
  findings: Finding[];
  restarts: number;
  server: { rssStartKiB: number; rssEndKiB: number; fdsStart: number; fdsEnd: number };
}

/** One delivery: bytes and the pause before them. */
type Write = [delayMs: number, bytes: Buffer];

/** How a session ends after its last write. */
type Ending = 'read' | 'close' | 'reset' | 'half-close';

interface Session {
  kind: 'http' | 'ws' | 'seed';
  writes: Write[];
  ending: Ending;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Seeds from the sans-IO fuzz corpora, without their configuration prefix bytes. */
function loadSeeds(): { heads: Buffer[]; chunked: Buffer[]; frames: Buffer[] } {
  const read = (dir: string, skip: number) => {
    try {
      return readdirSync(join(root, dir)).map((f) => readFileSync(join(root, dir, f)).subarray(skip));
    } catch {
      return [];
    }
  };
  return {
    heads: read('crates/gale-http/fuzz/seeds/head', 3),
    chunked: read('crates/gale-http/fuzz/seeds/chunked', 3),
    frames: read('crates/gale-ws/fuzz/seeds/frame', 5),
  };
}

/** Cuts `data` into writes at random offsets with small pauses (or drips it for short inputs). */
function deliver(rng: Rng, data: Buffer): Write[] {
  const mode = rng.weighted([
    [50, 'whole'],
    [35, 'split'],
    [10, 'drip'],
    [5, 'slow-split'],
  ] as const);
  if (mode === 'whole' || data.length < 2) return [[0, data]];
  if (mode === 'drip' && data.length <= 200) {
    const out: Write[] = [];
    for (let i = 0; i < data.length; i += 1 + rng.int(4)) out.push([rng.int(3), data.subarray(i, i + 1 + rng.int(4))]);
    return out;
  }
  const cuts = Array.from({ length: rng.range(1, 6) }, () => rng.int(data.length)).sort((a, b) => a - b);
  const out: Write[] = [];
  let prev = 0;
  for (const c of [...cuts, data.length]) {
    if (c > prev) out.push([mode === 'slow-split' ? rng.int(150) : rng.int(5), data.subarray(prev, c)]);
    prev = c;
  }
  return out;
}

function makeSession(rng: Rng, seeds: ReturnType<typeof loadSeeds>): Session {
  const ending = rng.weighted([
    [70, 'read'],
    [12, 'close'],
    [12, 'reset'],
    [6, 'half-close'],
  ] as const);
  const kind = rng.weighted([
    [50, 'http'],
    [42, 'ws'],
    [8, 'seed'],
  ] as const);
  const mutated = (b: Buffer, p: number) => (rng.chance(p) ? mutateN(rng, b, rng.range(1, 4)) : b);
  if (kind === 'http') {
    const n = rng.chance(0.3) ? rng.range(2, 16) : 1;
    const reqs = Array.from({ length: n }, () => mutated(httpRequest(rng), 0.15));
    // Pipelined: all requests in one stream, cut anywhere.
    return { kind, writes: deliver(rng, Buffer.concat(reqs)), ending };
  }
  if (kind === 'seed') {
    const pick = rng.int(3);
    let bytes: Buffer;
    if (pick === 0 && seeds.heads.length) bytes = rng.pick(seeds.heads);
    else if (pick === 1 && seeds.chunked.length)
      bytes = Buffer.concat([
        Buffer.from('POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'),
        rng.pick(seeds.chunked),
      ]);
    else {
      const up = upgradeRequest(rng).bytes;
      bytes = Buffer.concat([up, seeds.frames.length ? rng.pick(seeds.frames) : Buffer.alloc(0)]);
    }
    return { kind, writes: deliver(rng, mutated(bytes, 0.5)), ending };
  }
  const up = upgradeRequest(rng);
  const writes: Write[] = deliver(rng, mutated(up.bytes, 0.05));
  // Frames go either right behind the handshake (before the 101 arrives) or a moment later.
  const messages = rng.range(1, 10);
  for (let i = 0; i < messages; i++) {
    const frames = messageFrames(rng, up.deflate).map(encodeFrame);
    const bytes = mutated(Buffer.concat(frames), 0.1);
    const parts = deliver(rng, bytes);
    if (i === 0 && rng.chance(0.5) && parts[0]) parts[0][0] += 20;
    writes.push(...parts);
  }
  return { kind, writes, ending };
}

/** Runs one session over a real socket; resolves when it is over (bounded by `deadlineMs`). */
function runSession(
  port: number,
  s: Session,
  stats: ChaosResult,
  deadlineMs: number,
  onServerError: (s: Session, answer: string) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let finished = false;
    let lastData = Date.now();
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      const text = got.toString('latin1');
      for (const m of text.matchAll(/HTTP\/1\.[01] (\d{3})/g)) {
        const code = m[1] as string;
        stats.statuses[code] = (stats.statuses[code] ?? 0) + 1;
        if (code.startsWith('5') && code !== '503' && code !== '505' && code !== '501')
          onServerError(s, text.slice(m.index ?? 0, (m.index ?? 0) + 400));
      }
      const close = closeCodeOf(got);
      if (close !== undefined) stats.closeCodes[close] = (stats.closeCodes[close] ?? 0) + 1;
      sock.destroy();
      resolve();
    };
    const deadline = setTimeout(finish, deadlineMs);
    sock.on('data', (d: Buffer) => {
      lastData = Date.now();
      if (got.length < 1 << 20) got = Buffer.concat([got, d]);
    });
    sock.on('error', finish);
    sock.on('close', finish);
    sock.on('connect', async () => {
      for (const [delay, bytes] of s.writes) {
        if (delay > 0) await sleep(delay);
        if (finished || sock.destroyed) return;
        sock.write(bytes);
        stats.bytesSent += bytes.length;
      }
      if (s.ending === 'close' || s.ending === 'half-close') sock.end();
      else if (s.ending === 'reset') sock.resetAndDestroy();
      // Read until the server has been quiet for a moment after answering (or closed the connection);
      // a server busy with the rest of the batch gets up to 400 ms to start answering.
      const sent = Date.now();
      const quiet = () => {
        if (finished) return;
        const answered = got.length > 0;
        if (answered ? Date.now() - lastData >= 60 : Date.now() - sent >= 400) finish();
        else setTimeout(quiet, 30);
      };
      setTimeout(quiet, 60);
    });
  });
}

/** The code of the first close frame in a WebSocket response stream, if any (after the 101 head). */
function closeCodeOf(got: Buffer): string | undefined {
  const head = got.indexOf('\r\n\r\n');
  if (head < 0 || !got.subarray(0, 12).toString('latin1').includes(' 101')) return undefined;
  let pos = head + 4;
  while (pos + 2 <= got.length) {
    const op = (got[pos] as number) & 0x0f;
    let len = (got[pos + 1] as number) & 0x7f;
    let off = pos + 2;
    if (len === 126) {
      if (off + 2 > got.length) return undefined;
      len = got.readUInt16BE(off);
      off += 2;
    } else if (len === 127) {
      if (off + 8 > got.length) return undefined;
      len = Number(got.readBigUInt64BE(off));
      off += 8;
    }
    if (op === 8) return len >= 2 && off + 2 <= got.length ? String(got.readUInt16BE(off)) : '1005';
    pos = off + len;
  }
  return undefined;
}

/** A session as JSON, bytes in base64 (and latin1 for reading). */
function dumpSession(s: Session): object {
  return {
    kind: s.kind,
    ending: s.ending,
    writes: s.writes.map(([d, b]) => ({
      delay: d,
      base64: b.toString('base64'),
      text: b.toString('latin1').slice(0, 2000),
    })),
  };
}

/** The demo in its own process. */
class DemoServer {
  child: ChildProcess | undefined;
  port = 0;
  exit: string | undefined;
  stderr = '';

  constructor(private readonly native: string | undefined) {}

  async start(): Promise<void> {
    this.exit = undefined;
    this.stderr = '';
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production' };
    if (this.native) env.GALE_NATIVE = this.native;
    const child = spawn(process.execPath, [join(root, 'examples', 'demo', 'server.mjs')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    child.once('exit', (code, signal) => {
      this.exit = signal ? `signal ${signal}` : `exit code ${code}`;
    });
    this.port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const t = setTimeout(() => reject(new Error(`the demo did not start: ${this.stderr}`)), 20_000);
      child.stdout?.on('data', (d: Buffer) => {
        out += d;
        const m = /localhost:(\d+)/.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', () => {
        clearTimeout(t);
        reject(new Error(`the demo exited while starting: ${this.exit}\n${this.stderr}`));
      });
    });
  }

  stop(): void {
    this.child?.kill('SIGKILL');
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
  }

  /** RSS in KiB and open descriptors, from /proc. */
  usage(): { rssKiB: number; fds: number } {
    const pid = this.child?.pid;
    if (!pid) return { rssKiB: 0, fds: 0 };
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'latin1');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return { rssKiB: rss, fds: readdirSync(`/proc/${pid}/fd`).length };
    } catch {
      return { rssKiB: 0, fds: 0 };
    }
  }
}

/** A plain request and a WebSocket echo, each answered exactly within 5 s; a description of what failed, or null. */
async function health(port: number, n: number): Promise<string | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
    const body = await r.text();
    if (r.status !== 200 || body !== '{"hello":"world"}') return `GET / answered ${r.status} ${JSON.stringify(body)}`;
  } catch (e) {
    return `GET / failed: ${(e as Error).message}`;
  }
  const payload = Buffer.from(`health ${n} ${'x'.repeat(n % 300)}`);
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const done = (v: string | null) => {
      clearTimeout(t);
      sock.destroy();
      resolve(v);
    };
    const t = setTimeout(() => done(`WebSocket echo: no answer within 5 s (got ${got.length} bytes)`), 5000);
    sock.on('error', (e) => done(`WebSocket echo: ${e.message}`));
    sock.on('connect', () => {
      sock.write(
        'GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
      sock.write(encodeFrame({ opcode: 1, payload }));
    });
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const head = got.indexOf('\r\n\r\n');
      if (head < 0) return;
      if (!got.subarray(0, 13).toString().startsWith('HTTP/1.1 101'))
        return done(`upgrade answered ${got.subarray(0, 40)}`);
      const frame = got.subarray(head + 4);
      const len = payload.length < 126 ? 2 : 4;
      if (frame.length < len + payload.length) return;
      const echoed = frame.subarray(len, len + payload.length);
      done(echoed.equals(payload) ? null : `WebSocket echo returned ${JSON.stringify(echoed.toString())}`);
    });
  });
}

/** Runs the fuzzer for `durationMs`; never throws for findings (they are in the result). */
export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const log = opts.log ?? (() => {});
  const rng = new Rng(opts.seed);
  const seeds = loadSeeds();
  const concurrency = opts.concurrency ?? 48;
  const stats: ChaosResult = {
    seed: opts.seed,
    durationMs: 0,
    batches: 0,
    sessions: 0,
    httpSessions: 0,
    wsSessions: 0,
    seedSessions: 0,
    writes: 0,
    bytesSent: 0,
    statuses: {},
    closeCodes: {},
    findings: [],
    restarts: 0,
    server: { rssStartKiB: 0, rssEndKiB: 0, fdsStart: 0, fdsEnd: 0 },
  };
  const server = new DemoServer(opts.native);
  await server.start();
  const t0 = Date.now();
  let lastLog = t0;
  try {
    // Warm-up so the start figures are not the bare process.
    await health(server.port, 0);
    const u0 = server.usage();
    stats.server.rssStartKiB = u0.rssKiB;
    stats.server.fdsStart = u0.fds;
    while (Date.now() - t0 < opts.durationMs) {
      const batch = Array.from({ length: concurrency }, () => makeSession(rng, seeds));
      for (const s of batch) {
        stats.sessions++;
        stats[s.kind === 'ws' ? 'wsSessions' : s.kind === 'http' ? 'httpSessions' : 'seedSessions']++;
        stats.writes += s.writes.length;
      }
      const serverErrors: [Session, string][] = [];
      await Promise.all(
        batch.map((s) => runSession(server.port, s, stats, 3000, (bad, answer) => serverErrors.push([bad, answer]))),
      );
      for (const [bad, answer] of serverErrors.slice(0, 3)) {
        const finding: Finding = { kind: 'server error', batch: stats.batches + 1, detail: answer };
        if (opts.findingsDir) {
          mkdirSync(opts.findingsDir, { recursive: true });
          finding.file = join(
            opts.findingsDir,
            `seed${opts.seed}-batch${stats.batches + 1}-5xx-${stats.findings.length}.json`,
          );
          writeFileSync(finding.file, JSON.stringify({ finding, session: dumpSession(bad) }, null, 1));
        }
        stats.findings.push(finding);
        log(`FINDING server error in batch ${finding.batch}: ${answer.split('\r\n')[0]}`);
      }
      stats.batches++;
      let problem = server.exit ? `the server died: ${server.exit}` : await health(server.port, stats.batches);
      if (problem === null && server.exit) problem = `the server died: ${server.exit}`;
      if (problem !== null) {
        const kind: Finding['kind'] = server.exit
          ? 'crash'
          : /within|failed|aborted/i.test(problem)
            ? 'hang'
            : 'wrong answer';
        const finding: Finding = { kind, batch: stats.batches, detail: `${problem}\n${server.stderr.slice(-1500)}` };
        if (opts.findingsDir) {
          mkdirSync(opts.findingsDir, { recursive: true });
          finding.file = join(opts.findingsDir, `seed${opts.seed}-batch${stats.batches}.json`);
          writeFileSync(
            finding.file,
            JSON.stringify({ finding: { ...finding }, sessions: batch.map(dumpSession) }, null, 1),
          );
        }
        stats.findings.push(finding);
        log(`FINDING ${kind} in batch ${stats.batches}: ${problem}`);
        server.stop();
        await server.start();
        stats.restarts++;
      }
      if (Date.now() - lastLog > 60_000) {
        lastLog = Date.now();
        const u = server.usage();
        log(
          `${Math.round((Date.now() - t0) / 1000)} s: ${stats.batches} batches, ${stats.sessions} sessions, ` +
            `${stats.findings.length} findings, server RSS ${u.rssKiB} KiB, ${u.fds} fds`,
        );
      }
    }
    const u1 = server.usage();
    stats.server.rssEndKiB = u1.rssKiB;
    stats.server.fdsEnd = u1.fds;
  } finally {
    server.stop();
  }
  stats.durationMs = Date.now() - t0;
  return stats;
}
