// The logger shape Gale takes (pino's) and the console logger used when an app gives none. No imports: options,
// the request and the WebSocket hub all name it.
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

/**
 * The logger used when the app has none: errors and warnings to stderr, info to stdout.
 *
 * @example
 * import { consoleLogger, gale } from 'gale';
 * const app = gale({ logger: process.env.QUIET ? consoleLogger : undefined });
 * consoleLogger.warn({ port: 3000 }, 'port taken, trying another');
 */
export const consoleLogger: Logger = {
  info: (obj, msg, ...args) => console.log(...consoleArgs(obj, msg, args)),
  warn: (obj, msg, ...args) => console.warn(...consoleArgs(obj, msg, args)),
  error: (obj, msg, ...args) => console.error(...consoleArgs(obj, msg, args)),
  debug: () => {},
  child: () => consoleLogger,
};
