// A cheap stand-in for the Web `Response` (undici's costs ~20 µs to build and read: see bench/fetch-objects.ts):
// it keeps the body and init as given and builds undici's Response only when something reads the body as a
// stream or calls a body method. send.ts reads status, headers and string/bytes bodies straight from it.
// Installed as `globalThis.Response` by `installFetchGlobals()` (as @hono/node-server does); no Gale imports.

/** undici's classes, captured before anything replaces the globals. */
export const GlobalResponse: typeof Response = globalThis.Response;
export const GlobalRequest: typeof Request = globalThis.Request;
export const GlobalHeaders: typeof Headers = globalThis.Headers;

const kBody = Symbol('gale.body');
const kInit = Symbol('gale.init');
const kHeaders = Symbol('gale.headers');
const kReal = Symbol('gale.real');

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** What send.ts reads from a Response that was never turned into undici's. */
export interface ResponseParts {
  status: number;
  /** The init's statusText, when one was given. */
  statusText: string | undefined;
  body: unknown;
  /** A Headers object when one was made (or given), else the init's plain headers (object or pairs). */
  headers: HeadersInit | undefined;
}

/** The Content-Type the Fetch standard gives a body that comes without one. */
export function defaultContentType(body: unknown): string | undefined {
  if (typeof body === 'string') return 'text/plain;charset=UTF-8';
  if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
  if (body instanceof Blob && body.type !== '') return body.type;
  return undefined;
}

/**
 * A Web `Response` that costs an object allocation. `instanceof Response` holds for it and for undici's own
 * Responses (`fetch()` results) alike.
 *
 * @example
 * // after installFetchGlobals() (done by serve() and app.fetch()), `new Response(...)` makes one of these
 * return new Response(JSON.stringify({ ok: true }), { headers: { 'content-type': 'application/json' } });
 */
export class WebResponse {
  declare [kBody]: unknown;
  declare [kInit]: ResponseInit | undefined;
  declare [kHeaders]: Headers | undefined;
  declare [kReal]: Response | undefined;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    const status = init?.status;
    if (status !== undefined && (!Number.isInteger(status) || status < 200 || status > 599)) {
      throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive (got ${status}).`);
    }
    if (body !== undefined && body !== null && status !== undefined && NULL_BODY_STATUS.has(status)) {
      throw new TypeError(`Response constructor: a response with status ${status} cannot have a body.`);
    }
    this[kBody] = body ?? null;
    this[kInit] = init;
    // A Headers object is kept, not copied (the standard copies it): a copy per response is what this class
    // exists to avoid, and changing the object after building the Response is all that would tell.
    this[kHeaders] = init?.headers instanceof GlobalHeaders ? init.headers : undefined;
    this[kReal] = undefined;
  }

  /** `Response.json(data, init)`, kept cheap. */
  static json(data: unknown, init?: ResponseInit): Response {
    const body = JSON.stringify(data);
    if (body === undefined) throw new TypeError('Response.json: the data is not JSON serializable');
    const given = init?.headers;
    let headers: HeadersInit;
    if (given === undefined) headers = { 'content-type': 'application/json' };
    else {
      const h = new GlobalHeaders(given);
      if (!h.has('content-type')) h.set('content-type', 'application/json');
      headers = h;
    }
    return new WebResponse(body, { ...init, headers }) as unknown as Response;
  }

  /** `Response.redirect(url, status)`: an absolute URL, status 301/302/303/307/308. */
  static redirect(url: string | URL, status = 302): Response {
    if (!REDIRECT_STATUS.has(status)) throw new RangeError(`Response.redirect: invalid status ${status}`);
    return new WebResponse(null, { status, headers: { location: new URL(url).href } }) as unknown as Response;
  }

  static error(): Response {
    return GlobalResponse.error();
  }

  get status(): number {
    return this[kReal]?.status ?? this[kInit]?.status ?? 200;
  }
  get ok(): boolean {
    const s = this.status;
    return s >= 200 && s < 300;
  }
  get statusText(): string {
    return this[kInit]?.statusText ?? '';
  }
  get type(): ResponseType {
    return 'default';
  }
  get url(): string {
    return '';
  }
  get redirected(): boolean {
    return false;
  }
  get headers(): Headers {
    const real = this[kReal];
    if (real !== undefined) return real.headers;
    if (this[kBody] instanceof FormData) return realOf(this).headers; // the multipart boundary is undici's
    let h = this[kHeaders];
    if (h === undefined) {
      h = new GlobalHeaders(this[kInit]?.headers);
      const ct = defaultContentType(this[kBody]);
      if (ct !== undefined && !h.has('content-type')) h.set('content-type', ct);
      this[kHeaders] = h;
    }
    return h;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this[kBody] === null && this[kReal] === undefined) return null;
    return realOf(this).body;
  }
  get bodyUsed(): boolean {
    return this[kReal]?.bodyUsed ?? false;
  }
}

/** undici's Response for `r`, made once (body, status and the headers as they are now). */
function realOf(r: WebResponse): Response {
  let real = r[kReal];
  if (real === undefined) {
    const init = r[kInit];
    real = new GlobalResponse(r[kBody] as BodyInit | null, {
      status: init?.status,
      statusText: init?.statusText,
      headers: r[kHeaders] ?? init?.headers,
    });
    r[kReal] = real;
  }
  return real;
}

// Body methods and anything undici adds later go to the real Response.
for (const name of Object.getOwnPropertyNames(GlobalResponse.prototype)) {
  if (name === 'constructor' || Object.hasOwn(WebResponse.prototype, name)) continue;
  const d = Object.getOwnPropertyDescriptor(GlobalResponse.prototype, name) as PropertyDescriptor;
  if (typeof d.value === 'function') {
    Object.defineProperty(WebResponse.prototype, name, {
      configurable: true,
      writable: true,
      value: function (this: WebResponse, ...args: unknown[]) {
        const real = realOf(this) as unknown as Record<string, (...a: unknown[]) => unknown>;
        return (real[name] as (...a: unknown[]) => unknown).apply(real, args);
      },
    });
  } else if (d.get !== undefined) {
    Object.defineProperty(WebResponse.prototype, name, {
      configurable: true,
      get(this: WebResponse) {
        return (realOf(this) as unknown as Record<string, unknown>)[name];
      },
    });
  }
}
Object.setPrototypeOf(WebResponse.prototype, GlobalResponse.prototype);
Object.setPrototypeOf(WebResponse, GlobalResponse);
Object.defineProperty(WebResponse, Symbol.hasInstance, { value: instanceCheck(WebResponse, GlobalResponse) });

/**
 * `instanceof` for a class standing in for `base`: the class itself accepts every `base` object (undici's own, as
 * `fetch()` returns); subclasses keep the ordinary check.
 */
export function instanceCheck(self: object, base: { prototype: object }): (v: unknown) => boolean {
  const isProto = Object.prototype.isPrototypeOf;
  const ordinary = Function.prototype[Symbol.hasInstance];
  return function (this: unknown, v: unknown): boolean {
    if (this !== self) return ordinary.call(this, v);
    return typeof v === 'object' && v !== null && isProto.call(base.prototype, v);
  };
}

/**
 * The parts of a Response that was never turned into undici's (so its body is still the value given), or
 * undefined for undici's Responses and materialized ones.
 */
export function responseParts(r: Response): ResponseParts | undefined {
  const w = r as unknown as WebResponse;
  if (!(kBody in w) || w[kReal] !== undefined) return undefined;
  return {
    status: w[kInit]?.status ?? 200,
    statusText: w[kInit]?.statusText,
    body: w[kBody],
    headers: w[kHeaders] ?? w[kInit]?.headers,
  };
}
