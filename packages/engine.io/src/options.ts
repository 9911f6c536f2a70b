// Engine.IO server settings and small pieces engine.io has in its Server: the error codes and messages, the options
// with engine.io's defaults (and a clear refusal of those Gale does not offer), the request query as engine.io parses it.
import { randomBytes } from 'node:crypto';
import type { EngineRequest } from './node-http.js';
import type { ServerOptions, TransportName } from './types.js';

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
  httpRequestBodyTimeout: number;
  transports: TransportName[];
  allowUpgrades: boolean;
  httpCompression: false | { threshold: number; level?: number };
  perMessageDeflate: boolean;
  /** permessage-deflate settings for the `ws` library on node:http servers (false: off). */
  perMessageDeflateOptions: false | Record<string, unknown>;
  initialPacket?: string;
  allowRequest?: ServerOptions['allowRequest'];
  cookie?: { name: string } & Record<string, unknown>;
  maxBackpressure?: number;
  /** A WebSocket server class for node:http upgrades, instead of ws's. */
  wsEngine?: unknown;
}

const TRANSPORTS: readonly string[] = ['polling', 'websocket', 'webtransport'];

/** `what` must be a number of ms (or bytes) ≥ `min`, when given. */
function checkNumber(o: ServerOptions, what: keyof ServerOptions, min: number): void {
  const v = o[what];
  if (v !== undefined && (typeof v !== 'number' || !(v >= min))) {
    throw new TypeError(`@gale-http/engine.io: ${what} must be a number >= ${min} (got ${String(v)})`);
  }
}

/** engine.io's defaults under `o`; options Gale cannot honour are refused here, with the reason. */
export function engineOptions(o: ServerOptions): EngineOptions {
  if (o.allowEIO3) throw new Error('@gale-http/engine.io: allowEIO3 is not supported (Engine.IO v3 clients)');
  for (const what of ['pingInterval', 'pingTimeout', 'upgradeTimeout'] as const) checkNumber(o, what, 1);
  checkNumber(o, 'maxHttpBufferSize', 0);
  checkNumber(o, 'httpRequestBodyTimeout', 1);
  const transports = o.transports ?? ['polling', 'websocket'];
  if (!Array.isArray(transports) || transports.length === 0) {
    throw new TypeError('@gale-http/engine.io: transports must list at least one of polling, websocket, webtransport');
  }
  for (const t of transports as string[]) {
    if (!TRANSPORTS.includes(t))
      throw new TypeError(`@gale-http/engine.io: unknown transport "${t}" (polling, websocket, webtransport)`);
  }
  const hc = o.httpCompression ?? true;
  return {
    pingInterval: o.pingInterval ?? 25_000,
    pingTimeout: o.pingTimeout ?? 20_000,
    upgradeTimeout: o.upgradeTimeout ?? 10_000,
    maxHttpBufferSize: o.maxHttpBufferSize ?? 1e6,
    httpRequestBodyTimeout: o.httpRequestBodyTimeout ?? 30_000,
    transports,
    allowUpgrades: o.allowUpgrades ?? true,
    httpCompression: hc === false ? false : { threshold: 1024, ...(hc === true ? {} : hc) },
    perMessageDeflate: o.perMessageDeflate !== undefined && o.perMessageDeflate !== false,
    perMessageDeflateOptions:
      o.perMessageDeflate === undefined || o.perMessageDeflate === false
        ? false
        : o.perMessageDeflate === true
          ? {}
          : o.perMessageDeflate,
    initialPacket: o.initialPacket,
    allowRequest: o.allowRequest,
    cookie: o.cookie
      ? { name: 'io', path: '/', httpOnly: true, sameSite: 'lax', ...(o.cookie === true ? {} : o.cookie) }
      : undefined,
    maxBackpressure: o.maxBackpressure,
    wsEngine: o.wsEngine,
  };
}

/** A random id as engine.io's base64id makes them: 15 random bytes, base64url (20 characters). */
export function randomId(): string {
  return randomBytes(15).toString('base64url');
}

/** The query of a request, parsed once (URLSearchParams, as engine.io: the last of repeated keys wins). */
const queries = new WeakMap<EngineRequest, Query>();
export function queryOf(req: EngineRequest): Query {
  let q = queries.get(req);
  if (q === undefined) {
    const url = req.originalUrl;
    const at = url.indexOf('?');
    q = at === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1)));
    queries.set(req, q);
  }
  return q;
}
