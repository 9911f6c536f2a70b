// The release as a user gets it: `npm run release:pack` (this machine's engine, reused from the build), then a fresh
// app scaffolded by the packed create-gale, with the tarballs installed into it by npm with cargo and rustc taken off
// PATH. In it: ESM, CommonJS and TypeScript (nodenext and bundler) examples start a server on port 0, request it and
// stop; the app's own `npm test` passes; `npm start` serves until SIGTERM; `gale --version` names the package.
// One install (dependencies from the registry, the npm cache makes repeats quick); the pack is shared with the other
// tests/package files (release.ts).
import assert from 'node:assert/strict';
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { hostTriple, packageName, TARGETS } from '../../packages/gale/scripts/platforms.mjs';
import { packRelease, rustlessEnv } from './release.js';

const root = join(import.meta.dirname, '..', '..');
const galePkg = JSON.parse(readFileSync(join(root, 'packages', 'gale', 'package.json'), 'utf8'));
const triple = hostTriple();
const work = mkdtempSync(join(tmpdir(), 'gale-package-'));
/** The folder of the pack (tests/package/release.ts: one per state of the sources). */
let release = '';
const app = join(work, 'my-app');
after(() => rmSync(work, { recursive: true, force: true }));

const env = rustlessEnv();

function run(cmd: string, args: string[], cwd: string, timeout = 120_000): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} (in ${cwd}) failed: ${r.error ?? ''}\n${r.stdout}\n${r.stderr}`);
  return r;
}
const tarball = (name: string) => join(release, name);
const mainTgz = `gale-${galePkg.version}.tgz`;
const engineTgz = `gale-http-${triple}-${galePkg.version}.tgz`;
const createTgz = `create-gale-${galePkg.version}.tgz`;
/** The packages by job that the snippets below use, each from its own tarball. */
const compatTgz = ['express', 'engine.io', 'socket.io', 'fast-ws', 'cluster', 'otel'].map(
  (n) => `gale-http-${n}-${galePkg.version}.tgz`,
);

before(
  async () => {
    assert.notEqual(spawnSync('cargo', ['--version'], { env }).status, 0, 'cargo must not be reachable in the test');
    assert.equal(spawnSync('npm', ['--version'], { env }).status, 0, 'npm must be on PATH without cargo');
    // Packing needs nothing from Rust either: the engine is the one npm install built (--prebuilt).
    release = dirname((await packRelease())[0]?.tgz ?? '');
    // The packed create-gale, run as npm create would run it.
    mkdirSync(join(work, 'create'));
    run('tar', ['xzf', tarball(createTgz), '-C', join(work, 'create')], work);
    run(process.execPath, [join(work, 'create', 'package', 'index.js'), 'my-app'], work);
    // The app's devDependencies from the registry; gale, its engine and the packages by job from the tarballs, as
    // npm would fetch them.
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball(mainTgz),
        tarball(engineTgz),
        ...compatTgz.map(tarball),
      ],
      app,
      300_000,
    );
  },
  { timeout: 420_000 },
);

test('the tarballs hold what ships and nothing else', () => {
  const list = (tgz: string) =>
    run('tar', ['tzf', tarball(tgz)], work)
      .stdout.trim()
      .split('\n');
  const main = list(mainTgz);
  for (const f of [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'dist/index.js',
    'dist/index.d.ts',
    'cjs/index.cjs',
    'cjs/index.d.cts',
    'dist/cli/main.js',
  ]) {
    assert.ok(main.includes(`package/${f}`), `${mainTgz} lacks ${f}`);
  }
  const stray = main.filter((f) => /\.(rs|node|map|toml)$|\.test\.|\/src\/|\/native\/|\/scripts\//.test(f));
  assert.deepEqual(stray, [], 'Rust sources, binaries, tests, sources or build scripts in the main package');
  const engine = list(engineTgz);
  assert.ok(engine.includes(`package/gale.${triple}.node`), engine.join(', '));
  const packed = JSON.parse(readFileSync(join(app, 'node_modules', 'gale', 'package.json'), 'utf8'));
  assert.deepEqual(
    packed.optionalDependencies,
    Object.fromEntries(TARGETS.map((t) => [packageName(t.triple), galePkg.version])),
    'the packed gale names every engine package at its own version',
  );
  const installed = JSON.parse(readFileSync(join(app, 'node_modules', '@gale-http', triple, 'package.json'), 'utf8'));
  assert.equal(installed.version, galePkg.version);
  assert.ok(Array.isArray(installed.os) && Array.isArray(installed.cpu), 'os/cpu fields');
  assert.deepEqual(
    list(createTgz).filter((f) => f.includes('node_modules')),
    [],
  );
});

test('npm install of the packed core alone (gale and its engine) into a fresh project installs at most 20 packages', () => {
  const fresh = join(work, 'core-only');
  mkdirSync(fresh);
  writeFileSync(join(fresh, 'package.json'), JSON.stringify({ name: 'core-only', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball(mainTgz), tarball(engineTgz)], fresh);
  // What is on disk: every package folder under node_modules, nested ones included.
  const names = new Set<string>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const scoped = entry.startsWith('@') ? readdirSync(join(dir, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const name of scoped) {
        names.add(name);
        walk(join(dir, name, 'node_modules'));
      }
    }
  };
  walk(join(fresh, 'node_modules'));
  assert.ok(names.has('gale') && names.has(`@gale-http/${triple}`), [...names].join(' '));
  assert.ok(names.size <= 20, `${names.size} packages: ${[...names].sort().join(' ')}`);
  for (const heavy of ['qs', '@gale-http/express', '@gale-http/socket.io', 'replicator', 'engine.io-parser']) {
    assert.ok(!names.has(heavy), `the core installs ${heavy}`);
  }
});

test('the old subpaths and names say which package to install instead', () => {
  writeFileSync(
    join(app, 'check-moved.mjs'),
    `const out = [];
for (const spec of ['gale/express', 'gale/express4', 'gale/socket.io', 'gale/fast-ws-client']) {
  try { await import(spec); out.push(spec + ' loaded'); } catch (e) { out.push(spec + ' ' + e.code + ' ' + /npm install @gale-http\\/[\\w.-]+/.exec(e.message)); }
}
const g = await import('gale');
try { g.gale.cluster; } catch (e) { out.push('gale.cluster ' + e.code + ' ' + /npm install @gale-http\\/[\\w.-]+/.exec(e.message)); }
try { g.fastWsHandlers(() => {}); } catch (e) { out.push('fastWsHandlers ' + e.code); }
console.log(out.join('\\n'));
`,
  );
  const r = run(process.execPath, ['check-moved.mjs'], app, 30_000);
  assert.equal(
    r.stdout.trim(),
    [
      'gale/express GALE_ERR_MOVED npm install @gale-http/express',
      'gale/express4 GALE_ERR_MOVED npm install @gale-http/express',
      'gale/socket.io GALE_ERR_MOVED npm install @gale-http/socket.io',
      'gale/fast-ws-client GALE_ERR_MOVED npm install @gale-http/fast-ws',
      'gale.cluster GALE_ERR_MOVED npm install @gale-http/cluster',
      'fastWsHandlers GALE_ERR_MOVED',
    ].join('\n'),
  );
});

test('ESM: import { gale } from "gale" serves a request (and every package by job imports)', () => {
  writeFileSync(
    join(app, 'check-esm.mjs'),
    `import { gale, HttpError } from 'gale';
import express from '@gale-http/express';
import express4 from '@gale-http/express/4';
import { Server } from '@gale-http/socket.io';
import { FastWsClient } from '@gale-http/fast-ws/client';
import { GaleInstrumentation } from '@gale-http/otel';
const app = gale();
app.get('/hi/:name', (req) => ({ hi: req.params.name, via: 'esm' }));
const { port } = await app.listen(0, '127.0.0.1');
const res = await fetch('http://127.0.0.1:' + port + '/hi/ada');
console.log(res.status, await res.text(), [express, express4, Server, FastWsClient, HttpError, GaleInstrumentation].map((f) => typeof f).join());
await app.close();
`,
  );
  const r = run(process.execPath, ['check-esm.mjs'], app, 30_000);
  assert.equal(r.stdout.trim(), '200 {"hi":"ada","via":"esm"} function,function,function,function,function,function');
});

test('CommonJS: require("gale") serves a request (and every package by job requires)', () => {
  writeFileSync(
    join(app, 'check-cjs.cjs'),
    `'use strict';
const { gale, HttpError } = require('gale');
const express = require('@gale-http/express');
const express4 = require('@gale-http/express/4');
const { Server } = require('@gale-http/socket.io');
const { FastWsClient } = require('@gale-http/fast-ws/client');
const { GaleInstrumentation } = require('@gale-http/otel');
const app = gale();
app.get('/hi/:name', (req) => ({ hi: req.params.name, via: 'cjs' }));
app.listen(0, '127.0.0.1').then(async ({ port }) => {
  const res = await fetch('http://127.0.0.1:' + port + '/hi/ada');
  const kinds = [express, express.Router, express4, Server, FastWsClient, HttpError, GaleInstrumentation]
    .map((f) => typeof f)
    .join();
  console.log(res.status, await res.text(), kinds);
  await app.close();
});
`,
  );
  const r = run(process.execPath, ['check-cjs.cjs'], app, 30_000);
  assert.equal(
    r.stdout.trim(),
    '200 {"hi":"ada","via":"cjs"} function,function,function,function,function,function,function',
  );
});

test('TypeScript: types resolve under nodenext (ESM and CJS) and bundler, and the output runs', () => {
  mkdirSync(join(app, 'ts'), { recursive: true });
  const program = (via: string) => `
const app = gale({ bodyLimit: 1024 } satisfies GaleOptions);
app.get('/hi/:name', (req: Request) => ({ hi: req.params.name, via: '${via}' }));
const router = express.Router();
router.get('/x', (_req, res) => res.json({}));
// @gale-http/express's types are @types/express's, installed with it (4's for /4): its namespace and handler types.
const typed: express.RequestHandler = (req: express.Request, res: express.Response) => res.json({ ip: req.ip });
router.use(typed);
void [Server, FastWsClient, HttpError, express4.Router];
app.listen(0, '127.0.0.1').then(async ({ port }: AddressInfo) => {
  const res = await fetch('http://127.0.0.1:' + port + '/hi/ada');
  console.log(res.status, await res.text());
  await app.close();
});
`;
  writeFileSync(
    join(app, 'ts', 'esm.ts'),
    `import { type AddressInfo, type GaleOptions, gale, HttpError, type Request } from 'gale';
import express from '@gale-http/express';
import express4 from '@gale-http/express/4';
import { Server } from '@gale-http/socket.io';
import { FastWsClient } from '@gale-http/fast-ws/client';
import { GaleInstrumentation } from '@gale-http/otel';
void GaleInstrumentation;
${program('ts-esm')}`,
  );
  writeFileSync(
    join(app, 'ts', 'cjs.cts'),
    `import g = require('gale');
import express = require('@gale-http/express');
import express4 = require('@gale-http/express/4');
import sio = require('@gale-http/socket.io');
import fws = require('@gale-http/fast-ws/client');
const { gale, HttpError } = g;
const { Server } = sio;
const { FastWsClient } = fws;
type GaleOptions = g.GaleOptions;
type Request = g.Request;
type AddressInfo = g.AddressInfo;
${program('ts-cjs')}`,
  );
  const base = { target: 'ES2022', strict: true, skipLibCheck: false, types: ['node'], rootDir: 'ts' };
  writeFileSync(
    join(app, 'tsconfig.nodenext.json'),
    JSON.stringify({
      compilerOptions: { ...base, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out/nodenext' },
      files: ['ts/esm.ts', 'ts/cjs.cts'],
    }),
  );
  writeFileSync(
    join(app, 'tsconfig.bundler.json'),
    JSON.stringify({
      compilerOptions: { ...base, module: 'ESNext', moduleResolution: 'Bundler', outDir: 'out/bundler' },
      files: ['ts/esm.ts'],
    }),
  );
  const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
  run(process.execPath, [tsc, '-p', 'tsconfig.nodenext.json'], app);
  run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], app);
  for (const [file, via] of [
    ['out/nodenext/esm.js', 'ts-esm'],
    ['out/nodenext/cjs.cjs', 'ts-cjs'],
    ['out/bundler/esm.js', 'ts-esm'],
  ] as const) {
    const r = run(process.execPath, [file], app, 30_000);
    assert.equal(r.stdout.trim(), `200 {"hi":"ada","via":"${via}"}`, file);
  }
});

test('gale --version names the engine package it loaded', () => {
  const r = run(join(app, 'node_modules', '.bin', 'gale'), ['--version'], app, 30_000);
  assert.match(r.stdout, new RegExp(`^gale ${galePkg.version.replaceAll('.', '\\.')} `, 'm'));
  assert.match(
    r.stdout,
    new RegExp(`^binary @gale-http/${triple} ${galePkg.version.replaceAll('.', '\\.')}: .*node_modules`, 'm'),
  );
  assert.match(r.stdout, /^engine \d+\.\d+\.\d+/m);
});

test("the scaffolded app's own npm test passes", () => {
  const r = run('npm', ['test'], app, 120_000);
  // node --test prints TAP (`# pass 5`) when stdout is not a terminal on Node 20 and 22, spec (`ℹ pass 5`) from Node 23 on.
  // Four of the five go through app.request(), from the packed gale and engine.
  assert.match(r.stdout, /^[#ℹ] pass 5\b/m);
  assert.match(r.stdout, /^[#ℹ] fail 0\b/m);
});

test('the scaffolded app builds, and npm start serves until SIGTERM', { timeout: 120_000 }, async () => {
  run('npm', ['run', 'build'], app);
  run('npm', ['run', 'typecheck'], app);
  assert.ok(existsSync(join(app, 'dist', 'server.js')));
  // Its own process group, so the signal reaches npm, the shell and the app alike.
  const child = spawn('npm', ['start'], {
    cwd: app,
    env: { ...env, PORT: '0', HOST: '127.0.0.1' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (c) => {
    out += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no address in 30 s: ${out}`)), 30_000);
      child.stdout.on('data', (c) => {
        out += c;
        const m = /Listening on http:\/\/localhost:(\d+)\//.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
    });
    const hello = await fetch(`http://127.0.0.1:${port}/api/hello/world`);
    assert.deepEqual(await hello.json(), { hello: 'world' });
    const page = await fetch(`http://127.0.0.1:${port}/`);
    assert.match(await page.text(), /<title>Gale app<\/title>/);
  } finally {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  }
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
  if (code === 'timeout' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  assert.notEqual(code, 'timeout', `npm start did not stop on SIGTERM: ${out}`);
});
