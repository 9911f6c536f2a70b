// What several server lists share (servers.ts, express-servers.ts, ws.ts): where the bench and its apps are, why the
// Gale or Express 4 rows cannot start, and where the peers on uWebSockets.js are built (never dependencies: they
// install only from GitHub, so a run names their local builds).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(benchDir, '..');

/** The path of a bench app file (bench/apps/<file>). */
export const appFile = (file: string): string => join(benchDir, 'apps', file);

/** Why the `gale` servers cannot start (the package is not built), or null. */
export function galeUnavailable(): string | null {
  const dist = join(repoDir, 'packages', 'gale', 'dist', 'index.js');
  return existsSync(dist)
    ? null
    : 'gale is not built: packages/gale/dist/index.js is missing (run `npm run build` at the repo root)';
}

export function express4Unavailable(): string | null {
  return existsSync(join(repoDir, 'node_modules', 'express4', 'package.json'))
    ? null
    : 'express4 is not installed (run `npm install` at the repo root; it is the devDependency express4@npm:express@4)';
}

/**
 * The peers' builds: GALE_BENCH_PEERS names a folder holding `uWebSockets.js/`, `fulmine.js/` and `ultimate-express/`
 * (e.g. `GALE_BENCH_PEERS=../shared/peers npm run bench -- express-app --node 20,26`); GALE_BENCH_UWS,
 * GALE_BENCH_FULMINE and GALE_BENCH_UEXPRESS name one build each, over that folder's. A peer not named takes no part.
 */
const peersDir = process.env.GALE_BENCH_PEERS ? resolve(process.env.GALE_BENCH_PEERS) : undefined;
const peer = (variable: string, folder: string): string | undefined => {
  const own = process.env[variable];
  if (own) return resolve(own);
  return peersDir ? join(peersDir, folder) : undefined;
};
export const uwsPath = peer('GALE_BENCH_UWS', 'uWebSockets.js');
export const fulminePath = peer('GALE_BENCH_FULMINE', 'fulmine.js');
export const uexpressPath = peer('GALE_BENCH_UEXPRESS', 'ultimate-express');

/** The environment a peer's app gets: every build's path, so apps/peers.mjs finds uWebSockets.js for the others. */
export const peerEnv: Record<string, string> = Object.fromEntries(
  [
    ['GALE_BENCH_UWS', uwsPath],
    ['GALE_BENCH_FULMINE', fulminePath],
    ['GALE_BENCH_UEXPRESS', uexpressPath],
  ].filter((e): e is [string, string] => !!e[1]),
);

/** Why the uWebSockets.js app cannot start (its build does not load, or gale's fast-ws class is not built). */
export function uwsUnavailable(): string | null {
  try {
    createRequire(import.meta.url).resolve(uwsPath as string);
    return galeUnavailable();
  } catch (err) {
    return `uWebSockets.js at ${uwsPath} cannot be loaded: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Why a peer built at `path` cannot start (not a build: no package.json there), or null. */
export function peerUnavailable(name: string, path: string | undefined): string | null {
  return existsSync(join(path ?? '', 'package.json'))
    ? null
    : `${name} at ${path} is not a build (no package.json there)`;
}
