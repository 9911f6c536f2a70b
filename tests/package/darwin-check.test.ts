// scripts/check-darwin.mjs's Mach-O reader (the CI step that links both macOS engines): what it refuses. The
// acceptance side runs in CI on the two real dylibs cargo-zigbuild links (`npm run check:darwin`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types
import { inspectMachO } from '../../scripts/check-darwin.mjs';

const root = join(import.meta.dirname, '..', '..');

test('the darwin link check refuses what is not a Mach-O dylib: the Linux engine, an empty file', () => {
  const elf = readFileSync(join(root, 'packages', 'gale', 'native', 'gale.linux-x64-gnu.node'));
  assert.throws(() => inspectMachO(elf, 'aarch64-apple-darwin'), /not a 64-bit Mach-O file/);
  assert.throws(() => inspectMachO(Buffer.alloc(32), 'x86_64-apple-darwin'), /not a 64-bit Mach-O file/);
});
