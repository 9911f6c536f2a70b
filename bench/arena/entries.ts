// The arena's entries: Gale's (entry/app.mjs, what bench/arena/entry submits) and the peers, each as HttpArena's entry
// for it is written (peers/). Each is one process on one core; `unavailable` says why an entry cannot run here.
import { join } from 'node:path';
import { BUN, DENO, type RuntimePackage, runtimeUnavailable } from '../lib/runtimes.ts';
import {
  fulminePath,
  galeUnavailable,
  peerUnavailable,
  uexpressPath,
  uwsPath,
  uwsUnavailable,
} from '../lib/server-common.ts';

export interface Entry {
  name: string;
  /** The app file, run with `node` (or `runtime`). */
  file: string;
  /** Bun or Deno (their pinned npm binaries, lib/runtimes.ts) instead of Node: the entry runs once, not per Node. */
  runtime?: RuntimePackage;
  /** The oldest Node major it runs on (fulmine.js needs 22). */
  minNode?: number;
  env?: Record<string, string>;
  /** HttpArena profiles its meta.json subscribes to (those it would be scored on). */
  profiles: readonly string[];
  unavailable: () => string | null;
}

const here = import.meta.dirname;
const all = ['baseline', 'pipelined', 'limited-conn', 'json', 'json-comp', 'upload', 'api-4', 'static', 'async-db'];
// ultimate-express's meta.json (2026-04-29); fulmine.js, its drop-in fork, runs the same entry.
const uexpressProfiles = all;
// HttpArena's node, express, fastify, hono and bun entries subscribed to baseline-h2 and static-h2 too (an HTTP/2 server
// on 8443 beside their HTTP/1.1 one).
const withH2 = [...all, 'baseline-h2', 'static-h2'];

export const entries: readonly Entry[] = [
  {
    name: 'gale',
    file: join(here, 'entry', 'app.mjs'),
    profiles: [
      ...all,
      'crud',
      'json-tls',
      'baseline-h2',
      'static-h2',
      'baseline-h2c',
      'json-h2c',
      'baseline-h3',
      'static-h3',
      'echo-ws',
    ],
    unavailable: galeUnavailable,
  },
  // The same entry with its static files in the engine's memory (`cache: true`), as the peers' entries preload theirs.
  {
    name: 'gale-cache',
    file: join(here, 'entry', 'app.mjs'),
    env: { ARENA_STATIC_CACHE: '1' },
    profiles: ['static', 'static-h2', 'static-h3'],
    unavailable: galeUnavailable,
  },
  // HttpArena's removed JS entries (in its history until 2026-04-10), brought to today's endpoints (peers/*.mjs).
  {
    name: 'node-http',
    file: join(here, 'peers', 'node-http.mjs'),
    profiles: withH2,
    unavailable: () => null,
  },
  {
    name: 'express',
    file: join(here, 'peers', 'express.mjs'),
    profiles: withH2,
    unavailable: () => null,
  },
  {
    name: 'fastify',
    file: join(here, 'peers', 'fastify.mjs'),
    profiles: withH2,
    unavailable: () => null,
  },
  {
    name: 'hono',
    file: join(here, 'peers', 'hono.mjs'),
    profiles: withH2,
    unavailable: () => null,
  },
  {
    name: 'ultimate-express',
    file: join(here, 'peers', 'ultimate-express.mjs'),
    env: { ARENA_PEER: 'ultimate-express', EXPRESS_IMPL: uexpressPath ?? '' },
    profiles: uexpressProfiles,
    unavailable: () => peerUnavailable('ultimate-express', uexpressPath),
  },
  {
    name: 'fulmine',
    file: join(here, 'peers', 'ultimate-express.mjs'),
    minNode: 22,
    env: { ARENA_PEER: 'fulmine', EXPRESS_IMPL: fulminePath ?? '' },
    profiles: uexpressProfiles,
    unavailable: () => peerUnavailable('fulmine.js', fulminePath),
  },
  // HttpArena's uwebsockets entry subscribed to these three only (its meta.json at d5c87281^).
  {
    name: 'uwebsockets',
    file: join(here, 'peers', 'uwebsockets.mjs'),
    env: { GALE_BENCH_UWS: uwsPath ?? '' },
    profiles: ['baseline', 'pipelined', 'limited-conn'],
    unavailable: () => (uwsPath ? uwsUnavailable() : 'uWebSockets.js: set GALE_BENCH_PEERS or GALE_BENCH_UWS'),
  },
  // HttpArena's live Bun entry (type production): Hono on Bun.serve, and the only JS entry there with crud.
  {
    name: 'hono-bun',
    file: join(here, 'peers', 'hono-bun.mjs'),
    runtime: BUN,
    profiles: [...all, 'crud'],
    unavailable: () => runtimeUnavailable(BUN),
  },
  // HttpArena's WebSocket echo entries (echo-ws only): ws on node:http, Bun.serve's and Deno's WebSockets.
  {
    name: 'node-websocket',
    file: join(here, 'peers', 'node-websocket.mjs'),
    profiles: ['echo-ws'],
    unavailable: () => null,
  },
  {
    name: 'bun-websocket',
    file: join(here, 'peers', 'bun-websocket.mjs'),
    runtime: BUN,
    profiles: ['echo-ws'],
    unavailable: () => runtimeUnavailable(BUN),
  },
  {
    name: 'deno-websocket',
    file: join(here, 'peers', 'deno-websocket.mjs'),
    runtime: DENO,
    profiles: ['echo-ws'],
    unavailable: () => runtimeUnavailable(DENO),
  },
  // HttpArena's bun and deno entries (Bun.serve, Deno's `deno serve`), on the runtimes' npm packages.
  {
    name: 'bun',
    file: join(here, 'peers', 'bun.mjs'),
    runtime: BUN,
    profiles: withH2,
    unavailable: () => runtimeUnavailable(BUN),
  },
  {
    name: 'deno',
    file: join(here, 'peers', 'deno.mjs'),
    runtime: DENO,
    profiles: all,
    unavailable: () => runtimeUnavailable(DENO),
  },
];

export function entryByName(name: string): Entry {
  const e = entries.find((x) => x.name === name);
  if (!e) throw new Error(`unknown arena entry ${JSON.stringify(name)}; the entries: ${entries.map((x) => x.name)}`);
  return e;
}
