// Chromium for the browser suites: Debian's package (`apt-get install -y chromium`, installed here when missing and
// running as root; otherwise the test fails with that command), driven by playwright-core, which downloads no
// browser of its own. Headless, sandbox off (containers, root), no background traffic, and a fresh profile: each
// launch gets a new temporary --user-data-dir from Playwright.
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
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs], timeout: 60_000 });
}
