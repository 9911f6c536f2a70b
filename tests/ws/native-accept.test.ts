// WebSocket upgrades the engine accepts by itself (`nativeAccept`, on by default for routes no JavaScript runs for
// before a socket's first event). The same app runs with and without it, the same raw connections are made, and every
// byte the server sends and every handler call (with what it reads of ws.req) are compared; whether the engine
// accepted is read from the app, so the comparison cannot pass with the feature unused.
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { test } from 'node:test';
import type { App } from '../helpers.js';
import { RawConn, startApp } from '../helpers.js';
import { closeFrame, frame, upgradeRequest } from './frames.js';

const T = { timeout: 30_000 };

type Effect = (string | number | boolean | undefined)[];

/** Whether the engine accepts some route's upgrades now (internal, read on purpose). */
const engineAccepts = (app: App): boolean =>
  (app as unknown as { hub: { acceptsNatively: boolean } }).hub.acceptsNatively;

function build(app: App, nativeAccept: boolean, effects: Effect[]) {
  const seen = (ws: { protocol: string; req: { url: string; get(n: string): string | undefined } }) =>
    [ws.protocol, ws.req.url, ws.req.get('x-n')] as Effect;
  app.ws('/echo', {
    idleTimeout: 0,
    nativeAccept,
    message: (ws, data, isBinary) => {
      effects.push(['message', ...seen(ws), data.toString('latin1'), isBinary]);
      ws.send(data, { binary: isBinary });
    },
    close: (ws, code, reason) => effects.push(['close', ...seen(ws), code, reason]),
  });
  // No close handler: a socket that never sends is never seen by JS.
  app.ws('/quiet', {
    idleTimeout: 0,
    nativeAccept,
    message: (ws, data) => {
      effects.push(['quiet', ...seen(ws), data.toString()]);
      ws.send(`got ${data}`);
    },
  });
  app.get('/plain', () => 'plain');
}

/** One connection: what it sends at once, then how it ends. Returns every byte the server sent. */
async function session(port: number, send: Buffer, end: 'wait' | 'drop'): Promise<Buffer> {
  const conn = await RawConn.open(port);
  await conn.write(send);
  if (end === 'drop') {
    // Let the server answer what was sent, then go without a close frame.
    await conn.waitQuiet(150, 3000);
    conn.destroy();
  } else await conn.waitForClose(5000);
  return conn.all();
}

const n = (i: number) => `X-N: ${i}\r\n`;
const up = (path: string, i: number, extra = '') => Buffer.from(upgradeRequest(path, n(i) + extra), 'latin1');

/** The connections both apps get, one after another (the first upgrade of each route runs JavaScript either way). */
function specs(): [Buffer, 'wait' | 'drop'][] {
  const bye = closeFrame(1000, 'bye');
  return [
    [Buffer.concat([up('/echo', 1), frame(1, 'first'), bye]), 'wait'],
    [Buffer.concat([up('/echo', 2), frame(1, 'hello'), frame(2, Buffer.from([0, 255])), bye]), 'wait'],
    [Buffer.concat([up('/echo', 3, 'Sec-WebSocket-Protocol: chat, v2\r\n'), frame(1, 'p'), bye]), 'wait'],
    [
      Buffer.concat([
        up('/echo', 4, 'Sec-WebSocket-Protocol: , \r\nSec-WebSocket-Protocol: v3,v4\r\n'),
        frame(1, 'two lines'),
        bye,
      ]),
      'wait',
    ],
    // Not a plain token: JavaScript picks, with or without native accepting.
    [Buffer.concat([up('/echo', 5, 'Sec-WebSocket-Protocol: \xe9t\xe9\r\n'), frame(1, 'odd'), bye]), 'wait'],
    // Opened and dropped without a word: the close handler still hears 1006, with ws.req.
    [up('/echo', 6), 'drop'],
    [Buffer.concat([up('/quiet', 7), frame(1, 'q')]), 'drop'],
    [Buffer.concat([up('/quiet', 8), frame(1, 'r')]), 'drop'],
    [up('/quiet', 9), 'drop'],
  ];
}

async function run(nativeAccept: boolean) {
  const effects: Effect[] = [];
  const s = await startApp((app) => build(app, nativeAccept, effects));
  const bytes: string[] = [];
  try {
    for (const [send, end] of specs()) bytes.push((await session(s.port, send, end)).toString('latin1'));
    // The close of a dropped socket reaches JS a loop turn later.
    await new Promise((r) => setTimeout(r, 200));
    const accepted = engineAccepts(s.app);
    // A socket left open while the app closes gets 1001, and its close handler runs.
    const open = await RawConn.open(s.port);
    await open.write(Buffer.concat([up('/echo', 10), frame(1, 'last')]));
    await open.readUntil('last');
    await s.close(3000);
    await open.waitForClose(3000);
    bytes.push(open.all().toString('latin1'));
    // In the order of the connections (stable: each connection's own calls keep their order). A close handler may
    // run after the next connection's first message: the client sees the TCP close before the engine's close event
    // reaches JS, which is how it was when JavaScript accepted too.
    effects.sort((a, b) => Number(a[3]) - Number(b[3]));
    return { effects, bytes, accepted };
  } finally {
    await s.close();
  }
}

test(
  'upgrades the engine accepts give the same bytes and the same handler calls as JavaScript accepting',
  T,
  async () => {
    const on = await run(true);
    const off = await run(false);
    assert.equal(on.accepted, true, 'the engine accepted the later upgrades of both routes');
    assert.equal(off.accepted, false, 'nativeAccept: false keeps every upgrade in JavaScript');
    assert.equal(on.bytes.length, off.bytes.length);
    for (let i = 0; i < on.bytes.length; i++) assert.equal(on.bytes[i], off.bytes[i], `connection ${i + 1}`);
    assert.deepEqual(on.effects, off.effects);
    // What both must be: not an empty comparison.
    assert.ok((on.bytes[2] as string).includes('\r\nSec-WebSocket-Protocol: chat\r\n'), 'first offered protocol');
    assert.ok((on.bytes[3] as string).includes('\r\nSec-WebSocket-Protocol: v3\r\n'), 'first token over two lines');
    assert.deepEqual(
      on.effects.filter((e) => e[0] === 'close').map((e) => [e[2], e[3], e[4]]),
      [
        ['/echo', '1', 1000],
        ['/echo', '2', 1000],
        ['/echo', '3', 1000],
        ['/echo', '4', 1000],
        ['/echo', '5', 1000],
        ['/echo', '6', 1006],
        ['/echo', '10', 1001],
      ],
    );
    assert.deepEqual(
      on.effects.filter((e) => e[0] === 'quiet').map((e) => e[3]),
      ['7', '8'],
    );
  },
);

test('a route that runs JavaScript before the 101 is never accepted by the engine', T, async () => {
  const effects: string[] = [];
  const s = await startApp((app) => {
    app.ws('/open', { open: () => effects.push('open'), message: () => undefined });
    app.ws(
      '/mw',
      (_req, _res, next) => {
        effects.push('mw');
        return next();
      },
      { message: () => undefined },
    );
    app.ws('/upgrade', { upgrade: () => effects.push('upgrade'), message: () => undefined });
    app.ws('/p/:id', { message: () => undefined });
  });
  try {
    for (const path of ['/open', '/mw', '/upgrade', '/p/1']) {
      for (let i = 0; i < 3; i++) await session(s.port, Buffer.concat([up(path, i), closeFrame(1000)]), 'wait');
    }
    assert.equal(engineAccepts(s.app), false);
    assert.deepEqual(effects, ['open', 'open', 'open', 'mw', 'mw', 'mw', 'upgrade', 'upgrade', 'upgrade']);
  } finally {
    await s.close();
  }
});

test('a hook added later, or a tracing subscriber, takes native accepting back', T, async () => {
  const hooked: string[] = [];
  const s = await startApp((app) => app.ws('/echo', { message: (ws, d) => ws.send(d) }));
  const traced: string[] = [];
  const channel = tracingChannel<unknown, { url: string }>('gale.request');
  const sub = {
    start: (ctx: { url: string }) => traced.push(ctx.url),
    end() {},
    asyncStart() {},
    asyncEnd() {},
    error() {},
  };
  try {
    const once = () => session(s.port, Buffer.concat([up('/echo', 0), frame(1, 'x'), closeFrame(1000)]), 'wait');
    await once();
    await once();
    assert.equal(engineAccepts(s.app), true);
    s.app.addHook('onRequest', (req) => {
      hooked.push(req.path);
    });
    assert.equal(engineAccepts(s.app), false, 'the route was rebuilt with its hook');
    await once();
    await once();
    assert.deepEqual(hooked, ['/echo', '/echo']);

    // Tracing: a second app, native again, then a subscriber and one request that reaches JavaScript.
    const t = await startApp((app) => {
      app.ws('/echo', { message: (ws, d) => ws.send(d) });
      app.get('/plain', () => 'plain');
    });
    try {
      const onceT = () => session(t.port, Buffer.concat([up('/echo', 0), closeFrame(1000)]), 'wait');
      await onceT();
      assert.equal(engineAccepts(t.app), true);
      channel.subscribe(sub);
      const plain = await RawConn.open(t.port);
      await plain.write('GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await plain.waitForClose(3000);
      assert.equal(engineAccepts(t.app), false, 'the traced request took it back');
      await onceT();
      assert.deepEqual(traced, ['/plain', '/echo']);
    } finally {
      channel.unsubscribe(sub);
      await t.close();
    }
  } finally {
    await s.close();
  }
});
