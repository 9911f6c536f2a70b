// Unit tests of the middleware runner (chain.ts) without sockets: which chains run without a promise, what
// `next()` returns, and that no error can escape as an unhandled rejection however `next()` is (mis)used.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ChainHost, compose, type Middleware } from './chain.js';
import type { Request } from './request/request.js';
import type { Response } from './response/response.js';

function harness() {
  const replies: unknown[] = [];
  const failures: unknown[] = [];
  const host: ChainHost = {
    // As the app's reply: a promise is awaited and its value sent.
    reply: (out) => {
      if (out instanceof Promise) return out.then((v) => void replies.push(v));
      replies.push(out);
      return undefined;
    },
    fail: (err) => {
      failures.push(err);
    },
    notFound: () => {
      replies.push('404');
    },
  };
  const req = { _base: '' } as unknown as Request;
  const res = { headersSent: false } as unknown as Response;
  return { replies, failures, host, req, res };
}

const step = (fn: Middleware) => ({ fn, base: '' });
const tick = () => new Promise<void>((r) => setImmediate(r));

/** Counts unhandled rejections while `fn` runs (and a few turns after). */
async function unhandledDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const on = (err: unknown) => seen.push(err);
  process.on('unhandledRejection', on);
  try {
    await fn();
    for (let i = 0; i < 5; i++) await tick();
  } finally {
    process.off('unhandledRejection', on);
  }
  return seen;
}

test('a synchronous chain runs without a promise: the runner returns undefined and the reply is sent', () => {
  const h = harness();
  const pass: Middleware = (_req, _res, next) => next();
  const noReturn: Middleware = (_req, _res, next) => {
    next();
  };
  const run = compose([step(pass), step(noReturn), step(pass)], () => 'done', '', [[]], h.host);
  assert.equal(run(h.req, h.res), undefined);
  assert.deepEqual(h.replies, ['done']);
});

test('next() in a synchronous chain returns one shared resolved promise, not a new one per level', () => {
  const h = harness();
  const got: unknown[] = [];
  const keep: Middleware = (_req, _res, next) => {
    got.push(next());
  };
  const run = compose([step(keep), step(keep)], () => 'x', '', [[]], h.host);
  run(h.req, h.res);
  assert.equal(got.length, 2);
  assert.ok(got[0] instanceof Promise);
  assert.equal(got[0], got[1]);
});

test('Express-style levels pass an async downstream up: the runner settles after the handler', async () => {
  const h = harness();
  const order: string[] = [];
  const pass: Middleware = (_req, _res, next) => next();
  const noReturn: Middleware = (_req, _res, next) => {
    next();
  };
  const run = compose(
    [step(pass), step(noReturn)],
    async () => {
      await tick();
      order.push('handler');
      return 'late';
    },
    '',
    [[]],
    h.host,
  );
  const p = run(h.req, h.res);
  assert.ok(p instanceof Promise);
  await p;
  order.push('settled');
  assert.deepEqual(order, ['handler', 'settled']);
  assert.deepEqual(h.replies, ['late']);
});

test('await next() sees the downstream done, also behind a synchronous level', async () => {
  const h = harness();
  const order: string[] = [];
  const outer: Middleware = async (_req, _res, next) => {
    await next();
    order.push('outer after next');
  };
  const middle: Middleware = (_req, _res, next) => {
    next(); // neither awaited nor returned
  };
  const run = compose(
    [step(outer), step(middle)],
    async () => {
      await tick();
      order.push('handler');
      return 'ok';
    },
    '',
    [[]],
    h.host,
  );
  await run(h.req, h.res);
  assert.deepEqual(order, ['handler', 'outer after next']);
});

test('an async middleware calling next() without awaiting it: a later downstream rejection reaches the error handler, none goes unhandled', async () => {
  const h = harness();
  const handled: unknown[] = [];
  const boom = new Error('downstream');
  const unhandled = await unhandledDuring(async () => {
    const auth: Middleware = async (_req, _res, next) => {
      await tick();
      next(); // the common Express pattern: await something, then next() without await
    };
    const run = compose(
      [step(auth)],
      async () => {
        await tick();
        throw boom;
      },
      '',
      [[(err) => void handled.push(err)]],
      h.host,
    );
    await run(h.req, h.res);
    for (let i = 0; i < 5; i++) await tick();
  });
  assert.deepEqual(unhandled, []);
  assert.deepEqual(handled, [boom]);
});

test('an async middleware rejecting after await next() reaches the error handler once', async () => {
  const h = harness();
  const handled: unknown[] = [];
  const boom = new Error('after');
  const unhandled = await unhandledDuring(async () => {
    const outer: Middleware = async (_req, _res, next) => {
      await next();
    };
    const inner: Middleware = async (_req, _res, next) => {
      await next();
      throw boom;
    };
    const run = compose([step(outer), step(inner)], () => 'ok', '', [[(err) => void handled.push(err)]], h.host);
    await run(h.req, h.res);
  });
  assert.deepEqual(unhandled, []);
  assert.deepEqual(handled, [boom]);
  assert.deepEqual(h.replies, ['ok']);
});

test('next() twice: the awaited second call rejects with GALE_ERR_NEXT_TWICE; an un-awaited one is harmless', async () => {
  const h = harness();
  let second: unknown;
  const unhandled = await unhandledDuring(async () => {
    const twiceAwaited: Middleware = async (_req, _res, next) => {
      await next();
      second = await next().catch((e: unknown) => e);
    };
    const twiceExpress: Middleware = (_req, _res, next) => {
      next();
      next(); // a classic Express bug: must not end the process
    };
    const run = compose([step(twiceAwaited), step(twiceExpress)], () => 'once', '', [[]], h.host);
    await run(h.req, h.res);
  });
  assert.deepEqual(unhandled, []);
  assert.equal((second as { code?: string }).code, 'GALE_ERR_NEXT_TWICE');
  assert.deepEqual(h.replies, ['once']);
  assert.deepEqual(h.failures, []);
});

test('a late next() after the reply (from a timer) runs nothing and throws nothing', async () => {
  const h = harness();
  let late: (() => unknown) | undefined;
  const keepNext: Middleware = (_req, _res, next) => {
    late = () => next();
    return next();
  };
  const run = compose([step(keepNext)], () => 'first', '', [[]], h.host);
  run(h.req, h.res);
  const unhandled = await unhandledDuring(async () => {
    await tick();
    late?.();
  });
  assert.deepEqual(unhandled, []);
  assert.deepEqual(h.replies, ['first']);
});

test('a thrown error and next(err) both go to the scoped error handlers; a second error is only reported', () => {
  const h = harness();
  const handled: unknown[] = [];
  const a = new Error('a');
  const b = new Error('b');
  const thrower: Middleware = (_req, _res, next) => {
    next(a);
    throw b;
  };
  const run = compose([step(thrower)], () => 'never', '', [[(err) => void handled.push(err)]], h.host);
  assert.equal(run(h.req, h.res), undefined);
  assert.deepEqual(handled, [a]);
  assert.deepEqual(h.failures, [b]);
  assert.deepEqual(h.replies, []);
});
