// health(app) in one process: the engine's liveness answer, readiness turning 503 while draining (still serving) and
// when the check fails, the metrics object, and Prometheus text
// with Gale's figures, prom-client's process metrics and the application's own registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { health } from '@gale-http/cluster';
import { gale } from 'gale';
import client from 'prom-client';
import { get, sleep } from './services.js';

test('readiness: 200; 503 with the reason when the check fails; 503 "draining" while draining, still serving', {
  timeout: 15_000,
}, async () => {
  const app = gale();
  let dbUp = true;
  const h = health(app, { check: () => dbUp || 'database down', metrics: false });
  app.get('/slow', async () => {
    await sleep(400);
    return 'slow done';
  });
  const { port } = await app.listen(0, '127.0.0.1');
  try {
    assert.deepEqual(await get(port, '/healthz').then((r) => [r.status, r.body]), [200, 'ok\n']);
    assert.deepEqual(await get(port, '/readyz').then((r) => [r.status, r.body]), [200, 'ready\n']);
    dbUp = false;
    assert.deepEqual(await get(port, '/readyz').then((r) => [r.status, r.body]), [503, 'not ready: database down\n']);
    dbUp = true;
    assert.equal(await h.readiness(), true);

    // Draining: readiness says so while everything else is still served, then the app closes.
    h.drain();
    assert.deepEqual(await get(port, '/readyz').then((r) => [r.status, r.body]), [503, 'not ready: draining\n']);
    assert.deepEqual(await get(port, '/slow').then((r) => [r.status, r.body]), [200, 'slow done']);
    assert.equal(h.metrics().ready, false);
    await app.close({ timeout: 2000 });
    assert.equal(h.metrics().draining, true);
  } finally {
    h.close();
    await app.close({ timeout: 500 });
  }
});

test('metrics: an object, and Prometheus text with Gale’s figures, process metrics and your registry', {
  timeout: 15_000,
}, async () => {
  const app = gale();
  const mine = new client.Registry();
  const orders = new client.Counter({ name: 'shop_orders_total', help: 'Orders', registers: [mine] });
  orders.inc(3);
  const h = health(app, { register: mine });
  app.get('/hello', () => 'hi');
  const { port } = await app.listen(0, '127.0.0.1');
  try {
    for (let i = 0; i < 5; i++) await get(port, '/hello');
    const m = h.metrics();
    assert.ok(m.requestsTotal >= 5);
    assert.equal(m.ready, true);
    assert.equal(typeof m.eventLoopDelay.p99, 'number');
    assert.ok(m.memory.rss > 0);
    assert.equal(m.worker, undefined);
    const r = await get(port, '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.body, /^gale_requests_total \d+$/m);
    assert.match(r.body, /^gale_connections \d+$/m);
    assert.match(r.body, /^gale_event_loop_delay_seconds\{quantile="0\.99"\} [\d.e-]+$/m);
    assert.match(r.body, /^process_resident_memory_bytes \d+$/m);
    assert.match(r.body, /^shop_orders_total 3$/m);
  } finally {
    h.close();
    await app.close({ timeout: 500 });
  }
});
