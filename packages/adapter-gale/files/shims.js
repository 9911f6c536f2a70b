// @ts-check
// Web globals SvelteKit expects on every Node version it supports (crypto, File), as adapter-node installs them.
import { installPolyfills } from '@sveltejs/kit/node/polyfills';

installPolyfills();
