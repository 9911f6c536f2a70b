// The app's HTTP routes through app.request(): no port is opened, yet every request goes through the same engine
// (parser, router, static files, limits, error handling) as one from the network. The WebSocket echo needs a real
// socket (app.request speaks HTTP/1.1 only), so that test listens on a free port.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import WebSocket from 'ws';
import { createApp } from '../src/app.js';

const app = createApp();
after(() => app.close());

test('GET /api/hello/:name answers JSON', async () => {
  const res = await app.request('/api/hello/ada');
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { hello: 'ada' });
});

test('POST /api/echo returns the object, and refuses what is not one', async () => {
  const post = (body: string) =>
    app.request('/api/echo', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const ok = await post('{"a":1}');
  assert.deepEqual(await ok.json(), { received: { a: 1 } });
  const bad = await post('{oops');
  assert.equal(bad.status, 400);
  const array = await post('[1]');
  assert.equal(array.status, 422);
  assert.match(await array.text(), /not an array/);
});

test('the static page is served from public/', async () => {
  const res = await app.request('/');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await res.text(), /<title>Gale app<\/title>/);
});

test('a path with no route and no file is a 404; a method no route takes is a 405', async () => {
  assert.equal((await app.request('/no-such-page')).status, 404);
  const put = await app.request('/api/hello/ada', { method: 'PUT' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, HEAD');
});

test('the WebSocket route echoes (over a socket)', async () => {
  const { port } = await app.listen(0, '127.0.0.1');
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
  ws.send('hello');
  assert.equal(await reply, 'hello');
  ws.close();
});
