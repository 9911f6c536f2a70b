// The app over real sockets on a free port: the JSON routes, a bad body, the static page and the WebSocket echo.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { createApp } from '../src/app.js';

const app = createApp();
let base = '';

before(async () => {
  const { port } = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
});
after(() => app.close());

test('GET /api/hello/:name answers JSON', async () => {
  const res = await fetch(`${base}/api/hello/ada`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { hello: 'ada' });
});

test('POST /api/echo returns the object, and refuses what is not one', async () => {
  const ok = await fetch(`${base}/api/echo`, {
    method: 'POST',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json' },
  });
  assert.deepEqual(await ok.json(), { received: { a: 1 } });
  const bad = await fetch(`${base}/api/echo`, {
    method: 'POST',
    body: '{oops',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(bad.status, 400);
  const array = await fetch(`${base}/api/echo`, {
    method: 'POST',
    body: '[1]',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(array.status, 422);
  assert.match(await array.text(), /not an array/);
});

test('the static page is served from public/', async () => {
  const res = await fetch(`${base}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await res.text(), /<title>Gale app<\/title>/);
});

test('the WebSocket route echoes', async () => {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
  ws.send('hello');
  assert.equal(await reply, 'hello');
  ws.close();
});
