// Public entry of the `gale` package: named exports only, and the `gale()` factory assembled here (so no module
// below has to import the others just to hang them on it).
/**
 * The `gale` package, the core: the app (`gale()`), routers, request and response, WebSockets, fetch handlers,
 * static files, the batteries and the error types. Express, Socket.IO, Engine.IO, fast-ws and scale-out are
 * packages of their own (`@gale-http/express`, `@gale-http/socket.io`, `@gale-http/engine.io`, `@gale-http/fast-ws`,
 * `@gale-http/cluster`).
 *
 * @example
 * import { gale } from 'gale';
 * const app = gale();
 * app.get('/hello/:name', (req) => `Hello ${req.params.name}`);
 * await app.listen(3000);
 *
 * @module gale
 */

import { App } from './app.js';
import { serveStatic } from './app-routes.js';
import { serve } from './fetch/serve.js';
import { movedError, movedFunction } from './moved.js';
import type { GaleOptions } from './options.js';
import { router } from './router.js';

export { App } from './app.js';
export { serveStatic } from './app-routes.js';
export type { ErrorHandler, Handler, Middleware, Next, NodeMiddleware } from './chain.js';
export { derive } from './derive.js';
export type { HttpErrorOptions, RequestPart, ValidationIssue, ValidationProblem } from './errors.js';
export { ErrorCodes, GaleError, HttpError, VALIDATION_PROBLEM_TYPE, ValidationError } from './errors.js';
export type { Fetchable, FetchErrorHandler, FetchHandler } from './fetch/handler.js';
export { FetchInfo } from './fetch/handler.js';
export type { FetchMountOptions } from './fetch/mount.js';
export { installFetchGlobals, toHandler } from './fetch/mount.js';
export type { FetchServer, ServeOptions } from './fetch/serve.js';
export { serve } from './fetch/serve.js';
export type { HookMap, HookName } from './hooks.js';
export { escapeHtml, html, raw, SafeHtml } from './html.js';
export type { Logger } from './logging.js';
export { consoleLogger } from './logging.js';
export * from './middleware/index.js';
export type {
  MultipartField,
  MultipartFile,
  MultipartLimits,
  MultipartOptions,
  MultipartPart,
} from './multipart.js';
export type { SocketView } from './node-socket.js';
export type { OpenApiDocument, OpenApiOptions } from './openapi.js';
export { type OpenApiUiOptions, openApiUi } from './openapi-ui.js';
export type {
  AddressInfo,
  ByteSize,
  CompressionOptions,
  FixedResponse,
  GaleOptions,
  HeaderValue,
  JsonOptions,
  ListenCallback,
  ListenOptions,
  QueryOptions,
  ServerStats,
  StaticOptions,
  TextOptions,
  UrlencodedOptions,
} from './options.js';
export type { Plugin, PluginInstance, RegisterOptions } from './plugins.js';
export { definePlugin } from './plugins.js';
export type { ErrorFormat, ProblemDocument } from './problem.js';
export type {
  AnyParams,
  BodyOf,
  ChunksOptions,
  Headers,
  HeadersOf,
  Lazy,
  QueryOf,
  RequestBodyReaders,
  RequestHelpers,
  RequestInput,
  RequestView,
} from './request/api.js';
export type { ParsedQuery, Query, Register, SimpleQuery } from './request/config.js';
export { Request } from './request/request.js';
export type {
  CookieOptions,
  DownloadOptions,
  FormatHandler,
  ResponseFiles,
  ResponseHeaders,
  ResponseHelpers,
  ResponseHost,
  ResponseView,
} from './response/api.js';
export { entityTag } from './response/etag.js';
export { Response } from './response/response.js';
export type { AnyBody, BodyAt, HandlerReturn, ResponseBodyOf, ResponsesOf, TypedResponse } from './response/types.js';
export type { RouteParams } from './route-params.js';
export type {
  AddRoute,
  InputOf,
  MountableRouter,
  MountedRoutes,
  ParamsOf,
  Rebuild,
  ResponseSchema,
  RouteEntry,
  RouteMethod,
  RouterKind,
  RouteSchema,
  RoutesOf,
  StateFrom,
  StateMiddleware,
  StatusRange,
  WsRouteMethod,
} from './route-types.js';
export type { StaticMount } from './router.js';
export { Router, router } from './router.js';
export type { Relay, ScaleHooks } from './scale-hooks.js';
export { scaleHooks } from './scale-hooks.js';
export type { SseMessage, SseOptions } from './sse.js';
export { SseStream } from './sse.js';
export type { InferOutput, StandardJSONSchemaV1, StandardSchemaV1 } from './standard-schema.js';
export type { StreamSource } from './stream.js';
export type {
  Http2Options,
  Http3Options,
  PemSource,
  TlsCertificate,
  TlsOptions,
  WebTransportLimits,
} from './tls.js';
export type { RequestTrace } from './tracing.js';
export { TRACING_CHANNELS } from './tracing.js';
export type { ViewEngine } from './views.js';
export type { DatagramStatus, WebTransportStream } from './webtransport.js';
export {
  WebTransportBidiStream,
  WebTransportReceiveStream,
  WebTransportSendStream,
  WebTransportSession,
  WebTransportStreamError,
} from './webtransport.js';
export type { WebTransportBehavior } from './webtransport-route.js';
export type { PublishOptions, SendOptions, SendStatus, WsData } from './ws.js';
export { WebSocket } from './ws.js';
export type { WsBehavior, WsConnectionHandler } from './ws-route.js';

/**
 * Creates a Gale application; `gale.router()`, `gale.serveStatic()` and `gale.serve()` are the functions of the
 * same names.
 *
 * @example
 * const app = gale({ bodyLimit: 64 * 1024 });
 * app.get('/json', () => ({ hello: 'world' }));
 * await app.listen(3000);
 */
export const gale: ((options?: GaleOptions) => App) & {
  router: typeof router;
  serveStatic: typeof serveStatic;
  serve: typeof serve;
  /** Moved to @gale-http/cluster: reading it throws GALE_ERR_MOVED saying what to install. */
  readonly cluster: never;
} = Object.defineProperty(
  Object.assign((options?: GaleOptions) => new App(options), { router, serveStatic, serve }),
  'cluster',
  {
    get(): never {
      throw movedError('gale.cluster', '@gale-http/cluster', "import { cluster } from '@gale-http/cluster'");
    },
  },
) as never;

// Names that moved to packages of their own: stand-ins that throw GALE_ERR_MOVED when called, so an old import
// still loads and the first call says what to install.
const CLUSTER = '@gale-http/cluster';
const FAST_WS = '@gale-http/fast-ws';
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { cluster } from '@gale-http/cluster';
 * cluster('./server.mjs', { workers: 'auto' });
 */
export const cluster = movedFunction('cluster()', CLUSTER, "import { cluster } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { pubsub } from '@gale-http/cluster';
 * pubsub(app, { redis: 'redis://127.0.0.1:6379' });
 */
export const pubsub = movedFunction('pubsub()', CLUSTER, "import { pubsub } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { pubsubOf } from '@gale-http/cluster';
 * const bus = pubsubOf(app); // the app's bus, or undefined
 */
export const pubsubOf = movedFunction('pubsubOf()', CLUSTER, "import { pubsubOf } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { health } from '@gale-http/cluster';
 * health(app, { check: () => db.isConnected() || 'database down' });
 */
export const health = movedFunction('health()', CLUSTER, "import { health } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { onShutdown } from '@gale-http/cluster';
 * onShutdown(() => io.close());
 */
export const onShutdown = movedFunction('onShutdown()', CLUSTER, "import { onShutdown } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/cluster (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { PubSub } from '@gale-http/cluster';
 */
export const PubSub = movedFunction('PubSub', CLUSTER, "import { PubSub } from '@gale-http/cluster'");
/**
 * Moved to @gale-http/fast-ws (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { fastWsHandlers } from '@gale-http/fast-ws';
 */
export const fastWsHandlers = movedFunction(
  'fastWsHandlers()',
  FAST_WS,
  "import { fastWsHandlers } from '@gale-http/fast-ws'",
);
/**
 * Moved to @gale-http/fast-ws (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { FastWsConnection } from '@gale-http/fast-ws';
 */
export const FastWsConnection = movedFunction(
  'FastWsConnection',
  FAST_WS,
  "import { FastWsConnection } from '@gale-http/fast-ws'",
);
/**
 * Moved to @gale-http/fast-ws (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { eventId } from '@gale-http/fast-ws';
 */
export const eventId = movedFunction('eventId()', FAST_WS, "import { eventId } from '@gale-http/fast-ws'");
/**
 * Moved to @gale-http/fast-ws (throws GALE_ERR_MOVED). Import it from there:
 *
 * @example
 * import { serverEventFrame } from '@gale-http/fast-ws';
 */
export const serverEventFrame = movedFunction(
  'serverEventFrame()',
  FAST_WS,
  "import { serverEventFrame } from '@gale-http/fast-ws'",
);
