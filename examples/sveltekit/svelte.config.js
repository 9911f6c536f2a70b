// SvelteKit configuration of the example. SVELTEKIT_ADAPTER=node builds it with @sveltejs/adapter-node instead of
// adapter-gale (the differential tests and the benchmark build both); SVELTEKIT_BUILD_DIR and SVELTEKIT_OUT_DIR put
// the output and SvelteKit's work directory elsewhere (scripts/build.mjs builds into a cache directory).
import adapterNode from '@sveltejs/adapter-node';
import adapterGale from 'adapter-gale';

const out = process.env.SVELTEKIT_BUILD_DIR ?? 'build';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    adapter:
      process.env.SVELTEKIT_ADAPTER === 'node' ? adapterNode({ out }) : adapterGale({ out, setup: 'src/gale.js' }),
    outDir: process.env.SVELTEKIT_OUT_DIR ?? '.svelte-kit',
    // A fixed version name (the default is the build time), so two builds of the same sources answer byte for byte
    // the same: the differential tests and the benchmark compare bodies across builds.
    version: { name: 'gale-example-1' },
  },
};
