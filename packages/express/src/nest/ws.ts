// GaleWsAdapter: Nest's WsAdapter (@nestjs/platform-ws) on Gale's engine. WsAdapter hands the `ws` library the http
// server's 'upgrade' events, which the engine does not emit (it does the WebSocket protocol itself), so the gateways'
// servers here are routes of the engine's app.ws() on each Gale app the GaleHttpServer listens with (or on a Gale app
// of their own for a gateway with a port). The message protocol is WsAdapter's: `{ event, data }` JSON in, the
// handler's result as JSON out, its messageParser option and setMessageParser(). A client is Gale's WebSocket (the
// `ws` library's send, close, terminate, readyState, on/once/off('message' | 'close' | 'error')).
import { EventEmitter } from 'node:events';
import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { type App, gale, HttpError, type WebSocket, type WsBehavior } from 'gale';
import { GaleHttpServer } from './server.js';
import { unsupported } from './tls.js';

/**
 * The engine's per-route WebSocket settings a GaleWsAdapter may set for all its gateways.
 *
 * @example
 * const settings: GaleWsSettings = { idleTimeout: 60, maxBackpressure: 1024 * 1024 };
 * app.useWebSocketAdapter(new GaleWsAdapter(app, { websocket: settings }));
 */
export type GaleWsSettings = Pick<
  WsBehavior,
  'idleTimeout' | 'sendPings' | 'maxBackpressure' | 'closeOnBackpressureLimit' | 'compressionLevel'
>;

/**
 * Options of GaleWsAdapter: WsAdapter's, and the engine's WebSocket settings.
 *
 * @example
 * app.useWebSocketAdapter(
 *   new GaleWsAdapter(app, { messageParser: (data) => JSON.parse(data.toString()), websocket: { idleTimeout: 0 } }),
 * );
 */
export interface GaleWsAdapterOptions {
  /** As WsAdapter's: turns a message into `{ event, data }` (default: JSON.parse). */
  messageParser?: NonNullable<ConstructorParameters<typeof WsAdapter>[1]>['messageParser'];
  /**
   * The engine's settings for the gateways' sockets. By default a quiet socket is pinged and one that answers no
   * ping for 120 s is closed (`idleTimeout: 120`); `idleTimeout: 0` keeps quiet sockets forever, as `ws` does.
   */
  websocket?: GaleWsSettings;
}

type Observe = {
  subscribe(o: { next(v: unknown): void; error(e: unknown): void; complete(): void }): { unsubscribe(): void };
};

/** Nest's normalizePath (@nestjs/common): '/' for none, one leading slash, no trailing one. */
function normalizePath(path: string | undefined): string {
  return path ? `/${path.replace(/\/+$/, '')}`.replace(/\/+/g, '/') : '/';
}

/** `ws` server options that the engine cannot honour, with what to do. */
const REFUSED: Record<string, string> = {
  autoPong: 'the engine always answers pings',
  WebSocket: 'the clients are Gale’s WebSocket objects',
  skipUTF8Validation: 'the engine always checks that text messages are UTF-8',
};

/**
 * A gateway's server: what Nest's WebSocketsController and the gateway's @WebSocketServer() see.
 *
 * @example
 * // In a @WebSocketGateway() class, under @WebSocketServer():
 * declare const server: GaleWsServer;
 * for (const client of server.clients ?? []) client.send(JSON.stringify({ event: 'tick', data: Date.now() }));
 */
export class GaleWsServer extends EventEmitter {
  /** The path the gateway serves (`@WebSocketGateway({ path })`, '/' by default), as `ws` servers have it. */
  readonly path: string;
  /** The open clients (unless `clientTracking: false`), as `ws`'s WebSocketServer keeps them. */
  readonly clients: Set<WebSocket> | undefined;
  private readonly behavior: WsBehavior;
  private closed = false;
  private readonly unhooks: (() => void)[] = [];

  /** @internal */
  constructor(path: string, options: Record<string, unknown>, settings: GaleWsSettings | undefined) {
    super();
    this.path = path;
    for (const [name, value] of Object.entries(options)) {
      const why = Object.hasOwn(REFUSED, name) ? REFUSED[name] : undefined;
      if (why !== undefined && value !== undefined && !(name === 'autoPong' && value === true)) {
        throw unsupported(
          `the gateway option ${name}`,
          `${why}; leave it out, or use WsAdapter of @nestjs/platform-ws`,
        );
      }
    }
    this.clients = options.clientTracking === false ? undefined : new Set();
    const deflate = options.perMessageDeflate as boolean | { threshold?: number } | undefined;
    const verify = options.verifyClient as VerifyClient | undefined;
    const handleProtocols = options.handleProtocols as
      | ((offered: Set<string>, req: unknown) => string | false)
      | undefined;
    this.behavior = {
      // ws's default maxPayload (100 MiB), not the engine's (1 MiB).
      maxPayloadLength: (options.maxPayload as number | undefined) ?? 100 * 1024 * 1024,
      compression: deflate === undefined || deflate === false ? false : 'shared',
      ...(typeof deflate === 'object' && deflate.threshold !== undefined
        ? { compressionThreshold: deflate.threshold }
        : {}),
      ...settings,
      ...(verify === undefined ? {} : { upgrade: (req) => verifyUpgrade(verify, req) }),
      ...(handleProtocols === undefined
        ? {}
        : { protocols: (offered, req) => handleProtocols(new Set(offered), req) || undefined }),
      open: (ws) => this.open(ws),
      close: (ws) => {
        this.clients?.delete(ws);
      },
    };
  }

  private open(ws: WebSocket): void {
    if (this.closed) {
      ws.close(1001, 'Server closing');
      return;
    }
    this.clients?.add(ws);
    this.emit('connection', ws, ws.req);
  }

  /** @internal serves the gateway on `app` (each Gale app of the GaleHttpServer, or one of its own) */
  serveOn(app: App): void {
    app.ws(this.path, this.behavior);
  }

  /** @internal */
  follow(server: GaleHttpServer): void {
    this.unhooks.push(server.onGaleApp((app) => this.serveOn(app)));
  }

  /** Stops taking connections (the route stays on the engine; new sockets are closed with 1001), then `cb`. */
  close(cb?: (err?: Error) => void): void {
    this.closed = true;
    for (const unhook of this.unhooks.splice(0)) unhook();
    process.nextTick(() => {
      this.emit('close');
      cb?.();
    });
  }
}

type VerifyClient =
  | ((info: { origin: string; secure: boolean; req: unknown }) => boolean)
  | ((
      info: { origin: string; secure: boolean; req: unknown },
      cb: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
    ) => void);

/** `ws`'s verifyClient as the route's upgrade step: a refusal is the status (401 by default) and message it gave. */
function verifyUpgrade(verify: VerifyClient, req: Parameters<NonNullable<WsBehavior['upgrade']>>[0]): unknown {
  const info = { origin: req.get('origin') ?? '', secure: req.secure, req };
  const refuse = (code = 401, message?: string): never => {
    throw new HttpError(code, message ?? undefined);
  };
  if (verify.length >= 2) {
    return new Promise<undefined>((resolve, reject) => {
      (verify as (i: typeof info, cb: (ok: boolean, code?: number, message?: string) => void) => void)(
        info,
        (ok, code, message) => {
          if (ok) resolve(undefined);
          else
            try {
              refuse(code, message);
            } catch (err) {
              reject(err);
            }
        },
      );
    });
  }
  if (!(verify as (i: typeof info) => boolean)(info)) refuse();
  return undefined;
}

/**
 * Nest's WsAdapter on Gale's engine: `app.useWebSocketAdapter(new GaleWsAdapter(app))` for `@WebSocketGateway()`s
 * written for @nestjs/platform-ws. A gateway without a port is served by the app's own server (on its `path`, '/' by
 * default); one with a port by a Gale app listening there. The messages are WsAdapter's (`{ event, data }` JSON). A
 * client is Gale's WebSocket (send, close, terminate, readyState, on('message' | 'close')), and a gateway's
 * @WebSocketServer() has `clients` and `path` as `ws`'s server has. `ws` server options the engine cannot honour are
 * refused with an error; `verifyClient`, `handleProtocols`, `maxPayload`, `perMessageDeflate` and `clientTracking` are
 * honoured.
 *
 * @example
 * import { GaleExpressAdapter } from '@gale-http/express/nest';
 * import { GaleWsAdapter } from '@gale-http/express/nest/ws';
 *
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter());
 * app.useWebSocketAdapter(new GaleWsAdapter(app));
 * await app.listen(3000);
 */
export class GaleWsAdapter extends WsAdapter {
  private readonly settings: GaleWsSettings | undefined;
  /** Gale apps of the gateways that have a port of their own. */
  private readonly ownPorts = new Map<number, App>();

  constructor(appOrHttpServer?: ConstructorParameters<typeof WsAdapter>[0], options: GaleWsAdapterOptions = {}) {
    super(appOrHttpServer, options.messageParser ? { messageParser: options.messageParser } : undefined);
    this.settings = options.websocket;
  }

  override create(
    port: number,
    options: Record<string, unknown> & { namespace?: string; server?: unknown; path?: string } = {},
  ): GaleWsServer {
    const { server, path, namespace, ...wsOptions } = options;
    if (namespace) {
      const error = new Error(
        '"WsAdapter" does not support namespaces. If you need namespaces in your project, consider using the ' +
          '"@nestjs/platform-socket.io" package instead.',
      );
      this.logger.error(error);
      throw error;
    }
    if (server && port !== 0) return server as GaleWsServer;
    const wsServer = new GaleWsServer(normalizePath(path), wsOptions, this.settings);
    if (port === 0 && this.httpServer !== undefined) {
      if (!(this.httpServer instanceof GaleHttpServer)) {
        throw unsupported(
          'GaleWsAdapter on a server that is not a GaleExpressAdapter’s',
          'use WsAdapter of @nestjs/platform-ws with it, or GaleExpressAdapter for the app',
        );
      }
      wsServer.follow(this.httpServer);
    } else {
      let app = this.ownPorts.get(port);
      if (app === undefined) {
        app = gale({ requestLogging: false });
        const own = app;
        this.ownPorts.set(port, own);
        own.listen(port, (err) => {
          if (err !== undefined) this.logger.error(err);
        });
      }
      wsServer.serveOn(app);
    }
    return this.bindErrorHandler(wsServer);
  }

  override bindMessageHandlers(
    client: WebSocket,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observe,
  ): void {
    const handlersMap = new Map(handlers.map((h) => [h.message as string, h]));
    const live = new Set<{ unsubscribe(): void }>();
    const onMessage = (data: Buffer, isBinary: boolean) => {
      // What `ws` gives WsAdapter: a MessageEvent whose data is the text, or the bytes of a binary message.
      const out = this.bindMessageHandler(
        { data: isBinary ? data : data.toString() },
        handlersMap,
        transform as never,
      ) as unknown as Observe;
      // Subscriptions still running are ended when the client goes (WsAdapter's takeUntil(close$)).
      let sub: { unsubscribe(): void } | undefined;
      let done = false;
      const end = () => {
        done = true;
        if (sub !== undefined) live.delete(sub);
      };
      sub = out.subscribe({
        next: (response) => {
          if (response === undefined || response === null || client.readyState !== 1) return;
          client.send(JSON.stringify(response));
        },
        error: (err) => {
          end();
          this.logger.error(err);
        },
        complete: end,
      });
      if (!done) live.add(sub);
    };
    client.on('message', onMessage);
    client.once('close', () => {
      client.off('message', onMessage);
      for (const sub of live) sub.unsubscribe();
      live.clear();
    });
  }

  override async dispose(): Promise<void> {
    const apps = [...this.ownPorts.values()];
    this.ownPorts.clear();
    await Promise.all(apps.map((app) => app.close()));
    await super.dispose();
  }
}
