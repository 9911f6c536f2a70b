// Hostile HTTP/3 clients (aioquic sending frames of the test's making): each is answered as RFC 9114 says — a
// stream or connection error with the right code, or the engine's limit status — and the server serves the next
// connection as before.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { testPki } from '../h2/h2.js';
import { h3Requests } from './aioquic.js';
import { h3App } from './server.js';

const serve = (t: TestContext) =>
  h3App(t, (app) => {
    app.get('/', () => 'still here');
  }).then((a) => a.port);

/** A frame: type, length and payload (each varint here below 64, one byte). */
const frame = (type: number, payload: Buffer) => Buffer.concat([Buffer.from([type, payload.length]), payload]);

async function survives(port: number) {
  const { pki } = testPki();
  const { responses } = await h3Requests(port, pki.caPath, [{ path: '/' }]);
  assert.equal(responses[0].status, 200);
  assert.equal(responses[0].body.toString(), 'still here');
}

// RFC 9114 §7.1 and §8.1, RFC 9204 §6: connection errors with these codes.
const H3_FRAME_UNEXPECTED = 0x105;
const H3_FRAME_ERROR = 0x106;
const QPACK_DECOMPRESSION_FAILED = 0x200;

const cases: [string, Buffer, number][] = [
  ['DATA before HEADERS', frame(0x00, Buffer.from('abc')), H3_FRAME_UNEXPECTED],
  ['HEADERS whose QPACK block is garbage', frame(0x01, Buffer.from([0xff, 0xff, 0xff])), QPACK_DECOMPRESSION_FAILED],
  ['SETTINGS on a request stream', frame(0x04, Buffer.alloc(0)), H3_FRAME_UNEXPECTED],
  ['a frame cut short by the end of the stream', Buffer.from([0x01, 0x30, 0x00]), H3_FRAME_ERROR],
];

for (const [what, raw, code] of cases) {
  test(`${what}: connection error 0x${code.toString(16)}, and the server serves the next connection`, async (t) => {
    const port = await serve(t);
    const { pki } = testPki();
    const { responses } = await h3Requests(port, pki.caPath, [{ raw }]);
    const r = responses[0];
    assert.equal(r.status, null, 'no response to a malformed request');
    assert.equal(r.closed, code, JSON.stringify(r));
    await survives(port);
  });
}

test('a field section over the head limit (200 KB of headers) is refused; the server serves on', async (t) => {
  const port = await serve(t);
  const { pki } = testPki();
  const headers = Array.from({ length: 20 }, (_, i): [string, string] => [`x-big-${i}`, 'a'.repeat(10_000)]);
  const { responses } = await h3Requests(port, pki.caPath, [{ path: '/', headers }]);
  const r = responses[0];
  assert.equal(r.status, 431, JSON.stringify({ status: r.status, reset: r.reset, closed: r.closed }));
  await survives(port);
});

test('a flood of streams past maxConcurrentStreams is held back by QUIC flow control; all are answered', async (t) => {
  const port = await serve(t);
  const { pki } = testPki();
  const { responses } = await h3Requests(
    port,
    pki.caPath,
    Array.from({ length: 300 }, () => ({ path: '/' })),
    { parallel: true, timeout: 30 },
  );
  assert.equal(responses.filter((r) => r.status === 200).length, 300);
});
