// WebTransport from a real browser: Debian's Chromium opens sessions to a Gale app's HTTP/3 listener, trusting the
// test certificate by its hash (`serverCertificateHashes`: an ECDSA certificate valid under 14 days, as the test PKI's
// leaves are), and exchanges datagrams, streams both ways and of both kinds, and closes with a code and reason.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WebTransportBidiStream } from 'gale';
import type { Browser, Page } from 'playwright-core';
import { testPki } from '../h2/h2.js';
import { h3App } from '../h3/server.js';
import { closeChromium, launchChromium } from './chromium.js';

describe('WebTransport sessions from Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  let origin: http.Server;
  // The leaf's DER, hashed, as the page hands it to `new WebTransport(url, { serverCertificateHashes })`.
  const hash = [...createHash('sha256').update(new X509Certificate(testPki().leaf.cert).raw).digest()];

  before(async () => {
    // The page comes from http://127.0.0.1, a secure context, so it may use WebTransport without a trusted page cert.
    origin = http.createServer((_req, res) => res.end('<!doctype html><title>wt</title>'));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(origin.address() as AddressInfo).port}/`);
  });
  after(async () => {
    await closeChromium(browser);
    origin?.close();
  });

  test('datagrams, a bidirectional echo, the server’s unidirectional stream, and a close with code and reason', async (t) => {
    const closed: [number, string][] = [];
    const drafts: string[] = [];
    const { port } = await h3App(t, (app) => {
      app.webtransport('/room/:name', {
        upgrade: (req) => {
          // Chromium names the draft it speaks in the CONNECT (draft-02, as the server's SETTINGS offer it).
          drafts.push(String(req.headers['sec-webtransport-http3-draft02']));
          return req.params.name;
        },
        open: (s) => s.createUnidirectionalStream().end(`welcome to ${s.data}`),
        datagram: (s, d) => s.sendDatagram(Buffer.concat([Buffer.from('dg:'), d])),
        stream: (_s, st) => {
          if (st instanceof WebTransportBidiStream) st.pipe(st);
        },
        close: (_s, code, reason) => void closed.push([code, reason]),
      });
    });
    // A string, not a function: the test's transpiler would add helpers (`__name`) the page does not have.
    const out = await page.evaluate(`(async () => {
      const text = (b) => new TextDecoder().decode(b);
      const readAll = async (r) => {
        const reader = r.getReader();
        let s = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return s;
          s += text(value);
        }
      };
      const wt = new WebTransport('https://127.0.0.1:${port}/room/lobby', {
        serverCertificateHashes: [{ algorithm: 'sha-256', value: new Uint8Array(${JSON.stringify(hash)}) }],
      });
      await wt.ready;
      const uni = wt.incomingUnidirectionalStreams.getReader();
      const welcome = await readAll((await uni.read()).value);
      const dw = wt.datagrams.writable.getWriter();
      await dw.write(new TextEncoder().encode('ping'));
      const datagram = text((await wt.datagrams.readable.getReader().read()).value);
      const bidi = await wt.createBidirectionalStream();
      const w = bidi.writable.getWriter();
      await w.write(new TextEncoder().encode('hello '));
      await w.write(new TextEncoder().encode('from chromium'));
      await w.close();
      const echoed = await readAll(bidi.readable);
      wt.close({ closeCode: 5, reason: 'done' });
      await wt.closed;
      return { welcome, datagram, echoed };
    })()`);
    assert.deepEqual(out, { welcome: 'welcome to lobby', datagram: 'dg:ping', echoed: 'hello from chromium' });
    const end = Date.now() + 5000;
    while (closed.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(closed, [[5, 'done']]);
    assert.deepEqual(drafts, ['1']);
  });

  test('a page that never reads a stream holds the server back by flow control; the session still answers', async (t) => {
    let written = 0;
    const { port } = await h3App(t, (app) => {
      app.webtransport('/flood', {
        open: (s) => {
          const out = s.createUnidirectionalStream();
          const chunk = Buffer.alloc(64 * 1024, 'f');
          // As a producer that respects backpressure writes: until write() says wait, then on 'drain'.
          const pump = () => {
            while (written < 1024 * 1024 * 1024) {
              written += chunk.length;
              if (!out.write(chunk)) return;
            }
          };
          out.on('drain', pump);
          pump();
        },
        datagram: (s, d) => s.sendDatagram(d),
      });
    });
    // The page takes the session but never reads the server's stream; after 2 s it checks the session still answers.
    const echoed = await page.evaluate(`(async () => {
      const wt = new WebTransport('https://127.0.0.1:${port}/flood', {
        serverCertificateHashes: [{ algorithm: 'sha-256', value: new Uint8Array(${JSON.stringify(hash)}) }],
      });
      await wt.ready;
      await new Promise((r) => setTimeout(r, 2000));
      await wt.datagrams.writable.getWriter().write(new TextEncoder().encode('still there'));
      const { value } = await wt.datagrams.readable.getReader().read();
      wt.close();
      return new TextDecoder().decode(value);
    })()`);
    assert.equal(echoed, 'still there');
    // Loopback moves hundreds of MiB in 2 s; the page's flow-control windows let through about 6 MiB here (measured),
    // and the producer waited for a 'drain' that only a reading client would bring.
    assert.ok(written < 64 * 1024 * 1024, `the server wrote ${written} bytes to a stream nobody read`);
    assert.ok(written > 0);
  });

  test('the server closes the session: the page sees its code and reason', async (t) => {
    const { port } = await h3App(t, (app) => {
      app.webtransport('/bye', { open: (s) => setTimeout(() => s.close(4242, 'server says bye'), 50) });
    });
    const info = await page.evaluate(
      async ({ port, hash }) => {
        const wt = new WebTransport(`https://127.0.0.1:${port}/bye`, {
          serverCertificateHashes: [{ algorithm: 'sha-256', value: new Uint8Array(hash) }],
        });
        await wt.ready;
        return await wt.closed;
      },
      { port, hash },
    );
    assert.deepEqual(info, { closeCode: 4242, reason: 'server says bye' });
  });

  test('a refused session rejects `ready` in the page', async (t) => {
    const { port } = await h3App(t, (app) => {
      app.webtransport('/locked', (_req, res) => void res.status(401).send('no'), {});
    });
    const err = await page.evaluate(
      async ({ port, hash }) => {
        const wt = new WebTransport(`https://127.0.0.1:${port}/locked`, {
          serverCertificateHashes: [{ algorithm: 'sha-256', value: new Uint8Array(hash) }],
        });
        return wt.ready.then(
          () => 'opened',
          (e: Error) => e.name,
        );
      },
      { port, hash },
    );
    assert.equal(err, 'WebTransportError');
  });
});
