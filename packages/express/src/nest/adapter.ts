// GaleExpressAdapter: Nest's ExpressAdapter (@nestjs/platform-express) with the app served on Gale's engine. Everything
// Nest does to the Express app (routes, middleware, body parsers, CORS, static files, the exception layer) is the
// ExpressAdapter's own, on a @gale-http/express app; only the HTTP server differs: where ExpressAdapter makes
// http.createServer(app), this makes a GaleHttpServer (server.ts), whose listen() runs the app on the engine.
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from '../application.js';
import express from '../index.js';
import { GaleHttpServer, GaleHttpsServer } from './server.js';
import { toGaleTls, unsupported } from './tls.js';

/** Whether `app` is an app of @gale-http/express (Express 5 rules), as the adapter needs. */
function checkApp(app: unknown): Application {
  const a = app as Partial<Application>;
  if (typeof app !== 'function' || a._Req === undefined || typeof a.listen !== 'function') {
    throw new TypeError(
      '@gale-http/express/nest: GaleExpressAdapter serves an app made by express() of @gale-http/express (or none: ' +
        "it makes one); this one is not (for Express's own app, use ExpressAdapter of @nestjs/platform-express)",
    );
  }
  if (a._compat !== 5) {
    throw unsupported(
      'an Express 4 app (@gale-http/express/4 or express({ compat: 4 }))',
      "Nest's ExpressAdapter speaks Express 5: make the app with express() of @gale-http/express",
    );
  }
  return a as Application;
}

/**
 * Nest's ExpressAdapter on Gale's engine: `NestFactory.create(AppModule, new GaleExpressAdapter())`, then
 * `app.listen(port[, host])`, `app.getUrl()`, `app.close()` (in-flight requests finish) and
 * `app.enableShutdownHooks()` as with ExpressAdapter. The Express app is @gale-http/express's (pass your own, made by
 * its `express()`, to configure it first). `app.getHttpServer()` is a {@link GaleHttpServer}: what supertest and
 * Nest's own code use of node:http's Server, listening on the engine. `httpsOptions` serve TLS on the engine (PEM key
 * and cert; options the engine cannot honour are refused with an error saying what to do). WebSocket gateways need
 * GaleWsAdapter (`@gale-http/express/nest/ws`) or GaleIoAdapter (`@gale-http/express/nest/socket.io`): the engine
 * emits no 'upgrade' event for Nest's own adapters.
 *
 * @example
 * import { NestFactory } from '@nestjs/core';
 * import { GaleExpressAdapter } from '@gale-http/express/nest';
 * import { AppModule } from './app.module.js';
 *
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter());
 * app.enableShutdownHooks();
 * await app.listen(3000);
 * console.log(await app.getUrl());
 */
export class GaleExpressAdapter extends ExpressAdapter {
  /** `instance`: an app made by `express()` of @gale-http/express (Express 5 rules); by default a new one. */
  constructor(instance?: object) {
    super(instance === undefined ? express() : checkApp(instance));
  }

  /**
   * Makes the HTTP server (Nest calls it once, from NestFactory.create): a GaleHttpServer, with TLS on the engine for
   * `httpsOptions`. ExpressAdapter's own part stays (the 503 of `return503OnClosing`); its node:http server is
   * made but never listens.
   */
  override initHttpServer(options: NestApplicationOptions): void {
    const https = options?.httpsOptions as Record<string, unknown> | undefined;
    const tls = https === undefined || https === null ? undefined : toGaleTls(https);
    super.initHttpServer({ ...options, httpsOptions: undefined, forceCloseConnections: false });
    const Server = tls === undefined ? GaleHttpServer : GaleHttpsServer;
    this.httpServer = new Server(this.getInstance(), {
      listen: tls === undefined ? undefined : { tls },
      forceCloseConnections: options?.forceCloseConnections === true,
    }) as never;
  }

  /** The server of this adapter's app: a {@link GaleHttpServer} (typed as ExpressAdapter's). */
  override getHttpServer(): ReturnType<ExpressAdapter['getHttpServer']> {
    return this.httpServer;
  }
}
