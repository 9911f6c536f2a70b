// Servers under test as data: most are one file in bench/apps/ started with `node` (plus `--import tsx` for .ts) and
// listening on 127.0.0.1:$PORT; nginx is started from a generated config (lib/nginx.ts), Bun and Deno apps with their
// npm binaries (lib/runtimes.ts). `unavailable()` explains why a server cannot run (e.g. Gale not built yet: FAILED),
// `skip()` why it is left out (nginx not installed: skipped). `onNodes()` runs the Node-based ones on other Nodes.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../scripts/cache-dir.mjs';
import { expressAppServers, nestServers } from './express-servers.ts';
import { limitLaunch, limitUnavailable, limitUringLaunch, limitUringUnavailable } from './limit.ts';
import { nginxLaunch, nginxMissing } from './nginx.ts';
import { BUN, DENO, type NodeRuntime, runtimeBinary, runtimeUnavailable } from './runtimes.ts';
import type { Scenario, ScenarioKind } from './scenario-types.ts';
import { secureServers } from './secure.ts';
import {
  appFile,
  express4Unavailable,
  galeUnavailable,
  peerEnv,
  repoDir,
  uwsPath,
  uwsUnavailable,
} from './server-common.ts';
import type { Launch, LaunchContext, ServerDef } from './server-types.ts';
import { sveltekitServers } from './sveltekit.ts';

export {
  benchDir,
  fulminePath,
  galeUnavailable,
  peerEnv,
  repoDir,
  uwsPath,
  uwsUnavailable,
} from './server-common.ts';
export type { Launch, LaunchContext, ServerDef } from './server-types.ts';

const app = appFile;

/** What a server without `kinds` serves. */
const DEFAULT_KINDS: readonly ScenarioKind[] = ['dynamic', 'static'];

/** Why the `gale-otel` server cannot start (gale or @gale-http/otel not built), or null. */
function otelUnavailable(): string | null {
  return (
    galeUnavailable() ??
    (existsSync(join(repoDir, 'packages', 'otel', 'dist', 'index.js'))
      ? null
      : '@gale-http/otel is not built: packages/otel/dist/index.js is missing (run `npm run build` at the repo root)')
  );
}

function nginxSkip(): string | null {
  const why = nginxMissing();
  return why ? `${why}: the nginx rows are skipped` : null;
}

const uwsServer: ServerDef = {
  name: 'uws',
  label: 'uWebSockets.js',
  entry: app('uws.mjs'),
  env: peerEnv,
  kinds: ['dynamic'],
  unavailable: uwsUnavailable,
  knownFailures: {
    'async-io': {
      modes: ['pipelined'],
      why:
        'uWebSockets.js answers none of three pipelined requests whose handler answers after a setImmediate (the app ' +
        'sets onAborted and answers in res.cork, as its docs ask; sent one at a time, each is answered)',
    },
  },
};

/**
 * How Bun or Deno runs `file` (a Bun.serve / Deno.serve app) on ctx.port, with the pinned npm binary. Deno gets the
 * network on 127.0.0.1 only, reads inside the repo (Gale's fast-ws class), and no update check (it would reach outside
 * the registry).
 */
export function runtimeLaunch(
  runtime: 'bun' | 'deno',
  file: string,
  env: Record<string, string> = {},
): (ctx: LaunchContext) => Launch {
  return (ctx) => {
    const bin = runtimeBinary(runtime === 'bun' ? BUN : DENO);
    if ('failure' in bin) throw new Error(bin.failure);
    const common = { ...env, PORT: String(ctx.port), NODE_ENV: 'production' };
    if (runtime === 'bun') return { cmd: bin.path, args: [file], env: { ...common, DO_NOT_TRACK: '1' } };
    return {
      cmd: bin.path,
      args: ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', `--allow-read=${repoDir}`, file],
      env: {
        ...common,
        DENO_NO_UPDATE_CHECK: '1',
        DENO_DIR: cacheDir('bench-runtimes', 'deno-dir'),
      },
    };
  };
}

/** Bun.serve and Deno.serve: the dynamic HTTP scenarios (lib/ws.ts has their WebSocket rows). */
export const bunServer: ServerDef = {
  name: 'bun',
  label: 'Bun.serve',
  launch: runtimeLaunch('bun', app('bun.mjs')),
  kinds: ['dynamic'],
  unavailable: () => runtimeUnavailable(BUN),
  knownFailures: {
    'async-io': {
      modes: ['pipelined'],
      why:
        'Bun.serve 1.4.5 answers none of three pipelined requests whose handler awaits a setImmediate (three sent ' +
        'in one write to a plain Bun.serve app get no answer; sent one at a time, each is answered)',
    },
  },
};
export const denoServer: ServerDef = {
  name: 'deno',
  label: 'Deno.serve',
  launch: runtimeLaunch('deno', app('deno.mjs')),
  kinds: ['dynamic'],
  unavailable: () => runtimeUnavailable(DENO),
};

export const servers: readonly ServerDef[] = [
  {
    // What the machine can do: fixed bytes per path from raw epoll in C (bench/limit/limit.c); not a web server.
    name: 'limit',
    label: 'limit (C, epoll, fixed bytes)',
    kinds: ['dynamic'],
    launch: limitLaunch,
    unavailable: limitUnavailable,
  },
  {
    // The same answers from io_uring (bench/limit/limit-uring.c): one io_uring_enter per loop turn, multishot accept
    // and receive into provided buffers; the floor for a server that batches its system calls.
    name: 'limit-uring',
    label: 'limit (C, io_uring, fixed bytes)',
    kinds: ['dynamic'],
    launch: limitUringLaunch,
    unavailable: limitUringUnavailable,
  },
  { name: 'node-http', label: 'node:http', entry: app('node-http.mjs') },
  { name: 'express', label: 'Express 5', entry: app('express.mjs') },
  {
    name: 'express4',
    label: 'Express 4',
    entry: app('express.mjs'),
    env: { BENCH_EXPRESS: 'express4' },
    unavailable: express4Unavailable,
  },
  {
    // The same bare Express 5 app (no middleware) on @gale-http/express: the Express layer's own cost.
    name: 'gale-express-bare',
    label: '@gale-http/express (bare app)',
    entry: app('express.mjs'),
    env: { BENCH_EXPRESS: '@gale-http/express' },
    unavailable: galeUnavailable,
  },
  // Both also serve the `schema` scenarios (a response schema compiled to a serializer).
  { name: 'fastify', label: 'Fastify 5', entry: app('fastify.mjs'), kinds: [...DEFAULT_KINDS, 'schema'] },
  {
    name: 'gale',
    label: 'Gale',
    entry: app('gale.mjs'),
    kinds: [...DEFAULT_KINDS, 'schema'],
    unavailable: galeUnavailable,
  },
  {
    // The same app on the engine's io_uring backend (listen's io, here through GALE_IO): one io_uring_enter per
    // loop turn for every socket instead of a read and a write each. Opt-in until `auto` picks it.
    name: 'gale-uring',
    label: 'Gale (io_uring)',
    entry: app('gale.mjs'),
    env: { GALE_IO: 'uring' },
    kinds: [...DEFAULT_KINDS, 'schema'],
    optIn: 'quick',
    unavailable: galeUnavailable,
  },
  {
    // The same app with app.static(…, { cache: false }): only the static scenarios differ.
    name: 'gale-nocache',
    label: 'Gale (no cache)',
    entry: app('gale.mjs'),
    env: { STATIC_CACHE: '0' },
    kinds: ['static'],
    unavailable: galeUnavailable,
  },
  // Tracing's cost: the same app with a bare subscriber on Gale's TracingChannels, and with @gale-http/otel and the
  // OpenTelemetry SDK (in-memory exporter); `gale` is the row without a subscriber. Opt-in: name them in --servers,
  // e.g. `npm run bench -- hello --servers gale,gale-trace-sub,gale-otel`.
  {
    name: 'gale-trace-sub',
    label: 'Gale (tracing: bare subscriber)',
    entry: app('gale.mjs'),
    env: { GALE_BENCH_TRACE: 'subscriber' },
    kinds: ['dynamic'],
    optIn: true,
    unavailable: galeUnavailable,
  },
  {
    name: 'gale-otel',
    label: 'Gale (tracing: @gale-http/otel + SDK)',
    entry: app('gale.mjs'),
    env: { GALE_BENCH_TRACE: 'otel' },
    kinds: ['dynamic'],
    optIn: true,
    unavailable: otelUnavailable,
  },
  {
    name: 'nginx',
    label: 'nginx',
    kinds: ['static'],
    launch: (ctx) => nginxLaunch({ ...ctx, openFileCache: true }),
    skip: nginxSkip,
  },
  {
    name: 'nginx-nopush',
    label: 'nginx (tcp_nopush on)',
    kinds: ['static'],
    launch: (ctx) => nginxLaunch({ ...ctx, openFileCache: true, tcpNopush: true }),
    skip: nginxSkip,
  },
  {
    name: 'nginx-nocache',
    label: 'nginx (no open_file_cache)',
    kinds: ['static'],
    launch: (ctx) => nginxLaunch({ ...ctx, openFileCache: false }),
    skip: nginxSkip,
  },
  // fetch-hello: a Web-standard fetch handler on Gale (plain, and the Hono app) against the Hono app on
  // @hono/node-server (apps/hono-hello.mjs is the one app all three Hono rows run).
  {
    name: 'gale-fetch',
    label: 'Gale serve() (fetch handler)',
    entry: app('fetch-gale.mjs'),
    kinds: ['fetch'],
    unavailable: galeUnavailable,
  },
  {
    name: 'gale-hono',
    label: 'Gale serve() + Hono',
    entry: app('fetch-gale.mjs'),
    env: { FETCH_APP: 'hono' },
    kinds: ['fetch'],
    unavailable: galeUnavailable,
  },
  { name: 'hono-node', label: 'Hono on @hono/node-server', entry: app('fetch-hono-node.mjs'), kinds: ['fetch'] },
  // express-app, express-bare, nest-app (lib/express-servers.ts).
  ...expressAppServers,
  ...nestServers,
  ...(uwsPath ? [uwsServer] : []),
  // sveltekit-*: the SvelteKit example on adapter-gale and adapter-node (`npm run bench -- sveltekit`).
  ...sveltekitServers,
  // tls-*, h2-*, h2c-*: HTTPS and HTTP/2 (lib/secure.ts).
  ...secureServers,
  bunServer,
  denoServer,
];

export function findServer(name: string): ServerDef | undefined {
  return servers.find((s) => s.name === name);
}

/** Whether `server` serves `scenario` at all (nginx has no routes: it only runs the static scenarios). */
export function serves(server: ServerDef, scenario: Scenario): boolean {
  return (server.kinds ?? DEFAULT_KINDS).includes(scenario.kind);
}

/**
 * Why `server` does not run `scenario` in `mode` (shown as "—", a sentence for the notes), or null when it runs.
 * `toolModes` are the modes the load tool can run (ab cannot pipeline).
 */
export function notRun(
  server: ServerDef,
  scenario: Scenario,
  mode: Mode,
  tool?: { id: string; modes?: readonly string[] },
): string | null {
  if (!serves(server, scenario)) {
    return `${server.label} serves only the ${(server.kinds ?? DEFAULT_KINDS).join('/')} scenarios`;
  }
  const skip = server.skip?.();
  if (skip) return skip;
  if (scenario.modes && !scenario.modes.includes(mode.id)) {
    return `${mode.id} mode is not run for ${scenario.id}: ${scenario.modesNote ?? `only ${scenario.modes.join(', ')}`}`;
  }
  if (tool?.modes && !tool.modes.includes(mode.id)) return `${tool.id} cannot run ${mode.id} mode`;
  const major = server.nodeMajor ?? Number(process.versions.node.split('.')[0]);
  if (server.minNode && isNodeServer(server) && major < server.minNode) {
    return `${server.label} needs Node ≥ ${server.minNode} (run with --node ${server.minNode} or later)`;
  }
  return null;
}

/** Why `server` failing `scenario` in `mode` is a known bug of the peer (its `knownFailures`), or null. */
export function knownFailure(server: ServerDef, scenario: string, mode: string): string | null {
  const known = server.knownFailures?.[scenario];
  return known?.modes.includes(mode) ? known.why : null;
}

/** The argv (after `node`) that starts a server: .ts apps go through tsx, .mjs/.js apps run as they are. */
export function nodeArgs(server: ServerDef): string[] {
  if (!server.entry) throw new Error(`server ${server.name} has no app file`);
  return server.entry.endsWith('.ts') ? ['--import', 'tsx', server.entry] : [server.entry];
}

/** Whether `server` is a Node app (runs on `node`, so `--node` applies to it). */
export const isNodeServer = (server: ServerDef): boolean => !server.launch && !!server.entry;

/**
 * `list` with every Node-based server once per Node of `nodes`: on the harness's own Node it keeps its name; on
 * another it is named `<name>-node<major>` and labelled `<label> (Node <major>)`, so both can share a table.
 */
export function onNodes<T extends ServerDef>(list: readonly T[], nodes: readonly NodeRuntime[]): T[] {
  return list.flatMap((s) =>
    isNodeServer(s)
      ? nodes.map((n) =>
          n.own
            ? { ...s, node: n.path, nodeMajor: n.major }
            : {
                ...s,
                name: `${s.name}-node${n.major}`,
                label: `${s.label} (Node ${n.major})`,
                node: n.path,
                nodeMajor: n.major,
              },
        )
      : [s],
  );
}

/** The name a row of `server` had before `onNodes()` suffixed it (`gale-node26` → `gale`). */
export const baseName = (name: string): string => name.replace(/-node\d+$/, '');

/**
 * The row of baseline server `base` to compare `server` with: the same Node variant when there is one (`gale-node26`
 * is compared with `node-http-node26`), else the plain one.
 */
export function baselineName(server: string, base: string, has: (name: string) => boolean): string {
  const suffix = server.slice(baseName(server).length);
  return suffix && has(base + suffix) ? base + suffix : base;
}

/**
 * Rows of `results` in the order their plain server first appears, each Node variant right after its plain row
 * (`gale`, `gale-node26`, `node-http`, `node-http-node26`).
 */
export function byServerFamily<T extends { server: string }>(results: readonly T[]): T[] {
  const order = [...new Set(results.map((m) => baseName(m.server)))];
  return results
    .map((m, i) => ({ m, i }))
    .sort((a, b) => order.indexOf(baseName(a.m.server)) - order.indexOf(baseName(b.m.server)) || a.i - b.i)
    .map((x) => x.m);
}

/** The command line that starts `server` on ctx.port: its `launch`, or `node <entry>` with PORT and NODE_ENV. */
export function launchServer(server: ServerDef, ctx: LaunchContext): Launch {
  if (server.launch) return server.launch(ctx);
  return {
    cmd: server.node ?? process.execPath,
    args: nodeArgs(server),
    env: { ...server.env, PORT: String(ctx.port), NODE_ENV: 'production' },
  };
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
