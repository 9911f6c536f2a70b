// A fetch handler's Response on the wire: a statusText that is not the standard phrase is the reason phrase, a
// stream body with a stated Content-Length is framed by it (not chunked), and a HEAD answer states it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T } from '../helpers.js';
import { withServe } from './util.js';

test('statusText, a stated Content-Length on a stream body, and HEAD', T, async (t) => {
  const { port } = await withServe(t, {
    fetch(req: Request) {
      const path = new URL(req.url).pathname;
      if (path === '/reason') return new Response('r', { status: 202, statusText: 'On It' });
      const stream = new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(new TextEncoder().encode('abc'));
          await new Promise((r) => setTimeout(r, 5));
          c.enqueue(new TextEncoder().encode('def'));
          c.close();
        },
      });
      return new Response(stream, { headers: { 'content-length': '6', 'content-type': 'text/plain' } });
    },
  });
  const conn = await RawConn.open(port);
  await conn.write(buildRequest({ path: '/reason' }));
  assert.equal((await conn.readResponse()).statusLine, 'HTTP/1.1 202 On It');
  await conn.write(buildRequest({ path: '/stream' }));
  const s = await conn.readResponse();
  assert.deepEqual([s.chunked, s.get('content-length'), s.text], [false, '6', 'abcdef']);
  await conn.write(buildRequest({ method: 'HEAD', path: '/stream' }));
  const h = await conn.readResponse({ head: true });
  assert.deepEqual([h.status, h.get('content-length'), h.get('transfer-encoding')], [200, '6', undefined]);
  conn.socket.destroy();
});
