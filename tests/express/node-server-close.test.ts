// An Express app in http.createServer(app): after server.close(), requests still arriving on keep-alive connections
// that were busy at close() are answered with `Connection: close`, so close() (and a SIGTERM exit) does not wait on a
// client that keeps reusing its connection — node:http alone answers them keep-alive and keeps them open.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from '@gale-http/express';
import { RawConn, T, withTimeout } from '../helpers.js';

test('after server.close(), answers end their keep-alive connection and close() completes', T, async (t) => {
  const app = express();
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  app.get('/slow', async (_req, res) => {
    await released;
    res.send('slow');
  });
  app.get('/health', (_req, res) => res.json({ ok: true }));
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.closeAllConnections());
  const c = await RawConn.open((server.address() as AddressInfo).port);
  t.after(() => c.destroy());
  await c.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await c.nextEvent(50);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  release();
  const slow = await c.readResponse();
  assert.equal(slow.text, 'slow');
  assert.equal(slow.get('connection'), 'keep-alive', 'a request that began before close() is answered as it was');
  await c.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  const health = await c.readResponse();
  assert.deepEqual(JSON.parse(health.text), { ok: true });
  assert.equal(health.get('connection'), 'close');
  assert.ok(await c.waitForClose(2000), 'the connection ends with that answer');
  await withTimeout(closed, 2000, 'the close callback');
});
