// @gale-http/engine.io's options against the real engine.io 6 on the same requests (path, trailing slash, allowUpgrades,
// cors, allowRequest, middleware, cookie, initialPacket, maxHttpBufferSize, the heartbeat), its exports, and the
// clear refusals of what Gale does not offer (something neither an app nor a server, allowEIO3, WebTransport on a
// node:http server).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import * as eio from '@gale-http/engine.io';
import * as real from 'engine.io';
import { App, gale } from 'gale';
import WebSocket from 'ws';
import { T } from '../helpers.js';
import { type AnyEngine, client, type Kind, next, nextConnection, opened, startEngine } from './helpers.js';

const KINDS: Kind[] = ['gale', 'engine.io'];
const root = join(import.meta.dirname, '..', '..');

async function open(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: string }> {
  const r = await fetch(url, init);
  return { status: r.status, headers: r.headers, body: await r.text() };
}

for (const kind of KINDS) {
  test(`${kind}: path, addTrailingSlash: false, allowUpgrades: false`, T, async (t) => {
    const s = await startEngine(t, kind, { path: '/live', addTrailingSlash: false, allowUpgrades: false });
    const r = await open(`${s.url}/live?EIO=4&transport=polling`);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body.slice(1)).upgrades, []);
    const c = client(t, s.url, { path: '/live', addTrailingSlash: false, transports: ['websocket'] });
    await opened(c);
  });

  test(`${kind}: cors, allowRequest and middleware refusals, connection_error`, T, async (t) => {
    const s = await startEngine(
      t,
      kind,
      {
        cors: { origin: 'https://app.example', credentials: true },
        allowRequest: (req: { headers: Record<string, string | string[] | undefined> }, cb) =>
          cb(req.headers['x-deny'] ? 'denied here' : null, !req.headers['x-deny']),
      },
      (engine) => {
        engine.use((req: { headers: Record<string, string | undefined> }, _res: unknown, next: (e?: Error) => void) =>
          next(req.headers['x-fail'] ? new Error('no') : undefined),
        );
      },
    );
    const errors: { code: number; message: string; context: Record<string, unknown> }[] = [];
    s.engine.on('connection_error', (e: (typeof errors)[number]) => errors.push(e));
    const url = `${s.url}/engine.io/?EIO=4&transport=polling`;
    const ok = await open(url, { headers: { origin: 'https://app.example' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(ok.headers.get('access-control-allow-credentials'), 'true');
    const denied = await open(url, { headers: { 'x-deny': '1' } });
    assert.deepEqual([denied.status, JSON.parse(denied.body)], [403, { code: 4, message: 'denied here' }]);
    const failed = await open(url, { headers: { 'x-fail': '1' } });
    assert.deepEqual([failed.status, JSON.parse(failed.body)], [400, { code: 3, message: 'Bad request' }]);
    assert.deepEqual(
      errors.map((e) => [e.code, e.message, e.context.name ?? e.context.message]),
      [
        [4, 'Forbidden', 'denied here'],
        [3, 'Bad request', 'MIDDLEWARE_FAILURE'],
      ],
    );
  });

  test(`${kind}: engine middlewares run on WebSocket upgrades too; next(err) refuses with a 400`, T, async (t) => {
    const seen: string[] = [];
    const s = await startEngine(t, kind, { transports: ['websocket'] }, (engine) => {
      engine.use(
        (
          req: { url: string; headers: Record<string, string | undefined> },
          _res: unknown,
          next: (e?: Error) => void,
        ) => {
          seen.push(req.headers['x-who'] ?? '?');
          next(req.headers['x-fail'] ? new Error('no') : undefined);
        },
      );
    });
    const url = `ws://127.0.0.1:${s.port}/engine.io/?EIO=4&transport=websocket`;
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(url, { headers });
        ws.once('open', () => {
          ws.terminate();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        ws.once('error', (err) => reject(err));
      });
    assert.equal(await status({ 'x-who': 'a' }), 101);
    assert.equal(await status({ 'x-who': 'b', 'x-fail': '1' }), 400);
    assert.deepEqual(seen, ['a', 'b']);
  });

  test(`${kind}: cookie and initialPacket`, T, async (t) => {
    const s = await startEngine(t, kind, { cookie: { name: 'eio', sameSite: 'strict' }, initialPacket: 'first!' });
    const r = await open(`${s.url}/engine.io/?EIO=4&transport=polling`);
    const [open0, initial] = r.body.split('\x1e');
    const sid = JSON.parse((open0 as string).slice(1)).sid;
    assert.equal(initial, '4first!');
    assert.equal(r.headers.get('set-cookie'), `eio=${sid}; Path=/; HttpOnly; SameSite=Strict`);
  });

  test(`${kind}: a message over maxHttpBufferSize closes the session`, T, async (t) => {
    const s = await startEngine(t, kind, { maxHttpBufferSize: 100, transports: ['websocket'] });
    const serverSide = nextConnection(s.engine);
    const c = client(t, s.url, { transports: ['websocket'] });
    await opened(c);
    const socket = await serverSide;
    const closed = next<[string]>(socket, 'close');
    c.send('x'.repeat(500));
    assert.equal((await closed)[0], 'transport error');
  });

  test(`${kind}: a client that never answers the ping is closed with 'ping timeout'`, T, async (t) => {
    const s = await startEngine(t, kind, { pingInterval: 100, pingTimeout: 100 });
    const serverSide = nextConnection(s.engine);
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/engine.io/?EIO=4&transport=websocket`);
    t.after(() => ws.terminate());
    const socket = await serverSide;
    const beats: string[] = [];
    socket.on('heartbeat', () => beats.push('heartbeat'));
    // One pong: the heartbeat event, then silence.
    ws.once('message', () => ws.once('message', () => ws.send('3')));
    const [reason] = await next<[string]>(socket, 'close', 2000);
    assert.equal(reason, 'ping timeout');
    assert.deepEqual(beats, ['heartbeat']);
  });
}

test("exports: engine.io's error codes and messages, protocol 4, the parser, transports", () => {
  assert.deepEqual({ ...eio.Server.errors }, real.Server.errors);
  assert.deepEqual({ ...eio.Server.errorMessages }, { ...real.Server.errorMessages });
  assert.equal(eio.protocol, real.protocol);
  assert.equal(typeof eio.parser.encodePacket, 'function');
  assert.deepEqual(Object.keys(eio.transports), ['polling', 'websocket']);
  assert.ok(new eio.Server() instanceof eio.Server);
});

test('what Gale does not offer is refused at once, saying what to do', () => {
  assert.throws(() => eio.attach({ port: 3000 } as never), {
    name: 'TypeError',
    message: /attach\(\) takes a Gale app \(gale\(\) from 'gale'\) or a node:http\/https server, got Object/,
  });
  assert.throws(() => new eio.Server({ allowEIO3: true as never }), /allowEIO3 is not supported/);
  assert.doesNotThrow(() => new eio.Server({ transports: ['polling', 'webtransport'] }));
  assert.throws(
    () => new eio.Server({ transports: ['webtransport'] }).attach(http.createServer()),
    /webtransport transport needs a Gale app listening with http3/,
  );
  assert.throws(
    () => new eio.Server({ transports: ['carrier-pigeon' as never] }),
    /unknown transport "carrier-pigeon"/,
  );
  assert.throws(() => new eio.Server({ transports: [] }), /at least one of polling, websocket/);
  assert.throws(() => new eio.Server({ pingInterval: -1 }), /pingInterval must be a number >= 1/);
  const app = gale();
  const engine = eio.attach(app);
  assert.ok(engine.httpServer instanceof App);
  assert.throws(() => engine.attach(app), /already attached/);
  // Accepted on a Gale app, where the engine serves the WebSockets and the app every other upgrade: ws's engine
  // and the upgrade-destroying options of node:http.
  eio.attach(gale(), { wsEngine: class {}, destroyUpgrade: false, destroyUpgradeTimeout: 10 });
});

test("require('@gale-http/engine.io') gives the same exports", () => {
  const script =
    "const e = require('@gale-http/engine.io'); console.log([typeof e.attach, typeof e.listen, typeof e.Server, e.protocol].join())";
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'function,function,function,4');
});

test('the socket.io layer sits on it: io.engine is a @gale-http/engine.io Server', async () => {
  const { Server } = await import('@gale-http/socket.io');
  const io = new Server(gale());
  assert.ok(io.engine instanceof eio.Server);
  const s: AnyEngine = io.engine;
  assert.equal(s.clientsCount, 0);
});
