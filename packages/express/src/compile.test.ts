// constantHandler: which handlers compile.ts proves answer a constant, and which it leaves to run.
// biome-ignore-all lint/suspicious/noExplicitAny: handlers of every shape
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constantHandler, pristine } from './compile.js';

const yes: any[] = [
  (_req: any, res: any) => res.json({ hello: 'world' }),
  (_q: any, r: any) => r.send('text'),
  (_q: any, r: any) => r.send(`template`),
  (_q: any, r: any) => r.status(201).json([1, -2, 'x', null, true, { 'a-b': { c: [] } }]),
  function named(_q: any, r: any) {
    return r.json(null);
  },
  (_q: any, r: any) => {
    r.send({ ok: true });
  },
];
const counter = { n: 0 };
const no: any[] = [
  (req: any, res: any) => res.json({ id: req.params.id }),
  (_q: any, r: any) => r.json({ n: ++counter.n }),
  (_q: any, r: any) => r.send(`n ${counter.n}`),
  async (_q: any, r: any) => r.json({ a: 1 }),
  (_q: any, r: any, _next: any) => r.json({ a: 1 }),
  (_q: any, r: any) => r.send(404),
  (_q: any, r: any) => r.status(counter.n).json({}),
  (_q: any, r: any) => r.set('x', 'y').json({}),
  (_q: any, r: any) => r.json({ ...counter }),
  (_q: any, r: any) => r.json({ [String(counter.n)]: 1 }),
  (_q: any, r: any) => r.json({ __proto__: { a: 1 } }),
  (_q: any, r: any) => r.json(/re/),
  (_q: any, r: any) => r.json(undefined),
  (_q: any, r: any) => {
    counter.n++;
    r.json({});
  },
  (q: any, _r: any) => q.res.json({}),
  ((_q: any, r: any) => r.json({})).bind(null),
  {
    m(_q: any, r: any) {
      return r.json({});
    },
  }.m,
];

test('handlers of constants are recognised', () => {
  for (const fn of yes) assert.equal(constantHandler(fn), true, String(fn));
});

test('anything that reads the request, keeps state or calls more is not', () => {
  for (const fn of no) assert.equal(constantHandler(fn), false, String(fn));
});

test('pristine() sees a method replaced, added or removed anywhere in the chain', () => {
  class A {
    f() {}
  }
  class B extends A {
    g() {}
  }
  const ok = pristine(B.prototype);
  assert.equal(ok(), true);
  const f = A.prototype.f;
  A.prototype.f = () => {};
  assert.equal(ok(), false);
  A.prototype.f = f;
  assert.equal(ok(), true);
  (B.prototype as any).h = 1;
  assert.equal(ok(), false);
});
