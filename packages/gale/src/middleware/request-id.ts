// Request ids: the id Gale's logging already gives each request (`req.id`, `reqId` on `req.log` lines: a valid
// incoming X-Request-Id or a random UUID), read from a header of your choice, made by your generator, and echoed on
// the response. Only logging.ts's id is used, so logs and the header always agree.
import { randomUUID } from 'node:crypto';
import type { Middleware } from '../chain.js';
import { assignRequestId, VALID_ID } from '../logging.js';
import type { Request } from '../request/request.js';

/**
 * Options of `requestId()`.
 *
 * @example
 * app.use(requestId({ header: 'x-correlation-id', generator: () => crypto.randomUUID() }));
 */
export interface RequestIdOptions {
  /** Header read from the request and written on the response. Default `'X-Request-Id'`. */
  header?: string;
  /** Use the incoming header's id when it is valid (up to 128 of `A-Z a-z 0-9 _ . : @ / + = -`). Default true. */
  trustIncoming?: boolean;
  /** Makes a new id. Default: `crypto.randomUUID()`. */
  generator?: (req: Request) => string;
  /** Echo the id on the response. Default true. */
  setHeader?: boolean;
}

/**
 * Gives every request an id (`req.id`, and `reqId` on `req.log` lines) and echoes it in a response header. Without
 * this middleware `req.id` exists too (from `X-Request-Id`), created on first use and not echoed.
 *
 * @example
 * app.use(requestId());                                  // X-Request-Id in and out
 * app.use(requestId({ header: 'X-Correlation-Id', generator: () => nanoid() }));
 * app.get('/', (req) => ({ id: req.id }));
 */
export function requestId(options: RequestIdOptions = {}): Middleware {
  const header = options.header ?? 'X-Request-Id';
  const lower = header.toLowerCase();
  const trust = options.trustIncoming !== false;
  const generate = options.generator ?? (() => randomUUID());
  const echo = options.setHeader !== false;
  return (req, res, next) => {
    const given = trust ? req.get(lower) : undefined;
    const id = given !== undefined && VALID_ID.test(given) ? given : generate(req);
    assignRequestId(req, id);
    if (echo) res.header(header, id);
    return next();
  };
}
