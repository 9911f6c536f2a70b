// Helpers for the @gale-http/socket.io suites: a Gale app with a Socket.IO server, @gale-http/socket.io attached to a
// node:http server ('gale-node'), or the reference socket.io 4 on node:http with the same setup; real socket.io-client
// connections that are closed after each test, and bounded waits for events. Everything runs on 127.0.0.1, port 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { Server as GaleServer, type ServerOptions } from '@gale-http/socket.io';
import { gale } from 'gale';
import { Server as SioServer } from 'socket.io';
import {
  type Socket as ClientSocket,
  io as connectClient,
  type ManagerOptions,
  type SocketOptions,
} from 'socket.io-client';
import { withTimeout } from '../helpers.js';

export type Kind = 'gale' | 'gale-node' | 'socket.io';
/** The server-side API both implementations share (socket.io's). */
// biome-ignore lint/suspicious/noExplicitAny: the test drives both servers through socket.io's untyped API
export type AnyServer = any;

export interface Started {
  kind: Kind;
  io: AnyServer;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Starts a Socket.IO server of `kind` with `opts`; `setup(io)` registers handlers before it listens. */
export async function startServer(
  t: TestContext,
  kind: Kind,
  opts: ServerOptions & Record<string, unknown> = {},
  setup: (io: AnyServer) => void = () => {},
): Promise<Started> {
  let started: Started;
  if (kind === 'gale') {
    const app = gale();
    const io = new GaleServer(app, opts);
    setup(io);
    const { port } = await app.listen(0, '127.0.0.1');
    let closing: Promise<void> | undefined;
    started = {
      kind,
      io,
      port,
      url: `http://127.0.0.1:${port}`,
      close: () => {
        closing ??= withTimeout(io.close(), 5000, 'io.close()');
        return closing;
      },
    };
  } else if (kind === 'gale-node') {
    const server = http.createServer();
    const io = new GaleServer(server, opts);
    setup(io);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let closing: Promise<void> | undefined;
    started = {
      kind,
      io,
      port,
      url: `http://127.0.0.1:${port}`,
      close: () => {
        server.closeAllConnections();
        closing ??= withTimeout(io.close(), 5000, 'io.close()');
        return closing;
      },
    };
  } else {
    const server = http.createServer();
    const io = new SioServer(server, { ...(opts as object) });
    // engine.io keeps a closed polling transport's close timer (30 s, ref'd) alive until a poll arrives, which
    // would keep this test process running after the last test; @gale-http/socket.io unrefs its own.
    io.engine.on('connection', (conn: { transport: { closeTimeout?: number } }) => {
      conn.transport.closeTimeout = 200;
    });
    setup(io);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let closing: Promise<void> | undefined;
    started = {
      kind,
      io,
      port,
      url: `http://127.0.0.1:${port}`,
      close: () => {
        server.closeAllConnections();
        closing ??= withTimeout(io.close(), 5000, 'io.close()');
        return closing;
      },
    };
  }
  t.after(() => started.close());
  return started;
}

type ClientOptions = Partial<ManagerOptions & SocketOptions>;

/** A socket.io-client socket (not yet connected unless `autoConnect`), closed after the test. */
export function client(t: TestContext, url: string, opts: ClientOptions = {}): ClientSocket {
  const socket = connectClient(url, { forceNew: true, reconnection: false, ...opts });
  t.after(() => {
    socket.io.opts.reconnection = false;
    socket.disconnect();
    socket.io.engine?.close();
  });
  return socket;
}

/** Connects and resolves when 'connect' fires (rejects on connect_error). */
export async function connected(t: TestContext, url: string, opts: ClientOptions = {}): Promise<ClientSocket> {
  const socket = client(t, url, opts);
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (err) => reject(err));
    }),
    4000,
    `connect to ${url}`,
  );
  return socket;
}

/** The arguments of the next `event` on `emitter`, within `ms`. */
export function next<A extends unknown[] = unknown[]>(
  emitter: { once(event: string, fn: (...args: never[]) => void): unknown },
  event: string,
  ms = 3000,
): Promise<A> {
  return withTimeout(
    new Promise<A>((resolve) => {
      emitter.once(event, ((...args: unknown[]) => resolve(args as A)) as (...args: never[]) => void);
    }),
    ms,
    `event "${event}"`,
  );
}

/** Collects every `event` on `emitter` into an array (first arguments by default). */
export function collect(emitter: { on(event: string, fn: (...args: never[]) => void): unknown }, event: string) {
  const got: unknown[][] = [];
  emitter.on(event, ((...args: unknown[]) => got.push(args)) as (...args: never[]) => void);
  return got;
}

/** The server-side socket of the next connection. */
export function nextServerSocket(io: AnyServer, nsp = '/'): Promise<AnyServer> {
  return withTimeout(
    new Promise((resolve) => io.of(nsp).once('connection', resolve)),
    4000,
    `server connection on ${nsp}`,
  );
}
