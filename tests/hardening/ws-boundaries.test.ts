// WebSocket sizes at every boundary, over real sockets: messages of 0, 1, 125, 126, 65 535, 65 536 bytes and
// 1 MiB, text and binary, compressed and not (the `ws` client and raw frames), fragmented with empty
// first/middle/last fragments, empty ping/pong/close payloads, and empty sends from JS. The process must survive
// every one (an empty message used to SIGSEGV the server: the pooled message buffer was read before it existed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync, inflateRawSync, constants as z } from 'node:zlib';
import { type App, T, withApp } from '../helpers.js';
import { closed, connect, nextMessage } from '../ws/clients.js';
import { closeFrame, frame, rawWs, readClose, readFrame } from '../ws/frames.js';

const MiB = 1024 * 1024;
const SIZES = [0, 1, 125, 126, 65_535, 65_536, MiB];

/** A deterministic payload of `n` bytes: ASCII (valid UTF-8) so one payload serves text and binary. */
function payload(n: number, seed = 0): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = 97 + ((i * 7 + seed) % 26);
  return b;
}

function echoApp(compression: false | 'dedicated' | 'shared') {
  return (app: App) =>
    app.ws('/echo', {
      compression,
      compressionThreshold: 0,
      message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
    });
}

/** permessage-deflate body of one message as a client sends it: raw deflate, sync flush, tail removed. */
function deflated(data: Buffer): Buffer {
  const out = deflateRawSync(data, { finishFlush: z.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);
}

for (const compression of [false, 'dedicated', 'shared'] as const) {
  test(`ws client, compression ${compression || 'off'}: every boundary size echoes exactly, text and binary`, {
    timeout: 30_000,
  }, async (t) => {
    const { port } = await withApp(t, echoApp(compression));
    const c = await connect(`ws://127.0.0.1:${port}/echo`, undefined, {
      perMessageDeflate: compression ? { threshold: 0 } : false,
      maxPayload: 2 * MiB,
    });
    if (compression) assert.match(String(c.extensions), /permessage-deflate/);
    for (const n of SIZES) {
      for (const binary of [false, true]) {
        const p = payload(n, n);
        c.send(binary ? p : p.toString('latin1'), { binary });
        const m = await nextMessage(c);
        assert.equal(m.isBinary, binary, `size ${n}`);
        assert.equal(m.data.length, n, `size ${n} binary=${binary}`);
        assert.ok(m.data.equals(p), `size ${n} binary=${binary}: bytes differ`);
      }
    }
    // Several empty messages in a row, then a normal one: the pooled buffer stays consistent.
    for (let i = 0; i < 5; i++) c.send('');
    c.send('after');
    for (let i = 0; i < 5; i++) assert.equal((await nextMessage(c)).data.length, 0);
    assert.equal((await nextMessage(c)).data.toString(), 'after');
    c.close(1000);
    assert.equal((await closed(c)).code, 1000);
  });
}

test('1 MiB is the default maxPayloadLength: 1 MiB echoes, 1 MiB + 1 is closed with 1009', {
  timeout: 20_000,
}, async (t) => {
  const { port } = await withApp(t, echoApp(false));
  const c = await connect(`ws://127.0.0.1:${port}/echo`, undefined, { maxPayload: 4 * MiB });
  c.send(payload(MiB));
  assert.equal((await nextMessage(c)).data.length, MiB);
  c.send(payload(MiB + 1));
  assert.equal((await closed(c)).code, 1009);
});

test('raw frames: empty and boundary-length messages with 7-, 16- and 64-bit length encodings', T, async (t) => {
  const { port } = await withApp(t, echoApp(false));
  const { conn } = await rawWs(port, '/echo');
  for (const [n, bits] of [
    [0, 7],
    [0, 16],
    [0, 64],
    [125, 7],
    [125, 16],
    [126, 16],
    [126, 64],
    [65_535, 16],
    [65_536, 64],
  ] as const) {
    for (const op of [1, 2]) {
      const p = payload(n);
      await conn.write(frame(op, p, { lengthBits: bits }));
      const f = await readFrame(conn);
      assert.deepEqual([f.opcode, f.fin, f.payload.length], [op, true, n], `${n} bytes, ${bits}-bit length`);
      assert.ok(f.payload.equals(p));
    }
  }
  conn.socket.destroy();
});

test('raw frames: fragmented messages with empty first, middle and last fragments', T, async (t) => {
  const { port } = await withApp(t, echoApp(false));
  const { conn } = await rawWs(port, '/echo');
  const cases: [string, Buffer[]][] = [
    ['empty first', [Buffer.alloc(0), Buffer.from('abc')]],
    ['empty middle', [Buffer.from('ab'), Buffer.alloc(0), Buffer.from('c')]],
    ['empty last', [Buffer.from('abc'), Buffer.alloc(0)]],
    ['all empty', [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)]],
    ['many empty around one byte', [...Array(50).fill(Buffer.alloc(0)), Buffer.from('x'), Buffer.alloc(0)]],
  ];
  for (const op of [1, 2]) {
    for (const [name, parts] of cases) {
      const frames = parts.map((p, i) => frame(i === 0 ? op : 0, p, { fin: i === parts.length - 1 }));
      // An empty ping between fragments must be answered without disturbing the message.
      frames.splice(1, 0, frame(9));
      await conn.write(Buffer.concat(frames));
      const pong = await readFrame(conn);
      assert.deepEqual([pong.opcode, pong.payload.length], [10, 0], name);
      const f = await readFrame(conn);
      assert.equal(f.opcode, op, name);
      assert.equal(f.payload.toString(), Buffer.concat(parts).toString(), name);
    }
  }
  conn.socket.destroy();
});

test('raw frames: compressed messages of every boundary size, whole and fragmented with empty fragments', {
  timeout: 20_000,
}, async (t) => {
  const { port } = await withApp(t, echoApp('dedicated'));
  const { conn, head } = await rawWs(
    port,
    '/echo',
    'Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; server_no_context_takeover\r\n',
  );
  assert.match(head, /permessage-deflate/);
  const inflate = (f: { rsv1: boolean; payload: Buffer }) =>
    f.rsv1
      ? inflateRawSync(Buffer.concat([f.payload, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: z.Z_SYNC_FLUSH })
      : f.payload;
  for (const n of SIZES) {
    const p = payload(n, 3);
    await conn.write(frame(2, deflated(p), { rsv1: true }));
    const f = await readFrame(conn, 5000);
    assert.equal(f.opcode, 2);
    assert.ok(inflate(f).equals(p), `compressed ${n} bytes`);
  }
  // The empty compressed message in its shortest form (RFC 7692 §7.2.3.6: a single 0x00 byte).
  await conn.write(frame(1, Buffer.from([0]), { rsv1: true }));
  assert.equal(inflate(await readFrame(conn)).length, 0);
  // Compressed data split into fragments, with empty ones first, between and last (RSV1 only on the first).
  const body = deflated(payload(1000, 5));
  const parts = [Buffer.alloc(0), body.subarray(0, 10), Buffer.alloc(0), body.subarray(10), Buffer.alloc(0)];
  await conn.write(
    Buffer.concat(parts.map((p, i) => frame(i === 0 ? 1 : 0, p, { fin: i === parts.length - 1, rsv1: i === 0 }))),
  );
  assert.ok(inflate(await readFrame(conn)).equals(payload(1000, 5)));
  conn.socket.destroy();
});

test(
  'raw frames: empty ping, empty pong, then an empty close (the server echoes a close without a code)',
  T,
  async (t) => {
    const closes: [number, string][] = [];
    const { port } = await withApp(t, (app) =>
      app.ws('/echo', {
        message: (ws, data) => ws.send(data),
        close: (_ws, code, reason) => closes.push([code, reason]),
      }),
    );
    const { conn } = await rawWs(port, '/echo');
    await conn.write(frame(9));
    const pong = await readFrame(conn);
    assert.deepEqual([pong.opcode, pong.payload.length], [10, 0]);
    await conn.write(frame(10)); // an unsolicited empty pong is ignored
    await conn.write(frame(1, 'still here'));
    assert.equal((await readFrame(conn)).payload.toString(), 'still here');
    await conn.write(frame(8));
    const c = await readClose(conn);
    assert.equal(c.code, 1005, 'a close frame without a payload is answered without one');
    assert.ok(await conn.waitForClose(3000), 'the server closes the TCP connection after the close handshake');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(closes, [[1005, '']]);
  },
);

test('raw frames: a close with a code and an empty reason, and a 125-byte control payload', T, async (t) => {
  const { port } = await withApp(t, echoApp(false));
  const { conn } = await rawWs(port, '/echo');
  const ping = payload(125);
  await conn.write(frame(9, ping));
  const pong = await readFrame(conn);
  assert.ok(pong.payload.equals(ping));
  await conn.write(closeFrame(4000, ''));
  assert.deepEqual(await readClose(conn), { code: 4000, reason: '' });
});

test(
  "JS sends empty data: ws.send(''), Buffer.alloc(0), Uint8Array(0), ping(''), publish(topic, ''), close(1000, '')",
  T,
  async (t) => {
    let published = -1;
    let appPublished = -1;
    const { port } = await withApp(t, (app) =>
      app.ws('/e', {
        open: (ws) => ws.subscribe('t'),
        message: (ws, data) => {
          if (data.toString() === 'close me') return ws.close(1000, '');
          if (data.toString() !== 'go') return;
          assert.equal(ws.send(''), 'sent');
          assert.equal(ws.send(Buffer.alloc(0), { binary: true }), 'sent');
          assert.equal(ws.send(new Uint8Array(0), { binary: true }), 'sent');
          assert.equal(ws.send('', { compress: true }), 'sent');
          ws.ping('');
          ws.ping(Buffer.alloc(0));
          published = ws.publish('t', '');
          appPublished = app.publish('t', Buffer.alloc(0));
          ws.send('done');
        },
      }),
    );
    const a = await connect(`ws://127.0.0.1:${port}/e`);
    const b = await connect(`ws://127.0.0.1:${port}/e`);
    a.send('go');
    const got: [number, boolean][] = [];
    for (;;) {
      const m = await nextMessage(a);
      if (m.data.toString() === 'done') break;
      got.push([m.data.length, m.isBinary]);
    }
    assert.deepEqual(got, [
      [0, false],
      [0, true],
      [0, true],
      [0, false],
      [0, true], // app.publish reaches the sender too
    ]);
    // b got both publishes.
    assert.deepEqual([(await nextMessage(b)).data.length, (await nextMessage(b)).data.length], [0, 0]);
    assert.equal(published, 1);
    assert.equal(appPublished, 2);
    // The server closes with a code and an empty reason.
    const done = closed(b);
    b.send('close me');
    assert.deepEqual(await done, { code: 1000, reason: '' });
    a.close();
  },
);
