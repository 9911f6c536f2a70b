// reusePort: two Gale servers (as two workers would) listen on one port with SO_REUSEPORT and the kernel
// spreads connections between them; without it the second listen fails with EADDRINUSE.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gale } from 'gale';
import { T } from '../helpers.js';

test('two servers with reusePort share a port; connections reach both', T, async (t) => {
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
