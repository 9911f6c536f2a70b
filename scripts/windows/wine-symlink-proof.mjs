// Proof that the symlink failures under Wine are Wine's, not Gale's: Node's own fs, with no Gale loaded, cannot read
// through a symlink it has just made. scripts/test-windows.mjs runs it and prints the result.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'gale-symlink-proof-'));
mkdirSync(join(dir, 'root'));
writeFileSync(join(dir, 'root', 'a.txt'), 'a');
const results = [];
for (const [link, target, type, read] of [
  ['dir-link', join(dir, 'root'), 'dir', join(dir, 'dir-link', 'a.txt')],
  ['file-link', join(dir, 'root', 'a.txt'), 'file', join(dir, 'file-link')],
]) {
  try {
    symlinkSync(target, join(dir, link), type);
    results.push(`${link}: read ${readFileSync(read, 'utf8') === 'a' ? 'ok' : 'wrong bytes'}`);
  } catch (e) {
    results.push(`${link}: ${e.code ?? e.message}`);
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`node:fs through symlinks on ${process.platform}: ${results.join('; ')}`);
