// Hostile HTTP/2 clients, written frame by frame on raw sockets: the rapid-reset flood (CVE-2023-44487), SETTINGS,
// PING and empty-frame floods, flow-control violations of a stream and of the connection, garbage after the
// preface, a handshake that never finishes. Each is cut off (GOAWAY with the right code, or RST_STREAM for a
// stream's violation) while a well-behaved client on another connection keeps getting answers.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { sleep } from '../helpers.js';
import { bounded, ERR, FLAG, FRAME, frame, type H2App, h2App, PREFACE, RawH2, request, requestBlock } from './h2.js';

const T = { timeout: 30_000 };

/** A well-behaved client requesting `/ok` in a loop until `stop()`; returns how many answers it got. */
function bystander(s: H2App): { stop: () => Promise<number> } {
  const c = s.connect();
  let running = true;
  let answered = 0;
  const loop = (async () => {
    while (running) {
      const r = await request(c, { ':path': '/ok' });
      assert.equal(r.body.toString(), 'ok');
      answered++;
      await sleep(5);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return answered;
    },
  };
}

function okRoute(app: H2App['app']): void {
  app.get('/ok', () => 'ok');
}

test('rapid reset: streams opened and cancelled as fast as possible end the connection', T, async (t) => {
  let calls = 0;
  const s = await h2App(t, (app) => {
    okRoute(app);
    app.get('/work', async () => {
      calls++;
      await sleep(1000);
      return 'done';
    });
  });
  const other = bystander(s);
  for (const spread of [false, true]) {
    calls = 0;
    const raw = await RawH2.open(s.port);
    let sent = 0;
    for (let id = 1; id < 20_000 && !raw.closed; id += 2) {
      const open = frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, id, requestBlock('/work'));
      const cancel = frame(FRAME.RST_STREAM, 0, id, Buffer.from([0, 0, 0, ERR.CANCEL]));
      if (spread) {
        // Each stream reaches the handler before its reset arrives.
        raw.send(open);
        await new Promise((r) => setImmediate(r));
        raw.send(cancel);
      } else {
        raw.send(Buffer.concat([open, cancel]));
      }
      sent++;
      if (sent % 50 === 0) await sleep(1);
    }
    await raw.untilClosed(`the rapid-reset connection closed (spread ${spread})`);
    assert.equal(raw.goaway(), ERR.ENHANCE_YOUR_CALM, `GOAWAY(ENHANCE_YOUR_CALM), spread ${spread}`);
    assert.ok(sent < 20_000 / 2, `cut off early (${sent} streams sent)`);
    assert.ok(calls <= 600, `the flood reached JS a bounded number of times (${calls})`);
  }
  assert.ok((await other.stop()) > 0, 'the well-behaved client was answered throughout');
  await bounded(
    (async () => {
      while (s.app.stats().requestsInFlight > 0) await sleep(50);
    })(),
    5000,
    'the flood requests released',
  );
});

test('SETTINGS, PING and empty-frame floods are cut off with ENHANCE_YOUR_CALM', T, async (t) => {
  const s = await h2App(t, okRoute);
  const other = bystander(s);
  const floods: [string, Buffer][] = [
    ['SETTINGS', frame(FRAME.SETTINGS, 0, 0)],
    ['PING', frame(FRAME.PING, 0, 0, Buffer.alloc(8, 1))],
    ['PRIORITY', frame(FRAME.PRIORITY, 0, 1, Buffer.from([0, 0, 0, 0, 16]))],
    ['unknown frames', frame(0x42, 0, 0, Buffer.from('junk'))],
  ];
  for (const [what, f] of floods) {
    const raw = await RawH2.open(s.port);
    const batch = Buffer.concat(Array.from({ length: 200 }, () => f));
    for (let i = 0; i < 100 && !raw.closed; i++) {
      raw.send(batch);
      await sleep(1);
    }
    await raw.untilClosed(`${what} flood closed`);
    assert.equal(raw.goaway(), ERR.ENHANCE_YOUR_CALM, `${what}: GOAWAY(ENHANCE_YOUR_CALM)`);
  }
  // Empty DATA frames on an open stream (h2's own limit, or ours, ends it the same way).
  const raw = await RawH2.open(s.port);
  raw.send(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, requestBlock('/ok', 'POST')));
  const empties = Buffer.concat(Array.from({ length: 500 }, () => frame(FRAME.DATA, 0, 1)));
  for (let i = 0; i < 40 && !raw.closed; i++) {
    raw.send(empties);
    await sleep(1);
  }
  await raw.untilClosed('empty DATA flood closed');
  assert.equal(raw.goaway(), ERR.ENHANCE_YOUR_CALM);
  assert.ok((await other.stop()) > 0);
});

test('flow-control violations: RST_STREAM for a stream, GOAWAY for the connection', T, async (t) => {
  let aborted = 0;
  const s1 = await h2App(
    t,
    (app) => {
      okRoute(app);
      app.post('/sink', async (req) => {
        await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve()));
        aborted++;
      });
    },
    { http2: { initialWindowSize: 65_535 } },
  );
  const other = bystander(s1);
  const raw = await RawH2.open(s1.port);
  raw.send(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, requestBlock('/sink', 'POST')));
  // 400 KB at once: far past the 64 KiB window, whatever WINDOW_UPDATEs the server sends meanwhile.
  const data = Buffer.concat(Array.from({ length: 25 }, () => frame(FRAME.DATA, 0, 1, Buffer.alloc(16_384))));
  raw.send(data);
  const rst = await raw.until((f) => f.type === FRAME.RST_STREAM && f.stream === 1, 'RST_STREAM on stream 1');
  assert.equal(rst.payload.readUInt32BE(0), ERR.FLOW_CONTROL_ERROR);
  await bounded(
    (async () => {
      while (aborted === 0) await sleep(10);
    })(),
    3000,
    'the handler saw the abort',
  );
  // The connection itself is fine: another stream is answered.
  raw.send(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 3, requestBlock('/ok')));
  await raw.until((f) => f.type === FRAME.HEADERS && f.stream === 3, 'an answer on stream 3');
  assert.equal(raw.closed, false);
  raw.destroy();
  assert.ok((await other.stop()) > 0);

  // The connection window: small, while each stream's is large.
  const s2 = await h2App(t, (app) => app.post('/sink', () => new Promise(() => {})), {
    http2: { initialWindowSize: 4 * 1024 * 1024, connectionWindowSize: 65_535 },
  });
  const raw2 = await RawH2.open(s2.port);
  raw2.send(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, requestBlock('/sink', 'POST')));
  raw2.send(Buffer.concat(Array.from({ length: 40 }, () => frame(FRAME.DATA, 0, 1, Buffer.alloc(16_384)))));
  await raw2.untilClosed('the connection closed for its flow-control violation');
  assert.equal(raw2.goaway(), ERR.FLOW_CONTROL_ERROR);
});

test('garbage after the preface ends the connection with PROTOCOL_ERROR', T, async (t) => {
  const s = await h2App(t, okRoute);
  const raw = await RawH2.open(s.port);
  // A DATA frame on stream 0 is a connection error.
  raw.send(frame(FRAME.DATA, 0, 0, Buffer.from('nonsense')));
  await raw.untilClosed('closed after a frame on the wrong stream');
  assert.equal(raw.goaway(), ERR.PROTOCOL_ERROR);
  const c = s.connect();
  assert.equal((await request(c, { ':path': '/ok' })).body.toString(), 'ok');
});

test('a client that sends the preface and nothing more is closed after headersTimeout', T, async (t) => {
  const s = await h2App(t, okRoute, { gale: { headersTimeout: 300 } });
  const sock = net.connect(s.port, '127.0.0.1');
  sock.on('error', () => {});
  await bounded(new Promise((r) => sock.once('connect', r)), 3000, 'connect');
  sock.write(PREFACE);
  sock.resume();
  const t0 = Date.now();
  await bounded(new Promise((r) => sock.once('close', r)), 5000, 'the silent client closed');
  assert.ok(Date.now() - t0 >= 250, 'not before the timeout');
  assert.equal(s.app.connections, 0);
});
