// Chromium for the browser suites: Debian's package (`apt-get install -y chromium`, installed here when missing and
// running as root; otherwise the test fails with that command), driven by playwright-core, which downloads no
// browser of its own. Headless, sandbox off (containers, root), no background traffic, and a fresh profile: each
// launch gets a new temporary --user-data-dir from Playwright.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { ensureCommand } from '../system-tools.js';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches Debian's Chromium (installing it first if needed and allowed), with `extraArgs`. Close it when done. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = ensureCommand('chromium', 'chromium');
  // Chromium's own temp files go to a folder of this launch, removed by closeChromium even when Chromium was killed
  // (a killed Chromium leaves its org.chromium.Chromium.* folder behind).
  const tmp = mkdtempSync(join(tmpdir(), 'gale-chromium-'));
  const browser = await chromium
    .launch({
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      env: { ...process.env, TMPDIR: tmp },
      timeout: 60_000,
    })
    .catch((err) => {
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    });
  tempDirs.set(browser, tmp);
  return browser;
}

const tempDirs = new WeakMap<Browser, string>();

/** How long closing may take before the browser is killed: a clean close takes well under a second here. */
const CLOSE_WITHIN_MS = 15_000;

/**
 * Closes `browser`: its contexts first (Playwright's advice when a page still has live connections), then the browser,
 * bounded. Chromium now and then never finishes closing (a known Playwright/Chromium hang; the CI run of 2026-12-03
 * timed out the chat suite at 120 s after both its tests had passed, in the hook that closed the browser); then this
 * says so on stderr and kills the Chromium processes this test started, so a suite neither hangs nor leaves one behind.
 */
export async function closeChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const closing = (async () => {
    for (const context of browser.contexts()) await context.close().catch(() => {});
    await browser.close();
  })();
  if (!(await settlesWithin(closing, CLOSE_WITHIN_MS))) {
    const killed = killChildChromium();
    process.stderr.write(
      `chromium did not close within ${CLOSE_WITHIN_MS / 1000} s; killed its processes (${killed.join(', ') || 'none found'})\n`,
    );
    // Playwright notices the exit and removes its profile folder; give it that turn.
    await settlesWithin(closing, 5_000);
  }
  const tmp = tempDirs.get(browser);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

/** Whether `promise` settles (either way) within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    late,
  ]);
  clearTimeout(timer);
  return settled;
}

/** SIGKILLs the Chromium processes that are children of this process (Playwright starts Chromium directly). */
function killChildChromium(): number[] {
  const out = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout ?? '';
  const pids: number[] = [];
  for (const line of out.split('\n')) {
    const [pid, comm] = line.trim().split(/\s+/);
    if (pid && comm && /chrom/i.test(comm)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
        pids.push(Number(pid));
      } catch {
        // already gone
      }
    }
  }
  return pids;
}
