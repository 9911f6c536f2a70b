// Micro-benchmark of Gale's middleware runner (packages/gale/src/chain.ts) against the same work written by hand:
// five awaited async middlewares, five Express-style `next()` calls, and a bare handler. No sockets; one core for a
// few seconds. Run: node --import tsx bench/chain.ts (issue 16: the runner within 15 % of hand-nested async).
import { type ChainHost, compose, type Middleware } from '../packages/gale/dist/chain.js';
import type { Request } from '../packages/gale/dist/request/request.js';
import type { Response } from '../packages/gale/dist/response/response.js';

const N = 1_000_000;
const req = { _base: '' } as unknown as Request;
const res = { headersSent: false } as unknown as Response;
let sink = 0;
const host: ChainHost = {
  reply: (out) => {
    sink += (out as { n: number }).n;
    return undefined;
  },
  fail: (err) => {
    throw err;
  },
  notFound: () => {},
};
const value = { n: 1 };

async function time(name: string, fn: () => Promise<unknown> | undefined): Promise<number> {
  for (let i = 0; i < N / 10; i++) {
    const p = fn();
    if (p !== undefined) await p;
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const p = fn();
    if (p !== undefined) await p;
  }
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log(`${name.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns`);
  return ns;
}

// Five async functions, each awaiting the next, the innermost answering: the floor for five awaited steps.
const h5 = async () => host.reply(value, req, res);
const h4 = async () => {
  await h5();
};
const h3 = async () => {
  await h4();
};
const h2 = async () => {
  await h3();
};
const h1 = async () => {
  await h2();
};
const h0 = async () => {
  await h1();
};

const asyncMw: Middleware = async (_req, _res, next) => {
  await next();
};
const syncMw: Middleware = (_req, _res, next) => next();
const handler = () => value;
const step = (fn: Middleware) => ({ fn, base: '' });
const chainAsync = compose(
  [1, 2, 3, 4, 5].map(() => step(asyncMw)),
  handler,
  '',
  [[]],
  host,
);
const chainSync = compose(
  [1, 2, 3, 4, 5].map(() => step(syncMw)),
  handler,
  '',
  [[]],
  host,
);

console.log('per request (lower is better)');
const bare = await time('bare handler (a route without middleware)', () => host.reply(handler(), req, res));
const hand = await time('five hand-nested async functions', () => h0());
const gale = await time('Gale: five `async (req, res, next) => { await next() }`', () => chainAsync(req, res));
const galeSync = await time('Gale: five `(req, res, next) => next()` (Express style)', () => chainSync(req, res));
console.log(
  `\nGale async chain / hand-nested: ${(gale / hand).toFixed(2)}×; sync chain / bare handler: ${(galeSync / bare).toFixed(2)}× (sink ${sink})`,
);
