// The `npm start` demo page in a real browser (Debian's Chromium through playwright-core): chat between pages in
// rooms, the fast-ws event/reply round trip with its latency, the SSE clock, and the benchmark charts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { type Demo, startDemo } from './demo-server.js';

describe('the demo page in Chromium', { timeout: 180_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  const errors: string[] = [];

  before(async () => {
    [demo, browser] = await Promise.all([startDemo(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
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
      charts: string[];
    };
    assert.match(listed.node ?? '', /^v\d+\./, 'the Node version of the run, from its report');
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
    await page.context().close();
  });

  test('no script error on the page', () => {
    assert.deepEqual(errors, []);
  });
});
