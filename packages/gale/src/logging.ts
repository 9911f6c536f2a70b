// Logging: the app's `logger` option (pino-compatible), `req.log` / `req.id` (a child logger bound to a
// request id, created on first use) and the per-request completion line. Without a logger nothing
// here allocates per request: `req.log` is the shared console logger.
import { randomUUID } from 'node:crypto';
import type { NativeServer } from './native.js';
import { Request } from './request.js';

/**
 * What Gale needs from a logger: pino's (and most structured loggers') shape.
 *
 * @example
 * import pino from 'pino';
 * const app = gale({ logger: pino() }); // any object with info/warn/error (and child for req.log)
 */
export interface Logger {
  info(obj: unknown, msg?: string, ...args: unknown[]): void;
  warn(obj: unknown, msg?: string, ...args: unknown[]): void;
  error(obj: unknown, msg?: string, ...args: unknown[]): void;
  debug?(obj: unknown, msg?: string, ...args: unknown[]): void;
  /** A logger that adds `bindings` to every line (used for the per-request logger). */
  child?(bindings: Record<string, unknown>): Logger;
}

function consoleArgs(obj: unknown, msg: string | undefined, args: unknown[]): unknown[] {
  if (typeof obj === 'string') return [obj, ...(msg === undefined ? [] : [msg]), ...args];
  return msg === undefined ? ['gale:', obj, ...args] : [msg, obj, ...args];
}

/** The logger used when the app has none: errors and warnings to stderr, info to stdout. */
export const consoleLogger: Logger = {
  info: (obj, msg, ...args) => console.log(...consoleArgs(obj, msg, args)),
  warn: (obj, msg, ...args) => console.warn(...consoleArgs(obj, msg, args)),
  error: (obj, msg, ...args) => console.error(...consoleArgs(obj, msg, args)),
  debug: () => {},
  child: () => consoleLogger,
};

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

interface LoggedRequest extends Request {
  _log?: Logger;
  _reqId?: string;
}

function requestHeader(req: Request, name: string): string | undefined {
  if (req._ended) return req.get(name);
  return req._n.header(req._id, name);
}

/** The id of a request: its valid `X-Request-Id`, else a random UUID. */
function requestId(req: LoggedRequest): string {
  if (req._reqId === undefined) {
    const given = requestHeader(req, 'x-request-id');
    req._reqId = given !== undefined && VALID_ID.test(given) ? given : randomUUID();
  }
  return req._reqId;
}

/** @internal gives `req` its id (the requestId middleware) before `req.id` / `req.log` are first read */
export function assignRequestId(req: Request, id: string): void {
  const r = req as LoggedRequest;
  r._reqId = id;
  r._log = undefined;
}

/** @internal the logger for `req` (a child with `reqId` when the app has a logger) */
export function requestLogger(req: Request): Logger {
  const r = req as LoggedRequest;
  if (r._log !== undefined) return r._log;
  const config = configs.get(req._n);
  if (config === undefined || !config.custom) return consoleLogger;
  const logger = config.logger;
  r._log = logger.child ? logger.child({ reqId: requestId(r) }) : logger;
  return r._log;
}

declare module './request.js' {
  interface Request {
    /**
     * A logger for this request: a child of the app's `logger` bound to `reqId` (the request's valid
     * `X-Request-Id`, else a random UUID), created on first use. Without a `logger` option it logs to
     * the console.
     *
     * @example
     * app.get('/orders/:id', (req) => {
     *   req.log.info({ order: req.params.id }, 'loading order');
     *   return loadOrder(req.params.id);
     * });
     */
    readonly log: Logger;
    /**
     * This request's id: its `X-Request-Id` header when present and valid (up to 128 of
     * `A-Z a-z 0-9 _ . : @ / + = -`), else a random UUID. Created on first use.
     *
     * @example
     * app.get('/', (req, res) => res.header('x-request-id', req.id).send('ok'));
     */
    readonly id: string;
  }
}

Object.defineProperty(Request.prototype, 'log', {
  configurable: true,
  get(this: Request) {
    return requestLogger(this);
  },
});
Object.defineProperty(Request.prototype, 'id', {
  configurable: true,
  get(this: Request) {
    return requestId(this as LoggedRequest);
  },
});

/** @internal reads what the completion line needs while the request record is still live */
export function primeRequestLog(req: Request): void {
  requestLogger(req);
  void req.method;
  void req.url;
}

/** @internal the one line per request: method, url, status, duration */
export function logRequestDone(req: Request, statusCode: number, t0: number, aborted: boolean): void {
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
