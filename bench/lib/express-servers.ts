// The Express rows as data: one Express app file (apps/express-app.mjs) with and without cors/helmet/express.json on
// Express 5, Express 4, @gale-http/express and, when their builds are named (server-common.ts), fulmine.js (as users
// get it, and with declarative responses off) and ultimate-express; and the NestJS app (apps/nest-app.mjs).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  appFile,
  express4Unavailable,
  fulminePath,
  galeUnavailable,
  peerEnv,
  peerUnavailable,
  repoDir,
  uexpressPath,
} from './server-common.ts';
import type { ServerDef } from './server-types.ts';

const expressB = process.env.GALE_BENCH_EXPRESS_B ? resolve(process.env.GALE_BENCH_EXPRESS_B) : undefined;

interface Impl {
  /** Row names of the app with middleware and of the bare app. */
  name: string;
  bare: string;
  label: string;
  env: Record<string, string>;
  unavailable?: () => string | null;
  minNode?: number;
}

const impls: Impl[] = [
  { name: 'express-app', bare: 'express-bare-app', label: 'Express 5', env: {} },
  {
    name: 'express4-app',
    bare: 'express4-bare-app',
    label: 'Express 4',
    env: { EXPRESS_IMPL: 'express4' },
    unavailable: express4Unavailable,
  },
  {
    name: 'gale-express',
    bare: 'gale-bare-app',
    label: '@gale-http/express',
    env: { EXPRESS_IMPL: '@gale-http/express' },
    unavailable: galeUnavailable,
  },
  // With `app.set('declarative responses', false)`: every request runs the app's JavaScript (the engine keeps no
  // route's answer), the row to hold beside fulmine.js with its own compiled responses off.
  {
    name: 'gale-nodecl-app',
    bare: 'gale-nodecl-bare-app',
    label: '@gale-http/express (declarative responses off)',
    env: { EXPRESS_IMPL: '@gale-http/express', GALE_BENCH_DECLARATIVE: '0' },
    unavailable: galeUnavailable,
  },
  // A second build of @gale-http/express side by side (before/after a change in one run, as machine noise between
  // runs is larger than most changes): GALE_BENCH_EXPRESS_B names its entry, e.g. a worktree's
  // packages/express/dist/index.js (its `gale` is the one that worktree resolves).
  ...(expressB
    ? [
        {
          name: 'gale-express-b',
          bare: 'gale-bare-app-b',
          label: '@gale-http/express (B)',
          env: { EXPRESS_IMPL: expressB },
          unavailable: () => (existsSync(expressB) ? null : `GALE_BENCH_EXPRESS_B=${expressB} does not exist`),
        },
      ]
    : []),
  ...(fulminePath
    ? [
        {
          name: 'fulmine-app',
          bare: 'fulmine-bare-app',
          label: 'fulmine.js',
          env: { ...peerEnv, EXPRESS_IMPL: 'fulmine' },
          unavailable: () => peerUnavailable('fulmine.js', fulminePath),
          minNode: 22,
        },
        {
          name: 'fulmine-nodecl-app',
          bare: 'fulmine-nodecl-bare-app',
          label: 'fulmine.js (declarative responses off)',
          env: { ...peerEnv, EXPRESS_IMPL: 'fulmine', GALE_BENCH_DECLARATIVE: '0' },
          unavailable: () => peerUnavailable('fulmine.js', fulminePath),
          minNode: 22,
        },
      ]
    : []),
  ...(uexpressPath
    ? [
        {
          name: 'uexpress-app',
          bare: 'uexpress-bare-app',
          label: 'ultimate-express',
          env: { ...peerEnv, EXPRESS_IMPL: 'ultimate-express' },
          unavailable: () => peerUnavailable('ultimate-express', uexpressPath),
        },
      ]
    : []),
];

/** express-app (with middleware) and express-bare rows of every Express. */
export const expressAppServers: ServerDef[] = impls.flatMap((i) => [
  {
    name: i.name,
    label: `${i.label} (the app)`,
    entry: appFile('express-app.mjs'),
    env: { ...i.env, EXPRESS_MW: '1' },
    kinds: ['express-app'],
    unavailable: i.unavailable,
    minNode: i.minNode,
  },
  {
    name: i.bare,
    label: `${i.label} (bare app)`,
    entry: appFile('express-app.mjs'),
    env: { ...i.env, EXPRESS_MW: '0' },
    kinds: ['express-bare'],
    unavailable: i.unavailable,
    minNode: i.minNode,
  },
]);

/** Why the `nest-gale` server cannot start (gale or @gale-http/express/nest not built), or null. */
function galeNestUnavailable(): string | null {
  return (
    galeUnavailable() ??
    (existsSync(join(repoDir, 'packages', 'express', 'dist', 'nest', 'index.js'))
      ? null
      : '@gale-http/express is not built: packages/express/dist/nest/index.js is missing (run `npm run build` at the repo root)')
  );
}

/**
 * nest-app: one NestJS app on Nest's ExpressAdapter with Express 5, on GaleExpressAdapter, and on fulmine.js when its
 * build is named (Nest's ExpressAdapter over its app, made ready with app.init() and served by its own listen()).
 */
export const nestServers: ServerDef[] = [
  {
    name: 'nest-express',
    label: 'NestJS on Express 5 (ExpressAdapter)',
    entry: appFile('nest-app.mjs'),
    kinds: ['nest-app'],
  },
  {
    name: 'nest-gale',
    label: 'NestJS on Gale (GaleExpressAdapter)',
    entry: appFile('nest-app.mjs'),
    env: { NEST_IMPL: 'gale' },
    kinds: ['nest-app'],
    unavailable: galeNestUnavailable,
  },
  ...(fulminePath
    ? [
        {
          name: 'nest-fulmine',
          label: 'NestJS on fulmine.js (ExpressAdapter, init() + its listen)',
          entry: appFile('nest-app.mjs'),
          env: { ...peerEnv, NEST_IMPL: 'fulmine' },
          kinds: ['nest-app'] as const,
          unavailable: () => peerUnavailable('fulmine.js', fulminePath),
          minNode: 22,
        },
      ]
    : []),
];
