// Differential: the same SvelteKit app (examples/sveltekit) built with adapter-gale and with @sveltejs/adapter-node,
// the same requests to both over real sockets; statuses, the headers that matter and the bodies must agree. The few
// places where they differ on purpose are asserted as such at the end (and listed in docs/guides/sveltekit.md).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertDifferences, assertFeatures, diffCases, immutableEntry, send, summary } from './cases.js';
import { built, type HttpAnswer, type KitServer, startServer } from './servers.js';

describe('adapter-gale and adapter-node answer alike', { timeout: 600_000 }, () => {
  let gale: KitServer;
  let node: KitServer;
  let immutableJs = '';
  const answers = new Map<string, [HttpAnswer, HttpAnswer]>();

  before(async () => {
    const dir = await built('gale');
    await built('node');
    immutableJs = immutableEntry(join(dir, 'build'));
    [gale, node] = await Promise.all([startServer('gale'), startServer('node')]);
  });
  after(async () => {
    await Promise.all([gale?.stop(), node?.stop()]);
  });

  // One at a time and in order: the form's messages and the cookie counts are state both servers must share.
  for (const c of diffCases(() => immutableJs)) {
    test(c.name, async () => {
      const a = await send(gale, c);
      const b = await send(node, c);
      answers.set(c.name, [a, b]);
      // The servers' own origins appear in no body: the app prints none.
      assert.deepEqual(summary(a, c), summary(b, c));
    });
  }

  test('the answers show what the features are supposed to do', () => {
    assertFeatures((name) => (answers.get(name) as [HttpAnswer, HttpAnswer])[0]);
  });

  test('where they differ on purpose', async () => {
    await assertDifferences(gale, node, answers);
  });
});
