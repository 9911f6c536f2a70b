// Packaging of the fast-ws client: the `@gale-http/fast-ws/client` export points at what tsc emits for
// src/client.ts, and the browser-side modules import nothing from Node.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const pkgDir = join(import.meta.dirname, '..', '..', 'packages', 'fast-ws');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

test('@gale-http/fast-ws/client maps to dist/client.{js,d.ts}, built from src/client.ts', () => {
  assert.deepEqual(pkg.exports['./client'].import, {
    types: './dist/client.d.ts',
    default: './dist/client.js',
  });
  assert.ok(existsSync(join(pkgDir, 'src', 'client.ts')));
  assert.match(pkg.dependencies.replicator, /^\^1\./);
});

test('client, codec and value modules are browser-safe: only relative imports and replicator', () => {
  for (const file of ['client.ts', 'client-types.ts', 'codec.ts', 'value.ts']) {
    const src = readFileSync(join(pkgDir, 'src', file), 'utf8');
    const specifiers = [...src.matchAll(/^(?:import|export)[^'";]*from '([^']+)'/gm)].map((m) => m[1]);
    assert.ok(specifiers.length > 0, file);
    for (const s of specifiers) assert.ok(s!.startsWith('./') || s === 'replicator', `${file} imports ${s}`);
    assert.doesNotMatch(src, /\bBuffer\.|\bprocess\.|\brequire\(/, file);
  }
});
