// `npm run sveltekit`: builds examples/sveltekit with adapter-gale (cached while the sources stay the same) and runs
// the built server in this process. PORT (default 3000) and HOST as for `node build`; ORIGIN defaults to
// http://localhost:PORT so form actions pass SvelteKit's CSRF check in a browser on this machine.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildExample } from './build.mjs';

const dir = await buildExample('gale', { log: (s) => console.log(s) });
process.env.PORT ??= '3000';
if (process.env.ORIGIN === undefined && process.env.PORT !== '0') {
  process.env.ORIGIN = `http://localhost:${process.env.PORT}`;
  console.log(`ORIGIN=${process.env.ORIGIN} (set ORIGIN to serve under another address)`);
}
console.log('SSR /, /static.html, /prerendered.html, /_app/immutable/* (immutable), WebSocket /ws');
await import(pathToFileURL(join(dir, 'build', 'index.js')).href);
