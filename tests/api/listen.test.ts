// app.listen in both shapes: the Promise form, and Node's (port[, host], cb) form that binds at once, so
// app.address() answers right after it returns; errors reach the callback (or reject the Promise).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale } from 'gale';
import { T } from '../helpers.js';

test('listen(port, host, cb) binds at once, returns the app, and calls cb with no argument', T, async () => {
  const app = gale();
  app.get('/', () => 'hi');
  assert.equal(app.address(), null, 'no address before listen');
  let called: unknown[] | undefined;
  const ret = app.listen(0, '127.0.0.1', (...args: unknown[]) => {
    called = args;
  });
  assert.equal(ret, app);
  const addr = app.address();
  assert.ok(addr !== null && addr.port > 0 && addr.address === '127.0.0.1', JSON.stringify(addr));
  assert.equal(called, undefined, 'the callback runs after listen() returns, as on node:http');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(called, []);
  assert.equal(await (await fetch(`http://127.0.0.1:${addr.port}/`)).text(), 'hi');
  await app.close();
  assert.equal(app.address(), null, 'no address after close');
});

test('listen(cb) alone picks a free port; listen(port, cb) too', T, async () => {
  const a = gale();
  await new Promise<void>((resolve, reject) => a.listen((err) => (err ? reject(err) : resolve())));
  assert.ok((a.address()?.port ?? 0) > 0);
  const b = gale();
  await new Promise<void>((resolve, reject) => b.listen(0, (err) => (err ? reject(err) : resolve())));
  assert.ok((b.address()?.port ?? 0) > 0);
  await Promise.all([a.close(), b.close()]);
});

test('a port in use reaches the callback as an error (and rejects the Promise form)', T, async () => {
  const a = gale();
  const { port } = await a.listen(0, '127.0.0.1');
  const b = gale();
  const err = await new Promise<Error | undefined>((r) => b.listen(port, '127.0.0.1', r));
  assert.ok(err instanceof Error, 'an error, not a crash');
  assert.match(err.message, /in use|EADDRINUSE/i);
  assert.equal(b.address(), null);
  await assert.rejects(gale().listen(port, '127.0.0.1'), /in use|EADDRINUSE/i);
  await a.close();
});
