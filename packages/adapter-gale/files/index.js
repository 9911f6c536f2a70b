// @ts-check
// The standalone server (`node build`): a Gale app with the SvelteKit handler, configured from the environment as
// adapter-node's server is (HOST, PORT, timeouts, BODY_SIZE_LIMIT, graceful shutdown on SIGINT/SIGTERM). SETUP (the
// adapter's `setup` module, or nothing) and the ADAPTER_GALE_* placeholder are filled in when the adapter bundles it.

import setup from 'SETUP';
import process from 'node:process';
import { gale } from 'gale';
import { env, timeout_env } from './env.js';

const path = env('SOCKET_PATH', '');
const host = env('HOST', '0.0.0.0');
const port = env('PORT', '3000');
const shutdown_timeout = timeout_env('SHUTDOWN_TIMEOUT', 30) ?? 30;
const keep_alive_timeout = timeout_env('KEEP_ALIVE_TIMEOUT');
const headers_timeout = timeout_env('HEADERS_TIMEOUT');
// Read for adapter-node parity: it only acts with socket activation, which is refused below.
timeout_env('IDLE_TIMEOUT', 0);

if (path) {
  throw new Error(
    `SOCKET_PATH=${path}: adapter-gale cannot listen on a Unix socket yet (Gale's engine listens on TCP only). ` +
      'Unset SOCKET_PATH and use HOST and PORT.',
  );
}
const listen_pid = Number.parseInt(env('LISTEN_PID', '0'), 10);
const listen_fds = Number.parseInt(env('LISTEN_FDS', '0'), 10);
if (listen_pid !== 0 && listen_pid !== process.pid) {
  throw new Error(`received LISTEN_PID ${listen_pid} but current process id is ${process.pid}`);
}
if (listen_pid === process.pid && listen_fds > 0) {
  throw new Error(
    'systemd socket activation (LISTEN_FDS) is not supported by adapter-gale yet: Gale cannot accept on an ' +
      'inherited socket. Let the service listen on HOST and PORT instead.',
  );
}
if (!/^\d+$/.test(port) || Number(port) > 65535) {
  throw new Error(`Invalid PORT: '${port}'. PORT must be a port number from 0 to 65535.`);
}

/** @type {number | 'auto' | undefined} */
const configured_workers = ADAPTER_GALE_WORKERS ?? undefined;
const workers_env = env('WORKERS', '');
const workers = workers_env === '' ? configured_workers : workers_env === 'auto' ? 'auto' : Number(workers_env);
if (workers !== undefined && workers !== 'auto' && !(Number.isInteger(workers) && workers >= 1)) {
  throw new Error(`Invalid WORKERS: '${workers_env}'. Give a whole number of processes (1 or more) or 'auto'.`);
}
const clustered = workers !== undefined && workers !== 1;
/** @type {typeof import('@gale-http/cluster') | undefined} Workers on one port come from @gale-http/cluster. */
let scale;
if (clustered) {
  const pkg = '@gale-http/cluster';
  try {
    scale = await import(pkg);
  } catch (err) {
    if (/** @type {{ code?: string }} */ (err).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      `adapter-gale: workers: ${workers} runs the server in several processes with ${pkg}, which is not installed: ` +
        `npm install ${pkg} (or remove the workers option / WORKERS to run one process).`,
    );
  }
}

/** @type {import('gale').App | undefined} The Gale app (in a worker, or the only process); undefined in a primary. */
let server;

if (scale?.cluster.isPrimary) {
  // This process becomes the primary: `workers` processes run this same file and listen on the port together
  // (SO_REUSEPORT); crashed ones are respawned, SIGHUP reloads them one by one, SIGTERM/SIGINT drain them within
  // SHUTDOWN_TIMEOUT, and app.publish (the WebSocket pub/sub of the setup module) reaches every worker.
  const primary = scale.cluster(import.meta.url, {
    workers,
    drainTimeout: shutdown_timeout * 1000,
  });
  primary.ready.catch((err) => {
    console.error(`adapter-gale: ${err instanceof Error ? err.message : err}`);
  });
} else {
  // Imported here so that a cluster's primary never loads the app.
  const { body_size_limit, handler } = await import('./handler.js');
  const app = gale({
    bodyLimit: body_size_limit,
    // SvelteKit's routes and static files are case-sensitive; so are the engine's mounts here.
    caseSensitive: true,
    ...(keep_alive_timeout === undefined ? {} : { keepAliveTimeout: keep_alive_timeout * 1000 }),
    ...(headers_timeout === undefined ? {} : { headersTimeout: headers_timeout * 1000 }),
  });
  if (typeof setup === 'function') await setup(app);
  app.use(handler);
  server = app;

  /** @type {Promise<void> | undefined} */
  let closing;
  /** @param {'SIGINT' | 'SIGTERM'} reason */
  const graceful_shutdown = (reason) => {
    if (closing) return;
    // In-flight requests finish (Connection: close), idle connections close, the rest are cut at the deadline.
    closing = app.close({ timeout: shutdown_timeout * 1000 }).then(() => {
      // @ts-expect-error custom events cannot be typed
      process.emit('sveltekit:shutdown', reason);
    });
  };
  process.on('SIGTERM', graceful_shutdown);
  process.on('SIGINT', graceful_shutdown);

  const address = await app.listen(Number(port), host);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  console.log(`Listening on http://${shown}:${address.port}`);
}

export { host, path, port, server };
