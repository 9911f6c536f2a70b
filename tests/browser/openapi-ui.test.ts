// openApiUi() in a real browser (Debian's Chromium through playwright-core): Swagger UI loads from the app alone,
// under helmet's default Content-Security-Policy (security()), renders every operation of the app's OpenAPI document,
// and "Try it out" sends a real request to the app and shows its answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openApiUi, security } from 'gale';
import { z } from 'zod';
import { withApp } from '../helpers.js';
import { closeChromium, launchChromium } from './chromium.js';

test('Swagger UI renders the document and tries an operation, under a script-src self policy', {
  timeout: 120_000,
}, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(security());
    app.get('/users/:id', { params: z.object({ id: z.coerce.number().int() }), summary: 'One user' }, (req) => ({
      id: req.params.id,
      name: 'Ada',
    }));
    app.post('/users', { body: z.object({ name: z.string() }), summary: 'Create a user' }, (_req, res) =>
      res.status(201).json({ id: 2 }),
    );
    app.get('/openapi.json', { hidden: true }, () => app.openapi({ info: { title: 'Users', version: '1.0.0' } }));
    app.use('/docs', openApiUi({ url: '/openapi.json', title: 'Users API' }));
  });
  const browser = await launchChromium();
  t.after(() => closeChromium(browser));
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  const outside: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(`http://127.0.0.1:${port}/`)) outside.push(r.url());
  });
  await page.goto(`http://127.0.0.1:${port}/docs`);
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  assert.equal(await page.title(), 'Users API');
  const ops = await page.$$eval('.opblock-summary', (els) =>
    els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()),
  );
  assert.equal(ops.length, 2, ops.join(' | '));
  assert.ok(
    ops.some((o) => o.includes('GET') && o.includes('/users/{id}') && o.includes('One user')),
    ops.join(' | '),
  );
  assert.ok(ops.some((o) => o.includes('POST') && o.includes('/users') && o.includes('Create a user')));
  // Try it out: open the GET operation, fill its path param, execute; the UI shows the app's real answer.
  await page.click('.opblock-get .opblock-summary');
  await page.click('.opblock-get .try-out__btn');
  await page.fill('.opblock-get input[placeholder="id"]', '7');
  await page.click('.opblock-get .execute');
  await page.waitForSelector('.opblock-get .responses-wrapper .live-responses-table', { timeout: 30_000 });
  const shown = await page.$eval('.opblock-get .live-responses-table', (e) => e.textContent ?? '');
  assert.match(shown, /200/);
  assert.match(shown, /"name": "Ada"/);
  assert.deepEqual(problems, [], 'no script error, no blocked resource');
  assert.deepEqual(outside, [], 'nothing loaded from outside the app');
});
