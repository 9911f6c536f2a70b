// The Socket.IO scenarios' load clients (the servers: Socket.IO 4 on node:http, apps/sio-node-http.mjs; Gale's
// @gale-http/socket.io in apps/ws-gale.mjs). By default gale-loadgen-ws's modes sio-echo and sio-broadcast (Rust, Engine.IO
// and Socket.IO spoken directly: one core drives a Socket.IO server to its limit); with `--sio-client
// socket.io-client` the real `socket.io-client` run with bare `node`, which saturates its core long before a server
// does: sio-echo's in Node worker threads (lib/sio-client.mjs), sio-broadcast's in one thread
// (lib/sio-broadcast-client.mjs). All pinned to the load core, all printing gale-loadgen-ws's JSON line.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, repoDir } from './servers.ts';
import type { SioClient, WsOptions } from './ws-types.ts';

export const sioClient = join(benchDir, 'lib', 'sio-client.mjs');
export const sioBroadcastClient = join(benchDir, 'lib', 'sio-broadcast-client.mjs');

/** The Socket.IO scenarios' client of `o` (default: gale-loadgen-ws). */
export const sioClientOf = (o: Pick<WsOptions, 'sioClient'>): SioClient => o.sioClient ?? 'loadgen';

/**
 * sio-broadcast's broadcasts in flight at once. socket.io-client: 4 (it saturates its core below that). gale-loadgen-ws:
 * 16, because with 4 the round trip, not a core, was the limit: a trial against Gale left its server at ~74 % of its
 * core (16: ~99 %), while Socket.IO 4 was at its limit from 4 on.
 */
export const sioBroadcastInFlight = (o: Pick<WsOptions, 'sioClient' | 'sioBroadcastInFlight'>): number =>
  o.sioBroadcastInFlight ?? (sioClientOf(o) === 'socket.io-client' ? 4 : 16);

/**
 * sio-echo's events in flight per socket (gale-loadgen-ws; socket.io-client sends one at a time). 4, because with one
 * at a time on 100 sockets the round trip, not a core, was the limit: a trial left Gale's server at ~61 % of its core
 * (2: ~83 %, 4: ~99 %), so its CPU per ack would not be its cost at full load.
 */
export const sioEchoInFlight = (o: Pick<WsOptions, 'sioEchoInFlight'>): number => o.sioEchoInFlight ?? 4;

/** Why the npm package `name` cannot be loaded from the repo root, or null. */
export function npmMissing(name: string): string | null {
  return existsSync(join(repoDir, 'node_modules', name, 'package.json'))
    ? null
    : `${name} is not installed (run \`npm install\` at the repo root)`;
}

/** Why the Socket.IO scenarios cannot run with `o`'s client (socket.io-client missing for that client), or null. */
export function sioUnavailable(o: Pick<WsOptions, 'sioClient'>): string | null {
  return sioClientOf(o) === 'socket.io-client' ? npmMissing('socket.io-client') : null;
}

/** gale-loadgen-ws's arguments for one sio-echo run against 127.0.0.1:port (the main namespace). */
export function sioEchoArgs(o: WsOptions, port: number): string[] {
  return [
    '--mode',
    'sio-echo',
    '--url',
    `ws://127.0.0.1:${port}/socket.io/`,
    '--connections',
    String(o.connections),
    '--messages',
    String(o.messages ?? (o.quick ? 10 : 100)),
    '--size',
    '1024',
    '--concurrent',
    String(sioEchoInFlight(o)),
    '--duration',
    String(o.durationS),
    '--timeout',
    String(o.timeoutS),
  ];
}

/**
 * gale-loadgen-ws's arguments for one sio-broadcast run against namespace /broadcast of 127.0.0.1:port; it reads the
 * server's CPU time (serverPid) at the start and end of the broadcast phase, so connects are left out.
 */
export function sioBroadcastArgs(o: WsOptions, port: number, serverPid: number): string[] {
  return [
    '--mode',
    'sio-broadcast',
    '--url',
    `ws://127.0.0.1:${port}/socket.io/`,
    '--namespace',
    '/broadcast',
    '--connections',
    String(sioBroadcastClients(o)),
    '--concurrent',
    String(sioBroadcastInFlight(o)),
    '--padding',
    '100',
    '--duration',
    String(o.durationS),
    '--timeout',
    String(o.timeoutS),
    '--server-pid',
    String(serverPid),
  ];
}

/** The command line of one run of `scenario` with `o`'s client (`bin`: gale-loadgen-ws). */
export function sioRun(
  o: WsOptions,
  scenario: 'sio-echo' | 'sio-broadcast',
  bin: string,
  port: number,
  serverPid: number,
): { cmd: string; args: string[] } {
  if (sioClientOf(o) === 'socket.io-client') {
    return scenario === 'sio-echo' ? sioCommand(o, port) : sioBroadcastCommand(o, port, serverPid);
  }
  return {
    cmd: bin,
    args: scenario === 'sio-echo' ? sioEchoArgs(o, port) : sioBroadcastArgs(o, port, serverPid),
  };
}

/** socket.io-client's command line for one sio-echo run against 127.0.0.1:port. */
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
 * socket.io-client's command line for one sio-broadcast run against namespace /broadcast of 127.0.0.1:port; it reads
 * the server's CPU time (serverPid) at the start and end of the broadcast phase, so connects are left out.
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
      String(sioBroadcastInFlight(o)),
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
 * loaded core, as socket.io-client connects; gale-loadgen-ws is far faster), the broadcasts, the last ones'
 * --timeout and the client's start.
 */
export const sioBroadcastLimitS = (o: WsOptions): number =>
  sioBroadcastClients(o) / 100 + o.durationS + 3 * o.timeoutS + 15;
