// The todos example (examples/todos: a plugin, hooks, schemas) in Chromium: its page calls the API only through
// gale/client, loaded by the browser as the package's own file — add, list, toggle, remove, a 400 from the body
// schema shown from its typed problem document, a 404 from a stale tab — its hooks' headers, and SIGTERM.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeChromium, launchChromium } from './chromium.js';
import { type Example, startExample } from './example-server.js';

describe('the todos example in Chromium, through gale/client', { timeout: 120_000 }, () => {
  let todos: Example;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const calls: string[] = [];

  before(async () => {
    [todos, browser] = await Promise.all([startExample('todos'), launchChromium()]);
    page = await (await browser.newContext()).newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('request', (r) => {
      if (r.url().includes('/api/')) calls.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
  });
  after(async () => {
    await closeChromium(browser);
    if (todos?.child.exitCode === null) {
      todos.child.kill('SIGKILL');
      await once(todos.child, 'exit');
    }
  });

  test('add, list, toggle and remove; a 400 and a 404 shown from their typed bodies', async () => {
    const clientJs = page.waitForResponse((r) => r.url().endsWith('/gale-client.js'));
    await page.goto(`${todos.url}/`);
    assert.equal((await clientJs).status(), 200);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === '0 todo(s)');

    for (const title of ['write docs', 'ship it']) {
      await page.fill('#title', title);
      await page.click('#add button');
      await page.waitForSelector(`#todos li:has-text("${title}")`);
    }
    assert.equal(await page.locator('#todos li').count(), 2);

    // PATCH through the client: the checkbox marks the first done, and the list the server sends back says so.
    await page.check('#todos li[data-id="1"] input[type=checkbox]');
    await page.waitForSelector('#todos li.done[data-id="1"]');
    const listed = await (await fetch(`${todos.url}/api/todos?done=true`)).json();
    assert.deepEqual(listed, [{ id: 1, title: 'write docs', done: true }]);

    // A blank title fails the body schema: the page shows the problem document's issue.
    await page.fill('#title', '   ');
    await page.click('#add button');
    await page.waitForFunction(() =>
      /expected string to have >=1 characters/.test(document.getElementById('status')?.textContent ?? ''),
    );

    // A second tab lists both; the first removes the second todo; the second tab's stale remove button then gets the
    // 404 the route declares, whose typed body the page shows.
    const stale = await (await browser.newContext()).newPage();
    stale.on('pageerror', (err) => errors.push(err.message));
    stale.on('request', (r) => {
      if (r.url().includes('/api/')) calls.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await stale.goto(`${todos.url}/`);
    await stale.waitForSelector('#todos li[data-id="2"]');
    await page.locator('#todos li[data-id="2"] button').click();
    await page.waitForSelector('#todos li[data-id="2"]', { state: 'detached' });
    await stale.locator('#todos li[data-id="2"] button').click();
    await stale.waitForFunction(() => document.getElementById('status')?.textContent === '1 todo(s) (no todo 2)');
    await stale.waitForSelector('#todos li[data-id="2"]', { state: 'detached' });
    assert.ok(calls.filter((c) => c === 'DELETE /api/todos/2').length === 2, calls.join(', '));

    // The hooks: the app's onSend times every answer made in JS; the plugin's marks its own API answers only.
    const api = await fetch(`${todos.url}/api/todos`);
    assert.match(api.headers.get('server-timing') ?? '', /^app;dur=\d+\.\d\d$/);
    assert.equal(api.headers.get('cache-control'), 'no-store');
    const script = await fetch(`${todos.url}/gale-client.js`);
    assert.match(script.headers.get('server-timing') ?? '', /^app;dur=/);
    assert.equal(script.headers.get('cache-control'), null, "the plugin's hook stays inside it");

    assert.deepEqual(calls.slice(0, 2), ['GET /api/todos', 'POST /api/todos']);
    assert.ok(calls.includes('PATCH /api/todos/1'), calls.join(', '));
    assert.deepEqual(errors, []);
  });

  test('the server closes on SIGTERM', async () => {
    todos.child.kill('SIGTERM');
    const [code] = await once(todos.child, 'exit');
    assert.equal(code, 0);
  });
});
