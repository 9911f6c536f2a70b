// Pub/sub, permessage-deflate and backpressure with real clients: fan-out through the engine's topics (sender
// excluded for ws.publish), compression negotiated and used both ways (shared and dedicated, and declined when
// off), and the maxBackpressure policies (drop → 'dropped', close → 1008) with the drain event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, inflateRawSync } from 'node:zlib';
import WebSocket from 'ws';
import { sleep, T, withApp } from '../helpers.js';
import { closed, connect, nextMessage } from './clients.js';
import { frame, rawWs, readClose, readFrame } from './frames.js';

const wsUrl = (port: number, path: string) => `ws://127.0.0.1:${port}${path}`;

test(
  'pub/sub: ws.publish reaches every other subscriber, app.publish all; unsubscribe and close leave the topic',
  T,
  async (t) => {
    const s = await withApp(t, (app) => {
      app.ws('/room', {
        open: (ws) => {
          assert.equal(ws.subscribe('room'), true);
          assert.equal(ws.subscribe('room'), false);
          ws.subscribe(`me:${ws.remotePort}`);
        },
        message: (ws, data) => {
          const text = data.toString();
          if (text === 'leave') {
            ws.unsubscribe('room');
            ws.send(`left:${ws.isSubscribed('room')}:${ws.getTopics().length}`);
          } else ws.send(`reached:${ws.publish('room', text)}`);
        },
      });
    });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => connect(wsUrl(s.port, '/room'))));
    assert.equal(s.app.subscribers('room'), 3);
    a.send('hello');
    assert.equal((await nextMessage(a)).data.toString(), 'reached:2');
    assert.equal((await nextMessage(b)).data.toString(), 'hello');
    assert.equal((await nextMessage(c)).data.toString(), 'hello');
    assert.equal(s.app.publish('room', Buffer.from([9])), 3);
    for (const x of [a, b, c]) assert.deepEqual([...(await nextMessage(x)).data], [9]);
    c.send('leave');
    assert.equal((await nextMessage(c)).data.toString(), 'left:false:1');
    assert.equal(s.app.subscribers('room'), 2);
    const bClosed = closed(b);
    b.close();
    await bClosed;
    await sleep(50);
    assert.equal(s.app.subscribers('room'), 1);
    assert.equal(s.app.publish('room', 'last'), 1);
    assert.equal((await nextMessage(a)).data.toString(), 'last');
    a.close();
    c.close();
  },
);

test('fan-out to 200 sockets: every one gets every published message, in order', { timeout: 20_000 }, async (t) => {
  const s = await withApp(t, (app) => app.ws('/fan', { open: (ws) => ws.subscribe('all') }));
  const clients = await Promise.all(Array.from({ length: 200 }, () => connect(wsUrl(s.port, '/fan'))));
  for (let i = 0; i < 20; i++) assert.equal(s.app.publish('all', `m${i}`), 200);
  for (const c of clients) {
    for (let i = 0; i < 20; i++) assert.equal((await nextMessage(c)).data.toString(), `m${i}`);
    c.terminate();
  }
});

const big = JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: 'item', ok: true })) });

for (const mode of ['shared', 'dedicated'] as const) {
  test(`compression '${mode}': negotiated with the ws client, messages compressed both ways`, T, async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/z', { compression: mode, message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });
    });
    const c = await connect(wsUrl(port, '/z'), undefined, { perMessageDeflate: { threshold: 0 } });
    assert.equal(c.extensions, 'permessage-deflate');
    for (let i = 0; i < 3; i++) {
      c.send(big);
      assert.equal((await nextMessage(c)).data.toString(), big);
    }
    c.close();
    // On the wire: the reply to a large message has RSV1 set and inflates to the message.
    const raw = await rawWs(port, '/z', 'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n');
    assert.match(raw.head, /Sec-WebSocket-Extensions: permessage-deflate/i);
    if (mode === 'shared') assert.match(raw.head, /server_no_context_takeover/);
    else assert.doesNotMatch(raw.head, /server_no_context_takeover/);
    for (let i = 0; i < 2; i++) {
      await raw.conn.write(frame(1, big));
      const f = await readFrame(raw.conn);
      assert.equal(f.rsv1, true);
      assert.ok(f.payload.length < big.length / 4, `compressed to ${f.payload.length} bytes`);
      if (mode === 'shared' || i === 0) {
        const plain = inflateRawSync(Buffer.concat([f.payload, Buffer.from([0, 0, 0xff, 0xff])]), {
          finishFlush: constants.Z_SYNC_FLUSH,
        });
        assert.equal(plain.toString(), big);
      }
    }
    // Small messages stay uncompressed (threshold 1024 by default).
    await raw.conn.write(frame(1, 'tiny'));
    const small = await readFrame(raw.conn);
    assert.deepEqual([small.rsv1, small.payload.toString()], [false, 'tiny']);
    raw.conn.socket.destroy();
  });
}

test('compression off (the default): the offer is declined and RSV1 from the client is a 1002', T, async (t) => {
  const { port } = await withApp(t, (app) => app.ws('/plain', { message: (ws, d) => ws.send(d) }));
  const c = await connect(wsUrl(port, '/plain'), undefined, { perMessageDeflate: true });
  assert.equal(c.extensions, '');
  c.close();
  const raw = await rawWs(port, '/plain', 'Sec-WebSocket-Extensions: permessage-deflate\r\n');
  assert.doesNotMatch(raw.head, /Sec-WebSocket-Extensions/i);
  await raw.conn.write(frame(1, 'x', { rsv1: true }));
  assert.equal((await readClose(raw.conn)).code, 1002);
  raw.conn.socket.destroy();
});

test('a compressed message that inflates past maxPayloadLength closes with 1009 (no zip bomb)', T, async (t) => {
  const { port } = await withApp(t, (app) =>
    app.ws('/bomb', { compression: 'shared', maxPayloadLength: 64 * 1024, message: (ws, d) => ws.send(d) }),
  );
  const c = await connect(wsUrl(port, '/bomb'), undefined, { perMessageDeflate: { threshold: 0 } });
  const done = closed(c);
  c.send(Buffer.alloc(10 * 1024 * 1024)); // ~10 KiB on the wire, 10 MiB inflated
  assert.equal((await done).code, 1009);
});

test('backpressure: a client that does not read gets "buffered", then "dropped"; drain follows when it reads', {
  timeout: 20_000,
}, async (t) => {
  const results: string[] = [];
  let drained = 0;
  let sock: { send(d: string): string } | undefined;
  const { port } = await withApp(t, (app) => {
    app.ws('/slow', {
      maxBackpressure: 512 * 1024,
      open: (ws) => {
        sock = ws;
      },
      drain: () => drained++,
    });
  });
  const raw = await rawWs(port, '/slow');
  raw.conn.socket.pause();
  await sleep(50);
  const chunk = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 200; i++) {
    const r = sock?.send(chunk) ?? 'none';
    results.push(r);
    if (r === 'dropped') break;
    await sleep(1);
  }
  assert.equal(results[0], 'sent');
  assert.ok(results.includes('buffered'), `results: ${results.join(',')}`);
  assert.equal(results.at(-1), 'dropped');
  raw.conn.socket.resume();
  for (let i = 0; i < 200 && drained === 0; i++) await sleep(10);
  assert.ok(drained >= 1, 'drain ran after the client read');
  raw.conn.socket.destroy();
});

test('closeOnBackpressureLimit: the slow client is closed with 1008', { timeout: 20_000 }, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/strict', {
      maxBackpressure: 256 * 1024,
      closeOnBackpressureLimit: true,
      open: async (ws) => {
        const chunk = 'y'.repeat(64 * 1024);
        for (let i = 0; i < 400 && ws.readyState === 1; i++) {
          ws.send(chunk);
          await sleep(1);
        }
      },
    });
  });
  const raw = await rawWs(port, '/strict');
  raw.conn.socket.pause();
  await sleep(1500);
  raw.conn.socket.resume();
  const close = await readClose(raw.conn, 10_000);
  assert.equal(close.code, 1008);
  raw.conn.socket.destroy();
});

test('the WebSocket class constants match the ws library', () => {
  assert.deepEqual([WebSocket.CONNECTING, WebSocket.OPEN, WebSocket.CLOSING, WebSocket.CLOSED], [0, 1, 2, 3]);
});

test('publish reports slow subscribers: one over maxBackpressure is skipped (not counted), the others still get it', {
  timeout: 20_000,
}, async (t) => {
  const s = await withApp(t, (app) => {
    app.ws('/t', { maxBackpressure: 128 * 1024, open: (ws) => ws.subscribe('t') });
  });
  const slow = await rawWs(s.port, '/t');
  slow.conn.socket.pause();
  const fast = await connect(wsUrl(s.port, '/t'));
  let received = 0;
  fast.on('message', () => received++);
  const chunk = 'p'.repeat(32 * 1024);
  const counts: number[] = [];
  // Until the paused client's kernel buffers are full and 128 KiB more wait in the engine for it.
  for (let i = 0; i < 600 && counts.at(-1) !== 1; i++) {
    counts.push(s.app.publish('t', chunk));
    await sleep(1);
  }
  assert.equal(counts[0], 2);
  assert.equal(counts.at(-1), 1, `reached per publish: ${counts.join(',')}`);
  for (let i = 0; i < 300 && received < counts.length; i++) await sleep(10);
  assert.equal(received, counts.length, 'the fast subscriber got every message');
  slow.conn.socket.destroy();
  fast.close();
});

test(
  'shared compression declines an offer that needs a server window under 15 bits (dedicated accepts it)',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/shared', { compression: 'shared' });
      app.ws('/dedicated', { compression: 'dedicated' });
    });
    const offer = 'Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=10\r\n';
    const shared = await rawWs(port, '/shared', offer);
    assert.doesNotMatch(shared.head, /Sec-WebSocket-Extensions/i);
    shared.conn.socket.destroy();
    const dedicated = await rawWs(port, '/dedicated', offer);
    assert.match(dedicated.head, /Sec-WebSocket-Extensions: permessage-deflate;[^\r]*server_max_window_bits=10/i);
    dedicated.conn.socket.destroy();
  },
);
