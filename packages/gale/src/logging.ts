// Logging: the app's `logger` option (pino-compatible), `req.log` / `req.id` (a child logger bound to a
// request id, created on first use) and the per-request completion line. Without a logger nothing
// here allocates per request: `req.log` is the shared console logger.
import { randomUUID } from 'node:crypto';
import { consoleLogger, type Logger } from './logger.js';
import type { NativeServer } from './native.js';

export { consoleLogger, type Logger } from './logger.js';

/** What logging reads of a request (request.ts's Request has all of it; typed here so this file stays below it). */
export interface LoggedRequest {
  readonly _n: NativeServer;
  readonly _id: number;
  readonly _ended: boolean;
  readonly method: string;
  readonly url: string;
  get(name: string): string | undefined;
  /** @internal the per-request logger, once made */
  _log?: Logger;
  /** @internal the request id, once known */
  _reqId?: string;
}

/** @internal how one app logs */
export interface LogConfig {
  logger: Logger;
  /** A logger was given (so requests get ids and child loggers). */
  custom: boolean;
  /** Log one line per finished request. */
  requests: boolean;
}

const configs = new WeakMap<object, LogConfig>();

/** @internal */
export function configureLogging(n: NativeServer, config: LogConfig): void {
  configs.set(n, config);
}

/** A request id from a client or proxy is used only if it looks like one (no spaces, quotes or controls). */
export const VALID_ID = /^[\w.:@/+=-]{1,128}$/;

function requestHeader(req: LoggedRequest, name: string): string | undefined {
  if (req._ended) return req.get(name);
  return req._n.header(req._id, name);
}

/** The id of a request: its valid `X-Request-Id`, else a random UUID (`req.id`). */
export function requestId(req: LoggedRequest): string {
  if (req._reqId === undefined) {
    const given = requestHeader(req, 'x-request-id');
    req._reqId = given !== undefined && VALID_ID.test(given) ? given : randomUUID();
  }
  return req._reqId;
}

/** @internal gives `req` its id (the requestId middleware) before `req.id` / `req.log` are first read */
export function assignRequestId(req: LoggedRequest, id: string): void {
  req._reqId = id;
  req._log = undefined;
}

/** @internal the logger for `req` (a child with `reqId` when the app has a logger) */
export function requestLogger(req: LoggedRequest): Logger {
  if (req._log !== undefined) return req._log;
  const config = configs.get(req._n);
  if (config === undefined || !config.custom) return consoleLogger;
  const logger = config.logger;
  req._log = logger.child ? logger.child({ reqId: requestId(req) }) : logger;
  return req._log;
}

/** @internal reads what the completion line needs while the request record is still live */
export function primeRequestLog(req: LoggedRequest): void {
  requestLogger(req);
  void req.method;
  void req.url;
}

/** @internal the one line per request: method, url, status, duration */
export function logRequestDone(req: LoggedRequest, statusCode: number, t0: number, aborted: boolean): void {
  const responseTime = Math.round((performance.now() - t0) * 1000) / 1000;
  let method: string | undefined;
  let url: string | undefined;
  try {
    method = req.method;
    url = req.url;
  } catch {
    // read too late (never primed): log what is known
  }
  const line = { req: { method, url }, res: { statusCode }, responseTime };
  if (aborted) requestLogger(req).warn(line, 'request aborted');
  else requestLogger(req).info(line, 'request completed');
}
