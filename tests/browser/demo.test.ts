// The `npm start` demo page in a real browser (Debian's Chromium through playwright-core): chat between pages in
// rooms, the fast-ws event/reply round trip with its latency, the SSE clock, and the benchmark charts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeChromium, launchChromium } from './chromium.js';
import { type Demo, startDemo } from './demo-server.js';

describe('the demo page in Chromium', { timeout: 180_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  const errors: string[] = [];

  before(async () => {
    [demo, browser] = await Promise.all([startDemo(), launchChromium()]);
  });
  after(async () => {
    await closeChromium(browser);
    await demo?.stop();
  });

  async function open(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${demo.url}/demo/`);
    return page;
  }

  async function join(page: Page, name: string, room: string): Promise<void> {
    await page.fill('#name', name);
    await page.fill('#room', room);
    await page.click('#join button');
    await page.waitForFunction(
      (r) => document.getElementById('chat-status')?.textContent?.startsWith(`in #${r}`),
      room,
    );
  }

  test('chat: two pages in a room talk, a page in another room hears nothing', async () => {
    const [ada, bob, cy] = await Promise.all([open(), open(), open()]);
    await join(ada, 'ada', 'lobby');
    await join(bob, 'bob', 'lobby');
    await join(cy, 'cy', 'elsewhere');
    assert.match((await bob.textContent('#chat-status')) ?? '', /in #lobby \(2 here\)/);
    await ada.waitForSelector('#messages li.system:has-text("bob joined")');
    await ada.fill('#text', 'hello lobby');
    await ada.press('#text', 'Enter');
    await bob.waitForSelector('#messages li.message:has-text("ada: hello lobby")');
    await ada.waitForSelector('#messages li.message:has-text("ada: hello lobby")');
    await bob.fill('#text', 'hi ada');
    await bob.click('#say button');
    await ada.waitForSelector('#messages li.message:has-text("bob: hi ada")');
    await cy.fill('#text', 'anyone?');
    await cy.press('#text', 'Enter');
    await cy.waitForSelector('#messages li.message:has-text("cy: anyone?")');
    const cyLines = await cy.$$eval('#messages li', (lis) => lis.map((li) => li.textContent));
    assert.ok(!cyLines.some((l) => l?.includes('lobby') || l?.includes('bob')), cyLines.join(' | '));
    // Leaving: bob closes his page, ada is told.
    await bob.context().close();
    await ada.waitForSelector('#messages li.system:has-text("bob left")');
    await ada.context().close();
    await cy.context().close();
  });

  test('fast-ws: an event and its reply, with the latency shown', async () => {
    const page = await open();
    await page.waitForSelector('#fws-send:not([disabled])');
    await page.click('#fws-send');
    await page.waitForFunction(() => document.getElementById('fws-reply')?.textContent !== '—');
    assert.deepEqual(JSON.parse((await page.textContent('#fws-reply')) ?? ''), { n: 1, text: 'hello #1' });
    assert.match((await page.textContent('#fws-latency')) ?? '', /^\d+\.\d\d ms$/);
    await page.click('#fws-burst');
    await page.waitForFunction(() => document.getElementById('fws-latency')?.textContent?.startsWith('median'));
    assert.deepEqual(JSON.parse((await page.textContent('#fws-reply')) ?? ''), { n: 21, text: 'hello #21' });
    await page.context().close();
  });

  test('SSE: the clock ticks every second', async () => {
    const page = await open();
    await page.waitForFunction(() => Number(document.getElementById('clock-ticks')?.textContent) >= 1);
    // The count and the time are read together: under load the page's load event (which goto waits for) can come
    // after several ticks, so "two more" counts from what was already there.
    const read = () =>
      page.evaluate(() => ({
        ticks: Number(document.getElementById('clock-ticks')?.textContent),
        clock: document.getElementById('clock')?.textContent,
      }));
    const first = await read();
    await page.waitForFunction(
      (n) => Number(document.getElementById('clock-ticks')?.textContent) >= n + 2,
      first.ticks,
      { timeout: 10_000 },
    );
    assert.notEqual((await read()).clock, first.clock);
    await page.context().close();
  });

  test('the newest benchmark charts are shown', async () => {
    const page = await open();
    const listed = (await (await fetch(`${demo.url}/demo/charts.json`)).json()) as {
      date: string;
      node: string | null;
      peers: string[];
      charts: string[];
    };
    assert.match(listed.node ?? '', /^v\d+\./, 'the Node version of the run, from its report');
    assert.ok(
      Number(/^v(\d+)/.exec(listed.node ?? '')?.[1]) >= 26,
      `the page's run is on Node 26 or later: ${listed.node}`,
    );
    for (const peer of ['uWebSockets.js', 'fulmine.js', 'ultimate-express']) {
      assert.ok(
        listed.peers.some((p) => p.startsWith(`${peer} `)),
        `the run names ${peer}'s version: ${listed.peers}`,
      );
    }
    assert.ok(listed.charts.length > 0, 'docs/bench has charts');
    await page.waitForFunction((n) => document.querySelectorAll('#charts img').length === n, listed.charts.length);
    await page.$$eval('#charts img', (imgs) => Promise.all(imgs.map((i) => (i as HTMLImageElement).decode())));
    const widths = await page.$$eval('#charts img', (imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth));
    assert.ok(
      widths.every((w) => w > 0),
      `every chart loaded: ${widths}`,
    );
    const shown = (await page.textContent('#bench-date')) ?? '';
    assert.match(shown, new RegExp(listed.date));
    assert.ok(shown.includes(`Node ${listed.node}`), `the page names the Node version: ${shown}`);
    for (const peer of listed.peers) assert.ok(shown.includes(peer), `the page names ${peer}: ${shown}`);
    await page.context().close();
  });

  test('the charts are readable at the page width: screenshots at 85 % or more of their own size, no page overflow', async () => {
    for (const width of [1280, 820]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${demo.url}/demo/`);
      await page.waitForFunction(() => document.querySelectorAll('#charts img').length > 0);
      const count = await page.locator('#charts img').count();
      for (let i = 0; i < count; i++) {
        const img = page.locator('#charts img').nth(i);
        await img.scrollIntoViewIfNeeded();
        await img.evaluate((el) => (el as HTMLImageElement).decode());
        // The size set once the chart loaded (app.js), then what Chromium draws of it, decoded back in the page.
        await page.waitForFunction((el) => (el as HTMLImageElement).style.minWidth !== '', await img.elementHandle());
        const natural = await img.evaluate((el) => (el as HTMLImageElement).naturalWidth);
        const shot = (await img.screenshot()).toString('base64');
        const seen = await page.evaluate(async (b64) => {
          const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
          ctx.drawImage(bitmap, 0, 0);
          const px = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
          let dark = 0;
          const colours = new Set<number>();
          for (let p = 0; p < px.length; p += 4) {
            const [r, g, b] = [px[p] as number, px[p + 1] as number, px[p + 2] as number];
            if (r + g + b < 200) dark++;
            colours.add((r >> 4) * 256 + (g >> 4) * 16 + (b >> 4));
          }
          return { width: bitmap.width, dark: dark / (px.length / 4), colours: colours.size };
        }, shot);
        const name = await img.getAttribute('alt');
        assert.ok(seen.width >= natural * 0.85 - 1, `${name} at ${width} px: drawn ${seen.width} px of ${natural}`);
        assert.ok(seen.dark > 0.002, `${name}: text and axes are drawn (${seen.dark})`);
        assert.ok(seen.colours >= 3, `${name}: bars in colour (${seen.colours} colours)`);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `at ${width} px the page itself does not scroll sideways (${overflow} px)`);
      await context.close();
    }
  });

  test('no script error on the page', () => {
    assert.deepEqual(errors, []);
  });
});
