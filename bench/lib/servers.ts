// Servers under test as data: each is one file in bench/apps/ started with `node` (plus `--import tsx` for .ts) and
// listening on 127.0.0.1:$PORT. `unavailable()` explains why a server cannot run (e.g. Gale not built yet).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(benchDir, '..');

export interface ServerDef {
  /** CLI name, e.g. `node-http`. */
  name: string;
  /** Human label used in tables. */
  label: string;
  /** Absolute path of the app file. */
  entry: string;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** Returns a reason when the server cannot be started, or null. */
  unavailable?: () => string | null;
}

const app = (file: string): string => join(benchDir, 'apps', file);

export const servers: readonly ServerDef[] = [
  { name: 'node-http', label: 'node:http', entry: app('node-http.mjs') },
  { name: 'express', label: 'Express 5', entry: app('express.mjs') },
  { name: 'fastify', label: 'Fastify 5', entry: app('fastify.mjs') },
  {
    name: 'gale',
    label: 'Gale',
    entry: app('gale.mjs'),
    unavailable: () => {
      const dist = join(repoDir, 'packages', 'gale', 'dist', 'index.js');
      return existsSync(dist)
        ? null
        : 'gale is not built: packages/gale/dist/index.js is missing (run `npm run build` at the repo root)';
    },
  },
];

export function findServer(name: string): ServerDef | undefined {
  return servers.find((s) => s.name === name);
}

/** The argv (after `node`) that starts a server: .ts apps go through tsx, .mjs/.js apps run as they are. */
export function nodeArgs(server: ServerDef): string[] {
  return server.entry.endsWith('.ts') ? ['--import', 'tsx', server.entry] : [server.entry];
}

/** Load modes: `plain` sends one request at a time per connection, `pipelined` sends `depth` per write. */
export interface Mode {
  id: string;
  depth: number;
}

export function makeModes(ids: readonly string[], pipelineDepth: number): Mode[] {
  return ids.map((id) => {
    if (id === 'plain') return { id, depth: 1 };
    if (id === 'pipelined') return { id, depth: pipelineDepth };
    throw new Error(`unknown mode "${id}" (known: plain, pipelined)`);
  });
}
