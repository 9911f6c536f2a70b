// Engine.IO server settings and small pieces engine.io has in its Server: the error codes and messages, the options
// with engine.io's defaults, the request query as engine.io parses it.
import type { Request } from '../../request.js';
import type { ServerOptions } from '../types.js';

/** engine.io's error codes (Server.errors) and their messages. */
export const ERRORS = {
  UNKNOWN_TRANSPORT: 0,
  UNKNOWN_SID: 1,
  BAD_HANDSHAKE_METHOD: 2,
  BAD_REQUEST: 3,
  FORBIDDEN: 4,
  UNSUPPORTED_PROTOCOL_VERSION: 5,
} as const;
export const ERROR_MESSAGES = [
  'Transport unknown',
  'Session ID unknown',
  'Bad handshake method',
  'Bad request',
  'Forbidden',
  'Unsupported protocol version',
] as const;

export type Query = Record<string, string>;
export type ErrorContext = Record<string, unknown> & { message?: string | null };
/** A failed check: the code and what engine.io puts in its 'connection_error' context. */
export type Refusal = [code: number, context: ErrorContext];

/** The Engine.IO options, with engine.io's defaults filled in. */
export interface EngineOptions {
  pingInterval: number;
  pingTimeout: number;
  upgradeTimeout: number;
  maxHttpBufferSize: number;
  transports: ('polling' | 'websocket')[];
  allowUpgrades: boolean;
  httpCompression: false | { threshold: number; level?: number };
  perMessageDeflate: boolean;
  initialPacket?: string;
  allowRequest?: ServerOptions['allowRequest'];
  cookie?: { name: string } & Record<string, unknown>;
  maxBackpressure?: number;
}

export function engineOptions(o: ServerOptions): EngineOptions {
  const hc = o.httpCompression ?? true;
  return {
    pingInterval: o.pingInterval ?? 25_000,
    pingTimeout: o.pingTimeout ?? 20_000,
    upgradeTimeout: o.upgradeTimeout ?? 10_000,
    maxHttpBufferSize: o.maxHttpBufferSize ?? 1e6,
    transports: o.transports ?? ['polling', 'websocket'],
    allowUpgrades: o.allowUpgrades ?? true,
    httpCompression: hc === false ? false : { threshold: 1024, ...(hc === true ? {} : hc) },
    perMessageDeflate: o.perMessageDeflate === true,
    initialPacket: o.initialPacket,
    allowRequest: o.allowRequest,
    cookie: o.cookie
      ? { name: 'io', path: '/', httpOnly: true, sameSite: 'lax', ...(o.cookie === true ? {} : o.cookie) }
      : undefined,
    maxBackpressure: o.maxBackpressure,
  };
}

/** The query of a request, parsed once (URLSearchParams, as engine.io: the last of repeated keys wins). */
const queries = new WeakMap<Request, Query>();
export function queryOf(req: Request): Query {
  let q = queries.get(req);
  if (q === undefined) {
    const url = req.originalUrl;
    const at = url.indexOf('?');
    q = at === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1)));
    queries.set(req, q);
  }
  return q;
}
