// The request head as the engine hands it over, made into what Request exposes: node:http's headers objects (joined,
// distinct, raw lines) from the engine's flat lists, the peer, and the head fields filled from what was copied
// before the engine let go of the record (a `KeptHead`, native.ts says its layout): requests read after the response.
import { ErrorCodes, HttpError } from '../errors.js';
import type { KeptHead, KeptRequest, NativeServer } from '../native.js';
import { NullObject } from '../null-object.js';
import type { Headers } from './api.js';

/** The fields of a Request that hold its head and peer, read from the engine on first use (request.ts). */
export interface HeadFields {
  readonly _n: NativeServer;
  readonly _id: number;
  _method: string | undefined;
  _url: string | undefined;
  _headers: Headers | undefined;
  _version: number | undefined;
  _ip: string | undefined;
  _rport: number | undefined;
  _tls: boolean | undefined;
  _kept: KeptHead | undefined;
  _ended: boolean;
  /** The engine said the request has neither If-None-Match nor If-Modified-Since. */
  readonly _noValidators: boolean;
  readonly url: string;
  readonly headers: unknown;
  readonly httpVersion: string;
}

/**
 * Headers of which node:http keeps the first when a request repeats them (its IncomingMessage's rules): a second
 * Content-Type or Authorization is ignored rather than joined into a value no parser expects.
 */
const FIRST_WINS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

/**
 * The headers object of a flat `[name, value, …]` list (names lower-cased by the engine), as node:http builds it:
 * set-cookie is an array, a repeated Cookie is joined with '; ', the FIRST_WINS headers keep their first value, the
 * others are joined with ', '.
 */
export function headersOf(flat: string[]): Headers {
  const h = new NullObject<Headers>();
  for (let i = 0; i < flat.length; i += 2) {
    const k = flat[i] as string;
    const v = flat[i + 1] as string;
    const prev = h[k];
    if (prev === undefined) h[k] = k === 'set-cookie' ? [v] : v;
    else if (Array.isArray(prev)) prev.push(v);
    else if (k === 'cookie') h[k] = `${prev}; ${v}`;
    else if (!FIRST_WINS.has(k)) h[k] = `${prev}, ${v}`;
  }
  return h;
}

/** Every header as a list of its values, in arrival order (node:http's `headersDistinct`). */
export function distinctOf(raw: string[]): Record<string, string[]> {
  const h = new NullObject<Record<string, string[]>>();
  for (let i = 0; i < raw.length; i += 2) {
    const k = (raw[i] as string).toLowerCase();
    const v = raw[i + 1] as string;
    const list = h[k];
    if (list === undefined) h[k] = [v];
    else list.push(v);
  }
  return h;
}

/** `req.rawHeaders`: the header lines of the head, copied now or kept before the engine let go. */
export function rawHeadersOf(req: HeadFields): string[] {
  const k = (req._ended ? undefined : req._n.keep(req._id)) ?? req._kept;
  if (k === undefined) gone('rawHeaders');
  return headerLines(keptHead(k));
}

/** The header lines of a request head (Latin-1 text) as `[Name, value, …]`, names as the client wrote them. */
function headerLines(head: string): string[] {
  const out: string[] = [];
  const lines = head.split('\r\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

/** The head part of a `KeptHead` (native.ts says its layout). */
function keptHead(k: KeptHead): string {
  const kind = k[2];
  return k.slice(kind === '4' || kind === 'm' ? 9 : kind === 't' ? k.indexOf('\n') + 1 : 3);
}

/** The peer a `KeptHead` holds: address and port, or `''` and undefined when the connection was gone. */
function keptPeer(k: KeptHead): [address: string, port: number | undefined] {
  const kind = k[2];
  if (kind === '4' || kind === 'm') {
    const ip = `${k.charCodeAt(3)}.${k.charCodeAt(4)}.${k.charCodeAt(5)}.${k.charCodeAt(6)}`;
    return [kind === 'm' ? `::ffff:${ip}` : ip, k.charCodeAt(7) * 256 + k.charCodeAt(8)];
  }
  if (kind === 't') {
    const space = k.indexOf(' ');
    return [k.slice(space + 1, k.indexOf('\n')), Number(k.slice(3, space))];
  }
  return ['', undefined];
}

const isValidator = (name: string): boolean => name === 'if-none-match' || name === 'if-modified-since';

/**
 * `Request._lacks`: true when neither header is present, asked of the engine one name at a time instead of copying
 * every header into JS; false when unsure (the response ended: the caller reads `headers`, which has the answer).
 */
export function lacks(req: HeadFields, a: string, b: string): boolean {
  const h = req._headers;
  if (h !== undefined) return h[a] === undefined && h[b] === undefined;
  if (req._noValidators && isValidator(a) && isValidator(b)) return true;
  if (req._kept !== undefined || req._ended) return false;
  return req._n.header(req._id, a) === undefined && req._n.header(req._id, b) === undefined;
}

/**
 * `Request._keep`: a cheap `_snapshot` for when reads may go on after the response (nothing can know when they stop: a
 * timer, an audit log): one crossing copies the head's bytes and the peer, and a field never read before the engine
 * lets go of the record is parsed from them on first read, instead of every field being copied out at every
 * response. A whole response's end (`Response.finish`) gets the same copy from the engine's `end` instead.
 */
export function keep(req: HeadFields): void {
  if (req._ended || req._kept !== undefined) return;
  // Undefined: the engine let go already; a later read of a field never read gets the documented error.
  req._kept = req._n.keep(req._id);
}

/** `Request._snapshot`: copies everything JS may still read before the engine lets go of the request. */
export function snapshot(req: HeadFields): void {
  if (req._ended) return;
  // Asked even when the method came with the request: undefined means the engine already let go of the record (the
  // client left while the handler was still writing): there is nothing left to copy, and ending must not throw.
  const m = req._n.method(req._id);
  if (m === undefined) {
    req._ended = true;
    return;
  }
  if (req._method === undefined) req._method = m;
  void req.url;
  void req.headers;
  void req.httpVersion;
  if (req._ip === undefined) readRemote(req);
  req._ended = true;
}

/** Reads the socket's peer (address, port, TLS) from the engine, or from the kept copy once it let go. */
export function readRemote(req: HeadFields): void {
  const r = req._n.remote(req._id);
  // undefined: the engine let go of the request (null: it is known, but its connection is gone).
  if (r === undefined) {
    fillLost(req, 'remoteAddress');
    return;
  }
  req._ip = r?.[0] ?? '';
  req._rport = r?.[1];
  req._tls = r?.[3] === true;
}

/** A field the engine no longer has: filled (with every field not read yet) from what `_keep` copied, else the error. */
export function fillLost(req: HeadFields, what: string): void {
  const k = req._kept;
  if (k === undefined) gone(what);
  // Kept on: rawHeaders (and headersDistinct) are made from it, not from what is parsed here.
  const p = req._n.parseKept(keptHead(k));
  if (p === undefined) gone(what);
  if (req._method === undefined) req._method = p[0];
  if (req._url === undefined) req._url = p[1];
  if (req._headers === undefined) req._headers = headersOf(p[2]);
  if (req._version === undefined) req._version = k.charCodeAt(0) - 48;
  if (req._ip === undefined) {
    [req._ip, req._rport] = keptPeer(k);
    req._tls = k[1] === '1';
  }
}

/** `Request._restore`: every field a snapshot holds, from a WebSocket's kept upgrade request (`wsRequest`). */
export function restoreKept(req: HeadFields, parts: KeptRequest): void {
  req._method = parts[0];
  req._url = parts[1];
  req._version = parts[2];
  req._headers = headersOf(parts[3]);
  const r = parts[4];
  req._ip = r[0];
  req._rport = r[1];
  req._tls = r[3];
  req._ended = true;
}

/**
 * A field the engine no longer has and no copy holds. Every response's end keeps a copy (docs/guides/
 * requests-and-responses.md, "Requests after the response"), and a client leaving copies every field, so this is
 * what is left: an engine that let go before any of those ran.
 */
export function gone(what: string): never {
  throw new HttpError(
    500,
    `req.${what} was read after the response ended, in a later event-loop turn, and was never read before: ` +
      'read it before (or in the same turn as) sending the response',
    { code: ErrorCodes.REQUEST_ENDED },
  );
}
