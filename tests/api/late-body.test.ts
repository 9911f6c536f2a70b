// A handler that answers before its request body has arrived, while a reader of that body waits (or starts
// after the answer): over HTTP/1.1 and HTTP/2 the reader fails saying the body is gone, instead of waiting forever
// (the engine's wake-up for it used to be dropped with the finished response). HTTP/3: tests/h3/late-body.test.ts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { type TestContext, test } from 'node:test';
import { h2App } from '../h2/h2.js';
import { gale, lateRoutes, REST, settled, until } from './late-body.js';

const T = { timeout: 30_000 };

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
}
