// @gale-http/socket.io with the real socket.io-client: connecting with auth and the handshake fields, WebSocket-only
// and polling-only clients, both transports with the upgrade, namespaces (static, regex and function), and
// middleware errors reaching the client as connect_error with data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { T } from '../helpers.js';
import { client, connected, next, nextServerSocket, startServer } from './helpers.js';

for (const transport of ['websocket', 'polling'] as const) {
  test(`connect over ${transport} only, with auth; socket.handshake, socket.id, socket.data`, T, async (t) => {
    const s = await startServer(t, 'gale', { transports: [transport] }, (io) => {
      io.use((socket: { handshake: { auth: { token?: string } }; data: Record<string, unknown> }, next: () => void) => {
        socket.data.user = socket.handshake.auth.token === 'secret' ? 'ada' : 'anonymous';
        next();
      });
    });
    const serverSide = nextServerSocket(s.io);
    const c = await connected(t, s.url, {
      transports: [transport],
      auth: { token: 'secret' },
      query: { room: 'blue' },
      extraHeaders: { 'x-test': 'yes' },
    });
    const socket = await serverSide;
    assert.equal(c.id, socket.id, 'the client learns its socket id from the CONNECT packet');
    assert.equal(c.io.engine.transport.name, transport);
    assert.equal(socket.conn.transport.name, transport);
    assert.match(socket.id, /^[\w-]{20}$/);
    assert.notEqual(socket.id, socket.conn.id, 'the socket id is not the Engine.IO session id');
    assert.equal(socket.data.user, 'ada');
    const h = socket.handshake;
    assert.deepEqual(h.auth, { token: 'secret' });
    assert.equal(h.query.room, 'blue');
    assert.equal(h.query.EIO, '4');
    assert.equal(h.query.transport, transport);
    assert.equal(h.headers['x-test'], 'yes');
    assert.equal(h.address, '127.0.0.1');
    assert.equal(h.xdomain, false);
    assert.equal(h.secure, false);
    assert.ok(Math.abs(h.issued - Date.now()) < 5000);
    assert.equal(typeof h.time, 'string');
    assert.ok(h.url.startsWith('/socket.io/?'), h.url);
    assert.deepEqual([...socket.rooms], [socket.id]);
    assert.equal(s.io.engine.clientsCount, 1);
  });
}

test('default transports: polling first, then the upgrade to WebSocket (probe, noop, upgrade)', T, async (t) => {
  const s = await startServer(t, 'gale');
  const serverSide = nextServerSocket(s.io);
  const c = client(t, s.url);
  // The client may finish the upgrade before 'connect' reaches this test (as it does with socket.io, whose 101
  // goes out before the poll that carries the CONNECT): watch from the start.
  assert.equal(c.io.engine.transport.name, 'polling');
  const upgraded = next(c.io.engine, 'upgrade');
  await next(c, 'connect');
  const socket = await serverSide;
  await upgraded;
  assert.equal(c.io.engine.transport.name, 'websocket');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(socket.conn.transport.name, 'websocket');
  socket.on('echo', (m: unknown, ack: (m: unknown) => void) => ack(m));
  assert.deepEqual(await c.timeout(2000).emitWithAck('echo', { after: 'upgrade' }), { after: 'upgrade' });
});

for (const transport of ['websocket', 'polling'] as const) {
  test(`namespaces over ${transport}: static, dynamic by regex and by function, and unknown ones`, T, async (t) => {
    const seen: string[] = [];
    const s = await startServer(t, 'gale', { transports: [transport] }, (io) => {
      io.of('/admin').on('connection', (socket: { nsp: { name: string } }) => seen.push(socket.nsp.name));
      io.of(/^\/team-\d+$/).on('connection', (socket: { nsp: { name: string }; emit(e: string, v: string): void }) => {
        socket.emit('team', socket.nsp.name);
      });
      io.of((name: string, auth: { key?: string }, next: (err: Error | null, ok: boolean) => void) =>
        next(null, name.startsWith('/fn-') && auth.key === 'k'),
      ).on('connection', (socket: { emit(e: string, v: string): void; nsp: { name: string } }) =>
        socket.emit('fn', socket.nsp.name),
      );
    });
    const opts = { transports: [transport] };
    const admin = await connected(t, `${s.url}/admin`, opts);
    assert.equal(admin.connected, true);
    assert.deepEqual(seen, ['/admin']);

    const team = client(t, `${s.url}/team-42`, opts);
    const [teamName] = await next<[string]>(team, 'team');
    assert.equal(teamName, '/team-42');
    assert.ok(s.io._nsps.has('/team-42'), 'the child namespace was created');

    const fn = client(t, `${s.url}/fn-x`, { ...opts, auth: { key: 'k' } });
    assert.deepEqual(await next(fn, 'fn'), ['/fn-x']);

    const unknown = client(t, `${s.url}/nope`, opts);
    const [err] = await next<[Error]>(unknown, 'connect_error');
    assert.equal(err.message, 'Invalid namespace');
    const refused = client(t, `${s.url}/fn-y`, { ...opts, auth: { key: 'wrong' } });
    assert.equal((await next<[Error]>(refused, 'connect_error'))[0].message, 'Invalid namespace');
  });
}

test('one connection, several namespaces (multiplexed): each socket its own id and rooms', T, async (t) => {
  const s = await startServer(t, 'gale', { transports: ['websocket'] }, (io) => io.of('/chat'));
  const a = await connected(t, s.url, { transports: ['websocket'], forceNew: true });
  const b = a.io.socket('/chat');
  t.after(() => b.disconnect());
  await next(b, 'connect');
  assert.notEqual(a.id, b.id);
  assert.equal(s.io.engine.clientsCount, 1, 'both namespaces share one Engine.IO connection');
  const chatSockets = await s.io.of('/chat').fetchSockets();
  assert.deepEqual(
    chatSockets.map((x: { id: string }) => x.id),
    [b.id],
  );
});

for (const transport of ['websocket', 'polling'] as const) {
  test(`middleware errors reach the client as connect_error with err.data (${transport})`, T, async (t) => {
    const s = await startServer(t, 'gale', { transports: [transport] }, (io) => {
      io.use((socket: { handshake: { auth: { token?: string } } }, next: (e?: Error) => void) => {
        if (socket.handshake.auth.token === 'ok') return next();
        const err = new Error('not authorized') as Error & { data?: unknown };
        err.data = { content: 'please retry later', code: 401 };
        next(err);
      });
      io.of('/private').use((_s: unknown, next: (e?: Error) => void) => next(new Error('private only')));
    });
    const c = client(t, s.url, { transports: [transport], auth: { token: 'bad' } });
    const [err] = await next<[Error & { data?: unknown }]>(c, 'connect_error');
    assert.equal(err.message, 'not authorized');
    assert.deepEqual(err.data, { content: 'please retry later', code: 401 });
    assert.equal(c.connected, false);
    assert.equal((await s.io.fetchSockets()).length, 0, 'a refused socket is not in the namespace');

    const ok = await connected(t, s.url, { transports: [transport], auth: { token: 'ok' } });
    assert.equal(ok.connected, true);
    const p = client(t, `${s.url}/private`, { transports: [transport] });
    const [perr] = await next<[Error & { data?: unknown }]>(p, 'connect_error');
    assert.equal(perr.message, 'private only');
    assert.equal(perr.data, undefined);
  });
}

test('io.engine: connection_error for refused requests, allowRequest, initial_headers and cookies', T, async (t) => {
  const errors: { code: number; message: string }[] = [];
  const s = await startServer(
    t,
    'gale',
    {
      transports: ['polling'],
      cookie: true,
      allowRequest: (req, cb) => cb(req.headers['x-deny'] ? 'denied here' : null, !req.headers['x-deny']),
    },
    (io) => {
      io.engine.on('connection_error', (e: { code: number; message: string }) => errors.push(e));
      io.engine.on('initial_headers', (headers: Record<string, string>) => {
        headers['x-initial'] = '1';
      });
    },
  );
  const r = await fetch(`${s.url}/socket.io/?EIO=4&transport=polling`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-initial'), '1');
  const sid = JSON.parse((await r.text()).slice(1)).sid;
  assert.equal(r.headers.get('set-cookie'), `io=${sid}; Path=/; HttpOnly; SameSite=Lax`);
  const denied = await fetch(`${s.url}/socket.io/?EIO=4&transport=polling`, { headers: { 'x-deny': '1' } });
  assert.equal(denied.status, 403);
  assert.deepEqual(await denied.json(), { code: 4, message: 'denied here' });
  const bad = await fetch(`${s.url}/socket.io/?EIO=4&transport=polling&sid=nope`);
  assert.equal(bad.status, 400);
  await bad.text();
  assert.deepEqual(
    errors.map((e) => [e.code, e.message]),
    [
      [4, 'Forbidden'],
      [1, 'Session ID unknown'],
    ],
  );
});
