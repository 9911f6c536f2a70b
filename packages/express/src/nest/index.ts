/**
 * `@gale-http/express/nest`: NestJS on Gale's engine. `GaleExpressAdapter` is Nest's ExpressAdapter with the app
 * served by the engine; WebSocket gateways take GaleWsAdapter (`@gale-http/express/nest/ws`) or GaleIoAdapter
 * (`@gale-http/express/nest/socket.io`). Needs `@nestjs/core`, `@nestjs/common` and `@nestjs/platform-express` 12.
 *
 * @example
 * import { NestFactory } from '@nestjs/core';
 * import { GaleExpressAdapter } from '@gale-http/express/nest';
 * import { AppModule } from './app.module.js';
 *
 * const app = await NestFactory.create(AppModule, new GaleExpressAdapter());
 * await app.listen(3000);
 *
 * @module @gale-http/express/nest
 */
export { GaleExpressAdapter } from './adapter.js';
export { GaleHttpServer, type GaleHttpServerOptions, GaleHttpsServer } from './server.js';
