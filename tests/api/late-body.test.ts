// A handler that answers before its request body has arrived, while a reader of that body waits (or starts
// after the answer): over HTTP/1.1, HTTP/2 and HTTP/3 the reader fails saying the body is gone, instead of
// waiting forever (the engine's wake-up for it used to be dropped with the finished response).
import assert from 'node:assert/strict';
import net from 'node:net';
import { type TestContext, test } from 'node:test';
import type { Request, Response } from 'gale';
import { bounded, h2App, testPki } from '../h2/h2.js';
import { h3Requests } from '../h3/aioquic.js';
import { h3App } from '../h3/server.js';
import type { App } from '../helpers.js';

const T = { timeout: 30_000 };

/** `POST /late`: starts reading its body, answers 100 ms later with the body still coming; `outcome()` settles
 *  with what the reader got. `POST /after`: answers, then starts reading in the same turn. */
function lateRoutes(app: App): { outcome(path: string): Promise<string> } {
  const outcomes = new Map<string, Promise<string>>();
  const read = (req: Request) =>
    req.text().then(
      (t) => `read ${t.length}`,
      (e: { status?: number; code?: string }) => `failed ${e.status} ${e.code}`,
    );
  let arrived: (() => void) | undefined;
  const seen = new Promise<void>((r) => {
    arrived = r;
  });
  app.post('/late', (req: Request, res: Response) => {
    outcomes.set('/late', read(req));
    arrived?.();
    setTimeout(() => res.send('early'), 100);
  });
  app.post('/after', (req: Request, res: Response) => {
    res.send('early');
    outcomes.set('/after', read(req));
    arrived?.();
  });
  return {
    async outcome(path) {
      await bounded(seen, 5000, `the request to ${path} reached its handler`);
      const o = outcomes.get(path);
      assert.ok(o, `${path} ran`);
      return bounded(o, 5000, `the body reader of ${path} settled after the answer`);
    },
  };
}

// Once the response has ended, the body is gone on every protocol (docs/guides/requests-and-responses.md): the
// reader fails with the error saying so, whether the rest came after the answer or never.
const settled = (s: string) => assert.equal(s, 'failed 400 GALE_ERR_REQUEST_ENDED');
const REST = 'x'.repeat(990);
const gale = { requestTimeout: 500 };

/** Waits until `has()` is true (checked every 10 ms), at most 5 s. */
const until = (has: () => boolean, what: string) =>
  bounded(
    new Promise<void>((r) => {
      const check = () => (has() ? r() : setTimeout(check, 10));
      check();
    }),
    5000,
    what,
  );

for (const path of ['/late', '/after']) {
  for (const rest of [true, false]) {
    const how = rest ? 'the rest of the body comes after the answer' : 'the client stalls';
    test(`HTTP/1.1 ${path}, ${how}: the body reader settles`, T, async (t: TestContext) => {
      const { gale: make } = await import('gale');
      const app = make(gale);
      const routes = lateRoutes(app);
      const { port } = await app.listen({ port: 0, host: '127.0.0.1' });
      t.after(() => app.close({ timeout: 500 }));
      const sock = net.connect(port, '127.0.0.1');
      t.after(() => sock.destroy());
      sock.on('error', () => {});
      let got = '';
      sock.on('data', (d) => (got += d));
      // 10 bytes of a declared 1 000.
      sock.write(`POST ${path} HTTP/1.1\r\nhost: a\r\ncontent-length: 1000\r\n\r\n0123456789`);
      await until(() => got.includes('early'), 'the answer');
      assert.match(got, /^HTTP\/1\.1 200/);
      if (rest) sock.write(REST);
      settled(await routes.outcome(path));
    });

    for (const secure of [false, true]) {
      test(`HTTP/2 ${secure ? 'TLS' : 'h2c'} ${path}, ${how}: the body reader settles`, T, async (t) => {
        let routes!: ReturnType<typeof lateRoutes>;
        const s = await h2App(
          t,
          (app) => {
            routes = lateRoutes(app);
          },
          { secure, gale },
        );
        const session = s.connect();
        const req = session.request(
          { ':method': 'POST', ':path': path, 'content-length': '1000' },
          { endStream: false },
        );
        req.on('error', () => {});
        let body = '';
        req.on('data', (d: Buffer) => (body += d));
        req.write('0123456789');
        await until(() => body === 'early', 'the answer');
        if (rest) req.end(REST);
        settled(await routes.outcome(path));
      });
    }
  }

  test(`HTTP/3 ${path}, the client stalls: the body reader settles`, T, async (t) => {
    let routes!: ReturnType<typeof lateRoutes>;
    const { port } = await h3App(
      t,
      (app) => {
        routes = lateRoutes(app);
      },
      { gale },
    );
    const client = h3Requests(port, testPki().pki.caPath, [
      { method: 'POST', path, headers: [['content-length', '1000']], chunks: ['0123456789'], open: true },
    ]);
    settled(await routes.outcome(path));
    const { responses } = await client;
    assert.equal(responses[0]?.status, 200);
    assert.equal(responses[0]?.body.toString(), 'early');
  });
}
