// Output of one loop turn leaves in the order JS produced it, across connections: a WebSocket message sent before
// an HTTP answer on another connection reaches the client first, and the other way round (the engine corks writes
// until the end of the batch; it used to flush the connections last-dirtied first). Engine.IO's upgrade relies on
// it: the probe answer must not arrive after the refusal of a poll that came in just behind the probe.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { buildRequest, T, withApp } from '../helpers.js';
import { connect } from './clients.js';

for (const first of ['ws', 'http'] as const) {
  test(`one batch, two connections: the ${first} output JS wrote first arrives first`, T, async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/w', { message: (s) => s.send('ws') });
      app.get('/h', () => 'http');
    });
    const ws = await connect(`ws://127.0.0.1:${port}/w`);
    const raw = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => raw.once('connect', resolve));
    t.after(() => {
      ws.terminate();
      raw.destroy();
    });
    // One exchange first, so the server has accepted this connection (an accept in the same wakeup as the first
    // request would read it before the WebSocket, whatever the order of the writes).
    raw.write(buildRequest({ path: '/h' }));
    await new Promise((resolve) => raw.once('data', resolve));
    for (let round = 0; round < 5; round++) {
      const arrived: string[] = [];
      const both = new Promise<void>((resolve) => {
        const seen = (what: string) => {
          arrived.push(what);
          if (arrived.length === 2) resolve();
        };
        ws.once('message', () => seen('ws'));
        raw.once('data', () => seen('http'));
      });
      // Both writes complete before the server's next wakeup (same process, loopback), so it reads the two
      // connections in one batch and answers both inside it.
      if (first === 'ws') {
        ws.send('go');
        raw.write(buildRequest({ path: '/h' }));
      } else {
        raw.write(buildRequest({ path: '/h' }));
        ws.send('go');
      }
      await both;
      assert.deepEqual(arrived, first === 'ws' ? ['ws', 'http'] : ['http', 'ws'], `round ${round}`);
    }
  });
}
