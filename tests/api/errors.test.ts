// Errors: thrown errors and rejected promises → 500 (generic unless development), HttpError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from 'gale';
import type { App } from '../helpers.js';
import { parseResponses, RawConn, show, sleep, T, withApp } from '../helpers.js';

const SECRET = 'secret-detail-7f3a';

function routes(app: App): void {
  app.get('/ok', () => 'ok');
  app.get('/throw', () => {
    throw new Error(`db password is ${SECRET}`);
  });
  app.get('/reject', () => Promise.reject(new Error(`rejected with ${SECRET}`)));
  app.get('/async-throw', async () => {
    await sleep(10);
    throw new Error(`async ${SECRET}`);
  });
  app.get('/throw-string', () => {
    throw `a string ${SECRET}`;
  });
  app.get('/http-404', () => {
    throw new HttpError(404, 'nope');
  });
  app.get('/http-418', async () => {
    await sleep(5);
    throw new HttpError(418, "I'm a teapot");
  });
  app.get('/http-reject', () => Promise.reject(new HttpError(409, 'conflict here')));
  app.get('/throw-after-status', (_req, res) => {
    res.status(201).header('x-should-not-leak', '1');
    throw new Error(SECRET);
  });
}

async function expect500Generic(url: string): Promise<void> {
  const r = await fetch(url);
  const body = await r.text();
  assert.equal(r.status, 500, `${url}: ${body}`);
  assert.equal(body, 'Internal Server Error');
  assert.ok(!body.includes(SECRET));
}

test('thrown Error → 500 "Internal Server Error" without details', T, async (t) => {
  const { url } = await withApp(t, routes);
  await expect500Generic(`${url}/throw`);
});

test('rejected promise → 500', T, async (t) => {
  const { url } = await withApp(t, routes);
  await expect500Generic(`${url}/reject`);
});

test('error thrown after an await → 500', T, async (t) => {
  const { url } = await withApp(t, routes);
  await expect500Generic(`${url}/async-throw`);
});

test('thrown non-Error value → 500', T, async (t) => {
  const { url } = await withApp(t, routes);
  await expect500Generic(`${url}/throw-string`);
});

test('a status set before the throw does not survive: 500', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/throw-after-status`);
  assert.equal(r.status, 500);
  assert.equal(await r.text(), 'Internal Server Error');
});

test('development: true includes the error message', T, async (t) => {
  const { url } = await withApp(t, routes, { development: true });
  for (const path of ['/throw', '/reject', '/async-throw']) {
    const r = await fetch(`${url}${path}`);
    assert.equal(r.status, 500);
    const body = await r.text();
    assert.ok(body.includes(SECRET), `${path}: development body lacks the message: ${body}`);
  }
});

test('HttpError(404, "nope") → 404 with body "nope"', T, async (t) => {
  const { url } = await withApp(t, routes);
  const r = await fetch(`${url}/http-404`);
  assert.equal(r.status, 404);
  assert.equal(await r.text(), 'nope');
});

test('HttpError with other statuses, sync and async', T, async (t) => {
  const { url } = await withApp(t, routes);
  const a = await fetch(`${url}/http-418`);
  assert.equal(a.status, 418);
  assert.equal(await a.text(), "I'm a teapot");
  const b = await fetch(`${url}/http-reject`);
  assert.equal(b.status, 409);
  assert.equal(await b.text(), 'conflict here');
});

test('HttpError is an Error', T, () => {
  const e = new HttpError(404, 'nope');
  assert.ok(e instanceof Error);
  assert.equal(e.message, 'nope');
});

test('the server keeps serving after many errors, on the same and on new connections', T, async (t) => {
  const { url } = await withApp(t, routes);
  const paths = ['/throw', '/reject', '/async-throw', '/http-404', '/throw-string', '/http-418'];
  const results = await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const r = await fetch(`${url}${paths[i % paths.length]}`);
      await r.arrayBuffer();
      return r.status;
    }),
  );
  assert.deepEqual(
    results,
    Array.from({ length: 30 }, (_, i) => [500, 500, 500, 404, 500, 418][i % paths.length]),
  );
  const ok = await fetch(`${url}/ok`);
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), 'ok');
});

test('an error thrown after write() started aborts the response (no clean chunked end)', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    routes(app);
    app.get('/throw-mid-stream', async (_req, res) => {
      res.write('partial');
      await sleep(10);
      throw new Error(SECRET);
    });
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write('GET /throw-mid-stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const closed = await conn.waitForClose(3000);
  const data = conn.all();
  assert.ok(data.toString('latin1').startsWith('HTTP/1.1 200 '), show(data));
  assert.equal(closed, true, `the connection must be closed so the client sees a truncated body; got ${show(data)}`);
  assert.throws(
    () => parseResponses(data),
    /connection ended inside/,
    `the chunked body was terminated cleanly, so the truncated body looks complete: ${show(data)}`,
  );
});
