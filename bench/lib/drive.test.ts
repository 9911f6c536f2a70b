// The exact-count load driver (drive.ts): its response counter on split and joined responses, and a run against a
// real Gale app that counts the requests it served, plain and pipelined.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale } from 'gale';
import { countResponses, drive } from './drive.ts';

const res = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

test('countResponses: whole responses only, wherever the reads split them', () => {
  const two = Buffer.from(res('hello') + res(''), 'latin1');
  assert.deepEqual(countResponses(two), { complete: 2, rest: two.length });
  for (let cut = 0; cut < two.length; cut++) {
    const first = countResponses(two.subarray(0, cut));
    const second = countResponses(two, first.rest);
    assert.equal(first.complete + second.complete, 2, `cut at ${cut}`);
  }
  assert.throws(() => countResponses(Buffer.from('HTTP/1.1 200 OK\r\n\r\n')), /without Content-Length/);
});

test('drive: sends exactly the requests asked for and waits for every answer', async () => {
  let served = 0;
  const seen = new Set<string>();
  const app = gale();
  app.get('/n', () => {
    served++;
    return 'ok';
  });
  app.get('/n/:i', (req) => {
    seen.add(req.params.i as string);
    return 'ok';
  });
  await app.listen(0, '127.0.0.1');
  const port = (app.address() as { port: number }).port;
  try {
    assert.equal(await drive({ port, path: '/n', requests: 1000, connections: 4, pipeline: 16 }), 1000);
    assert.equal(served, 1000);
    assert.equal(await drive({ port, path: '/n', requests: 37, connections: 3, pipeline: 1 }), 37);
    assert.equal(served, 1037);
    // {n} numbers the requests: each one different.
    assert.equal(await drive({ port, path: '/n/{n}', requests: 100, connections: 2, pipeline: 8 }), 100);
    assert.deepEqual(
      [...seen].map(Number).sort((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i),
    );
  } finally {
    await app.close();
  }
});
