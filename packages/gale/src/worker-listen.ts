// listen() in a node:cluster worker (pm2's cluster mode, `cluster.fork()`): as node:http does there, the primary owns
// the listening socket and hands each connection to a worker (round robin on Linux); the worker passes the
// connection's descriptor to the engine, which serves it as its own. Imports nothing of the app.
import cluster from 'node:cluster';
import net from 'node:net';
import type { NativeServer } from './native.js';

/** Whether listen() should take its connections from the node:cluster primary. */
export function viaPrimary(options: { exclusive?: boolean; http3?: unknown }, reusePort: boolean): boolean {
  // exclusive (node's option), reusePort (every worker binds, the kernel spreads) and HTTP/3 (UDP, which node's
  // cluster does not share) keep a socket of the worker's own.
  return cluster.isWorker && options.exclusive !== true && !reusePort && options.http3 === undefined;
}

/**
 * Listens on `port` through the primary and hands every connection to the engine `n`. Resolves the address once
 * the primary has the socket (rejecting as node:http does: EADDRINUSE …); `warn` hears a connection the engine
 * could not take (it is closed).
 */
export function listenViaPrimary(
  n: NativeServer,
  port: number,
  host: string,
  warn: (message: string) => void,
): Promise<{ server: net.Server; address: net.AddressInfo }> {
  if (process.platform === 'win32') {
    return Promise.reject(
      new Error(
        'gale: a node:cluster worker on Windows cannot take connections from the primary (there is no descriptor to ' +
          'hand over); listen({ port, exclusive: true }) on a port of its own per worker, or run one process',
      ),
    );
  }
  n.serveAdopted();
  // pauseOnConnect: node reads nothing from the socket, so every byte the client sends is still in the kernel
  // when the engine takes the descriptor.
  const server = net.createServer({ pauseOnConnect: true });
  server.on('connection', (socket: net.Socket) => {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    const problem = typeof fd === 'number' && fd >= 0 ? n.adopt(fd) : 'the connection has no descriptor';
    // node closes its descriptor; the engine has its own copy of the connection.
    socket.destroy();
    if (problem !== undefined) warn(`gale: a connection from the cluster primary was dropped: ${problem}`);
  });
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => reject(err);
    server.once('error', failed);
    server.listen({ port, host }, () => {
      server.off('error', failed);
      resolve({ server, address: server.address() as net.AddressInfo });
    });
  });
}
