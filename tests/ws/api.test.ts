// WebSocket API tests with the real `ws` client: upgrade through middleware (auth, cookies, data), subprotocols,
// send results, server close/terminate, handler errors (1011), the express-ws style facade and shutdown (1001).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from 'gale';
import WebSocket from 'ws';
import { sleep, T, withApp } from '../helpers.js';
import { closed, connect, nextMessage } from './clients.js';

const wsUrl = (port: number, path: string) => `ws://127.0.0.1:${port}${path}`;

test('middleware runs on upgrade: a 401 refuses it, cookies and upgrade data reach the socket', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.use((req, _res, next) => {
      if (req.query.token !== 'good') throw new HttpError(401, 'token required');
      return next();
    });
    app.ws('/chat', {
      upgrade: async (req) => {
        await sleep(5);
        return { user: req.cookies.user, path: req.path };
      },
      open: (ws) => ws.send(JSON.stringify(ws.data)),
    });
  });
  await assert.rejects(connect(wsUrl(port, '/chat?token=bad')), /HTTP 401/);
  const c = await connect(wsUrl(port, '/chat?token=good'), undefined, { headers: { cookie: 'user=ada' } });
  assert.deepEqual(JSON.parse((await nextMessage(c)).data.toString()), { user: 'ada', path: '/chat' });
  c.close();
});

test('upgrade(req) can refuse with an HttpError or by answering with res', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/a', {
      upgrade: () => {
        throw new HttpError(403, 'no');
      },
    });
    app.ws('/b', { upgrade: (_req, res) => void res.status(429).send('slow down') });
  });
  await assert.rejects(connect(wsUrl(port, '/a')), /HTTP 403/);
  await assert.rejects(connect(wsUrl(port, '/b')), /HTTP 429/);
});

test('route params and subprotocols: first offered by default, protocols() picks, false refuses', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/p/:room', { open: (ws) => ws.send(`${ws.req.params.room}|${ws.protocol}`) });
    app.ws('/pick', {
      protocols: (offered) => (offered.includes('v2') ? 'v2' : false),
      open: (ws) => ws.send(ws.protocol),
    });
  });
  const a = await connect(wsUrl(port, '/p/lobby'), ['chat', 'superchat']);
  assert.equal(a.protocol, 'chat');
  assert.equal((await nextMessage(a)).data.toString(), 'lobby|chat');
  a.close();
  const b = await connect(wsUrl(port, '/pick'), ['v1', 'v2']);
  assert.equal(b.protocol, 'v2');
  assert.equal((await nextMessage(b)).data.toString(), 'v2');
  b.close();
  await assert.rejects(connect(wsUrl(port, '/pick'), ['v1']), /HTTP 400/);
});

test('send: strings are text, bytes binary; results; remoteAddress; getBufferedAmount', T, async (t) => {
  const results: string[] = [];
  const { port } = await withApp(t, (app) => {
    app.ws('/s', {
      open: (ws) => {
        results.push(ws.send('text'));
        results.push(ws.send(Buffer.from([1, 2])));
        results.push(ws.send(new Uint8Array([3]).buffer));
        results.push(ws.send('as binary', { binary: true }));
        results.push(`${ws.remoteAddress}:${typeof ws.remotePort}:${ws.getBufferedAmount() >= 0}`);
      },
    });
  });
  const c = await connect(wsUrl(port, '/s'));
  const got: [string, boolean][] = [];
  for (let i = 0; i < 4; i++) {
    const m = await nextMessage(c);
    got.push([m.isBinary ? [...m.data].join(',') : m.data.toString(), m.isBinary]);
  }
  assert.deepEqual(got, [
    ['text', false],
    ['1,2', true],
    ['3', true],
    [[...Buffer.from('as binary')].join(','), true],
  ]);
  assert.deepEqual(results, ['sent', 'sent', 'sent', 'sent', '127.0.0.1:number:true']);
  c.close();
});

test(
  'server close(code, reason) reaches the client; bad codes and long reasons throw; terminate gives 1006',
  T,
  async (t) => {
    const serverSide: [number, string][] = [];
    const errors: string[] = [];
    const { port } = await withApp(t, (app) => {
      app.ws('/close', {
        message: (ws, data) => {
          try {
            ws.close(1005);
          } catch (e) {
            errors.push((e as Error).name);
          }
          try {
            ws.close(1000, 'x'.repeat(124));
          } catch (e) {
            errors.push((e as Error).name);
          }
          if (data.toString() === 'terminate') ws.terminate();
          else ws.close(4000, 'bye now');
          assert.equal(ws.send('after close'), 'closed');
        },
        close: (_ws, code, reason) => serverSide.push([code, reason]),
      });
    });
    const a = await connect(wsUrl(port, '/close'));
    const aClosed = closed(a);
    a.send('close');
    assert.deepEqual(await aClosed, { code: 4000, reason: 'bye now' });
    const b = await connect(wsUrl(port, '/close'));
    const bClosed = closed(b);
    b.send('terminate');
    assert.equal((await bClosed).code, 1006);
    await sleep(50);
    assert.deepEqual(serverSide, [
      [4000, 'bye now'],
      [1006, ''],
    ]);
    assert.deepEqual(errors, ['RangeError', 'RangeError', 'RangeError', 'RangeError']);
  },
);

test('a throwing or rejecting handler closes the socket with 1011 and is logged', T, async (t) => {
  const logged: unknown[] = [];
  const logger = { info() {}, warn() {}, error: (o: unknown) => logged.push(o) };
  const { port } = await withApp(
    t,
    (app) => {
      app.ws('/boom', {
        message: async (_ws, data) => {
          if (data.toString() === 'async') throw new Error('async boom');
          throw new Error('sync boom');
        },
      });
    },
    { logger, requestLogging: false },
  );
  for (const kind of ['sync', 'async']) {
    const c = await connect(wsUrl(port, '/boom'));
    const done = closed(c);
    c.send(kind);
    assert.equal((await done).code, 1011);
  }
  assert.equal(logged.length, 2);
});

test(
  'express-ws style: app.ws(path, middleware, (ws, req) => …) with on("message"), readyState and close',
  T,
  async (t) => {
    const events: string[] = [];
    const { port } = await withApp(t, (app) => {
      app.ws(
        '/legacy',
        (req, _res, next) => {
          (req as unknown as { tag: string }).tag = 'mw';
          return next();
        },
        (ws, req) => {
          events.push(`open:${(req as unknown as { tag: string }).tag}:${ws.readyState === ws.OPEN}`);
          ws.on('message', (msg, isBinary) => ws.send(`${msg}!`, { binary: isBinary }));
          ws.on('close', (code) => events.push(`close:${code}:${ws.readyState}`));
        },
      );
    });
    const c = await connect(wsUrl(port, '/legacy'));
    c.send('hi');
    assert.equal((await nextMessage(c)).data.toString(), 'hi!');
    c.close(1000);
    await sleep(50);
    assert.deepEqual(events, ['open:mw:true', 'close:1000:3']);
  },
);

test('graceful shutdown: open sockets get 1001, close handlers run, app.close() resolves', T, async (t) => {
  const seen: number[] = [];
  const s = await withApp(t, (app) => {
    app.ws('/live', { close: (_ws, code) => seen.push(code) });
  });
  const a = await connect(wsUrl(s.port, '/live'));
  const b = await connect(wsUrl(s.port, '/live'));
  const done = Promise.all([closed(a), closed(b)]);
  await s.app.close();
  const codes = (await done).map((c) => c.code);
  assert.deepEqual(codes, [1001, 1001]);
  assert.deepEqual(seen, [1001, 1001]);
});

test('idle timeout: a silent client is closed with 1001; pings keep a live client open', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.ws('/nopings', { idleTimeout: 1, sendPings: false });
    app.ws('/pings', { idleTimeout: 1 });
  });
  const silent = await connect(wsUrl(port, '/nopings'));
  const t0 = Date.now();
  const c = await closed(silent);
  assert.equal(c.code, 1001);
  assert.match(c.reason, /idle/i);
  assert.ok(Date.now() - t0 < 3500, 'closed within about the timeout');
  // The ws client answers pings automatically, so this one stays open past several timeouts.
  const live = await connect(wsUrl(port, '/pings'));
  let pings = 0;
  live.on('ping', () => pings++);
  await sleep(2600);
  assert.equal(live.readyState, WebSocket.OPEN);
  assert.ok(pings >= 1, `got ${pings} pings`);
  live.close();
});

test(
  'a loop busy past the idle timeout does not close live clients: they are pinged first, then given time',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/pings', { idleTimeout: 1 });
      app.ws('/nopings', { idleTimeout: 1, sendPings: false });
    });
    const live = await connect(wsUrl(port, '/pings'));
    const silent = await connect(wsUrl(port, '/nopings'));
    let pings = 0;
    live.on('ping', () => pings++);
    const silentClosed = closed(silent);
    // Synchronous work longer than the timeout (a handler crunching, a process starved of CPU): no tick could ping.
    const until = Date.now() + 1300;
    while (Date.now() < until);
    await sleep(1200);
    assert.equal(live.readyState, WebSocket.OPEN, 'a client that answers its ping stays open');
    assert.ok(pings >= 1, `got ${pings} pings`);
    // Without pings the timeout is the timeout: the silent client still goes, with 1001.
    assert.equal((await silentClosed).code, 1001);
    live.close();
  },
);

test('message Buffers stay valid after later messages (pooled views are never overwritten)', {
  timeout: 20_000,
}, async (t) => {
  const kept: Buffer[] = [];
  const { port } = await withApp(t, (app) => {
    app.ws('/keep', {
      message: (ws, data) => {
        kept.push(data);
        if (kept.length === 3000) ws.send('done');
      },
    });
  });
  const c = await connect(wsUrl(port, '/keep'));
  // 3000 messages of 100–1100 bytes: far more than one 64 KiB pool, plus some over the pooled size.
  const sent: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const size = i % 500 === 0 ? 9000 : 100 + (i % 1000);
    const text = `${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26)));
    sent.push(text);
    c.send(text);
  }
  assert.equal((await nextMessage(c)).data.toString(), 'done');
  assert.equal(kept.length, 3000);
  for (let i = 0; i < 3000; i++) assert.equal(kept[i]?.toString(), sent[i], `message ${i}`);
  c.close();
});

test('an upgrade still in upgrade(req) when app.close() starts is answered 503', T, async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let entered!: () => void;
  const inUpgrade = new Promise<void>((r) => {
    entered = r;
  });
  const s = await withApp(t, (app) => {
    app.ws('/late', {
      upgrade: async () => {
        entered();
        await gate;
        return {};
      },
    });
  });
  const refused = assert.rejects(connect(wsUrl(s.port, '/late')), /HTTP 503/);
  await inUpgrade;
  const closing = s.app.close();
  release();
  await refused;
  await closing;
});

test(
  'a socket idle for several engine ticks (its buffers freed) still echoes, publishes and reads ws.req',
  T,
  async (t) => {
    const { port } = await withApp(t, (app) => {
      app.ws('/idle', {
        idleTimeout: 0,
        open: (ws) => ws.subscribe('all'),
        message: (ws, data) => {
          const text = data.toString();
          if (text === 'who') {
            // Read long after the upgrade: the snapshot taken at upgrade answers, not the engine.
            const h = ws.req.headers;
            ws.send(
              JSON.stringify({
                url: ws.req.url,
                agent: h['x-agent'],
                inherited: typeof (h as Record<string, unknown>).constructor,
                query: ws.req.query.q,
                peer: `${ws.remoteAddress}:${ws.remotePort}`,
                states: [ws.CONNECTING, ws.OPEN, ws.CLOSING, ws.CLOSED, ws.readyState],
              }),
            );
          } else if (text === 'all') ws.publish('all', 'to everyone');
          else ws.send(data);
        },
      });
    });
    const a = await connect(wsUrl(port, '/idle?q=1'), undefined, { headers: { 'x-agent': 'test' } });
    const b = await connect(wsUrl(port, '/idle?q=2'));
    // The engine's tick runs at least once a second; idle sockets drop their buffers there.
    await sleep(2300);
    a.send('who');
    const who = JSON.parse((await nextMessage(a)).data.toString());
    const local = (a as unknown as { _socket: { localPort: number; localAddress: string } })._socket;
    assert.deepEqual(who, {
      url: '/idle?q=1',
      agent: 'test',
      inherited: 'undefined',
      query: '1',
      peer: `${local.localAddress}:${local.localPort}`,
      states: [0, 1, 2, 3, 1],
    });
    const big = 'x'.repeat(200_000);
    a.send(big);
    assert.equal((await nextMessage(a)).data.toString(), big);
    const heard = nextMessage(b);
    a.send('all');
    assert.equal((await heard).data.toString(), 'to everyone');
    a.close();
    b.close();
  },
);
