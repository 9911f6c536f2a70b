// sio-echo (Socket.IO): the server (Socket.IO 4 on node:http, apps/sio-node-http.mjs) and its load client, the real
// `socket.io-client` in Node worker threads (lib/sio-client.mjs, run with bare `node`, pinned to the load core, one
// worker thread per load core), which prints the same JSON line as gale-loadgen-ws.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, repoDir } from './servers.ts';
import type { WsOptions } from './ws-types.ts';

export const sioClient = join(benchDir, 'lib', 'sio-client.mjs');

/** Why sio-echo cannot run (socket.io or socket.io-client missing), or null. */
export function sioUnavailable(): string | null {
  const missing = ['socket.io', 'socket.io-client'].filter(
    (p) => !existsSync(join(repoDir, 'node_modules', p, 'package.json')),
  );
  return missing.length
    ? `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed (run \`npm install\` at the repo root)`
    : null;
}

/** The client's command line for one sio-echo run against 127.0.0.1:port. */
export function sioCommand(o: WsOptions, port: number): { cmd: string; args: string[] } {
  return {
    cmd: process.execPath,
    args: [
      sioClient,
      '--url',
      `http://127.0.0.1:${port}`,
      '--connections',
      String(o.connections),
      '--messages',
      String(o.messages ?? (o.quick ? 10 : 100)),
      '--size',
      '1024',
      '--duration',
      String(o.durationS),
      '--timeout',
      String(o.timeoutS),
      '--workers',
      String(o.sioWorkers ?? 1),
    ],
  };
}
