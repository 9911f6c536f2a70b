// The SvelteKit example in a real browser (Debian's Chromium through playwright-core), on adapter-gale and on
// adapter-node (its custom server with `ws` for the WebSocket): navigation and hydration, a form action with and
// without JavaScript, cookies across requests, a streamed page, a WebSocket, server-side fetch and errors.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { exampleDir, type Kind, type KitServer, startServer } from '../sveltekit/servers.js';
import { closeChromium, launchChromium } from './chromium.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => closeChromium(browser));

for (const kind of ['gale', 'node'] as Kind[]) {
  describe(`SvelteKit on ${kind === 'gale' ? 'adapter-gale' : 'adapter-node'}`, { timeout: 600_000 }, () => {
    let s: KitServer;
    const errors: string[] = [];
    before(async () => {
      s = await startServer(kind, {
        entry: kind === 'node' ? join(exampleDir, 'scripts', 'node-server.mjs') : undefined,
      });
    });
    after(() => s?.stop());

    async function open(path: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
      const context: BrowserContext = await browser.newContext(options);
      const page = await context.newPage();
      page.on('pageerror', (err) => errors.push(`${path}: ${err.message}`));
      await page.goto(s.url + path);
      return page;
    }
    const hydrated = (page: Page) => page.waitForSelector('main[data-hydrated="true"]');
    /** Marks the document, so a later check tells a client-side navigation from a full page load. */
    const mark = (page: Page) => page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    const sameDocument = (page: Page) => page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument);

    test('hydration and client-side navigation', async () => {
      const page = await open('/');
      await hydrated(page);
      await page.click('#counter');
      await page.waitForSelector('#counter:has-text("clicked 1 times")');
      await mark(page);
      await page.click('nav a[href="/blog"]');
      await page.waitForSelector('h1:has-text("Blog")');
      await page.click('a[href="/blog/gale"]');
      await page.waitForSelector('#title:has-text("On Gale")');
      assert.equal(page.url(), `${s.url}/blog/gale`);
      assert.equal(await sameDocument(page), true, 'navigated without reloading');
      await page.goBack();
      await page.waitForSelector('h1:has-text("Blog")');
      await page.context().close();
    });

    test('form action with progressive enhancement', async () => {
      const page = await open('/form');
      await hydrated(page);
      await mark(page);
      await page.fill('input[name="text"]', `enhanced on ${kind}`);
      await page.click('form button');
      await page.waitForSelector(`#added:has-text("enhanced on ${kind}")`);
      await page.waitForSelector(`#messages li:has-text("enhanced on ${kind}")`);
      assert.equal(await sameDocument(page), true, 'use:enhance posted without a page load');
      await page.click('form button'); // empty: the action fails with 400 and says why
      await page.waitForSelector('#error:has-text("Write something first.")');
      await page.context().close();

      // Without JavaScript the same form is a plain POST answered with the whole page.
      const plain = await open('/form', { javaScriptEnabled: false });
      await plain.fill('input[name="text"]', `plain on ${kind}`);
      await Promise.all([plain.waitForNavigation(), plain.click('form button')]);
      assert.match((await plain.textContent('#added')) ?? '', new RegExp(`plain on ${kind}`));
      const items = await plain.$$eval('#messages li', (lis) => lis.map((li) => li.textContent));
      assert.deepEqual(items.slice(-2), [`enhanced on ${kind}`, `plain on ${kind}`]);
      await plain.context().close();
    });

    test('cookies across requests', async () => {
      const page = await open('/cookies');
      assert.equal(await page.textContent('#visits'), '1');
      await page.reload();
      assert.equal(await page.textContent('#visits'), '2');
      await page.goto(`${s.url}/cookies`);
      assert.equal(await page.textContent('#visits'), '3');
      const cookies = await page.context().cookies();
      const byName = Object.fromEntries(cookies.map((c) => [c.name, c]));
      assert.equal(byName.visits?.value, '3');
      assert.equal(byName.theme?.value, 'dark');
      assert.equal(byName.session?.httpOnly, true);
      await hydrated(page);
      // The reset action deletes the cookie; use:enhance then reruns the load, which counts this visit as the first.
      await page.click('form[action="?/reset"] button');
      await page.waitForSelector('#visits:has-text("1")');
      await page.reload();
      assert.equal(await page.textContent('#visits'), '2');
      await page.context().close();
    });

    test('a streamed page shows its first part before the rest arrives', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // The rest comes 5 s after the request (the route's longest delay): the first part shows while it is still
      // 'waiting…', however slow a busy machine makes the page load, as long as that is under 5 s.
      const delay = 5000;
      const t0 = Date.now();
      await page.goto(`${s.url}/stream?delay=${delay}`, { waitUntil: 'commit' });
      await page.waitForSelector('#now:has-text("rendered at once")');
      const shown = Date.now() - t0;
      assert.equal(await page.textContent('#later'), 'waiting…', `the first part was shown after ${shown} ms, alone`);
      await page.waitForSelector('#later:has-text("arrived later")', { timeout: 15_000 });
      assert.ok(Date.now() - t0 >= delay - 100, 'the rest came when the server had it');
      await context.close();
    });

    test('a WebSocket beside SvelteKit', async () => {
      const [a, b] = await Promise.all([open('/websocket'), open('/websocket')]);
      await Promise.all([a, b].map((p) => p.waitForSelector('#ws-status:has-text("open")')));
      await a.fill('#ws-text', `hello over ${kind}`);
      await a.press('#ws-text', 'Enter');
      await b.waitForSelector(`#ws-lines li:has-text("hello over ${kind}")`);
      await a.waitForSelector(`#ws-lines li:has-text("hello over ${kind}")`);
      await a.context().close();
      await b.context().close();
    });

    test('server-side fetch, redirects and error pages', async () => {
      const page = await open('/fetch');
      assert.equal(await page.textContent('#status'), '200');
      assert.match((await page.textContent('#items')) ?? '', /"from":"load"/);
      await page.goto(`${s.url}/redirect`);
      assert.equal(page.url(), `${s.url}/?from=redirect`);
      const teapot = await page.goto(`${s.url}/teapot`);
      assert.equal(teapot?.status(), 418);
      assert.equal(await page.textContent('#message'), 'I am a teapot');
      const crash = await page.goto(`${s.url}/crash`);
      assert.equal(crash?.status(), 500);
      assert.equal(await page.textContent('#message'), 'Internal Error');
      await page.context().close();
    });

    test('no script error on any page', () => {
      assert.deepEqual(errors, []);
    });
  });
}
