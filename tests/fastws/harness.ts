// Test harness for fast-ws end to end: a `ws` WebSocketServer on node:http (127.0.0.1, ephemeral port) whose
// sockets run FastWsConnection through fastWsHandlers, as Gale's app.ws will; every wait is bounded.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FastWsClient, FastWsClientEvents } from '../../packages/fast-ws/src/client.js';
import { type FastWsConnection, fastWsHandlers } from '../../packages/fast-ws/src/server.js';

export const T = { timeout: 10_000 } as const;

export interface Server {
  url: string;
  /** Open server-side sockets. */
  sockets: Set<WebSocket>;
  /** Protocol each connection negotiated. */
  protocols: string[];
  close(): Promise<void>;
}

/** Starts a fast-ws server; `setup` registers listeners on each new connection. */
export async function startServer(setup: (c: FastWsConnection, ws: WebSocket) => void): Promise<Server> {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, handleProtocols: (p) => (p.has('fast-ws') ? 'fast-ws' : false) });
  const h = fastWsHandlers<WebSocket>(setup);
  const sockets = new Set<WebSocket>();
  const protocols: string[] = [];
  wss.on('connection', (ws) => {
    sockets.add(ws);
    protocols.push(ws.protocol);
    ws.on('message', (data, isBinary) => h.message(ws, data as Buffer, isBinary));
    ws.on('close', (code, reason) => {
      sockets.delete(ws);
      h.close(ws, code, reason);
    });
    h.open(ws);
  });
  return listen(server, sockets, protocols, () => wss.close());
}

/** A bare `ws` server whose connections get `onConnection` (for misbehaving servers). */
export async function startRawServer(onConnection: (ws: WebSocket) => void): Promise<Server> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    onConnection(ws);
  });
  return listen(server, sockets, [], () => wss.close());
}

async function listen(
  server: http.Server,
  sockets: Set<WebSocket>,
  protocols: string[],
  stop: () => void,
): Promise<Server> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/fast`,
    sockets,
    protocols,
    async close() {
      for (const ws of sockets) ws.terminate();
      stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Resolves with the arguments of the client's next `name` event; rejects after `ms`. */
export function next<K extends keyof FastWsClientEvents>(
  client: FastWsClient,
  name: K,
  ms = 3000,
): Promise<Parameters<FastWsClientEvents[K]>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(name, fn);
      reject(new Error(`no '${name}' within ${ms} ms`));
    }, ms);
    const fn = (...args: never[]) => {
      clearTimeout(timer);
      client.off(name, fn);
      resolve(args as Parameters<FastWsClientEvents[K]>);
    };
    client.on(name, fn as FastWsClientEvents[K]);
  });
}

/** Waits until `cond()` holds, polling every 5 ms, for at most `ms`. */
export async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
