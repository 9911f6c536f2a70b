// The typed Socket.IO example (tests/types/socketio.ts, type-checked by `npm run typecheck`) is compiled twice: against
// @gale-http/socket.io and, as socketio-upstream.ts, against the real `socket.io`. This checks that the two files
// differ only in that import, so what compiles (and what is a type error) is the same with both packages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

test('the typed Socket.IO example is the same code for @gale-http/socket.io and socket.io', () => {
  const read = (name: string) => readFileSync(join(import.meta.dirname, name), 'utf8');
  const gale = read('socketio.ts');
  const upstream = read('socketio-upstream.ts');
  assert.match(gale, /from '@gale-http\/socket\.io';/);
  assert.match(upstream, /from 'socket\.io';/);
  assert.equal(upstream.replace("from 'socket.io';", "from '@gale-http/socket.io';"), gale);
  assert.match(gale, /@ts-expect-error/);
});
