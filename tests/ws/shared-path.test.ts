// A path with both a WebSocket route and a GET route (as Engine.IO needs for long-polling and WebSocket on
// one URL): upgrades reach the WebSocket route, plain GETs, HEADs and other upgrades (h2c) the GET route,
// in either registration order; a second GET route on the path is still a conflict.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';
import { connect, nextMessage } from './clients.js';

for (const order of ['ws first', 'get first'] as const) {
  test(
    `one path, two routes (${order}): upgrades to the WebSocket route, plain GETs to the GET route`,
    T,
    async (t) => {
      const { port } = await withApp(t, (app) => {
        const ws = () => app.ws('/io/:ns', { message: (s, m) => s.send(`ws ${m}`) });
        const get = () => app.get('/io/:ns', (req) => `get ${req.params.ns} ${req.query.x ?? ''}`);
        if (order === 'ws first') {
          ws();
          get();
        } else {
          get();
          ws();
        }
      });
      const c = await connect(`ws://127.0.0.1:${port}/io/chat`);
      c.send('hi');
      assert.equal((await nextMessage(c)).data.toString(), 'ws hi');
      c.close();
      const r = await fetch(`http://127.0.0.1:${port}/io/chat?x=1`);
      assert.deepEqual([r.status, await r.text()], [200, 'get chat 1']);
      const conn = await RawConn.open(port);
      await conn.write(buildRequest({ method: 'HEAD', path: '/io/chat' }));
      const head = await conn.readResponse({ head: true });
      assert.equal(head.status, 200);
      // An upgrade to something other than WebSocket is a plain request for the GET route.
      await conn.write(
        buildRequest({
          path: '/io/a',
          headers: [
            ['Connection', 'Upgrade'],
            ['Upgrade', 'h2c'],
          ],
        }),
      );
      const h2c = await conn.readResponse();
      assert.deepEqual([h2c.status, h2c.text], [200, 'get a ']);
      await conn.write(buildRequest({ method: 'POST', path: '/io/a', body: 'x' }));
      const post = await conn.readResponse();
      assert.equal(post.status, 405);
      conn.socket.destroy();
    },
  );
}

test('a second GET route on a shared path is still a conflict', T, async (t) => {
  await withApp(t, (app) => {
    app.ws('/s', { message: () => {} });
    app.get('/s', () => 'one');
    assert.throws(() => app.get('/s', () => 'two'), /conflicts/);
  });
});
