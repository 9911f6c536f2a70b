// Vite configuration of the example, with SvelteKit's options passed to its plugin (SvelteKit 2.62 and later read
// them here; SvelteKit 3 reads them nowhere else). SVELTEKIT_ADAPTER=node builds it with @sveltejs/adapter-node
// instead of adapter-gale (the differential tests and the benchmark build both); SVELTEKIT_BUILD_DIR and
// SVELTEKIT_OUT_DIR put the output and SvelteKit's work directory elsewhere (scripts/build.mjs builds into a cache);
// SVELTEKIT_ORIGIN sets `paths.origin`, SvelteKit 3's build-time origin (2 has no such option).
import adapterNode from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import adapterGale from 'adapter-gale';
import { defineConfig } from 'vite';

const out = process.env.SVELTEKIT_BUILD_DIR ?? 'build';

export default defineConfig({
  plugins: [
    sveltekit({
      adapter:
        process.env.SVELTEKIT_ADAPTER === 'node' ? adapterNode({ out }) : adapterGale({ out, setup: 'src/gale.js' }),
      outDir: process.env.SVELTEKIT_OUT_DIR ?? '.svelte-kit',
      // A fixed version name (the default is the build time), so two builds of the same sources answer byte for
      // byte the same: the differential tests and the benchmark compare bodies across builds.
      version: { name: 'gale-example-1' },
      ...(process.env.SVELTEKIT_ORIGIN ? { paths: { origin: process.env.SVELTEKIT_ORIGIN } } : {}),
    }),
  ],
});
