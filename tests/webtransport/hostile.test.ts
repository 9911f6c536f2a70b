// WebTransport under hostile or careless clients (aioquic): the engine answers with the draft's codes and keeps
// serving — streams over the session's limit, sessions over the connection's, a malformed capsule, streams for a
// session not accepted yet (held, then delivered or refused), and a stream JS does not read (QUIC flow control holds
// the client back; nothing is lost).
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { test } from 'node:test';
import tls from 'node:tls';
import type { WebTransportBidiStream, WebTransportStreamError } from 'gale';
import { testPki } from '../h2/h2.js';
import { h3App } from '../h3/server.js';
import { streamText, wtClient } from './wt.js';

/** H3_REQUEST_REJECTED, WEBTRANSPORT_BUFFERED_STREAM_REJECTED, H3_MESSAGE_ERROR. */
const REJECTED = 0x10b;
const BUFFERED_REJECTED = 0x3994bd84;
const MESSAGE_ERROR = 0x10e;

const echo = { datagram: (s: { sendDatagram(d: Buffer): unknown }, d: Buffer) => s.sendDatagram(d) };

test('a stream over the session limit is refused with H3_REQUEST_REJECTED, and the session goes on', async (t) => {
  const streams: WebTransportBidiStream[] = [];
  const { port } = await h3App(
    t,
    (app) => app.webtransport('/s', { ...echo, stream: (_s, st) => void streams.push(st as WebTransportBidiStream) }),
    { http3: { webtransport: { maxStreams: 2 } } },
  );
  const ev = await wtClient(port, [
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'status' },
    { do: 'bidi', name: 'a', data: '1' },
    { do: 'bidi', name: 'b', data: '2' },
    { do: 'bidi', name: 'c', data: '3' },
    { do: 'wait', for: 'reset:c' },
    { do: 'datagram', data: 'still here' },
    { do: 'wait', for: 'datagram' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const refused = ev.filter((e) => (e.kind === 'reset' || e.kind === 'stop') && e.stream === 'c');
  assert.ok(refused.length > 0 && refused.every((e) => e.code === REJECTED), JSON.stringify(refused));
  assert.equal(ev.find((e) => e.kind === 'datagram')?.data, 'still here');
  assert.equal(streams.length, 2);
});

test('a CONNECT over the connection session limit is rejected; the first session is untouched', async (t) => {
  let opened = 0;
  const { port } = await h3App(t, (app) => app.webtransport('/s', { ...echo, open: () => opened++ }), {
    http3: { webtransport: { maxSessions: 1 } },
  });
  const ev = await wtClient(port, [
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'status' },
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'reset:s4' },
    { do: 'get', path: '/missing' },
    { do: 'wait', for: 'response' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  assert.equal(ev.filter((e) => e.kind === 'status').length, 1);
  assert.equal(ev.find((e) => e.kind === 'reset' && e.stream === 's4')?.code, REJECTED);
  assert.equal(ev.find((e) => e.kind === 'response')?.status, 404);
  assert.equal(opened, 1);
});

test('a malformed capsule ends its session with H3_MESSAGE_ERROR, and the connection still serves', async (t) => {
  const closed: [number, string][] = [];
  const { port } = await h3App(t, (app) => {
    app.webtransport('/s', { close: (_s, code, reason) => void closed.push([code, reason]) });
    app.get('/ok', () => 'ok');
  });
  const ev = await wtClient(port, [
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'status' },
    // CLOSE_WEBTRANSPORT_SESSION (0x2843) whose value is 2 bytes: too short for its 4-byte code.
    { do: 'capsule', hex: '6843026162' },
    { do: 'wait', for: 'reset:s0' },
    { do: 'get', path: '/ok' },
    { do: 'wait', for: 'response' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  assert.equal(ev.find((e) => e.kind === 'reset' && e.stream === 's0')?.code, MESSAGE_ERROR);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'response').map((e) => [e.status, e.body]),
    [[200, 'ok']],
  );
  assert.equal(closed.length, 1);
  assert.equal(closed[0]?.[0], 0);
  assert.match(closed[0]?.[1] ?? '', /malformed capsule/);
});

test('a stream opened before its session is accepted waits for it; past holdTimeout it is refused', async (t) => {
  const got: string[] = [];
  const { port } = await h3App(
    t,
    (app) => {
      const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const collect = {
        stream: (_s: unknown, st: WebTransportBidiStream) => st.on('data', (d: Buffer) => got.push(String(d))),
      };
      app.webtransport('/slow', { upgrade: () => delay(150), ...collect });
      app.webtransport('/slower', { upgrade: () => delay(900), ...collect });
    },
    { http3: { webtransport: { holdTimeout: 400 } } },
  );
  const early = await wtClient(port, [
    { do: 'connect', path: '/slow' },
    { do: 'bidi', name: 'early', data: 'before the 200' },
    { do: 'wait', for: 'status' },
    { do: 'sleep', s: 0.3 },
  ]);
  assert.equal(early.find((e) => e.kind === 'status')?.status, 200);
  assert.deepEqual(got, ['before the 200']);
  const late = await wtClient(port, [
    { do: 'connect', path: '/slower' },
    { do: 'bidi', name: 'late', data: 'waits too long' },
    { do: 'wait', for: 'reset:late' },
    { do: 'wait', for: 'status' },
  ]);
  assert.deepEqual(
    late.filter((e) => e.kind === 'timeout'),
    [],
  );
  assert.equal(
    late.find((e) => (e.kind === 'reset' || e.kind === 'stop') && e.stream === 'late')?.code,
    BUFFERED_REJECTED,
  );
  assert.deepEqual(got, ['before the 200']);
});

test('a stream JS does not read holds the client back by flow control, and loses nothing once read', async (t) => {
  const size = 4 * 1024 * 1024;
  let held: WebTransportBidiStream | undefined;
  const { port } = await h3App(t, (app) =>
    app.webtransport('/big', {
      stream: (_s, st) => {
        held = st as WebTransportBidiStream;
      },
      datagram: (s, d) => {
        if (held === undefined) return;
        if (String(d) === 'report') s.sendDatagram(String(held.readableLength));
        if (String(d) === 'read') {
          const stream = held;
          let total = 0;
          stream.on('data', (c: Buffer) => {
            total += c.length;
          });
          stream.on('end', () => stream.end(String(total)));
        }
      },
    }),
  );
  const ev = await wtClient(port, [
    { do: 'connect', path: '/big' },
    { do: 'wait', for: 'status' },
    { do: 'bidi', name: 'big', data: 'x'.repeat(size), fin: true },
    { do: 'sleep', s: 1 },
    { do: 'datagram', data: 'report' },
    { do: 'wait', for: 'datagram' },
    { do: 'datagram', data: 'read' },
    { do: 'wait', for: 'end:big', timeout: 20 },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const buffered = Number(ev.find((e) => e.kind === 'datagram')?.data);
  // Some arrived, far from all: the engine stopped taking bytes once the Readable was full.
  assert.ok(buffered > 0 && buffered < 1024 * 1024, `JS held ${buffered} bytes unread`);
  assert.deepEqual(streamText(ev, 'big'), { text: String(size), end: true });
});

test('an HTTP/1.1 CONNECT or an HTTP/2 extended CONNECT to a WebTransport route gets a 400 saying a session needs HTTP/3', async (t) => {
  let opened = 0;
  const { port } = await h3App(t, (app) => app.webtransport('/wt', { open: () => opened++ }), { http2: true });
  const answer = await new Promise<string>((resolve, reject) => {
    const s = tls.connect({ port, host: '127.0.0.1', servername: 'a.test', ca: testPki().pki.ca }, () =>
      s.write('CONNECT /wt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n'),
    );
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d;
    });
    s.on('end', () => resolve(got));
    s.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.match(answer, /extended CONNECT \(:protocol webtransport\)/);
  // HTTP/2's extended CONNECT (RFC 8441, offered for WebSockets) with :protocol webtransport: the same 400.
  const h2 = http2.connect(`https://127.0.0.1:${port}`, { ca: testPki().pki.ca, servername: 'a.test' });
  t.after(() => h2.close());
  const [status, body] = await new Promise<[unknown, string]>((resolve, reject) => {
    h2.once('remoteSettings', () => {
      const req = h2.request({ ':method': 'CONNECT', ':protocol': 'webtransport', ':path': '/wt', ':scheme': 'https' });
      let got = '';
      req.on('response', (h) => req.on('end', () => resolve([h[':status'], got])));
      req.on('data', (d: Buffer) => {
        got += d;
      });
      req.on('error', reject);
    });
  });
  assert.equal(status, 400);
  assert.match(body, /extended CONNECT \(:protocol webtransport\)/);
  assert.equal(opened, 0);
});

test('a client that leaves while the app pipes its stream back crashes nothing, and the next session is served', async (t) => {
  const { port } = await h3App(t, (app) =>
    app.webtransport('/echo', {
      // No 'error' listener: the app only pipes, as most echo code does.
      stream: (_s, st) => void (st as WebTransportBidiStream).pipe(st as WebTransportBidiStream),
      datagram: (s, d) => s.sendDatagram(d),
    }),
  );
  for (let i = 0; i < 5; i++) {
    // The client's FIN, then its connection closes under the echo (the script ends without waiting).
    await wtClient(port, [
      { do: 'connect', path: '/echo' },
      { do: 'wait', for: 'status' },
      { do: 'bidi', name: 'a', data: 'x'.repeat(100_000), fin: true },
    ]);
  }
  const ev = await wtClient(port, [
    { do: 'connect', path: '/echo' },
    { do: 'wait', for: 'status' },
    { do: 'datagram', data: 'alive' },
    { do: 'wait', for: 'datagram' },
  ]);
  assert.equal(ev.find((e) => e.kind === 'datagram')?.data, 'alive');
});

test('stop(code) reaches the client as STOP_SENDING with its WebTransport code, also with a read in flight', async (t) => {
  const { port } = await h3App(t, (app) =>
    app.webtransport('/stop', {
      stream: (_s, st) => st.once('data', () => (st as WebTransportBidiStream).stop(77)),
    }),
  );
  const ev = await wtClient(port, [
    { do: 'connect', path: '/stop' },
    { do: 'wait', for: 'status' },
    { do: 'bidi', name: 'a', data: 'first' },
    { do: 'sleep', s: 0.3 },
    { do: 'write', name: 'a', data: 'second' },
    { do: 'wait', for: 'reset:a' },
  ]);
  // The draft's mapping of application code 77 into HTTP/3's reserved range (gale-wt stream.rs to_http3).
  const code = 0x52e4a40fa8db + 77 + Math.floor(77 / 0x1e);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'stop' && e.stream === 'a').map((e) => e.code),
    [code],
  );
});

test("a client's reset reaches the app as 'reset' with its WebTransport code, and the stream closes", async (t) => {
  const resets: [number | null, boolean][] = [];
  let closed = false;
  const { port } = await h3App(t, (app) =>
    app.webtransport('/reset', {
      stream: (_s, st) => {
        st.on('reset', (err: WebTransportStreamError) => void resets.push([err.code, err.stopped]));
        st.on('close', () => {
          closed = true;
        });
        st.resume();
      },
    }),
  );
  await wtClient(port, [
    { do: 'connect', path: '/reset' },
    { do: 'wait', for: 'status' },
    { do: 'bidi', name: 'a', data: 'some' },
    { do: 'sleep', s: 0.2 },
    // Application code 9, as the draft maps it into HTTP/3's reserved range.
    { do: 'reset', name: 'a', code: 0x52e4a40fa8db + 9 },
    { do: 'sleep', s: 0.3 },
  ]);
  assert.deepEqual(resets, [[9, false]]);
  assert.equal(closed, true);
});
