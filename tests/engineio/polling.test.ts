// Long-polling POSTs that end the session, side by side with the real engine.io 6.6.13: a body over
// maxHttpBufferSize (413), a body slower than httpRequestBodyTimeout (408), and an async engine middleware whose
// promise rejects (400, MIDDLEWARE_FAILURE).
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { parseResponses, T } from '../helpers.js';
import { type AnyEngine, type Kind, next, nextConnection, startEngine } from './helpers.js';

const KINDS: Kind[] = ['gale', 'engine.io'];

async function handshake(url: string): Promise<string> {
  const r = await fetch(`${url}/engine.io/?EIO=4&transport=polling`);
  return JSON.parse((await r.text()).slice(1)).sid;
}

for (const kind of KINDS) {
  test(`${kind}: a POST over maxHttpBufferSize gets 413 and ends the session ('transport error')`, T, async (t) => {
    const s = await startEngine(t, kind, { maxHttpBufferSize: 100 });
    const serverSide = nextConnection(s.engine);
    const sid = await handshake(s.url);
    const socket: AnyEngine = await serverSide;
    const closed = next<[string]>(socket, 'close');
    const url = `${s.url}/engine.io/?EIO=4&transport=polling&sid=${sid}`;
    const post = await fetch(url, { method: 'POST', body: `4${'x'.repeat(500)}` }).then(
      (r) => r.status,
      () => 'connection closed',
    );
    assert.equal(post, 413);
    assert.equal((await closed)[0], 'transport error');
    const after = await fetch(url);
    assert.deepEqual([after.status, await after.json()], [400, { code: 1, message: 'Session ID unknown' }]);
  });

  test(`${kind}: a POST body slower than httpRequestBodyTimeout gets 408 and ends the session`, T, async (t) => {
    const s = await startEngine(t, kind, { httpRequestBodyTimeout: 150 });
    const serverSide = nextConnection(s.engine);
    const sid = await handshake(s.url);
    const socket: AnyEngine = await serverSide;
    const closed = next<[string]>(socket, 'close');
    const raw = net.connect(s.port, '127.0.0.1');
    t.after(() => raw.destroy());
    let got = Buffer.alloc(0);
    raw.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
    });
    raw.write(
      `POST /engine.io/?EIO=4&transport=polling&sid=${sid} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        'Content-Type: text/plain\r\nContent-Length: 10\r\n\r\n4ab',
    );
    assert.equal((await closed)[0], 'transport error');
    for (let i = 0; i < 50 && parseResponses(got, { eof: false }).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(parseResponses(got, { eof: false })[0]?.status, 408);
  });

  test(
    `${kind}: an async engine middleware that rejects refuses the request (400, MIDDLEWARE_FAILURE)`,
    T,
    async (t) => {
      const s = await startEngine(t, kind, {}, (engine) => {
        engine.use(async (req: { headers: Record<string, string | undefined> }) => {
          if (req.headers['x-fail']) throw new Error('no');
        });
      });
      const errors: { context: { name?: string } }[] = [];
      s.engine.on('connection_error', (e: (typeof errors)[number]) => errors.push(e));
      const r = await fetch(`${s.url}/engine.io/?EIO=4&transport=polling`, { headers: { 'x-fail': '1' } });
      assert.deepEqual([r.status, await r.json()], [400, { code: 3, message: 'Bad request' }]);
      assert.deepEqual(
        errors.map((e) => e.context.name),
        ['MIDDLEWARE_FAILURE'],
      );
    },
  );
}
