// WebTransport sessions on the HTTP/3 listener, driven by an independent client (Python's aioquic): the CONNECT
// through the route's middleware and upgrade, datagrams, streams both ways and both kinds, closes with code and
// reason from either side, refusals, the limits and malformed input answered with the draft's codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebTransportBidiStream, type WebTransportSession } from 'gale';
import { h3App } from '../h3/server.js';
import { closeCapsule, streamText, wtClient } from './wt.js';

test('a session opens through middleware and upgrade, echoes datagrams and streams, and hears the client close', async (t) => {
  const closed: [number, string, unknown][] = [];
  const { port } = await h3App(t, (app) => {
    app.webtransport(
      '/echo/:room',
      (req, _res, next) => {
        (req as unknown as { seen: boolean }).seen = true;
        next();
      },
      {
        upgrade: (req) => ({ room: req.params.room, version: req.httpVersion, method: req.method }),
        open: (s: WebTransportSession<{ room: string }>) => s.sendDatagram(`hi ${s.data.room}`),
        datagram: (s, d) => s.sendDatagram(Buffer.concat([Buffer.from('echo:'), d])),
        stream: (s, stream) => {
          if (stream instanceof WebTransportBidiStream) {
            stream.pipe(stream);
            return;
          }
          const parts: Buffer[] = [];
          stream.on('data', (c: Buffer) => parts.push(c));
          stream.on('end', () => s.createUnidirectionalStream().end(`got:${Buffer.concat(parts)}`));
        },
        close: (s, code, reason) => closed.push([code, reason, s.data]),
      },
    );
  });
  const ev = await wtClient(port, [
    { do: 'connect', path: '/echo/r1' },
    { do: 'wait', for: 'status' },
    { do: 'wait', for: 'datagram' },
    { do: 'datagram', data: 'ping' },
    { do: 'bidi', name: 'a', data: 'hello ', fin: false },
    { do: 'write', name: 'a', data: 'world', fin: true },
    { do: 'wait', for: 'end:a' },
    { do: 'uni', name: 'u', data: 'upload', fin: true },
    { do: 'wait', for: 'server-stream' },
    { do: 'sleep', s: 0.2 },
    { do: 'capsule', hex: closeCapsule(7, 'bye'), fin: true },
    { do: 'wait', for: 'connect-end' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const status = ev.find((e) => e.kind === 'status');
  assert.equal(status?.status, 200);
  assert.deepEqual(
    status?.headers?.find(([k]) => k === 'sec-webtransport-http3-draft'),
    ['sec-webtransport-http3-draft', 'draft02'],
  );
  assert.deepEqual(
    ev.filter((e) => e.kind === 'datagram').map((e) => e.data),
    ['hi r1', 'echo:ping'],
  );
  assert.deepEqual(streamText(ev, 'a'), { text: 'hello world', end: true });
  const server = ev.find((e) => e.kind === 'data' && e.stream?.startsWith('s'));
  assert.ok(server);
  assert.deepEqual(streamText(ev, server.stream as string), { text: 'got:upload', end: true });
  await waitFor(() => closed.length === 1);
  assert.deepEqual(closed, [[7, 'bye', { room: 'r1', version: '3.0', method: 'CONNECT' }]]);
});

test('the server opens a bidirectional stream and closes the session with its code and reason', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.webtransport('/push', {
      open: (s) => {
        const out = s.createBidirectionalStream();
        out.on('data', (d: Buffer) => {
          out.end(`ack ${d}`);
        });
        out.write('from server');
      },
      datagram: (s, d) => {
        if (String(d) === 'close-me') s.close(9, 'done here');
      },
    });
  });
  const ev = await wtClient(port, [
    { do: 'connect', path: '/push' },
    { do: 'wait', for: 'server-stream' },
    { do: 'datagram', data: 'close-me' },
    { do: 'wait', for: 'connect-end' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const server = ev.find((e) => e.kind === 'data' && e.stream?.startsWith('s'));
  assert.equal(streamText(ev, server?.stream as string).text.startsWith('from server'), true);
  const capsule = ev
    .filter((e) => e.kind === 'connect-data')
    .map((e) => e.hex)
    .join('');
  assert.equal(capsule, closeCapsule(9, 'done here'));
});

test('middleware refuses a session with its status, an unknown path is 404, and nothing opens', async (t) => {
  let opened = 0;
  const { port } = await h3App(t, (app) => {
    app.webtransport(
      '/private',
      (req, res, next) => (req.headers.authorization === 'Bearer ok' ? next() : res.status(403).send('no')),
      { open: () => opened++ },
    );
  });
  const refused = await wtClient(port, [
    { do: 'connect', path: '/private' },
    { do: 'wait', for: 'status' },
  ]);
  assert.equal(refused.find((e) => e.kind === 'status')?.status, 403);
  const missing = await wtClient(port, [
    { do: 'connect', path: '/nowhere' },
    { do: 'wait', for: 'status' },
  ]);
  assert.equal(missing.find((e) => e.kind === 'status')?.status, 404);
  assert.equal(opened, 0);
  const allowed = await wtClient(port, [
    { do: 'connect', path: '/private', headers: [['authorization', 'Bearer ok']] },
    { do: 'wait', for: 'status' },
  ]);
  assert.equal(allowed.find((e) => e.kind === 'status')?.status, 200);
  await waitFor(() => opened === 1);
});

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a graceful close sends DRAIN, the app hears draining, and the close waits for the session to end', async (t) => {
  let closing: Promise<void> | undefined;
  const order: string[] = [];
  const { port } = await h3App(t, (app) => {
    app.webtransport('/s', {
      open: () => {
        closing = app.close({ timeout: 10_000 }).then(() => void order.push('app closed'));
      },
      draining: (s) => setTimeout(() => s.close(3, 'draining done'), 100),
      close: () => void order.push('session closed'),
    });
  });
  const ev = await wtClient(port, [
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'connect-end' },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const capsules = ev
    .filter((e) => e.kind === 'connect-data')
    .map((e) => e.hex)
    .join('');
  // DRAIN_WEBTRANSPORT_SESSION (type 0x78ae as a 4-byte varint, empty), then the CLOSE the app sent.
  assert.equal(capsules, `800078ae00${closeCapsule(3, 'draining done')}`);
  await closing;
  assert.deepEqual(order, ['session closed', 'app closed']);
});

test('one 5 MiB write arrives whole; a datagram over maxDatagramSize is dropped; the client’s DRAIN reaches draining', async (t) => {
  const size = 5 * 1024 * 1024;
  const seen: { max?: number; big?: string; small?: string; draining?: boolean } = {};
  const { port } = await h3App(t, (app) =>
    app.webtransport('/s', {
      open: (s) => {
        seen.max = s.maxDatagramSize;
        seen.big = s.sendDatagram(Buffer.alloc(s.maxDatagramSize + 1));
        seen.small = s.sendDatagram('fits');
        // One write larger than the engine's 4 MiB cap on unsent bytes: it goes in whole (nothing was queued).
        s.createUnidirectionalStream().end(Buffer.alloc(size, 'z'));
      },
      draining: () => {
        seen.draining = true;
      },
    }),
  );
  const ev = await wtClient(port, [
    { do: 'connect', path: '/s' },
    { do: 'wait', for: 'server-end', timeout: 20 },
    // DRAIN_WEBTRANSPORT_SESSION (type 0x78ae as a 4-byte varint, no value).
    { do: 'capsule', hex: '800078ae00' },
    { do: 'sleep', s: 0.3 },
  ]);
  assert.deepEqual(
    ev.filter((e) => e.kind === 'timeout'),
    [],
  );
  const server = ev.find((e) => e.kind === 'data' && e.stream?.startsWith('s'));
  const got = streamText(ev, server?.stream as string);
  assert.equal(got.end, true);
  assert.equal(got.text.length, size);
  assert.ok((seen.max ?? 0) > 1000, `maxDatagramSize ${seen.max}`);
  assert.equal(seen.big, 'dropped');
  assert.equal(seen.small, 'sent');
  assert.deepEqual(
    ev.filter((e) => e.kind === 'datagram').map((e) => e.data),
    ['fits'],
  );
  assert.equal(seen.draining, true);
});
