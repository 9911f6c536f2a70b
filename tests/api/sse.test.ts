// Server-Sent Events: headers, event framing parsed from the raw chunked stream, comments, heartbeats,
// Last-Event-ID, close(), and cleanup (timers, onClose) when the client goes away.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GaleError, SseStream } from 'gale';
import { deferred, parseOne, RawConn, sleep, T, withApp, withTimeout } from '../helpers.js';

interface SseEvent {
  event?: string;
  id?: string;
  retry?: string;
  data: string[];
  comments: string[];
}

/** Parses an event-stream body into dispatched blocks (comments kept, as the raw form matters here). */
function parseEventStream(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    const e: SseEvent = { data: [], comments: [] };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        e.comments.push(line.slice(1).replace(/^ /, ''));
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') e.data.push(value);
      else if (name === 'event' || name === 'id' || name === 'retry') e[name] = value;
      else assert.fail(`unexpected field line ${JSON.stringify(line)}`);
    }
    out.push(e);
  }
  return out;
}

/** Opens an SSE request on a raw connection and returns the head and a reader for the decoded body. */
async function openStream(port: number, path: string, headers = '') {
  const conn = await RawConn.open(port);
  await conn.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n${headers}\r\n`);
  const headText = (await conn.readUntil('\r\n\r\n')).toString('latin1');
  let body = '';
  /** Reads chunks until `check(body)` holds. */
  const until = async (check: (body: string) => boolean, what: string) => {
    await conn.waitFor(
      () => {
        // Decode the chunked framing that has arrived so far.
        for (;;) {
          const buf = conn.buf;
          const lineEnd = buf.indexOf('\r\n');
          if (lineEnd < 0) break;
          const size = Number.parseInt(buf.subarray(0, lineEnd).toString('latin1'), 16);
          if (buf.length < lineEnd + 2 + size + 2) break;
          body += buf.subarray(lineEnd + 2, lineEnd + 2 + size).toString('utf8');
          conn.buf = buf.subarray(lineEnd + 2 + size + 2);
          if (size === 0) body += '\u0000END';
        }
        if (check(body)) return true;
        if (conn.closed) throw new Error(`closed before ${what}; body so far ${JSON.stringify(body)}`);
        return undefined;
      },
      4000,
      what,
    );
    return body;
  };
  return { conn, headText, until };
}

test(
  'res.sse(): event-stream headers, events framed exactly, multi-line data, JSON, comments, close()',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.get('/events', async (_req, res) => {
        const sse = res.sse();
        sse.send({ data: 'hello' });
        sse.send({ event: 'update', id: 7, data: { price: 1.5, tags: ['a'] } });
        sse.send({ id: 'abc', retry: 2500, data: 'line one\nline two\r\nline three\rline four' });
        sse.send('shorthand');
        sse.send({ event: 'empty', data: '' });
        sse.comment('just a comment\nsecond line');
        await sleep(5);
        sse.close();
        if (sse.send('after close') !== false) throw new Error('send after close must return false');
      });
    });
    const { conn, headText, until } = await openStream(port, '/events');
    t.after(() => conn.destroy());
    const head = parseOne(Buffer.from(headText, 'latin1'), { head: true })?.res;
    assert.ok(head);
    assert.equal(head.status, 200);
    assert.equal(head.get('content-type'), 'text/event-stream');
    assert.equal(head.get('cache-control'), 'no-cache');
    assert.equal(head.get('x-accel-buffering'), 'no');
    assert.equal(head.get('transfer-encoding'), 'chunked');
    const body = await until((b) => b.endsWith('\u0000END'), 'the end of the stream');
    const text = body.slice(0, -'\u0000END'.length);
    assert.equal(
      text,
      ':ok\n\n' +
        'data: hello\n\n' +
        'event: update\nid: 7\ndata: {"price":1.5,"tags":["a"]}\n\n' +
        'id: abc\nretry: 2500\ndata: line one\ndata: line two\ndata: line three\ndata: line four\n\n' +
        'data: shorthand\n\n' +
        'event: empty\ndata: \n\n' +
        ': just a comment\n: second line\n\n',
    );
    const events = parseEventStream(text).filter((e) => e.comments.length === 0);
    assert.deepEqual(
      events.map((e) => e.data.join('\n')),
      ['hello', '{"price":1.5,"tags":["a"]}', 'line one\nline two\nline three\nline four', 'shorthand', ''],
    );
    assert.deepEqual(
      events.map((e) => e.event ?? 'message'),
      ['message', 'update', 'message', 'message', 'empty'],
    );
    // The response ended cleanly: the connection stays usable for the next request.
    await conn.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const again = await conn.readUntil('\r\n\r\n');
    assert.ok(again.toString('latin1').startsWith('HTTP/1.1 200 OK'));
  },
);

test('res.sse({ retry }): the retry hint is sent first; Last-Event-ID is exposed', T, async (t) => {
  const seen = deferred<string | undefined>();
  const { port } = await withApp(t, (app) => {
    app.get('/resume', (_req, res) => {
      const sse = res.sse({ retry: 3000, heartbeat: 0 });
      seen.resolve(sse.lastEventId);
      sse.send({ id: String(Number(sse.lastEventId ?? 0) + 1), data: 'next' });
      sse.close();
    });
  });
  const { conn, until } = await openStream(port, '/resume', 'Last-Event-ID: 41\r\n');
  t.after(() => conn.destroy());
  const body = await until((b) => b.endsWith('\u0000END'), 'the end');
  assert.equal(await seen.promise, '41');
  assert.equal(body, 'retry: 3000\n\nid: 42\ndata: next\n\n\u0000END');
});

test('heartbeat comments arrive every `heartbeat` ms while the stream is idle', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/idle', (_req, res) => {
      const sse = res.sse({ heartbeat: 40 });
      setTimeout(() => sse.close(), 300);
    });
  });
  const { conn, until } = await openStream(port, '/idle');
  t.after(() => conn.destroy());
  const body = await until((b) => b.endsWith('\u0000END'), 'the end');
  const beats = body.split(':\n\n').length - 1;
  assert.ok(
    beats >= 2 && beats <= 9,
    `expected ~7 heartbeats in 300 ms at 40 ms, got ${beats}: ${JSON.stringify(body)}`,
  );
  assert.ok(body.startsWith(':ok\n\n'));
});

test('client disconnect: onClose runs, heartbeat timer cleared, closed is true, send() returns false', T, async (t) => {
  let stream: SseStream | undefined;
  const closed = deferred<void>();
  const { port } = await withApp(t, (app) => {
    app.get('/live', (_req, res) => {
      stream = res.sse({ heartbeat: 20 });
      stream.onClose(() => closed.resolve());
      stream.send({ data: 'hi' });
    });
  });
  const { conn, until } = await openStream(port, '/live');
  await until((b) => b.includes('data: hi\n\n'), 'the first event');
  conn.destroy();
  await withTimeout(closed.promise, 5000, 'onClose after the client went away');
  assert.ok(stream);
  assert.equal(stream.closed, true);
  assert.equal((stream as unknown as { timer: unknown }).timer, undefined, 'the heartbeat interval was cleared');
  assert.equal(stream.send({ data: 'late' }), false);
  assert.equal(stream.comment('late'), false);
  let late = false;
  stream.onClose(() => {
    late = true;
  });
  assert.equal(late, true, 'onClose after closing runs at once');
});

test('ending the response with res.end() instead of close() also closes the stream and its timer', T, async (t) => {
  let stream: SseStream | undefined;
  const { port } = await withApp(t, (app) => {
    app.get('/end', (_req, res) => {
      stream = res.sse({ heartbeat: 10 });
      res.end();
    });
  });
  const { conn, until } = await openStream(port, '/end');
  t.after(() => conn.destroy());
  await until((b) => b.endsWith('\u0000END'), 'the end');
  assert.ok(stream);
  assert.equal(stream.closed, true);
  assert.equal((stream as unknown as { timer: unknown }).timer, undefined);
});

test('app.close() ends open event streams instead of waiting for its timeout', T, async (t) => {
  const closed = deferred<void>();
  const s = await withApp(t, (app) => {
    app.get('/forever', (_req, res) => {
      const sse = res.sse({ heartbeat: 1000 });
      sse.onClose(() => closed.resolve());
      sse.send({ data: 'open' });
    });
  });
  const { conn, until } = await openStream(s.port, '/forever');
  t.after(() => conn.destroy());
  await until((b) => b.includes('data: open\n\n'), 'the first event');
  const started = Date.now();
  await withTimeout(s.app.close({ timeout: 8000 }), 5000, 'app.close()');
  assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
  await withTimeout(closed.promise, 1000, 'onClose');
  const body = await until((b) => b.endsWith('\u0000END'), 'the end of the stream');
  assert.equal(body, ':ok\n\ndata: open\n\n\u0000END');
});

test('invalid fields throw GALE_ERR_INVALID_SSE; sse() after the head was sent throws', T, async (t) => {
  const results = deferred<string[]>();
  const { port } = await withApp(t, (app) => {
    app.get('/bad', (_req, res) => {
      const codes: string[] = [];
      const sse = res.sse({ heartbeat: 0 });
      for (const m of [
        { event: 'a\nb', data: 'x' },
        { id: 'x\ry', data: 'x' },
        { id: 'a\0b', data: 'x' },
        { retry: -1, data: 'x' },
        { retry: 1.5, data: 'x' },
      ]) {
        try {
          sse.send(m);
          codes.push('sent');
        } catch (err) {
          codes.push((err as GaleError).code);
        }
      }
      try {
        res.sse();
      } catch (err) {
        codes.push((err as GaleError).code);
      }
      results.resolve(codes);
      sse.close();
    });
  });
  const { conn, until } = await openStream(port, '/bad');
  t.after(() => conn.destroy());
  const body = await until((b) => b.endsWith('\u0000END'), 'the end');
  assert.equal(body, ':ok\n\n\u0000END', 'nothing invalid reached the wire');
  assert.deepEqual(await results.promise, [
    'GALE_ERR_INVALID_SSE',
    'GALE_ERR_INVALID_SSE',
    'GALE_ERR_INVALID_SSE',
    'GALE_ERR_INVALID_SSE',
    'GALE_ERR_INVALID_SSE',
    'GALE_ERR_HEADERS_SENT',
  ]);
});

test('fetch() reads the stream as it is produced (events arrive before the stream ends)', T, async (t) => {
  const firstSeen = deferred<void>();
  const { url } = await withApp(t, (app) => {
    app.get('/live', async (_req, res) => {
      const sse = res.sse({ heartbeat: 0 });
      sse.send({ event: 'first', data: '1' });
      await withTimeout(firstSeen.promise, 3000, 'the client to see the first event');
      sse.send({ event: 'second', data: '2' });
      sse.close();
    });
  });
  const r = await fetch(`${url}/live`);
  assert.equal(r.headers.get('content-type'), 'text/event-stream');
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = '';
  while (!text.includes('event: first\ndata: 1\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  firstSeen.resolve();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  assert.equal(text, ':ok\n\nevent: first\ndata: 1\n\nevent: second\ndata: 2\n\n');
});
