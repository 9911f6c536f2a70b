// Public entry of the `gale` package: named exports only.
/**
 * The `gale` package: the app (`gale()`), routers, request and response, WebSockets, fetch handlers, static files,
 * the batteries and the error types.
 *
 * @example
 * import { gale } from 'gale';
 * const app = gale();
 * app.get('/hello/:name', (req) => `Hello ${req.params.name}`);
 * await app.listen(3000);
 *
 * @module gale
 */
export { App, gale, serveStatic } from './app.js';
export type { ErrorHandler, Handler, Middleware, Next } from './chain.js';
export * from './cluster/index.js';
export type { HttpErrorOptions } from './errors.js';
export { ErrorCodes, GaleError, HttpError } from './errors.js';
export { eventId, serverEventFrame } from './fastws/codec.js';
export type { FastWsConnectionOptions, FastWsEvent, RawSocket } from './fastws/server.js';
export { FastWsConnection, fastWsHandlers } from './fastws/server.js';
export type { Fetchable, FetchErrorHandler, FetchHandler } from './fetch/handler.js';
export { FetchInfo } from './fetch/handler.js';
export type { FetchMountOptions, FetchServer, ServeOptions } from './fetch/serve.js';
export { installFetchGlobals, serve, toHandler } from './fetch/serve.js';
export { escapeHtml, html, raw, SafeHtml } from './html.js';
export type { Logger } from './logging.js';
export * from './middleware/index.js';
export type {
  MultipartField,
  MultipartFile,
  MultipartLimits,
  MultipartOptions,
  MultipartPart,
} from './multipart.js';
export type {
  AddressInfo,
  ByteSize,
  CompressionOptions,
  FixedResponse,
  GaleOptions,
  JsonOptions,
  ListenOptions,
  QueryOptions,
  ServerStats,
  StaticOptions,
  TextOptions,
  UrlencodedOptions,
} from './options.js';
export type { Headers } from './request.js';
export { Request } from './request.js';
export type { Query } from './request-config.js';
export type { CookieOptions, DownloadOptions, FormatHandler, HeaderValue } from './response.js';
export { Response } from './response.js';
export type { StaticMount } from './router.js';
export { Router, router } from './router.js';
export type { SseMessage, SseOptions } from './sse.js';
export { SseStream } from './sse.js';
export type { StreamSource } from './stream.js';
export type { Http2Options, PemSource, TlsCertificate, TlsOptions } from './tls.js';
export type { ViewEngine } from './views.js';
export type { PublishOptions, SendOptions, SendStatus, WsData } from './ws.js';
export { WebSocket } from './ws.js';
export type { FastWsBehavior, WsBehavior, WsConnectionHandler } from './ws-route.js';
