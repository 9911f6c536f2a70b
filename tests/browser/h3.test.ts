// The demo page over HTTP/3 in a real browser: the `npm start` demo with TLS_CERT/TLS_KEY (HTTPS, HTTP/2 and HTTP/3
// on one port) and Debian's Chromium told to use QUIC for that origin and to trust the test certificate by its key's
// hash. The page, its scripts and styles, the SSE clock and the charts all come over h3, as the browser reports.
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testPki } from '../h2/h2.js';
import { closeChromium, launchChromium } from './chromium.js';
import { type Demo, startDemo } from './demo-server.js';

describe('the demo page over HTTP/3 in Chromium', { timeout: 180_000 }, () => {
  let demo: Demo;
  let browser: Browser;

  before(async () => {
    const { leaf } = testPki();
    demo = await startDemo({ TLS_CERT: leaf.certPath, TLS_KEY: leaf.keyPath });
    const origin = new URL(demo.url).host;
    // Chromium's QUIC trusts no certificate outside its root store unless its public key is named here.
    const spki = createHash('sha256')
      .update(createPublicKey(leaf.cert).export({ type: 'spki', format: 'der' }))
      .digest('base64');
    browser = await launchChromium([
      `--origin-to-force-quic-on=${origin}`,
      `--ignore-certificate-errors-spki-list=${spki}`,
    ]);
  });
  after(async () => {
    await closeChromium(browser);
    await demo?.stop();
  });

  test('the page and everything it loads over HTTP are h3; the SSE clock ticks over it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    assert.match(demo.url, /^https:/);
    await page.goto(`${demo.url}/demo/`);
    const first = await page.evaluate(() => Number(document.getElementById('clock-ticks')?.textContent));
    await page.waitForFunction((n) => Number(document.getElementById('clock-ticks')?.textContent) >= n + 2, first, {
      timeout: 10_000,
    });
    await page.waitForFunction(() => document.querySelectorAll('#charts img').length > 0);
    const seen = await page.evaluate(() => ({
      page: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
      loaded: performance
        .getEntriesByType('resource')
        .map((e) => [e.name, (e as PerformanceResourceTiming).nextHopProtocol] as const)
        .filter(([name]) => name.startsWith('https:')),
    }));
    assert.equal(seen.page, 'h3');
    assert.ok(seen.loaded.length >= 3, `the page loads its assets: ${JSON.stringify(seen.loaded)}`);
    const notH3 = seen.loaded.filter(([, p]) => p !== 'h3');
    assert.deepEqual(notH3, [], 'every asset came over HTTP/3');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
