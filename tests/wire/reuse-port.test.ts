// reusePort: two Gale servers (as two workers would) listen on one port with SO_REUSEPORT and the kernel
// spreads connections between them; without it the second listen fails with EADDRINUSE. Windows has no
// SO_REUSEPORT: there listen refuses the option with a message that says what to do instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale } from 'gale';
import { T } from '../helpers.js';

const windows = process.platform === 'win32';

test('Windows: listen with reusePort is refused, saying why and what to do', T, async (t) => {
  const a = gale({ reusePort: true });
  if (!windows) {
    // Elsewhere the same call listens (the test below shares the port).
    const { port } = await a.listen(0, '127.0.0.1');
    assert.ok(port > 0);
    await a.close({ timeout: 500 });
    return;
  }
  t.after(() => a.close({ timeout: 500 }));
  await assert.rejects(a.listen(0, '127.0.0.1'), /reusePort is not available on Windows.*one process per port/);
  // Without it the same app listens.
  const b = gale();
  const { port } = await b.listen(0, '127.0.0.1');
  t.after(() => b.close({ timeout: 500 }));
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).status, 404);
});

test('two servers with reusePort share a port; connections reach both', {
  ...T,
  skip: windows && 'no SO_REUSEPORT on Windows',
}, async (t) => {
  const a = gale({ reusePort: true });
  const b = gale({ reusePort: true });
  a.get('/who', () => 'a');
  b.get('/who', () => 'b');
  const { port } = await a.listen(0, '127.0.0.1');
  t.after(() => a.close({ timeout: 500 }));
  await b.listen(port, '127.0.0.1');
  t.after(() => b.close({ timeout: 500 }));
  const seen = new Set<string>();
  for (let i = 0; i < 64 && seen.size < 2; i++) {
    // A new connection each time: the kernel picks a listener per connection.
    const r = await fetch(`http://127.0.0.1:${port}/who`, { headers: { connection: 'close' } });
    seen.add(await r.text());
  }
  assert.deepEqual([...seen].sort(), ['a', 'b']);
  const c = gale();
  await assert.rejects(c.listen(port, '127.0.0.1'), /EADDRINUSE|in use/i);
});
