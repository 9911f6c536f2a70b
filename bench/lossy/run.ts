// `npm run bench:lossy`: page-load time of a page with 20 images in Chromium over HTTP/3 and over HTTP/2, through a
// link that adds delay (lossy/wire.py between two TUN devices: this kernel has no netem) and drops packets at random
// (nftables `numgen` in a network namespace), clean and lossy; each load in a fresh browser context, both protocols
// alternating.
// Options: --trials N (10), --loss PERCENT (1), --rtt MS (50), --only h2|h3.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { atExit, commandExists } from '../lib/proc.ts';
import { benchCert } from '../lib/secure.ts';
import { createLossyLink, lossyLinkMissing } from './netns.ts';

const { values: v } = parseArgs({
  options: {
    trials: { type: 'string', default: '10' },
    loss: { type: 'string', default: '1' },
    rtt: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const trials = Number(v.trials);
const lossPct = Number(v.loss);
const rttMs = Number(v.rtt);
const PORT = 8443;
const ASSETS = 20;

const missing =
  lossyLinkMissing() ?? (commandExists('chromium') ? null : 'chromium is not installed: apt-get install -y chromium');
if (missing) {
  console.error(`bench:lossy: ${missing}`);
  process.exit(2);
}

const link = await createLossyLink(rttMs);
atExit(() => link.remove());
const cert = benchCert();
const server = spawn(
  'ip',
  ['netns', 'exec', link.ns, process.execPath, join(import.meta.dirname, '..', 'apps', 'lossy-page.mjs')],
  {
    env: {
      ...process.env,
      HOST: link.serverAddr,
      PORT: String(PORT),
      BENCH_HTTP3: '1',
      BENCH_TLS_CERT: cert.certPath,
      BENCH_TLS_KEY: cert.keyPath,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
atExit(() => server.kill('SIGKILL'));
await new Promise<void>((resolve, reject) => {
  server.stdout.once('data', () => resolve());
  server.once('exit', (code) => reject(new Error(`the page server exited with ${code}`)));
});
const origin = `${link.serverAddr}:${PORT}`;
/** One TCP handshake to the server through the wire: the round trip the loads see. */
const connectMs = await new Promise<number>((resolve, reject) => {
  const t0 = performance.now();
  const s = net.connect(PORT, link.serverAddr, () => {
    s.destroy();
    resolve(performance.now() - t0);
  });
  s.once('error', reject);
});
process.stderr.write(`round trip through the wire (a TCP connect): ${connectMs.toFixed(1)} ms\n`);
const spki = createHash('sha256')
  .update(createPublicKey(readFileSync(cert.certPath)).export({ type: 'spki', format: 'der' }))
  .digest('base64');
const base = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const executablePath = execFileSync('bash', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
const launch = (args: string[]): Promise<Browser> =>
  chromium.launch({
    executablePath,
    headless: true,
    args: [...base, `--ignore-certificate-errors-spki-list=${spki}`, ...args],
  });
// HTTP/3 forced for the server's origin; HTTP/2 with QUIC off, so Alt-Svc cannot move it to HTTP/3 mid-page.
const browsers = { h3: await launch([`--origin-to-force-quic-on=${origin}`]), h2: await launch(['--disable-quic']) };

/** One page load in a fresh context: ms from navigation start to the load event, and the protocols used. */
async function load(b: Browser, want: string): Promise<number> {
  const ctx = await b.newContext({ ignoreHTTPSErrors: false });
  try {
    const page = await ctx.newPage();
    await page.goto(`https://${origin}/`, { waitUntil: 'load', timeout: 20_000 }).catch(async (err) => {
      const done = await page.evaluate(() => performance.getEntriesByType('resource').length).catch(() => -1);
      throw new Error(`${(err as Error).message.split('\n')[0]} (${done} of ${ASSETS} images loaded)`);
    });
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      return {
        ms: nav.loadEventStart,
        protocols: [nav.nextHopProtocol, ...res.map((r) => r.nextHopProtocol)],
        n: res.length,
      };
    });
    if (t.n !== ASSETS) throw new Error(`${t.n} resources loaded, not ${ASSETS}`);
    const wrong = t.protocols.filter((p) => p !== want);
    if (wrong.length) throw new Error(`expected every load over ${want}, got ${wrong.join(', ')}`);
    return t.ms;
  } finally {
    await ctx.close();
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  return { median: q(0.5), p90: q(0.9), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN };
};
const rows: string[] = [];
const raw: Record<string, Record<string, number[]>> = {};
/** Loads that did not finish within 20 s (or used another protocol), by "loss protocol". */
const failures: Record<string, number> = {};
for (const loss of lossPct === 0 ? [0] : [0, lossPct]) {
  link.setLoss(loss);
  const times: Record<string, number[]> = { h3: [], h2: [] };
  // One uncounted load each first (browser and server warm).
  await load(browsers.h3, 'h3').catch(() => {});
  await load(browsers.h2, 'h2').catch(() => {});
  for (let i = 0; i < trials; i++) {
    const order = i % 2 ? (['h2', 'h3'] as const) : (['h3', 'h2'] as const);
    for (const p of order.filter((x) => !v.only || x === v.only)) {
      try {
        times[p].push(await load(browsers[p], p));
      } catch (err) {
        failures[`${loss} ${p}`] = (failures[`${loss} ${p}`] ?? 0) + 1;
        process.stderr.write(`\nloss ${loss} %, ${p}: ${(err as Error).message.split('\n')[0]}\n`);
      }
    }
    process.stderr.write(`loss ${loss} %: ${i + 1}/${trials}\r`);
  }
  raw[`${loss}`] = times;
  for (const p of ['h3', 'h2'] as const) {
    const s = stats(times[p]);
    rows.push(
      `| ${loss} % | ${p === 'h3' ? 'HTTP/3' : 'HTTP/2'} | ${s.median.toFixed(0)} | ${s.p90.toFixed(0)} | ${s.min.toFixed(0)}–${s.max.toFixed(0)} | ${failures[`${loss} ${p}`] ?? 0} |`,
    );
  }
}
const table = [
  `Page load (ms, navigation start → load event) of a page with ${ASSETS} images (~16 KB each) in Chromium, ${trials} loads per row, each in a fresh context; RTT +${rttMs} ms (wire; a TCP connect took ${connectMs.toFixed(1)} ms), loss each direction in the namespace:`,
  '',
  '| loss | protocol | median | p90 | min–max | failed (no load event within 20 s) |',
  '| --- | --- | ---: | ---: | ---: | ---: |',
  ...rows,
].join('\n');
console.log(table);
const out = join(import.meta.dirname, '..', 'results', `${new Date().toISOString().slice(0, 10)}-lossy`);
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'lossy.json'),
  `${JSON.stringify({ trials, lossPct, rttMs, connectMs, assets: ASSETS, raw, failures }, null, 1)}\n`,
);
writeFileSync(join(out, 'report.md'), `${table}\n`);
for (const b of Object.values(browsers)) await b.close();
server.kill('SIGTERM');
link.remove();
process.exit(0);
