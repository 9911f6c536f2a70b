// express-rate-limit on Gale's native API: 429 after the limit with its headers, req.app.get('trust proxy') read as
// Express's setting (its validations see the trustProxy option), and skipFailedRequests counting only successes.
// biome-ignore-all lint/suspicious/noExplicitAny: Express middleware is typed for Express's req/res
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimit } from 'express-rate-limit';
import { T, withApp } from '../helpers.js';
import { request } from './helpers.js';

/** express-rate-limit's logger option: what its validations report. */
function erlLogger(): { warn: (e: unknown) => void; error: (e: unknown) => void; seen: string[] } {
  const seen: string[] = [];
  const keep = (e: unknown) => seen.push(String((e as { code?: string }).code ?? (e as Error).message));
  return { warn: keep, error: keep, seen };
}

test('express-rate-limit: 429 after the limit, with draft-7 and legacy headers; no validation error', T, async (t) => {
  const logger = erlLogger();
  const { port } = await withApp(t, (app) => {
    app.use(rateLimit({ windowMs: 60_000, limit: 3, standardHeaders: 'draft-7', legacyHeaders: true, logger }) as any);
    app.get('/', () => 'ok');
  });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const a = await request(port, 'GET', '/');
    statuses.push(a.status);
    if (i === 0) {
      assert.match(String(a.headers.ratelimit), /^limit=3, remaining=2, reset=\d+$/);
      assert.equal(a.headers['ratelimit-policy'], '3;w=60');
      assert.equal(a.headers['x-ratelimit-limit'], '3');
      assert.equal(a.headers['x-ratelimit-remaining'], '2');
    }
    if (i === 4) {
      assert.equal(a.body.toString(), 'Too many requests, please try again later.');
      assert.match(String(a.headers['retry-after']), /^\d+$/);
    }
  }
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  assert.deepEqual(logger.seen, [], 'req.app, req.ip and the response were what it expects');
});

test(
  'express-rate-limit: reads the trustProxy option through req.app.get("trust proxy"), as Express’s setting',
  T,
  async (t) => {
    // As on Express: X-Forwarded-For with trust proxy off, and trust proxy true, are each reported.
    for (const [trustProxy, expected] of [
      [undefined, 'ERR_ERL_UNEXPECTED_X_FORWARDED_FOR'],
      [true, 'ERR_ERL_PERMISSIVE_TRUST_PROXY'],
    ] as const) {
      const logger = erlLogger();
      const { port, close } = await withApp(
        t,
        (app) => {
          app.use(rateLimit({ windowMs: 60_000, limit: 5, logger }) as any);
          app.get('/', () => 'ok');
        },
        trustProxy === undefined ? {} : { trustProxy },
      );
      assert.equal((await request(port, 'GET', '/', { 'x-forwarded-for': '203.0.113.9' })).status, 200);
      assert.deepEqual(logger.seen, [expected]);
      await close();
    }
  },
);

test('express-rate-limit: skipFailedRequests counts only the answers below 400', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use(rateLimit({ windowMs: 60_000, limit: 2, skipFailedRequests: true }) as any);
    app.get('/ok', () => 'ok');
    app.get('/fail', (_req, res) => res.status(500).send('no'));
  });
  const statuses: number[] = [];
  for (const p of ['/fail', '/fail', '/fail', '/ok', '/ok', '/ok']) {
    statuses.push((await request(port, 'GET', p)).status);
    // The count is given back when the response finishes: let that happen before the next request.
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(statuses, [500, 500, 500, 200, 200, 429]);
});
