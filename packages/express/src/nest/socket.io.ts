// GaleIoAdapter: Nest's IoAdapter (@nestjs/platform-socket.io) with @gale-http/socket.io instead of socket.io, so the
// gateways' Socket.IO (long-polling and WebSocket) runs on Gale's engine beside the app. Gateways without a port share
// the app's server: their Socket.IO server is made at app.init(), before the server listens, and attached to the Gale
// app of every listen (again after a close and a new listen, as supertest does). A gateway with a port gets a Gale
// app of its own listening there, as `new Server(port)` does. Message handling (payloads, acks, `{ event, data }`
// replies, disconnects) is IoAdapter's own.
import { Server } from '@gale-http/socket.io';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { App } from 'gale';
import { GaleHttpServer } from './server.js';

type IoServer = ReturnType<IoAdapter['createIOServer']>;
type IoOptions = Parameters<IoAdapter['createIOServer']>[1];

/** Attaches `io` to the Gale app of each listen of `server`; after a close, to the next app once detached. */
function follow(io: Server, server: GaleHttpServer): void {
  let detaching: Promise<void> | undefined;
  server.onGaleApp((app: App) => {
    const attach = () => {
      if (server.galeApp === app) io.attach(app);
    };
    if (io.httpServer === undefined && detaching === undefined) {
      attach();
      return;
    }
    // Still on the app of the previous listen (closed or closing): io.close() detaches it (and waits for that app).
    detaching ??= io.close().finally(() => {
      detaching = undefined;
    });
    void detaching.then(attach);
  });
}

/**
 * Nest's IoAdapter on Gale's engine: `app.useWebSocketAdapter(new GaleIoAdapter(app))` for gateways written for
 * @nestjs/platform-socket.io. Their Socket.IO server is @gale-http/socket.io's (the socket.io 4 API, rooms on the
 * engine's pub/sub), attached to the app's GaleHttpServer, so socket.io-client connects to the app's port as before.
 *
 * @example
 * import { GaleExpressAdapter } from '@gale-http/express/nest';
 * import { GaleIoAdapter } from '@gale-http/express/nest/socket.io';
 *
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter());
 * app.useWebSocketAdapter(new GaleIoAdapter(app));
 * await app.listen(3000);
 */
export class GaleIoAdapter extends IoAdapter {
  /**
   * The Socket.IO server of the gateways on `port` (0: the app's own server): @gale-http/socket.io's, typed as
   * IoAdapter's.
   */
  override createIOServer(port: number, options?: IoOptions): IoServer {
    const http: unknown = this.httpServer;
    let io: Server;
    if (port === 0 && http instanceof GaleHttpServer) {
      io = new Server(options as never);
      follow(io, http);
    } else if (port === 0 && http !== undefined && http !== null) {
      io = new Server(http as never, options as never);
    } else {
      io = new Server(port, options as never);
    }
    return io as unknown as IoServer;
  }

  /**
   * As IoAdapter's: with `forceCloseConnections`, the Socket.IO server on the app's own server is left to that server's
   * close (which ends every connection at once) rather than closed first, gracefully.
   */
  override async close(server: IoServer): Promise<void> {
    const http: unknown = this.httpServer;
    const on = (server as unknown as { httpServer?: unknown }).httpServer;
    if (this.forceCloseConnections && http instanceof GaleHttpServer && on !== undefined && on === http.galeApp) return;
    return super.close(server);
  }
}
