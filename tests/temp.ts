// Temp dirs that remove themselves: `npm test` fails when a test leaves anything in the temp dir, also when the test
// fails, so each dir is removed by a hook registered as it is made. No file-level hooks of its own on import.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';

function make(prefix: string, register: (fn: () => void) => void): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  register(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh dir in the temp dir (`prefix` + 6 random characters), removed when test `t` ends. */
export function tempDir(t: TestContext, prefix: string): string {
  return make(prefix, (fn) => t.after(fn));
}

/**
 * A fresh dir in the temp dir for a whole test file, removed after the file's last test. Call it at the top level
 * of a module (not inside a test, where node:test's `after` would attach to that test).
 */
export function fileTempDir(prefix: string): string {
  return make(prefix, (fn) => after(fn));
}
