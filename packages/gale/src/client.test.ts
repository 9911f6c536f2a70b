// fillPath against the router: for each pattern (Express 5 and 4 syntax), the path the client writes from params is
// one Gale's own router matches to that route, with the same params back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fillPath } from './client.js';
import { gale } from './index.js';

const CASES: [pattern: string, params: Record<string, unknown>, expected: string][] = [
  ['/users/:id', { id: 7 }, '/users/7'],
  ['/users/:id', { id: 'a b/c?' }, '/users/a%20b%2Fc%3F'],
  ['/files/*path', { path: 'docs/a b.txt' }, '/files/docs/a%20b.txt'],
  ['/files/*path', { path: ['docs', 'x'] }, '/files/docs/x'],
  ['/page{/:n}', {}, '/page'],
  ['/page{/:n}', { n: 2 }, '/page/2'],
  ['/a/:x{-:y}', { x: 'p' }, '/a/p'],
  ['/a/:x{-:y}', { x: 'p', y: 'q' }, '/a/p-q'],
  ['/old/:id?', {}, '/old'],
  ['/old/:id?', { id: 3 }, '/old/3'],
  ['/n/:id(\\d+)', { id: 42 }, '/n/42'],
  ['/lit\\:x/:id', { id: 1 }, '/lit:x/1'],
];

test('fillPath writes each pattern the way the router reads it back', async () => {
  const app = gale();
  for (const pattern of new Set(CASES.map(([p]) => p))) {
    app.get(pattern, (req) => ({ route: pattern, params: { ...req.params } }));
  }
  try {
    for (const [pattern, params, expected] of CASES) {
      const path = fillPath(pattern, params);
      assert.equal(path, expected, pattern);
      const res = await app.request(path);
      assert.equal(res.status, 200, `${pattern} → ${path}`);
      const body = (await res.json()) as { route: string; params: Record<string, unknown> };
      assert.equal(body.route, pattern, `${path} reached its own route`);
      for (const [name, value] of Object.entries(params)) {
        const want = Array.isArray(value) ? value.join('/') : String(value);
        assert.equal(body.params[name], want, `${pattern}: param ${name}`);
      }
    }
  } finally {
    await app.close();
  }
});

test('fillPath: a required param missing is a TypeError naming it', () => {
  assert.throws(() => fillPath('/users/:id/posts/:post', { id: 1 }), {
    name: 'TypeError',
    message: 'gale/client: the path /users/:id/posts/:post needs the param "post"',
  });
});
