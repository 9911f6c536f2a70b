// A handler that answers before its request body has arrived, while a reader of that body waits (or starts after
// the answer), over HTTP/3: the reader fails saying the body is gone instead of waiting forever (as over HTTP/1.1
// and HTTP/2, tests/api/late-body.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale, lateRoutes, settled } from '../api/late-body.js';
import { testPki } from '../h2/h2.js';
import { h3Requests } from './aioquic.js';
import { h3App } from './server.js';

const T = { timeout: 30_000 };

for (const path of ['/late', '/after']) {
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
