// The Socket.IO chat of examples/socketio-chat — Express in http.createServer(app), new Server(server), the page
// loading /socket.io/socket.io.js, as socket.io apps are written — in Chromium: two pages in a room talk over
// WebSocket, a page in another room hears nothing, and the server ends on SIGTERM.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeChromium, launchChromium } from './chromium.js';
import { type Example, startExample } from './example-server.js';

describe('a Socket.IO chat on a node:http server with an Express app, in Chromium', { timeout: 120_000 }, () => {
  let chat: Example;
  let browser: Browser;
  const errors: string[] = [];

  before(async () => {
    [chat, browser] = await Promise.all([startExample('socketio-chat'), launchChromium()]);
  });
  after(async () => {
    await closeChromium(browser);
    if (chat?.child.exitCode === null) {
      chat.child.kill('SIGKILL');
      await once(chat.child, 'exit');
    }
  });

  async function open(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    const bundle = page.waitForResponse((r) => r.url().endsWith('/socket.io/socket.io.js'));
    await page.goto(`${chat.url}/`);
    const res = await bundle;
    assert.equal(res.status(), 200);
    assert.match(res.headers().etag ?? '', /^"\d+\.\d+\.\d+"$/, 'the bundle carries its version as ETag');
    return page;
  }

  async function join(page: Page, name: string, room: string): Promise<void> {
    await page.fill('#name', name);
    await page.fill('#room', room);
    await page.click('#join button');
    await page.waitForFunction((r) => document.getElementById('status')?.textContent?.startsWith(`in #${r}`), room);
  }

  test('two pages in a room talk over WebSocket; a page in another room hears nothing', async () => {
    const [ada, bob, cy] = await Promise.all([open(), open(), open()]);
    await join(ada, 'ada', 'lobby');
    await join(bob, 'bob', 'lobby');
    await join(cy, 'cy', 'elsewhere');
    assert.match((await bob.textContent('#status')) ?? '', /^in #lobby \(2 here\)/);
    await ada.waitForSelector('#messages li.system:has-text("bob joined")');
    // The client upgrades from polling to WebSocket, as socket.io-client does by default.
    for (const page of [ada, bob]) await page.waitForSelector('#transport:has-text("websocket")');
    await ada.fill('#text', 'hello lobby');
    await ada.press('#text', 'Enter');
    await bob.waitForSelector('#messages li.message:has-text("ada: hello lobby")');
    await ada.waitForSelector('#messages li.message:has-text("ada: hello lobby")');
    // The Express routes of the same server still answer.
    const health = await (await fetch(`${chat.url}/health`)).json();
    assert.deepEqual(health, { ok: true });
    assert.equal(await cy.locator('#messages li').count(), 0, 'the other room heard nothing');
    assert.deepEqual(errors, []);
  });

  test('the server closes on SIGTERM (io.close closes the node:http server)', async () => {
    chat.child.kill('SIGTERM');
    const [code] = await once(chat.child, 'exit');
    assert.equal(code, 0);
  });
});
