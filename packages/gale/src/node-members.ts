// The node:http members popular Express middleware touches, on Gale's native Request/Response prototypes: those
// Gale can honour (writeHead as on-headers patches it, removeListener, writableEnded, socket views, req.app) and
// those it cannot, which refuse at once with GALE_ERR_NODE_MIDDLEWARE instead of a TypeError or a silent no-op.
// Prototype members only: nothing here runs unless a middleware touches one of these names.
import { ClientRequest } from 'node:http';
import { nodeOnly, offAbort, onAbort, SocketView } from './node-socket.js';
import type { HeaderValue } from './options.js';
import type { RequestView as Request } from './request/api.js';
import type { ResponseView as Response } from './response/api.js';

/** Own members node middleware puts over the prototype's; removed on refusal so the error answer is Gale's own. */
const PATCHED = ['write', 'end', 'on', 'once', 'writeHead', 'flush'] as const;

/** Refuses `res` for a node:http-only middleware: its patches go, so the app's error answer goes out unchanged. */
function refuse(res: Response, what: string, why: string): never {
  for (const k of PATCHED) if (Object.hasOwn(res, k)) delete (res as unknown as Record<string, unknown>)[k];
  throw nodeOnly(what, why);
}

const STREAMS_WHY =
  'the native Response sends res.send(), res.json() and returned values without going through res.write/res.end, ' +
  'so the body would go out unchanged under the headers the middleware chose';

/**
 * Runs `hook` just before the response's head goes out (after any hook already waiting): `body` is the whole body
 * when the response is sent whole, undefined for streams and files. A hook may return another body to send instead
 * (a whole body only; onSend hooks do), which the hooks after it are given.
 *
 * @example
 * addHeadHook(res, () => res.header('x-took', String(Date.now() - t0)));
 */
export function addHeadHook(
  res: Response,
  // biome-ignore lint/suspicious/noConfusingVoidType: most hooks only set headers and return nothing
  hook: (body?: string | Uint8Array) => string | Uint8Array | undefined | void,
): void {
  const prev = res._onHead;
  res._onHead =
    prev === undefined
      ? hook
      : (body) => {
          const first = prev(body) ?? body;
          return hook(first) ?? first;
        };
}

/** node:http's `writeHead(status[, message][, headers])`: sets what the head will carry (it goes out with the body). */
function writeHead(this: Response, status: number, message?: unknown, headers?: unknown): Response {
  this.status(status);
  if (typeof message === 'string') this.statusMessage = message;
  else headers = message;
  if (Array.isArray(headers)) {
    if (Array.isArray(headers[0])) for (const [k, v] of headers as [string, HeaderValue][]) this.header(k, v);
    else for (let i = 0; i < headers.length; i += 2) this.append(headers[i] as string, headers[i + 1] as HeaderValue);
  } else if (headers !== undefined && headers !== null) {
    for (const [k, v] of Object.entries(headers as Record<string, HeaderValue>)) this.header(k, v);
  }
  return this;
}

/** The head hook a patched `writeHead` gets: the patch chain is called as node:http calls it, just before the head. */
function callWriteHead(res: Response, body: string | Uint8Array | undefined): void {
  if (Object.hasOwn(res, 'write') || Object.hasOwn(res, 'end')) {
    refuse(
      res,
      'a middleware replaced res.write/res.end and hooked res.writeHead (compression, express-session do)',
      STREAMS_WHY,
    );
  }
  // As Express's res.send sets it before writeHead, so on-headers listeners and loggers (morgan) see the length.
  if (body !== undefined && res._length === undefined) {
    res._length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  }
  // Node middleware reads the request once the response has finished (morgan's line), when the engine has let go
  // of it: copy what it may read while the engine still holds it.
  res._req._snapshot();
  res.writeHead(res.statusCode);
}

const BODY_WHY =
  'the native Request is not a Readable stream; read the body with await req.json(), req.form(), req.text(), ' +
  'req.parseBody(), req.multipart() or req.stream()';

/** Request members for node:http middleware (installed once on Request.prototype by request.ts). */
export function defineRequestMembers(proto: Request): void {
  const get = Object.getOwnPropertyDescriptor;
  const method = get(proto, 'method');
  const url = get(proto, 'url');
  Object.defineProperties(proto, {
    app: {
      get(this: Request) {
        return this._cfg.app;
      },
      configurable: true,
    },
    httpVersionMajor: {
      get(this: Request) {
        const v = this.httpVersion;
        return v === '3.0' ? 3 : v === '2.0' ? 2 : 1;
      },
      configurable: true,
    },
    httpVersionMinor: {
      get(this: Request) {
        return this.httpVersion === '1.1' ? 1 : 0;
      },
      configurable: true,
    },
    socket: {
      get(this: Request) {
        return new SocketView(this);
      },
      configurable: true,
    },
    connection: {
      get(this: Request) {
        return new SocketView(this);
      },
      configurable: true,
    },
    // The getters stay as they are; only an assignment, which used to throw a TypeError, refuses.
    method: {
      get: method?.get,
      set() {
        throw nodeOnly(
          'req.method was assigned (method-override does)',
          'the engine chose the route by the request’s method before any middleware ran, so the request would ' +
            'still be answered by the route of its original method',
        );
      },
      configurable: true,
    },
    url: {
      get: url?.get,
      set() {
        throw nodeOnly(
          'req.url was assigned (http-proxy-middleware’s pathRewrite, URL-rewriting middleware do)',
          'the engine routed the request by its URL before any middleware ran',
        );
      },
      configurable: true,
    },
    body: {
      get() {
        throw nodeOnly(
          'req.body was read but nothing set it (passport-local and other Express-style code read it)',
          `${BODY_WHY}, or assign req.body in a middleware first (req.body = await req.parseBody())`,
        );
      },
      set(this: Request, value: unknown) {
        Object.defineProperty(this, 'body', { value, writable: true, enumerable: true, configurable: true });
      },
      configurable: true,
    },
    sessionStore: {
      get() {
        return undefined;
      },
      set() {
        throw nodeOnly(
          'express-session was used',
          'it saves the session and sets its cookie through node:http’s res.end/res.writeHead, which the native ' +
            'Response does not go through (use Gale’s own session() from "gale" for sessions on the native API)',
        );
      },
      configurable: true,
    },
    on: { value: reqOn(false), configurable: true, writable: true },
    addListener: { value: reqOn(false), configurable: true, writable: true },
    once: { value: reqOn(true), configurable: true, writable: true },
    removeListener: { value: reqOff, configurable: true, writable: true },
    off: { value: reqOff, configurable: true, writable: true },
    pipe: {
      value(this: Request, dest: unknown): never {
        // A client request made for this body (http-proxy) would otherwise stay open upstream and fail later,
        // unwatched; abort() closes it without an 'error' event.
        if (dest instanceof ClientRequest && !dest.destroyed) dest.abort();
        throw nodeOnly('req.pipe() was called (multer, http-proxy-middleware, busboy do)', BODY_WHY);
      },
      configurable: true,
      writable: true,
    },
  });
}

/** `req.on`: the client leaving is Gale's to report; body events refuse. */
function reqOn(once: boolean) {
  return function on(this: Request, event: string, listener: (...a: unknown[]) => void): Request {
    if (event === 'close' || event === 'aborted') onAbort(this, listener, once);
    else if (event !== 'error') throw nodeOnly(`req.on('${event}') was called`, BODY_WHY);
    return this;
  };
}

function reqOff(this: Request, event: string, listener: (...a: unknown[]) => void): Request {
  if (event === 'close' || event === 'aborted') offAbort(this, listener);
  return this;
}

/** Response members for node:http middleware (installed once on Response.prototype by response.ts). */
export function defineResponseMembers(proto: Response): void {
  Object.defineProperties(proto, {
    writeHead: {
      get() {
        return writeHead;
      },
      // on-headers (morgan, response-time, compression, express-session) wraps res.writeHead and expects its
      // wrapper to be called just before the head goes out: that is the head hook.
      set(this: Response, fn: unknown) {
        if (Object.hasOwn(this, 'write') || Object.hasOwn(this, 'end')) {
          refuse(
            this,
            'a middleware replaced res.write/res.end and hooked res.writeHead (compression does)',
            STREAMS_WHY,
          );
        }
        Object.defineProperty(this, 'writeHead', { value: fn, writable: true, enumerable: true, configurable: true });
        addHeadHook(this, (body) => callWriteHead(this, body));
      },
      configurable: true,
    },
    writableEnded: {
      get(this: Response) {
        return this.finished && !this._req._aborted;
      },
      configurable: true,
    },
    socket: {
      get(this: Response) {
        return new SocketView(this._req);
      },
      configurable: true,
    },
    removeListener: {
      value(this: Response, event: 'drain' | 'close' | 'finish', listener: () => void) {
        return this.off(event, listener);
      },
      configurable: true,
      writable: true,
    },
    addListener: {
      value(this: Response, event: 'drain' | 'close' | 'finish', listener: () => void) {
        return this.on(event, listener);
      },
      configurable: true,
      writable: true,
    },
    _implicitHeader: {
      value(this: Response): never {
        refuse(
          this,
          'res._implicitHeader(), node:http’s own head writer, was called (compression, express-session do)',
          STREAMS_WHY,
        );
      },
      configurable: true,
      writable: true,
    },
  });
}
