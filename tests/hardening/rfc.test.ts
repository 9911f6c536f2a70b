// RFC exactness where smuggling and interop depend on it, over the wire: the chunk-size line follows RFC 9112
// §7.1.1 exactly (whitespace only where the grammar has BWS; an extension needs a name), and a permessage-deflate
// offer naming server_max_window_bits gets it named in the answer (RFC 7692 §7.1.2.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRequest, RawConn, T, withApp } from '../helpers.js';
import { rawWs } from '../ws/frames.js';

const post = (body: string) =>
  buildRequest({ method: 'POST', path: '/echo', headers: [['Transfer-Encoding', 'chunked']], body });

test('chunk lines the grammar refuses get 400 and the connection closes', T, async (t) => {
  const { port } = await withApp(t, (app) => app.post('/echo', async (req) => `[${await req.text()}]`));
  const refused = [
    '5 \r\nhello\r\n0\r\n\r\n', // BWS not followed by ';'
    '5\t\r\nhello\r\n0\r\n\r\n',
    '5;\r\nhello\r\n0\r\n\r\n', // an extension without a name
    '5; \r\nhello\r\n0\r\n\r\n',
    '5;=x\r\nhello\r\n0\r\n\r\n',
    '5;a b\r\nhello\r\n0\r\n\r\n', // two tokens
    '5;a \r\nhello\r\n0\r\n\r\n', // BWS then CRLF
    '5;a=\r\nhello\r\n0\r\n\r\n',
    '5;a="x\r\nhello\r\n0\r\n\r\n', // an unterminated quoted-string
    '5\r\nhello\r\n0 \r\n\r\n', // the last chunk too
  ];
  for (const body of refused) {
    const conn = await RawConn.open(port);
    // A second request behind the bad one: it must never be answered (no smuggled request).
    await conn.write(Buffer.concat([post(body), buildRequest({ path: '/echo', method: 'GET' })]));
    const res = await conn.readResponse();
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.text, /chunk/i, 'the answer says what was wrong');
    assert.equal(res.get('connection'), 'close');
    assert.ok(await conn.waitForClose(3000), `${JSON.stringify(body)}: connection closed`);
    assert.equal(conn.buf.length, 0, 'nothing answered after the 400');
  }
});

test('chunk extensions the grammar allows are accepted and skipped', T, async (t) => {
  const { port } = await withApp(t, (app) => app.post('/echo', async (req) => `[${await req.text()}]`));
  const conn = await RawConn.open(port);
  for (const line of ['5;a', '5;a=b', '5 ;a', '5\t; a = b ;c', '5;a="b c;d"', '5;a="q\\"x"', '5;a="";b=c']) {
    await conn.write(post(`${line}\r\nhello\r\n0;last=1\r\n\r\n`));
    const res = await conn.readResponse();
    assert.deepEqual([res.status, res.text], [200, '[hello]'], line);
  }
  conn.socket.destroy();
});

test(
  'permessage-deflate: an offer with server_max_window_bits gets it back in the answer, even at 15',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/d', { compression: 'dedicated', message: (ws, m) => ws.send(m) });
      app.ws('/s', { compression: 'shared', message: (ws, m) => ws.send(m) });
    });
    const answer = async (path: string, offer: string) => {
      const { conn, head } = await rawWs(port, path, `Sec-WebSocket-Extensions: ${offer}\r\n`);
      conn.socket.destroy();
      return /\r\nSec-WebSocket-Extensions: ([^\r]*)\r\n/i.exec(head)?.[1];
    };
    assert.equal(
      await answer('/d', 'permessage-deflate; server_max_window_bits=15'),
      'permessage-deflate; server_max_window_bits=15',
    );
    assert.equal(
      await answer('/d', 'permessage-deflate; server_max_window_bits=12; client_max_window_bits=12'),
      'permessage-deflate; server_max_window_bits=12; client_max_window_bits=12',
    );
    assert.equal(await answer('/d', 'permessage-deflate; client_max_window_bits'), 'permessage-deflate');
    // Shared compression resets per message and needs a 15-bit window.
    assert.equal(
      await answer('/s', 'permessage-deflate; server_max_window_bits=15'),
      'permessage-deflate; server_no_context_takeover; server_max_window_bits=15',
    );
  },
);
