// The polling → WebSocket upgrade on the wire (fetch + ws, no client library), side by side with the real engine.io:
// probe and upgrade, polls refused after it, and a second WebSocket for a session that is upgrading or upgraded,
// which engine.io accepts (101) and then closes, where Gale used to refuse it with a 400.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { T } from '../helpers.js';
import { type AnyEngine, type Kind, next, startEngine } from './helpers.js';

const KINDS: Kind[] = ['gale', 'engine.io'];

async function handshake(url: string): Promise<string> {
  const r = await fetch(`${url}/engine.io/?EIO=4&transport=polling`);
  return JSON.parse((await r.text()).slice(1)).sid;
}

/** Opens a WebSocket for `sid`; resolves once it is open (rejects with the status of a refused upgrade). */
function upgradeSocket(port: number, sid: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/engine.io/?EIO=4&transport=websocket&sid=${sid}`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** What the socket sees until it closes: messages and the close code. */
function record(ws: WebSocket): { messages: string[]; closed: Promise<number> } {
  const messages: string[] = [];
  ws.on('message', (data) => messages.push(String(data)));
  return { messages, closed: new Promise((resolve) => ws.once('close', (code) => resolve(code))) };
}

for (const kind of KINDS) {
  test(
    `${kind}: a second WebSocket for an upgraded session is accepted, then closed; the first one works on`,
    T,
    async (t) => {
      const s = await startEngine(t, kind, {}, (engine) => {
        engine.on('connection', (socket: AnyEngine) => socket.on('message', (d: unknown) => socket.send(d)));
      });
      const sid = await handshake(s.url);
      const session = s.engine.clients[sid];
      const first = await upgradeSocket(s.port, sid);
      t.after(() => first.terminate());
      const probe = next<[Buffer]>(first, 'message');
      first.send('2probe');
      assert.equal(String((await probe)[0]), '3probe');
      const upgraded = next(session, 'upgrade');
      first.send('5');
      await upgraded;
      const refused = await fetch(`${s.url}/engine.io/?EIO=4&transport=polling&sid=${sid}`);
      assert.equal(refused.status, 400, 'polling after the upgrade');
      const second = await upgradeSocket(s.port, sid); // a 400 here would reject
      t.after(() => second.terminate());
      const seen = record(second);
      await seen.closed;
      assert.deepEqual(seen.messages, [], 'the second socket gets nothing before it is closed');
      const echo = next<[Buffer]>(first, 'message');
      first.send('4hello');
      assert.equal(String((await echo)[0]), '4hello');
      assert.equal(session.transport.name, 'websocket');
    },
  );

  test(`${kind}: a second WebSocket while the first is upgrading is closed; the upgrade completes`, T, async (t) => {
    const s = await startEngine(t, kind);
    const sid = await handshake(s.url);
    const session = s.engine.clients[sid];
    const first = await upgradeSocket(s.port, sid);
    t.after(() => first.terminate());
    const probe = next<[Buffer]>(first, 'message');
    first.send('2probe');
    await probe;
    assert.equal(session.upgrading, true);
    const second = await upgradeSocket(s.port, sid);
    t.after(() => second.terminate());
    await record(second).closed;
    const upgraded = next(session, 'upgrade');
    first.send('5');
    await upgraded;
    assert.equal(session.transport.name, 'websocket');
  });
}
