// Socket.IO over WebTransport, as socket.io-client 4.7+ speaks it, in Chromium: a Gale app serves the page, the
// client bundle and Engine.IO's long-polling over HTTPS, and WebTransport sessions over HTTP/3 on the same port;
// the client starts on polling and upgrades to WebTransport, then acks and room broadcasts run over it.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testPki } from '../h2/h2.js';
import { h3App } from '../h3/server.js';
import { closeChromium, launchChromium } from './chromium.js';

describe('Socket.IO upgrading to WebTransport in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  const { leaf } = testPki();
  const hash = [...createHash('sha256').update(new X509Certificate(leaf.cert).raw).digest()];

  before(async () => {
    // The page and polling come over TLS on TCP: Chromium trusts the test leaf there by its key's hash.
    const spki = createHash('sha256')
      .update(createPublicKey(leaf.cert).export({ type: 'spki', format: 'der' }))
      .digest('base64');
    browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`]);
  });
  after(() => closeChromium(browser));

  test('polling, then WebTransport: acks and room broadcasts, and the server sees the upgrade', async (t) => {
    const { Server } = await import('@gale-http/socket.io');
    const upgrades: string[] = [];
    const { port } = await h3App(t, (app) => {
      const io = new Server(app, { transports: ['polling', 'webtransport'] });
      io.on('connection', (socket) => {
        socket.conn.on('upgrade', (transport: { name: string }) => upgrades.push(transport.name));
        void socket.join('room');
        socket.on('add', (n: number, ack: (r: number) => void) => ack(n + 1));
        socket.on('shout', (text: string) => io.to('room').emit('news', `${text}!`));
      });
      app.get('/', (_req, res) =>
        res.type('html').send('<!doctype html><script src="/socket.io/socket.io.js"></script><title>sio</title>'),
      );
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`https://127.0.0.1:${port}/`);
    // A string, not a function: the test's transpiler would add helpers the page does not have.
    const out = await page.evaluate(`(async () => {
      const socket = io({
        transports: ['polling', 'webtransport'],
        transportOptions: {
          webtransport: {
            serverCertificateHashes: [{ algorithm: 'sha-256', value: new Uint8Array(${JSON.stringify(hash)}) }],
          },
        },
      });
      const first = await new Promise((r) => socket.on('connect', () => r(socket.io.engine.transport.name)));
      if (socket.io.engine.transport.name !== 'webtransport') {
        await new Promise((r) => socket.io.engine.once('upgrade', r));
      }
      const sum = await socket.timeout(5000).emitWithAck('add', 41);
      const news = new Promise((r) => socket.once('news', r));
      socket.emit('shout', 'hello');
      const heard = await news;
      const transport = socket.io.engine.transport.name;
      socket.disconnect();
      return { first, sum, heard, transport };
    })()`);
    assert.deepEqual(out, { first: 'polling', sum: 42, heard: 'hello!', transport: 'webtransport' });
    assert.deepEqual(upgrades, ['webtransport']);
    assert.deepEqual(errors, []);
  });
});
