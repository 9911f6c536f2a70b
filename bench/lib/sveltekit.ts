// The `sveltekit` scenario set (seed-style, as adapter-uwebsockets measured it: `/` SSR, `/static.html`,
// `/prerendered.html`) and its servers: examples/sveltekit built with adapter-gale and with @sveltejs/adapter-node,
// each run as `node build` (examples/sveltekit/scripts/build.mjs builds them once into a cache). The expected bodies
// come from the build itself: the two files, and `/` rendered in this process by SvelteKit's own Server (no HTTP
// server involved), so both servers are checked against the same independent answer.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from './scenario-types.ts';
import type { ServerDef } from './server-types.ts';

const repoDir = join(import.meta.dirname, '..', '..');
const renderScript = join(repoDir, 'examples', 'sveltekit', 'scripts', 'render.mjs');

interface Builds {
  gale: string;
  node: string;
  /** `/` as SvelteKit's Server renders it (base64). */
  ssr: string;
}

let builds: Builds | { failure: string } | undefined;

/** Both builds (made on first use, ~1 minute when nothing is cached) and the reference SSR body. */
export function sveltekitBuilds(): Builds | { failure: string } {
  if (builds === undefined) {
    try {
      const out = execFileSync(process.execPath, [renderScript], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 900_000,
        maxBuffer: 64 << 20,
      });
      builds = JSON.parse(out) as Builds;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      builds = { failure: `building examples/sveltekit failed: ${(e.stderr || e.message).trim().slice(-2000)}` };
    }
  }
  return builds;
}

function built(): Builds {
  const b = sveltekitBuilds();
  if ('failure' in b) throw new Error(b.failure);
  return b;
}

/** A scenario whose body is read from the build when first needed (so listing scenarios never builds). */
function lazy(s: Omit<Scenario, 'body' | 'method' | 'kind'>, body: () => Buffer): Scenario {
  let cached: Buffer | undefined;
  return {
    ...s,
    kind: 'sveltekit',
    method: 'GET',
    get body(): Buffer {
      cached ??= body();
      return cached;
    },
  };
}

const VALIDATORS = { etag: true, 'last-modified': true } as const;

export const sveltekitScenarios: readonly Scenario[] = [
  lazy(
    {
      id: 'sveltekit-ssr',
      description:
        'SvelteKit: GET / rendered per request (examples/sveltekit; body checked against SvelteKit’s own render)',
      path: '/',
      headers: {},
      status: 200,
      contentType: 'text/html',
      expectHeaders: {},
    },
    () => Buffer.from(built().ssr, 'base64'),
  ),
  lazy(
    {
      id: 'sveltekit-static',
      description: 'SvelteKit: GET /static.html, a file of static/, with ETag and Last-Modified',
      path: '/static.html',
      headers: {},
      status: 200,
      contentType: 'text/html',
      expectHeaders: VALIDATORS,
    },
    () => readFileSync(join(built().gale, 'build', 'client', 'static.html')),
  ),
  lazy(
    {
      id: 'sveltekit-prerendered',
      description: 'SvelteKit: GET /prerendered.html, a page prerendered at build time, with ETag and Last-Modified',
      path: '/prerendered.html',
      headers: {},
      status: 200,
      contentType: 'text/html',
      expectHeaders: VALIDATORS,
    },
    () => readFileSync(join(built().gale, 'build', 'prerendered', 'prerendered.html')),
  ),
];

/** `npm run bench -- sveltekit` names the three. */
export const SVELTEKIT_GROUP = 'sveltekit';

function kitServer(name: string, label: string, which: 'gale' | 'node'): ServerDef {
  return {
    name,
    label,
    kinds: ['sveltekit'],
    unavailable: () => {
      const b = sveltekitBuilds();
      return 'failure' in b ? b.failure : null;
    },
    launch: (ctx) => {
      const dir = built()[which];
      const url = `http://127.0.0.1:${ctx.port}`;
      return {
        cmd: process.execPath,
        args: [join(dir, 'build', 'index.js')],
        env: { PORT: String(ctx.port), HOST: '127.0.0.1', ORIGIN: url, NODE_ENV: 'production' },
      };
    },
  };
}

export const sveltekitServers: readonly ServerDef[] = [
  kitServer('sveltekit-gale', 'SvelteKit on adapter-gale', 'gale'),
  kitServer('sveltekit-node', 'SvelteKit on adapter-node', 'node'),
];
