// @ts-check
// adapter-gale: the SvelteKit Adapter (SvelteKit 2 and 3) that writes a standalone server running on Gale. Its build
// steps follow @sveltejs/adapter-node (client and prerendered files copied and precompressed, the server bundled with
// rollup so only production dependencies are needed at run time); layout.js plans the native static mounts; files/
// holds the runtime (handler.js, index.js, env.js), bundled with its placeholders replaced.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import replace from '@rollup/plugin-replace';
import { rollup } from 'rollup';
import { planStatic } from './layout.js';

const files = fileURLToPath(new URL('./files', import.meta.url).href);
const NO_SETUP = '\0adapter-gale:no-setup';
const KIT2_SERVER = '\0adapter-gale:kit2-server';

/**
 * SvelteKit 3's Builder: the kit options at the top of `config` (SvelteKit 2 nests them in `config.kit`, which 3
 * still answers with a deprecation warning), `generateServerInstance` in place of the Server class and manifest
 * module, and an environment initializer `instrument` needs.
 * @typedef {{
 *   config: { paths: { base: string; origin?: string } };
 *   generateServerInstance(dest: string): void;
 *   createInstrumentationInitializer(o: { outputDirectory: string }): string;
 * }} Kit3Builder
 */

/**
 * The builder as SvelteKit 3's, or null under SvelteKit 2 (told apart by what 3 added, not by a version number).
 * @param {import('@sveltejs/kit').Builder} builder
 * @returns {Kit3Builder | null}
 */
function kit3(builder) {
  return 'generateServerInstance' in builder ? /** @type {Kit3Builder} */ (/** @type {unknown} */ (builder)) : null;
}

/**
 * Why `workers` cannot be honoured by the installed gale, or null when it can.
 * @param {number | 'auto' | undefined} workers
 * @returns {Promise<string | null>}
 */
export async function workersUnsupported(workers) {
  if (workers === undefined || workers === 1) return null;
  if (workers !== 'auto' && !(Number.isInteger(workers) && workers >= 1)) {
    return `adapter-gale: workers must be a whole number of processes (1 or more) or 'auto', got ${JSON.stringify(workers)}`;
  }
  const gale = await import('gale');
  if ('cluster' in gale) return null;
  return (
    `adapter-gale: workers: ${workers} needs Gale's multi-process support (gale's cluster), which the installed gale ` +
    'does not have yet. Remove the workers option (one process per port) until it lands.'
  );
}

/** @type {import('./index.js').default} */
export default function adapter(opts = {}) {
  const { out = 'build', precompress = true, envPrefix = '', workers, setup } = opts;

  return {
    name: 'adapter-gale',
    /** @param {import('@sveltejs/kit').Builder} builder */
    async adapt(builder) {
      const unsupported = await workersUnsupported(workers);
      if (unsupported) throw new Error(unsupported);
      const setupFile = setup === undefined ? undefined : resolve(setup);
      if (setupFile !== undefined && !existsSync(setupFile)) {
        throw new Error(`adapter-gale: the setup module ${setup} does not exist (resolved to ${setupFile})`);
      }

      const tmp = builder.getBuildDirectory('adapter-gale');
      const v3 = kit3(builder);
      const base = v3 ? v3.config.paths.base : builder.config.kit.paths.base;
      rmSync(out, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });

      builder.log.minor('Copying assets');
      builder.writeClient(`${out}/client${base}`);
      builder.writePrerendered(`${out}/prerendered${base}`);
      if (precompress) {
        builder.log.minor('Compressing assets');
        await Promise.all([builder.compress(`${out}/client`), builder.compress(`${out}/prerendered`)]);
      }

      builder.log.minor('Planning native static mounts');
      const layout = planStatic({
        out,
        appPath: builder.getAppPath(),
        prerenderedPaths: builder.prerendered.paths,
        routes: builder.routes,
      });
      builder.log.minor(
        `${layout.mounts.length} files as native mounts, ${layout.files.length} through the catch-all route` +
          (layout.immutable ? `, ${layout.immutable.prefix} immutable` : ''),
      );

      builder.log.minor('Building server');
      const entries = `${tmp}/entries`;
      builder.copy(files, entries, { filter: (name) => !name.endsWith('.d.ts') });
      const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
      const server = builder.getServerDirectory();
      // The SvelteKit server instance handler.js imports as SERVER: SvelteKit 3 writes its module; under 2 it is the
      // Server class (deprecated in 3) constructed with the manifest module.
      let serverModule = KIT2_SERVER;
      if (v3) {
        serverModule = `${tmp}/server.js`;
        v3.generateServerInstance(serverModule);
      }

      /** @type {Record<string, string>} */
      const input = {
        index: `${entries}/index.js`,
        env: `${entries}/env.js`,
        handler: `${entries}/handler.js`,
      };
      const instrumented = builder.hasServerInstrumentationFile?.() ?? false;
      /** SvelteKit 3: the module that fills `$env/dynamic/private` before the instrumentation runs. */
      let initializer;
      if (instrumented) {
        input['instrumentation.server'] = `${server}/instrumentation.server.js`;
        if (v3) {
          input.__sveltekit_env_init = v3.createInstrumentationInitializer({ outputDirectory: tmp });
          initializer = `${out}/__sveltekit_env_init.js`;
        }
      }

      // Production dependencies stay imports; everything else (devDependencies included) is bundled, as in
      // adapter-node. gale is always external: it loads a native addon from its own package.
      const external = ['gale', ...Object.keys(pkg.dependencies || {})].map((d) => new RegExp(`^${d}(\\/.*)?$`));
      const bundle = await rollup({
        input,
        external,
        plugins: [
          {
            name: 'adapter-gale:alias',
            resolveId(id) {
              if (id === 'SERVER') return serverModule;
              if (id === 'SETUP') return setupFile ?? NO_SETUP;
              return null;
            },
            load(id) {
              if (id === NO_SETUP) return 'export default undefined;';
              if (id === KIT2_SERVER) {
                return (
                  `import { Server } from ${JSON.stringify(`${server}/index.js`)};\n` +
                  `import { manifest } from ${JSON.stringify(`${server}/manifest.js`)};\n` +
                  'export const server = new Server(manifest);\n'
                );
              }
              return null;
            },
          },
          nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
          // @ts-expect-error https://github.com/rollup/plugins/issues/1329
          replace({
            include: [`${entries}/**`],
            values: {
              ENV_PREFIX: JSON.stringify(envPrefix),
              // Names that appear nowhere else: the plugin replaces inside strings too.
              ADAPTER_GALE_PRECOMPRESS: JSON.stringify(precompress),
              ADAPTER_GALE_STATIC: JSON.stringify(layout),
              ADAPTER_GALE_WORKERS: JSON.stringify(workers ?? null),
              ADAPTER_GALE_KIT: JSON.stringify(v3 ? 3 : 2),
              // SvelteKit 3's `paths.origin` (adapter-node 6 reads it in place of the ORIGIN variable).
              ADAPTER_GALE_ORIGIN: JSON.stringify(v3?.config.paths.origin ?? null),
            },
            preventAssignment: true,
          }),
          // @ts-expect-error https://github.com/rollup/plugins/issues/1329
          commonjs({ strictRequires: true }),
          // @ts-expect-error https://github.com/rollup/plugins/issues/1329
          json(),
        ],
      });
      const serverPrefix = server.length + 1;
      await bundle.write({
        dir: out,
        format: 'esm',
        sourcemap: true,
        chunkFileNames: 'server/chunks/[name]-[hash].js',
        // Keep the Vite server output's file structure (a circular import chain otherwise: sveltejs/kit#16092).
        manualChunks(id) {
          return id.startsWith(server) ? id.slice(serverPrefix) : undefined;
        },
      });
      await bundle.close();

      if (instrumented) {
        // SvelteKit 3's instrument() also takes the initializer, bundled above; 2's has no such option.
        builder.instrument?.(
          /** @type {Parameters<import('@sveltejs/kit').Builder['instrument']>[0]} */ ({
            entrypoint: `${out}/index.js`,
            instrumentation: `${out}/instrumentation.server.js`,
            ...(initializer ? { initializer } : {}),
            module: { exports: ['path', 'host', 'port', 'server'] },
          }),
        );
      }
      builder.log.minor(`Wrote ${isAbsolute(out) ? out : `./${out}`}: start it with \`node ${out}\``);
    },

    supports: {
      read: () => true,
      instrumentation: () => true,
    },
  };
}
