// Loads the Express drop-ins on uWebSockets.js that the bench compares with (fulmine.js, ultimate-express) from local
// builds named by the harness (bench/lib/express-servers.ts): they install only from GitHub, so they are never
// dependencies of this repo. Used by apps/express-app.mjs and apps/nest-app.mjs.
import { existsSync, statSync } from 'node:fs';
import nodeModule from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** The major version of the Node running this app. */
const nodeMajor = Number(process.versions.node.split('.')[0]);

/**
 * `express()` of the peer built at `path` ('fulmine' needs Node ≥ 22). Its `require('uWebSockets.js')` goes to the
 * build GALE_BENCH_UWS names, else the `uWebSockets.js` folder beside the peer: a copied peers folder may have turned
 * its node_modules/uWebSockets.js link into a file naming the target, which `require` cannot load.
 */
export function loadPeer(name, path) {
  if (!path) throw new Error(`${name} needs the path of its build (GALE_BENCH_PEERS or its own variable)`);
  if (name === 'fulmine' && nodeMajor < 22) {
    throw new Error(`fulmine.js needs Node ≥ 22 (this is ${process.version}): run the bench with --node 26`);
  }
  const uws = process.env.GALE_BENCH_UWS || join(dirname(resolve(path)), 'uWebSockets.js');
  if (!existsSync(uws)) throw new Error(`${name} needs uWebSockets.js, and ${uws} does not exist`);
  const entry = statSync(uws).isDirectory() ? join(uws, 'uws.js') : uws;
  // CommonJS resolution is the one both peers use on every Node (Node 20 has no module.registerHooks).
  const Module = nodeModule.Module;
  const original = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return original.call(this, request === 'uWebSockets.js' ? entry : request, ...rest);
  };
  return nodeModule.createRequire(join(resolve(path), 'package.json'))(resolve(path));
}

/**
 * Lists, on stderr, which of `app`'s routes the peer answers from a response compiled at startup: fulmine.js records it
 * on each route (`route._native.declarative`); ultimate-express records nothing, so its routes are put through its own
 * compiler under the conditions its router checks (no middleware ahead of the route, one callback, the setting on).
 */
export function reportCompiledRoutes(name, path, app) {
  const routes = app._routes ?? [];
  let compiled;
  if (name === 'fulmine') compiled = routes.filter((r) => r._native?.declarative === true);
  else {
    const compile = nodeModule.createRequire(join(resolve(path), 'package.json'))('./src/declarative.js');
    compiled = routes.filter(
      (r) =>
        app.get('declarative responses') &&
        r.optimizedPath?.length === 1 &&
        r.callbacks.length === 1 &&
        typeof r.callbacks[0] === 'function' &&
        !!compile(r.callbacks[0], app),
    );
  }
  const list = compiled.map((r) => `${r.method} ${r.path}`).join(', ') || 'no route';
  process.stderr.write(`bench-note: ${name} answers without running JavaScript: ${list}\n`);
}
