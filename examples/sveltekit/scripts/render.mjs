// Builds examples/sveltekit with both adapters (cached, see build.mjs) and renders `/` in this process with
// SvelteKit's own Server from the adapter-node build: the reference the benchmark checks both servers' answers
// against. Prints {"gale": dir, "node": dir, "ssr": base64 body} as JSON.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildExample } from './build.mjs';

const log = (s) => process.stderr.write(`${s}\n`);
const gale = await buildExample('gale', { log });
const node = await buildExample('node', { log });
// SvelteKit's own server output (what the adapters bundle), in the build's work directory.
const server = join(node, '.svelte-kit', 'output', 'server');
const { Server } = await import(pathToFileURL(join(server, 'index.js')).href);
const { manifest } = await import(pathToFileURL(join(server, 'manifest.js')).href);
const kit = new Server(manifest);
await kit.init({ env: {} });
const res = await kit.respond(new Request('http://localhost/'), { getClientAddress: () => '127.0.0.1' });
if (res.status !== 200) throw new Error(`SvelteKit rendered / with status ${res.status}`);
const ssr = Buffer.from(await res.arrayBuffer()).toString('base64');
process.stdout.write(JSON.stringify({ gale, node, ssr }));
