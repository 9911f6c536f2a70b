// validateOnce over fetch()'s pooled connections: a connection the server drops as a request arrives on it (an idle
// keep-alive connection closed at that moment) costs one more try on a new connection, not a FAILED row; a server
// that drops every request is still FAILED.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { findScenario } from './lib/scenarios.ts';
import { validateOnce } from './lib/validate.ts';

const HELLO = '{"hello":"world"}';
const answer = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${HELLO.length}\r\n\r\n${HELLO}`;

/** A server that answers the first request of each connection and drops the connection at its second (or at every
 * request with `dropAll`). */
async function server(dropAll: boolean): Promise<{ url: string; close: () => void; connections: () => number }> {
  let connections = 0;
  const srv = net.createServer((s) => {
    connections++;
    let requests = 0;
    s.on('data', (d) => {
      if (!d.includes('\r\n\r\n')) return;
      requests++;
      if (dropAll || requests > 1) s.destroy();
      else s.write(answer);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => srv.close(), connections: () => connections };
}

test('a pooled connection dropped under a request: one more try on a new connection', async () => {
  const hello = findScenario('hello');
  assert.ok(hello);
  const s = await server(false);
  try {
    assert.equal((await validateOnce(s.url, hello)).problem, null);
    // fetch() reuses the first connection, which the server drops at this request: the retry opens a second.
    assert.equal((await validateOnce(s.url, hello)).problem, null);
    assert.equal(s.connections(), 2);
  } finally {
    s.close();
  }
});

test('a server that drops every request is FAILED', async () => {
  const hello = findScenario('hello');
  assert.ok(hello);
  const s = await server(true);
  try {
    const r = await validateOnce(s.url, hello);
    assert.match(r.problem ?? '', /^request failed: fetch failed/);
    assert.equal(s.connections(), 2, 'tried once more, on a new connection');
  } finally {
    s.close();
  }
});
