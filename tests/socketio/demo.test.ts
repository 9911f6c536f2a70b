// The demo (`npm start`, examples/demo/server.mjs) started as a real process: its Socket.IO chat namespace /chat
// with the real socket.io-client (a name is required; join a room; a message reaches that room only; bad input is
// answered with an error in the ack) and `echo` with an ack on the default namespace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Socket as ClientSocket } from 'socket.io-client';
import { sleep } from '../helpers.js';
import { client, connected, next } from './helpers.js';

const root = join(import.meta.dirname, '..', '..');

async function startDemo(t: { after(fn: () => unknown): void }): Promise<string> {
  const child = spawn(process.execPath, [join(root, 'examples/demo/server.mjs')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk.toString();
    const m = /http:\/\/localhost:(\d+)\/json/.exec(out);
    if (m) return `http://127.0.0.1:${m[1]}`;
  }
  throw new Error(`demo exited without printing its URL: ${out}`);
}

test('the demo: Socket.IO chat rooms on /chat and echo on /', { timeout: 20_000 }, async (t) => {
  const base = await startDemo(t);
  const anonymous = client(t, `${base}/chat`);
  const [err] = await next<[Error & { data?: { hint: string } }]>(anonymous, 'connect_error');
  assert.equal(err.message, 'a name is required');
  assert.match(err.data?.hint ?? '', /auth: \{ name/);

  const ada = await connected(t, `${base}/chat`, { auth: { name: 'ada' } });
  const bob = await connected(t, `${base}/chat`, { auth: { name: 'bob' } });
  const eve = await connected(t, `${base}/chat`, { auth: { name: 'eve' } });
  assert.deepEqual(await ada.emitWithAck('join', 'lobby'), { room: 'lobby', members: ['ada'] });
  const joined = next<[string]>(ada, 'system');
  const bobJoin = (await bob.emitWithAck('join', 'lobby')) as { members: string[] };
  assert.deepEqual(bobJoin.members.sort(), ['ada', 'bob']);
  assert.deepEqual(await joined, ['bob joined']);
  assert.deepEqual(await eve.emitWithAck('join', 'kitchen'), { room: 'kitchen', members: ['eve'] });

  const heard = (c: ClientSocket) => {
    const got: string[] = [];
    c.on('message', (m: { from: string; text: string }) => got.push(`${m.from}: ${m.text}`));
    return got;
  };
  const [a, b, e] = [heard(ada), heard(bob), heard(eve)];
  assert.deepEqual(await ada.emitWithAck('message', 'hello lobby'), { ok: true });
  assert.deepEqual(await eve.emitWithAck('message', 'hello kitchen'), { ok: true });
  await sleep(150);
  assert.deepEqual(a, ['ada: hello lobby']);
  assert.deepEqual(b, ['ada: hello lobby']);
  assert.deepEqual(e, ['eve: hello kitchen']);

  assert.match(((await ada.emitWithAck('message', '')) as { error: string }).error, /1 to 2000 characters/);
  assert.match(((await ada.emitWithAck('join', '../etc')) as { error: string }).error, /room names/);
  const left = next<[string]>(ada, 'system');
  bob.disconnect();
  assert.deepEqual(await left, ['bob left']);

  const root = await connected(t, base);
  assert.deepEqual(await root.timeout(2000).emitWithAck('echo', { n: 1 }), { n: 1 });
});
