// The static files of the static scenarios, shared with examples/demo: every app imports examples/demo/assets.mjs too,
// so every server serves the same bytes (public/large.bin is generated there by ensureLargeFile()).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface DemoAssets {
  publicDir: string;
  prerenderedDir: string;
  LARGE_SIZE: number;
  ensureLargeFile(): string;
}

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const assetsModule = join(repoDir, 'examples', 'demo', 'assets.mjs');

const demo = (await import(pathToFileURL(assetsModule).href)) as DemoAssets;
demo.ensureLargeFile();

/** Served at /static/ (index.html, style.css, large.bin). */
export const publicDir: string = demo.publicDir;
/** Served at / (prerendered.html). */
export const prerenderedDir: string = demo.prerenderedDir;
export const LARGE_SIZE: number = demo.LARGE_SIZE;

export const publicFile = (name: string): Buffer => readFileSync(join(publicDir, name));
export const prerenderedFile = (name: string): Buffer => readFileSync(join(prerenderedDir, name));
