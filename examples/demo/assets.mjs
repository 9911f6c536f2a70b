// The demo's static assets: public/ (index.html, style.css, large.bin made on first use) and prerendered/.
// Shared with bench/ so every compared server serves byte-identical files.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const publicDir = join(here, 'public');
export const prerenderedDir = join(here, 'prerendered');
export const LARGE_SIZE = 1024 * 1024;

/** The bytes of public/large.bin: a fixed pattern, so every run and every server agree. */
export function largeBytes() {
  const b = Buffer.allocUnsafe(LARGE_SIZE);
  for (let i = 0; i < LARGE_SIZE; i++) b[i] = (i * 31 + (i >>> 8)) & 0xff;
  return b;
}

/** Writes public/large.bin unless it is already there with the right size. Returns its path. */
export function ensureLargeFile() {
  const p = join(publicDir, 'large.bin');
  if (!existsSync(p) || statSync(p).size !== LARGE_SIZE) writeFileSync(p, largeBytes());
  return p;
}
