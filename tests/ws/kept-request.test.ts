// ws.req of a socket whose route has no middleware, upgrade() or protocols(): the engine keeps the upgrade request's
// head instead of JS copying it at the 101, and ws.req is made on first read, in a handler, at close or long after.
// Each socket must get its own request back (slots and ids are reused), exactly as the copied snapshot reads.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { WebSocket as GaleSocket } from 'gale';
import type WebSocket from 'ws';
import { deferred, sleep, T, withApp } from '../helpers.js';
import { closed, connect, nextMessage } from './clients.js';

const wsUrl = (port: number, path: string) => `ws://127.0.0.1:${port}${path}`;

/** What a test compares: every field a snapshot holds. */
function fields(ws: GaleSocket) {
  const r = ws.req;
  return {
    method: r.method,
    url: r.url,
    path: r.path,
    query: { ...r.query },
    params: { ...r.params },
    version: r.httpVersion,
    agent: r.headers['x-agent'],
    twice: r.headers['x-twice'],
    cookies: r.headers['set-cookie'],
    protocolHeader: r.get('sec-websocket-protocol'),
    peerIsLoopback: r.remoteAddress === '127.0.0.1' && typeof r.remotePort === 'number',
    secure: r.secure,
  };
}

test(
  'a kept request reads as the snapshot would: in a handler, after idle ticks, in close and after close',
  T,
  async (t) => {
    const sockets: GaleSocket[] = [];
    const atClose = deferred<ReturnType<typeof fields>>();
    let keptUntilRead: boolean | undefined;
    const { port } = await withApp(t, (app) => {
      app.ws('/room/:id', {
        idleTimeout: 0,
        open: (ws) => {
          // Internal, on purpose: this route is the kind whose request is not copied at the 101.
          keptUntilRead ??= (ws as unknown as { _req: unknown })._req === undefined;
          sockets.push(ws);
        },
        message: (ws, data) => ws.send(JSON.stringify(data.toString() === 'who' ? fields(ws) : null)),
        close: (ws) => {
          if (ws.req.params.id === 'closing') atClose.resolve(fields(ws));
        },
      });
    });
    // Arrays go out as repeated header lines (ws hands them to http.request; its types say strings only).
    const headers = { 'x-agent': 'a1', 'x-twice': ['1', '2'], 'set-cookie': ['a=1', 'b=2'] } as unknown as Record<
      string,
      string
    >;
    const a = await connect(wsUrl(port, '/room/7?x=1&x=2'), ['chat', 'v2'], { headers });
    assert.equal(keptUntilRead, true, 'a route without middleware, upgrade() or protocols() keeps the request native');
    await sleep(1200); // an engine tick frees an idle socket's buffers; the kept head is not one of them
    a.send('who');
    const expected = {
      method: 'GET',
      url: '/room/7?x=1&x=2',
      path: '/room/7',
      query: { x: ['1', '2'] },
      params: { id: '7' },
      version: '1.1',
      agent: 'a1',
      twice: '1, 2',
      cookies: ['a=1', 'b=2'],
      protocolHeader: 'chat,v2',
      peerIsLoopback: true,
      secure: false,
    };
    assert.deepEqual(JSON.parse((await nextMessage(a)).data.toString()), expected);
    assert.equal(a.protocol, 'chat', 'the default pick, read from the first header line without copying the request');

    // Read first in the close handler.
    const b = await connect(wsUrl(port, '/room/closing'), undefined, { headers: { 'x-agent': 'b1' } });
    b.close();
    const seen = await atClose.promise;
    assert.equal(seen.agent, 'b1');
    assert.deepEqual(seen.params, { id: 'closing' });

    // Never read while open: still readable from a kept reference after the socket closed, in a later turn.
    const c = await connect(wsUrl(port, '/room/late?z=9'), undefined, { headers: { 'x-agent': 'c1' } });
    const gone = closed(c);
    c.close();
    await gone;
    await sleep(20);
    const late = sockets.find((s) => s.req.params.id === 'late') as GaleSocket;
    assert.equal(late.readyState, 3);
    assert.equal(late.req.url, '/room/late?z=9');
    assert.equal(late.req.headers['x-agent'], 'c1');
    a.close();
  },
);

test('200 sockets opening and closing over reused slots each read back their own request', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/n/:n', {
      idleTimeout: 0,
      message: (ws) => ws.send(`${ws.req.params.n} ${ws.req.headers['x-n']} ${ws.req.query.q}`),
    });
  });
  const clients: WebSocket[] = [];
  for (let wave = 0; wave < 4; wave++) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const n = `${wave}-${i}`;
        return connect(wsUrl(port, `/n/${n}?q=${n}`), undefined, { headers: { 'x-n': n } });
      }),
    );
    // Close every other socket of the wave unread, so the next wave's connections reuse their slots.
    for (let i = 0; i < batch.length; i += 2) batch[i]?.close();
    clients.push(...batch.filter((_, i) => i % 2 === 1));
    await sleep(10);
  }
  const answers = await Promise.all(
    clients.map(async (c) => {
      const m = nextMessage(c);
      c.send('?');
      return (await m).data.toString();
    }),
  );
  for (const a of answers) {
    const [n, header, q] = a.split(' ');
    assert.equal(header, n);
    assert.equal(q, n);
  }
  assert.equal(new Set(answers).size, clients.length);
  for (const c of clients) c.close();
});

test('a route with middleware or upgrade() keeps the very request object its middleware saw', T, async (t) => {
  const seen: unknown[] = [];
  const { port } = await withApp(t, (app) => {
    app.use('/mw', (req, _res, next) => {
      (req as unknown as { user: string }).user = 'ada';
      seen.push(req);
      return next();
    });
    app.ws('/mw/ws', {
      message: (ws) => ws.send(`${(ws.req as unknown as { user: string }).user} ${ws.req === seen[0]}`),
    });
    app.ws('/up', {
      upgrade: (req) => {
        seen.push(req);
        return 1;
      },
      message: (ws) => ws.send(String(ws.req === seen[1])),
    });
  });
  const a = await connect(wsUrl(port, '/mw/ws'));
  a.send('?');
  assert.equal((await nextMessage(a)).data.toString(), 'ada true');
  const b = await connect(wsUrl(port, '/up'));
  b.send('?');
  assert.equal((await nextMessage(b)).data.toString(), 'true');
  a.close();
  b.close();
});

test('ws.req of a never-read socket survives the app closing the socket at shutdown', T, async (t) => {
  const kept: GaleSocket[] = [];
  const s = await withApp(t, (app) => {
    app.ws('/s', { open: (ws) => void kept.push(ws) });
  });
  const c = await connect(wsUrl(s.port, '/s?who=shutdown'));
  const gone = closed(c);
  await s.app.close();
  assert.equal((await gone).code, 1001);
  assert.equal(kept[0]?.req.query.who, 'shutdown');
});

test('the default subprotocol is the first offered token even when the first header line offers none', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/p', { message: (ws) => ws.send(ws.protocol) });
  });
  const answer = await new Promise<string>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () =>
      s.write(
        'GET /p HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
          'Sec-WebSocket-Protocol: ,\r\nSec-WebSocket-Protocol: chat, v2\r\n\r\n',
      ),
    );
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 101 /);
  assert.match(answer, /\r\nsec-websocket-protocol: chat\r\n/i);
});

test('an upgrade that offers no subprotocol copies no request header into JS', T, async (t) => {
  let copies = 0;
  const s = await withApp(t, (app) => {
    // Counts the engine's whole-header copies (the binding's own method, called through).
    const n = (app as unknown as { n: { headers(id: number): string[] | undefined } }).n;
    const headers = n.headers.bind(n);
    n.headers = (id) => {
      copies++;
      return headers(id);
    };
    app.ws('/q', { message: (ws, data) => ws.send(data) });
  });
  const c = await connect(wsUrl(s.port, '/q'));
  const echoed = nextMessage(c);
  c.send('x');
  assert.equal(String((await echoed).data), 'x');
  assert.equal(copies, 0);
  c.close();
});
