// Helpers for the @gale-http/engine.io suites: a Gale app with a raw Engine.IO server attached (or the real engine.io 6 on
// node:http with the same options), real engine.io-client connections closed after each test, and bounded waits.
// Everything runs on 127.0.0.1 with port 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { type AttachOptions, attach, type ServerOptions } from '@gale-http/engine.io';
import { attach as realAttach } from 'engine.io';
import { Socket as ClientSocket, type SocketOptions } from 'engine.io-client';
import { gale } from 'gale';
import { withTimeout } from '../helpers.js';

export type Kind = 'gale' | 'engine.io';
/** The server-side API both implementations share (engine.io's). */
// biome-ignore lint/suspicious/noExplicitAny: the tests drive both servers through engine.io's API
export type AnyEngine = any;

export interface Started {
  kind: Kind;
  engine: AnyEngine;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  close(): Promise<void>;
}

/** Starts an Engine.IO server of `kind` attached with `opts`; `setup(engine)` registers handlers before it listens. */
export async function startEngine(
  t: TestContext,
  kind: Kind,
  opts: ServerOptions & AttachOptions = {},
  setup: (engine: AnyEngine) => void = () => {},
): Promise<Started> {
  let started: Started;
  if (kind === 'gale') {
    const app = gale();
    const engine = attach(app, opts);
    setup(engine);
    const { port } = await app.listen(0, '127.0.0.1');
    let closing: Promise<void> | undefined;
    started = {
      kind,
      engine,
      port,
      url: `http://127.0.0.1:${port}`,
      close: () => {
        closing ??= withTimeout(
          (async () => {
            engine.close();
            await app.close({ timeout: 500 });
          })(),
          5000,
          'close',
        );
        return closing;
      },
    };
  } else {
    const server = http.createServer();
    // biome-ignore lint/suspicious/noExplicitAny: engine.io's types want node's request type for allowRequest
    const engine = realAttach(server, opts as any);
    // engine.io keeps a closed polling transport's close timer (30 s, ref'd) alive until a poll arrives.
    engine.on('connection', (socket: { transport: { closeTimeout?: number } }) => {
      socket.transport.closeTimeout = 200;
    });
    setup(engine);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let closing: Promise<void> | undefined;
    started = {
      kind,
      engine,
      port,
      url: `http://127.0.0.1:${port}`,
      close: () => {
        closing ??= withTimeout(
          new Promise<void>((resolve) => {
            engine.close();
            server.closeAllConnections();
            server.close(() => resolve());
          }),
          5000,
          'close',
        );
        return closing;
      },
    };
  }
  t.after(() => started.close());
  return started;
}

/** An engine.io-client socket to `url` (it connects at once), closed after the test. */
export function client(t: TestContext, url: string, opts: Partial<SocketOptions> = {}): ClientSocket {
  const socket = new ClientSocket(url, { ...opts });
  t.after(() => socket.close());
  return socket;
}

/** Resolves once the client is open (rejects on 'error'). */
export function opened(socket: ClientSocket, ms = 4000): Promise<void> {
  return withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', (err) => reject(err));
    }),
    ms,
    'engine.io-client open',
  );
}

/** The server-side socket of the next connection. */
export function nextConnection(engine: AnyEngine, ms = 4000): Promise<AnyEngine> {
  return withTimeout(new Promise((resolve) => engine.once('connection', resolve)), ms, 'server connection');
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
