// The Socket.IO scenarios: the server (Socket.IO 4 on node:http, apps/sio-node-http.mjs; Gale's gale/socket.io in
// apps/ws-gale.mjs) and the load clients, the real `socket.io-client` run with bare `node`, pinned to the load core,
// each printing the same JSON line as gale-loadgen-ws: sio-echo's in Node worker threads (lib/sio-client.mjs, one
// worker thread per load core), sio-broadcast's in one thread (lib/sio-broadcast-client.mjs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, repoDir } from './servers.ts';
import type { WsOptions } from './ws-types.ts';

export const sioClient = join(benchDir, 'lib', 'sio-client.mjs');
export const sioBroadcastClient = join(benchDir, 'lib', 'sio-broadcast-client.mjs');

/** sio-broadcast's broadcasts in flight at once (a few, so the server always has one to send while others land). */
export const SIO_IN_FLIGHT = 4;

/** Why the Socket.IO scenarios cannot run (socket.io or socket.io-client missing), or null. */
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

/** sio-broadcast's clients, all in the room (default 1 000; quick 20). */
export const sioBroadcastClients = (o: Pick<WsOptions, 'sioClients' | 'quick'>): number =>
  o.sioClients ?? (o.quick ? 20 : 1000);

/**
 * The client's command line for one sio-broadcast run against namespace /broadcast of 127.0.0.1:port; it reads the
 * server's CPU time (serverPid) at the start and end of the broadcast phase, so connects are left out.
 */
export function sioBroadcastCommand(o: WsOptions, port: number, serverPid: number): { cmd: string; args: string[] } {
  return {
    cmd: process.execPath,
    args: [
      sioBroadcastClient,
      '--url',
      `http://127.0.0.1:${port}/broadcast`,
      '--clients',
      String(sioBroadcastClients(o)),
      '--in-flight',
      String(SIO_IN_FLIGHT),
      '--size',
      '100',
      '--duration',
      String(o.durationS),
      '--timeout',
      String(o.timeoutS),
      '--server-pid',
      String(serverPid),
    ],
  };
}

/**
 * How long one sio-broadcast run may take, in seconds: connecting every client (generously 100 per second on a
 * loaded core, each with its own --timeout), the broadcasts, the last ones' --timeout and Node's start.
 */
export const sioBroadcastLimitS = (o: WsOptions): number =>
  sioBroadcastClients(o) / 100 + o.durationS + 3 * o.timeoutS + 15;
