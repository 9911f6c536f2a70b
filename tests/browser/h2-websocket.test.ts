// The demo's chat WebSocket over HTTP/2 in a real browser (RFC 8441): the `npm start` demo with TLS_CERT/TLS_KEY and
// Debian's Chromium (QUIC off, so the page stays on HTTP/2; the test certificate trusted by its key's hash). The
// browser's own network log shows the WebSocket's extended CONNECT sent on the page's HTTP/2 session — one session
// for the page, its assets and the socket, no second connection.
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testPki } from '../h2/h2.js';
import { fileTempDir } from '../temp.js';
import { closeChromium, launchChromium } from './chromium.js';
import { type Demo, startDemo } from './demo-server.js';

interface NetLogEvent {
  type: number;
  source: { id: number; type: number };
  params?: { headers?: string[] };
}

/**
 * The events of a Chromium net log (`--log-net-log`), with their type names. Read line by line: each event is one
 * line, so a log cut short (a browser killed while closing) still gives every event written before.
 */
function readNetLog(path: string): {
  events: NetLogEvent[];
  typeName: (n: number) => string;
  sourceName: (n: number) => string;
} {
  const lines = readFileSync(path, 'utf8').split('\n');
  const constants = JSON.parse(lines[0].replace(/^\{"constants":/, '').replace(/,$/, '')) as {
    logEventTypes: Record<string, number>;
    logSourceType: Record<string, number>;
  };
  const invert = (m: Record<string, number>) => new Map(Object.entries(m).map(([k, v]) => [v, k]));
  const types = invert(constants.logEventTypes);
  const sources = invert(constants.logSourceType);
  const events: NetLogEvent[] = [];
  for (const line of lines.slice(1)) {
    const l = line.trim().replace(/,$/, '');
    if (!l.startsWith('{')) continue;
    try {
      events.push(JSON.parse(l) as NetLogEvent);
    } catch {
      // The last line of a log cut short.
    }
  }
  return { events, typeName: (n) => types.get(n) ?? String(n), sourceName: (n) => sources.get(n) ?? String(n) };
}

describe('the demo chat over HTTP/2 in Chromium', { timeout: 180_000 }, () => {
  let demo: Demo;
  let browser: Browser | undefined;
  const logDir = fileTempDir('gale-netlog-');
  const netLog = join(logDir, 'net-log.json');

  before(async () => {
    const { leaf } = testPki();
    demo = await startDemo({ TLS_CERT: leaf.certPath, TLS_KEY: leaf.keyPath });
    const spki = createHash('sha256')
      .update(createPublicKey(leaf.cert).export({ type: 'spki', format: 'der' }))
      .digest('base64');
    browser = await launchChromium([
      '--disable-quic',
      `--ignore-certificate-errors-spki-list=${spki}`,
      `--log-net-log=${netLog}`,
    ]);
  });
  after(async () => {
    await closeChromium(browser);
    await demo?.stop();
  });

  test('the chat opens its WebSocket on the page own HTTP/2 connection and talks over it', async () => {
    assert.ok(browser);
    assert.match(demo.url, /^https:/);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${demo.url}/demo/`);
    await page.fill('#name', 'ada');
    await page.fill('#room', 'h2');
    await page.click('#join button');
    await page.waitForFunction(() => document.getElementById('chat-status')?.textContent?.startsWith('in #h2'));
    await page.fill('#text', 'over one connection');
    await page.press('#text', 'Enter');
    await page.waitForSelector('#messages li.message:has-text("ada: over one connection")');
    const protocol = await page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
    );
    assert.equal(protocol, 'h2');
    assert.deepEqual(errors, []);
    await context.close();
    // The net log is complete once the browser has closed.
    await closeChromium(browser);
    browser = undefined;

    const { events, typeName, sourceName } = readNetLog(netLog);
    const port = new URL(demo.url).port;
    const sent = events.filter((e) => typeName(e.type) === 'HTTP2_SESSION_SEND_HEADERS');
    const connect = sent.filter((e) => {
      const h = e.params?.headers ?? [];
      return h.includes(':method: CONNECT') && h.includes(':protocol: websocket') && h.includes(':path: /demo/chat');
    });
    assert.equal(connect.length, 1, `one extended CONNECT for the chat: ${JSON.stringify(sent.map((e) => e.params))}`);
    const page1 = sent.find((e) => (e.params?.headers ?? []).includes(':path: /demo/'));
    assert.ok(page1, 'the page itself was requested over HTTP/2');
    assert.equal(connect[0].source.id, page1.source.id, 'the socket rides the page connection (one HTTP/2 session)');
    const sessions = new Set(
      events.filter((e) => sourceName(e.source.type) === 'HTTP2_SESSION').map((e) => e.source.id),
    );
    assert.equal(sessions.size, 1, `one HTTP/2 session to 127.0.0.1:${port}`);
  });
});
