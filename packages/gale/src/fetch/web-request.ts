// The Web `Request` a fetch handler receives, made from Gale's request at the cost of one object: method and
// URL are read once, headers, body and signal on first use (from the engine, like Gale's own request); undici's
// Request (~7 µs to build, bench/fetch-objects.ts) is made only for what needs one (clone, cache, mode…).
// `instanceof Request` holds. Imports Gale's Request as a type only.
import * as nodeStream from 'node:stream';
import type { Request as GaleRequest } from '../request/request.js';
import { GlobalHeaders, GlobalRequest, GlobalResponse, instanceCheck } from './web-response.js';

// Node has stream.isDisturbed (since 16.8) for Web streams; @types/node 20 does not declare it.
const { isDisturbed } = nodeStream as unknown as { isDisturbed(stream: ReadableStream): boolean };

const kReq = Symbol('gale.req');
const kUrl = Symbol('gale.url');
const kMethod = Symbol('gale.method');
const kHeaders = Symbol('gale.headers');
const kStream = Symbol('gale.stream');
const kUsed = Symbol('gale.used');
const kReal = Symbol('gale.real');
const kSrc = Symbol('gale.src');
const kNative = Symbol('gale.native');

interface LightRequest {
  [kReq]: GaleRequest;
  [kUrl]: string;
  [kMethod]: string;
  [kHeaders]: Headers | undefined;
  [kStream]: ReadableStream<Uint8Array> | undefined;
  [kUsed]: boolean;
  [kReal]: Request | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkName(name: string): string {
  const s = String(name);
  if (!TOKEN.test(s)) throw new TypeError(`Headers: invalid header name ${JSON.stringify(s)}`);
  return s.toLowerCase();
}

/**
 * The request's headers as a Web `Headers`: `get`/`has` read Gale's parsed headers; iteration and changes go
 * to a real Headers copied on first need.
 */
class RequestHeaders {
  declare [kSrc]: GaleRequest;
  declare [kNative]: Headers | undefined;

  constructor(src: GaleRequest) {
    this[kSrc] = src;
    this[kNative] = undefined;
  }

  get(name: string): string | null {
    const n = this[kNative];
    if (n !== undefined) return n.get(name);
    const v = this[kSrc].headers[checkName(name)];
    if (v === undefined) return null;
    return typeof v === 'string' ? v : v.join(', ');
  }
  has(name: string): boolean {
    const n = this[kNative];
    if (n !== undefined) return n.has(name);
    return this[kSrc].headers[checkName(name)] !== undefined;
  }
  getSetCookie(): string[] {
    return native(this).getSetCookie();
  }
  append(name: string, value: string): void {
    native(this).append(name, value);
  }
  set(name: string, value: string): void {
    native(this).set(name, value);
  }
  delete(name: string): void {
    native(this).delete(name);
  }
  forEach(cb: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    native(this).forEach((v, k) => {
      cb.call(thisArg, v, k, this as unknown as Headers);
    });
  }
  keys(): HeadersIterator<string> {
    return native(this).keys();
  }
  values(): HeadersIterator<string> {
    return native(this).values();
  }
  entries(): HeadersIterator<[string, string]> {
    return native(this).entries();
  }
  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return native(this).entries();
  }
}
Object.setPrototypeOf(RequestHeaders.prototype, GlobalHeaders.prototype);

function native(h: RequestHeaders): Headers {
  let n = h[kNative];
  if (n === undefined) {
    n = new GlobalHeaders();
    const all = h[kSrc].headers;
    for (const k in all) {
      const v = all[k];
      if (v === undefined) continue;
      if (typeof v === 'string') n.append(k, v);
      else for (const one of v) n.append(k, one);
    }
    h[kNative] = n;
  }
  return n;
}

/**
 * The constructor installed as `globalThis.Request` (installFetchGlobals): undici's, except that it accepts the
 * requests Gale hands to fetch handlers as input and adds `duplex: 'half'` for stream bodies, as Node needs.
 */
export class FetchRequest extends GlobalRequest {
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    let i = input;
    if (typeof i === 'object' && i !== null && kReq in i) i = realOf(i as unknown as LightRequest);
    let o = init;
    const body = o?.body as { getReader?: unknown } | null | undefined;
    if (typeof body?.getReader === 'function' && (o as { duplex?: string }).duplex === undefined) {
      o = { ...o, duplex: 'half' } as RequestInit;
    }
    super(i, o);
  }
}
Object.defineProperty(FetchRequest, Symbol.hasInstance, { value: instanceCheck(FetchRequest, GlobalRequest) });

function hasBody(r: LightRequest): boolean {
  const m = r[kMethod];
  if (m === 'GET' || m === 'HEAD') return false;
  const h = r[kReq].headers;
  return h['content-length'] !== undefined || h['transfer-encoding'] !== undefined;
}

function unusable(): Promise<never> {
  return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
}

/** The whole body (empty when there is none), once. */
function bytesOf(r: LightRequest): Promise<Buffer> | undefined {
  if (r[kUsed]) return undefined;
  r[kUsed] = true;
  if (!hasBody(r)) return Promise.resolve(Buffer.alloc(0));
  const stream = r[kStream];
  if (stream !== undefined) {
    return new GlobalResponse(stream).arrayBuffer().then((ab) => Buffer.from(ab));
  }
  return r[kReq]._bodySource().all();
}

/** undici's Request for `r` (made once); its body is the rest of the stream. */
function realOf(r: LightRequest): Request {
  let real = r[kReal];
  if (real === undefined) {
    const method = r[kMethod];
    const init: RequestInit & { duplex?: 'half' } = {
      method: method === 'TRACE' ? 'GET' : method,
      headers: lightHeaders(r),
      signal: r[kReq].signal,
    };
    if (hasBody(r)) {
      init.body = r[kUsed] ? new ReadableStream({ start: (c) => c.close() }) : streamOf(r);
      init.duplex = 'half';
    }
    real = new GlobalRequest(r[kUrl], init);
    r[kReal] = real;
  }
  return real;
}

function lightHeaders(r: LightRequest): Headers {
  let h = r[kHeaders];
  if (h === undefined) {
    h = new RequestHeaders(r[kReq]) as unknown as Headers;
    r[kHeaders] = h;
  }
  return h;
}

function streamOf(r: LightRequest): ReadableStream<Uint8Array> {
  let s = r[kStream];
  if (s === undefined) {
    s = r[kReq].webStream();
    r[kStream] = s;
  }
  return s;
}

function read<T>(r: LightRequest, convert: (b: Buffer) => T | Promise<T>, viaReal: (real: Request) => Promise<T>) {
  const real = r[kReal];
  if (real !== undefined) return viaReal(real);
  const b = bytesOf(r);
  return b === undefined ? unusable() : b.then(convert);
}

const proto = {
  get method(): string {
    return (this as unknown as LightRequest)[kMethod];
  },
  get url(): string {
    return (this as unknown as LightRequest)[kUrl];
  },
  get headers(): Headers {
    const r = this as unknown as LightRequest;
    return r[kReal]?.headers ?? lightHeaders(r);
  },
  get signal(): AbortSignal {
    return (this as unknown as LightRequest)[kReq].signal;
  },
  get body(): ReadableStream<Uint8Array> | null {
    const r = this as unknown as LightRequest;
    if (r[kReal] !== undefined) return r[kReal].body;
    if (!hasBody(r)) return null;
    if (r[kUsed] && r[kStream] === undefined) return new ReadableStream({ start: (c) => c.close() });
    return streamOf(r);
  },
  get bodyUsed(): boolean {
    const r = this as unknown as LightRequest;
    if (r[kReal] !== undefined) return r[kReal].bodyUsed;
    return r[kUsed] || (r[kStream] !== undefined && isDisturbed(r[kStream]));
  },
  get duplex(): 'half' {
    return 'half';
  },
  text(): Promise<string> {
    return read(
      this as unknown as LightRequest,
      (b) => b.toString('utf8'),
      (real) => real.text(),
    );
  },
  json(): Promise<unknown> {
    return read(
      this as unknown as LightRequest,
      (b) => JSON.parse(b.toString('utf8')),
      (real) => real.json(),
    );
  },
  arrayBuffer(): Promise<ArrayBuffer> {
    return read(
      this as unknown as LightRequest,
      (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer,
      (real) => real.arrayBuffer(),
    );
  },
  bytes(): Promise<Uint8Array> {
    return read(
      this as unknown as LightRequest,
      (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
      (real) => real.arrayBuffer().then((ab) => new Uint8Array(ab)),
    );
  },
  blob(): Promise<Blob> {
    const r = this as unknown as LightRequest;
    const type = r[kReq].headers['content-type'];
    return read(
      r,
      (b) => new Blob([b as Uint8Array<ArrayBuffer>], typeof type === 'string' ? { type } : undefined),
      (real) => real.blob(),
    );
  },
  formData(): Promise<FormData> {
    const r = this as unknown as LightRequest;
    const type = r[kReq].headers['content-type'];
    // undici parses urlencoded and multipart bodies; the body arrives through Gale's reader first.
    return read(
      r,
      (b) =>
        new GlobalResponse(b as Uint8Array<ArrayBuffer>, {
          headers: typeof type === 'string' ? { 'content-type': type } : {},
        }).formData(),
      (real) => real.formData(),
    );
  },
  clone(): Request {
    const r = this as unknown as LightRequest;
    if (r[kUsed] && r[kReal] === undefined) throw new TypeError('Request.clone: Body has already been consumed.');
    return realOf(r).clone();
  },
};

// Everything else a Request has (cache, credentials, mode, referrer, …) is undici's.
for (const name of Object.getOwnPropertyNames(GlobalRequest.prototype)) {
  if (name === 'constructor' || Object.hasOwn(proto, name)) continue;
  const d = Object.getOwnPropertyDescriptor(GlobalRequest.prototype, name) as PropertyDescriptor;
  if (typeof d.value === 'function') {
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      value: function (this: LightRequest, ...args: unknown[]) {
        const real = realOf(this) as unknown as Record<string, (...a: unknown[]) => unknown>;
        return (real[name] as (...a: unknown[]) => unknown).apply(real, args);
      },
    });
  } else if (d.get !== undefined) {
    Object.defineProperty(proto, name, {
      configurable: true,
      get(this: LightRequest) {
        return (realOf(this) as unknown as Record<string, unknown>)[name];
      },
    });
  }
}
Object.defineProperty(proto, Symbol.for('nodejs.util.inspect.custom'), {
  value(this: LightRequest) {
    return `Request (gale) { method: ${JSON.stringify(this[kMethod])}, url: ${JSON.stringify(this[kUrl])} }`;
  },
});
Object.setPrototypeOf(proto, FetchRequest.prototype);

/**
 * The Web Request for Gale's `req`, with `url` as given (see fetch/url.ts). Costs one object; the rest is read
 * on first use.
 */
export function webRequest(req: GaleRequest, method: string, url: string): Request {
  const r = Object.create(proto) as LightRequest;
  r[kReq] = req;
  r[kUrl] = url;
  r[kMethod] = method;
  r[kHeaders] = undefined;
  r[kStream] = undefined;
  r[kUsed] = false;
  r[kReal] = undefined;
  return r as unknown as Request;
}

/** True for the requests `webRequest` makes. */
export function isWebRequest(v: unknown): boolean {
  return typeof v === 'object' && v !== null && kReq in v;
}
