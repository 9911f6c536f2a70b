// Sends a Web `Response` through Gale's response: string/bytes bodies in one native call with Content-Length
// (no stream machinery), streams through stream.ts's pump (backpressure, cancel on disconnect). Used for fetch
// handlers and for Gale handlers that return a Response. Imports Gale's Response as a type only.
import { STATUS_CODES } from 'node:http';
import { CT_NONE } from '../native.js';
import { HeaderEntry } from '../response/api.js';
import { BAD_VALUE, ENGINE_HEADERS, TOKEN } from '../response/headers.js';
import type { Response as GaleResponse } from '../response/response.js';
import { ClientWatch, pump, type StreamSource } from '../stream.js';
import {
  defaultContentType,
  GlobalHeaders,
  GlobalResponse,
  type ResponseParts,
  responseParts,
} from './web-response.js';

/** Blobs up to this size are read whole and sent with Content-Length; larger ones are streamed. */
const BLOB_WHOLE = 1024 * 1024;

interface Head {
  ctype: string | number;
  /** Header lines as the engine takes them ('' for none). */
  lines: string;
  /** The Response's statusText, when it is not the standard reason phrase. */
  reason?: string;
  /** A Content-Length the Response states: a streamed body is framed by it. */
  length?: string;
}

function badHeader(name: string): never {
  throw new TypeError(
    `Response headers: invalid header ${JSON.stringify(name)} (name must be a token; no CR/LF in values)`,
  );
}

function line(head: Head, name: string, value: string): void {
  const lower = name.toLowerCase();
  if (lower === 'content-type') {
    head.ctype = value;
    return;
  }
  if (ENGINE_HEADERS.has(lower)) {
    if (lower === 'content-length') head.length = value;
    return;
  }
  head.lines += `${name}: ${value}\r\n`;
}

/** Header lines from a Headers object (valid by construction; Set-Cookie values come one by one). */
function fromHeaders(head: Head, h: Headers): void {
  for (const [k, v] of h) line(head, k, v);
}

/** Header lines from the init of a cheap Response: a plain object or a list of pairs, checked here. */
function fromInit(head: Head, init: HeadersInit): void {
  if (init instanceof GlobalHeaders) {
    fromHeaders(head, init);
    return;
  }
  if (Array.isArray(init) || typeof (init as unknown as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of init as Iterable<[string, string]>) {
      const [k, v] = pair;
      const value = String(v).trim();
      if (!TOKEN.test(k) || BAD_VALUE.test(value)) badHeader(k);
      line(head, k, value);
    }
    return;
  }
  const o = init as Record<string, string>;
  for (const k in o) {
    const v = o[k];
    const value = typeof v === 'string' ? v : String(v);
    if (BAD_VALUE.test(value)) badHeader(k);
    // The common case (Hono's c.json/c.text/c.html) is a lone Content-Type: no token check needed for it.
    if (k === 'content-type' || k === 'Content-Type') head.ctype = value.trim();
    else {
      if (!TOKEN.test(k)) badHeader(k);
      line(head, k, value.trim());
    }
  }
}

/** Applies status and head to `res` and ends it with `body`. */
function end(res: GaleResponse, status: number, head: Head, body: string | Uint8Array | undefined): void {
  res.statusCode = status;
  if (head.reason !== undefined) res.statusMessage = head.reason;
  // A HEAD answer states the length of the body a GET would get.
  if (head.length !== undefined && body === undefined) res.setHeader('content-length', head.length);
  if (res._headers === undefined && res._onHead === undefined) {
    res.finish(head.ctype === CT_NONE ? res._ctype : head.ctype, body, head.lines === '' ? undefined : head.lines);
    return;
  }
  // Middleware set headers on res (security headers, cookies): merge, the Response's own winning.
  merge(res, head);
  res.finish(head.ctype === CT_NONE ? res._ctype : head.ctype, body);
}

function merge(res: GaleResponse, head: Head): void {
  if (head.ctype !== CT_NONE) res._ctype = head.ctype;
  if (head.lines === '') return;
  const cookies: string[] = [];
  for (const l of head.lines.split('\r\n')) {
    if (l === '') continue;
    const colon = l.indexOf(':');
    const name = l.slice(0, colon);
    const value = l.slice(colon + 2);
    if (name.toLowerCase() === 'set-cookie') cookies.push(value);
    else res.header(name, value);
  }
  if (cookies.length > 0) res.append('set-cookie', cookies);
}

/**
 * Sends `web` as the answer on `res`. Returns undefined when it was sent at once, else a promise that resolves
 * (to undefined) when the body has been sent or the client went away, and rejects with a body error.
 */
export function sendResponse(res: GaleResponse, web: Response, head = false): Promise<void> | undefined {
  if (res.finished) {
    // The client left before the handler answered: release the body, send nothing.
    const body = responseParts(web)?.body ?? web.body;
    if (typeof (body as ReadableStream | null)?.cancel === 'function') (body as ReadableStream).cancel().catch(noop);
    return undefined;
  }
  const parts = responseParts(web);
  if (parts !== undefined) return sendParts(res, parts, head);
  if (web.type === 'error') throw new TypeError('Response.error() is a network error and has no HTTP answer to send');
  const h: Head = { ctype: CT_NONE, lines: '' };
  fromHeaders(h, web.headers);
  reason(h, web.status, web.statusText);
  const body = web.body;
  if (body === null) {
    end(res, web.status, h, undefined);
    return undefined;
  }
  return sendStream(res, web.status, h, body, head);
}

function sendParts(res: GaleResponse, p: ResponseParts, head: boolean): Promise<void> | undefined {
  const h: Head = { ctype: CT_NONE, lines: '' };
  if (p.headers !== undefined) fromInit(h, p.headers);
  if (p.statusText) reason(h, p.status, p.statusText);
  const b = p.body;
  if (h.ctype === CT_NONE) h.ctype = defaultContentType(b) ?? CT_NONE;
  if (b === null || typeof b === 'string' || b instanceof Uint8Array) {
    end(res, p.status, h, b === null ? undefined : b);
    return undefined;
  }
  if (b instanceof ArrayBuffer) {
    end(res, p.status, h, new Uint8Array(b));
    return undefined;
  }
  if (ArrayBuffer.isView(b)) {
    end(res, p.status, h, new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    return undefined;
  }
  if (b instanceof URLSearchParams) {
    end(res, p.status, h, b.toString());
    return undefined;
  }
  if (b instanceof Blob) {
    if (b.size <= BLOB_WHOLE) {
      return b.arrayBuffer().then((ab) => {
        if (!res.finished) end(res, p.status, h, new Uint8Array(ab));
      });
    }
    return sendStream(res, p.status, h, b.stream(), head);
  }
  if (typeof (b as ReadableStream).getReader === 'function') {
    return sendStream(res, p.status, h, b as ReadableStream<Uint8Array>, head);
  }
  // FormData (undici writes the multipart body and its boundary), async iterables, anything else undici takes.
  const real = new GlobalResponse(b as BodyInit, { status: p.status, headers: p.headers });
  return sendResponse(res, real, head);
}

/** Keeps a statusText that is not the standard reason phrase (the engine writes that one itself). */
function reason(h: Head, status: number, text: string): void {
  if (text !== '' && text !== STATUS_CODES[status]) h.reason = text;
}

type Read = ReadableStreamReadResult<Uint8Array>;

/** Resolves undefined unless `p` settles within a few microtask turns (a body that is already complete). */
function soon(p: Promise<Read>): Promise<Read | undefined> {
  let later: Promise<undefined> = Promise.resolve(undefined);
  for (let i = 0; i < 4; i++) later = later.then(() => undefined);
  return Promise.race([p, later]);
}

/**
 * Streams `stream`. A body that turns out to be one chunk (a string or bytes given to undici's Response) goes out
 * whole with Content-Length; otherwise the head goes out with the first chunk and pump() takes over.
 */
async function sendStream(
  res: GaleResponse,
  status: number,
  h: Head,
  stream: ReadableStream<Uint8Array>,
  head: boolean,
): Promise<void> {
  const reader = stream.getReader();
  if (head) {
    // HEAD: the engine would drop the body anyway; never pull (the stream may not end).
    reader.cancel().catch(noop);
    end(res, status, h, undefined);
    return;
  }
  const client = new ClientWatch(res);
  let first: Read | undefined;
  let pending: Promise<Read> | undefined;
  let second: Read | undefined;
  try {
    first = await client.race(reader.read());
    if (first !== undefined && !first.done && !client.gone) {
      pending = reader.read();
      second = await client.race(soon(pending));
      if (second !== undefined) pending = undefined;
    }
  } catch (err) {
    client.stop();
    if (client.gone || res.finished) return;
    throw err;
  }
  client.stop();
  if (client.gone || res.finished || first === undefined) {
    reader.cancel(new Error('client disconnected')).catch(noop);
    return;
  }
  if (first.done) {
    end(res, status, h, undefined);
    return;
  }
  if (second?.done) {
    reader.releaseLock();
    end(res, status, h, first.value);
    return;
  }
  res.statusCode = status;
  if (h.reason !== undefined) res.statusMessage = h.reason;
  // A stated Content-Length frames the stream (the engine never sends more than it says).
  if (h.length !== undefined) res.setHeader('content-length', h.length);
  if (res._headers === undefined && res._onHead === undefined) {
    res._ctype = h.ctype;
    if (h.lines !== '') res._headers = linesToMap(h.lines);
  } else merge(res, h);
  const queued: Uint8Array[] = second === undefined ? [first.value] : [first.value, second.value as Uint8Array];
  const source = {
    getReader: () => ({
      read: (): Promise<Read> => {
        const q = queued.shift();
        if (q !== undefined) return Promise.resolve({ done: false, value: q });
        if (pending !== undefined) {
          const p = pending;
          pending = undefined;
          return p;
        }
        return reader.read();
      },
      cancel: (reason: unknown) => reader.cancel(reason),
      releaseLock: () => reader.releaseLock(),
    }),
  };
  await pump(res, source as unknown as StreamSource);
}

function linesToMap(lines: string): Map<string, HeaderEntry> {
  const m = new Map<string, HeaderEntry>();
  for (const l of lines.split('\r\n')) {
    if (l === '') continue;
    const colon = l.indexOf(':');
    const name = l.slice(0, colon);
    const value = l.slice(colon + 2);
    const lower = name.toLowerCase();
    const prev = m.get(lower);
    if (prev === undefined) m.set(lower, new HeaderEntry(name, value));
    else prev.value = Array.isArray(prev.value) ? [...prev.value, value] : [String(prev.value), value];
  }
  return m;
}

function noop(): void {}
