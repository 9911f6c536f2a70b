// Route pattern syntaxes Express users write, end to end through the engine's router: constraints,
// optional params and groups (Express 4 and 5), params inside a segment, named wildcards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { T, withApp } from '../helpers.js';

async function get(port: number, path: string) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return [r.status, await r.text()] as const;
}

test('param constraints: :id(\\d+) matches digits only; a plain param takes the rest', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/users/:id(\\d+)', (req) => `id ${req.params.id}`);
    app.get('/users/:name', (req) => `name ${req.params.name}`);
  });
  assert.deepEqual(await get(port, '/users/42'), [200, 'id 42']);
  assert.deepEqual(await get(port, '/users/ada'), [200, 'name ada']);
});

test('optional params: Express 4 :opt? and Express 5 {/:opt} leave absent params undefined', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/v4/:a/:b?', (req) => ({ a: req.params.a, b: req.params.b ?? 'absent' }));
    app.get('/v5/:a{/:b}', (req) => ({ a: req.params.a, b: req.params.b ?? 'absent' }));
    app.get('/files{.:ext}', (req) => ({ ext: req.params.ext ?? 'absent' }));
  });
  assert.deepEqual(await get(port, '/v4/x'), [200, '{"a":"x","b":"absent"}']);
  assert.deepEqual(await get(port, '/v4/x/y'), [200, '{"a":"x","b":"y"}']);
  assert.deepEqual(await get(port, '/v5/x'), [200, '{"a":"x","b":"absent"}']);
  assert.deepEqual(await get(port, '/v5/x/y'), [200, '{"a":"x","b":"y"}']);
  assert.deepEqual(await get(port, '/files'), [200, '{"ext":"absent"}']);
  assert.deepEqual(await get(port, '/files.tar'), [200, '{"ext":"tar"}']);
});

test('params inside a segment and named wildcards', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/flights/:from-:to', (req) => `${req.params.from}→${req.params.to}`);
    app.get('/dl/:name.:ext', (req) => `${req.params.name} as ${req.params.ext}`);
    app.get('/docs/*path', (req) => `doc ${req.params.path}`);
    app.get('/repo/*path/edit', (req) => `edit ${req.params.path}`);
  });
  assert.deepEqual(await get(port, '/flights/LAX-SFO'), [200, 'LAX→SFO']);
  assert.deepEqual(await get(port, '/dl/report.pdf'), [200, 'report as pdf']);
  assert.deepEqual(await get(port, '/docs/a/b/c.md'), [200, 'doc a/b/c.md']);
  assert.deepEqual(await get(port, '/repo/src/lib.rs/edit'), [200, 'edit src/lib.rs']);
  assert.deepEqual(await get(port, '/docs'), [404, 'Not Found']);
});

test('malformed patterns are refused at registration with the position', T, async (t) => {
  await withApp(t, (app) => {
    assert.throws(() => app.get('/:id(\\d+', () => ''), /unclosed "\(" at byte/);
    assert.throws(() => app.get('/a{/:b', () => ''), /\{/);
  });
});
