// The pong deadline holds for requests read in the loop turn it passes in: timers run in their own phase, after the
// sockets read in the same turn, so a poll read just after the deadline used to find the session still open (and be
// held, then answered with a noop when the timer closed it). It gets the closed session's 400 now.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { attach } from '@gale-http/engine.io';
import { gale } from 'gale';
import { buildRequest, parseResponses, T } from '../helpers.js';

/** A raw keep-alive connection that has had one exchange (so the server has accepted it). */
async function connection(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(buildRequest({ path: '/ok' }));
  await new Promise((resolve) => socket.once('data', resolve));
  return socket;
}

// Both tests hold the loop past a deadline on purpose. Their windows are wide enough for a busy machine (both cores
// taken by other work, where a fetch can take a few hundred ms to reach the server): what they check is which side
// of a deadline a request lands on, and each request lands ≥ 360 ms from the deadline it must not cross.
test('a poll read after the pong deadline, before the timeout timer ran, finds the session closed', T, async (t) => {
  const app = gale();
  // The ping poll has ~1 s after the handshake to reach the server before the pong deadline.
  const engine = attach(app, { pingInterval: 50, pingTimeout: 1000 });
  const reasons: string[] = [];
  engine.on('connection', (socket) => socket.on('close', (reason: string) => reasons.push(reason)));
  app.get('/ok', () => 'ok');
  // Holds the loop past the deadline inside a batch, so the poll behind it is read before the timers phase.
  app.get('/block', () => {
    const until = performance.now() + 1100;
    while (performance.now() < until);
    return 'done';
  });
  const { port } = await app.listen(0, '127.0.0.1');
  const blocker = await connection(port);
  const poller = await connection(port);
  t.after(async () => {
    blocker.destroy();
    poller.destroy();
    engine.close();
    await app.close({ timeout: 100 });
  });
  const open = await (await fetch(`http://127.0.0.1:${port}/engine.io/?EIO=4&transport=polling`)).text();
  const sid = JSON.parse(open.slice(1)).sid;
  const ping = await fetch(`http://127.0.0.1:${port}/engine.io/?EIO=4&transport=polling&sid=${sid}`);
  assert.equal(await ping.text(), '2', 'the ping: the pong is due within 1000 ms');
  const answer = new Promise<Buffer>((resolve) => {
    let got = Buffer.alloc(0);
    poller.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      try {
        if (parseResponses(got, { eof: false }).length > 0) resolve(got);
      } catch {
        // not whole yet
      }
    });
  });
  blocker.write(buildRequest({ path: '/block' }));
  poller.write(buildRequest({ path: `/engine.io/?EIO=4&transport=polling&sid=${sid}` }));
  const [res] = parseResponses(await answer);
  assert.equal(res?.status, 400);
  assert.deepEqual(JSON.parse(res?.text ?? ''), { code: 1, message: 'Session ID unknown' });
  assert.deepEqual(reasons, ['ping timeout']);
});

test('the pong deadline counts from when the ping was due, not from a timer the loop held up', T, async (t) => {
  const app = gale();
  const engine = attach(app, { pingInterval: 200, pingTimeout: 2500 });
  const reasons: string[] = [];
  engine.on('connection', (socket) => socket.on('close', (reason: string) => reasons.push(reason)));
  app.get('/ok', () => 'ok');
  app.get('/block', () => {
    const until = performance.now() + 800;
    while (performance.now() < until);
    return 'done';
  });
  const { port } = await app.listen(0, '127.0.0.1');
  const blocker = await connection(port);
  t.after(async () => {
    blocker.destroy();
    engine.close();
    await app.close({ timeout: 100 });
  });
  const base = `http://127.0.0.1:${port}/engine.io/?EIO=4&transport=polling`;
  const sid = JSON.parse((await (await fetch(base)).text()).slice(1)).sid;
  const opened = performance.now();
  // The loop is held from ~120 ms to ~920 ms: the ping due at 200 ms goes out at ~920 ms. Its pong is due at 2700 ms
  // (engine.io's timer would wait until ~3420 ms). The poll asking for the ping has 1.78 s after the block to reach
  // the server (a busy machine took over 480 ms), and the check at 3060 ms is 360 ms from either deadline.
  await new Promise((resolve) => setTimeout(resolve, 120));
  blocker.write(buildRequest({ path: '/block' }));
  const ping = await fetch(`${base}&sid=${sid}`);
  assert.equal(await ping.text(), '2');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, opened + 3060 - performance.now())));
  const late = await fetch(`${base}&sid=${sid}`);
  assert.deepEqual([late.status, await late.json()], [400, { code: 1, message: 'Session ID unknown' }]);
  assert.deepEqual(reasons, ['ping timeout']);
});
