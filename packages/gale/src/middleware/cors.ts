// CORS with the semantics of the `cors` npm package (same options, defaults and answers): preflights (every
// OPTIONS request) are answered here unless preflightContinue; other requests get the origin, credentials and
// exposed-headers headers and go on. The options are compiled once into `CorsPolicy`, plain data an engine can
// answer preflights from by itself (see `corsPolicy`), and `app.use(cors())` also routes OPTIONS requests for
// paths that have routes to it (app-routes.ts), which the engine would otherwise answer with 405.
import type { Middleware } from '../chain.js';
import type { Request } from '../request/request.js';
import type { Response } from '../response/response.js';

/**
 * One allowed origin: an exact string, a RegExp, or true/false.
 *
 * @example
 * app.use(cors({ origin: ['https://a.example', /\.b\.example$/] }));
 */
export type OriginMatcher = string | RegExp | boolean;

/**
 * Decides the origin for a request: return (or resolve) the value to use as `origin` (true reflects the request's
 * Origin; false/undefined sends no CORS headers), or pass it to `callback` as the cors package's functions do.
 *
 * @example
 * app.use(cors({ origin: (origin, callback) => callback(null, allowedOrigins.has(origin ?? '')) }));
 */
export type OriginFunction = (
  origin: string | undefined,
  callback: (err: Error | null, origin?: unknown) => void,
  req: Request,
) => unknown;

/**
 * Options of `cors()`: those of the cors npm package.
 *
 * @example
 * app.use('/api', cors({ origin: 'https://app.example', credentials: true, maxAge: 600, exposedHeaders: ['x-total'] }));
 */
export interface CorsOptions {
  /** `'*'` (default), an exact origin, a RegExp, a list of those, true (reflect), false (no CORS), or a function. */
  origin?: OriginMatcher | OriginMatcher[] | OriginFunction;
  /** Access-Control-Allow-Methods. Default `'GET,HEAD,PUT,PATCH,POST,DELETE'`. */
  methods?: string | string[];
  /** Access-Control-Allow-Headers; default: the request's Access-Control-Request-Headers (with `Vary`). */
  allowedHeaders?: string | string[];
  /** Alias of allowedHeaders (as the cors package). */
  headers?: string | string[];
  /** Access-Control-Expose-Headers. */
  exposedHeaders?: string | string[];
  /** Send `Access-Control-Allow-Credentials: true`. */
  credentials?: boolean;
  /** Access-Control-Max-Age in seconds. */
  maxAge?: number | string;
  /** Pass preflights on to the routes instead of answering them. Default false. */
  preflightContinue?: boolean;
  /** Status of answered preflights. Default 204. */
  optionsSuccessStatus?: number;
}

/**
 * Per-request options, as the cors package's options delegate.
 *
 * @example
 * app.use(cors(async (req) => ({ origin: (await tenantOf(req)).origins, credentials: true })));
 */
export type CorsOptionsDelegate = (req: Request) => CorsOptions | Promise<CorsOptions>;

/**
 * The compiled options: what a native engine needs to answer preflights itself when `dynamic` is false (the origin
 * decision needs no JavaScript).
 *
 * @example
 * const policy = corsPolicy({ origin: '*' }); // what cors() compiles its options into
 */
export interface CorsPolicy {
  /** The origin option after compilation ('*' for any origin). */
  origin: '*' | string | (string | RegExp | boolean)[] | boolean | RegExp;
  methods: string;
  /** undefined: reflect Access-Control-Request-Headers. */
  allowedHeaders: string | undefined;
  exposedHeaders: string | undefined;
  credentials: boolean;
  maxAge: string | undefined;
  preflightContinue: boolean;
  optionsSuccessStatus: number;
  /** True when a function decides the origin or the options: preflights must run this middleware. */
  dynamic: boolean;
}

const DEFAULT_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';
/** Marks cors middleware so app-routes.ts can route OPTIONS requests of routed paths to it. */
export const CORS_POLICY: unique symbol = Symbol('gale.cors');

function list(v: string | string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(',') : v;
}

function compile(o: CorsOptions, dynamic: boolean): CorsPolicy {
  const maxAge = (typeof o.maxAge === 'number' || o.maxAge) && o.maxAge !== undefined ? o.maxAge.toString() : undefined;
  return {
    origin: (typeof o.origin === 'function' ? true : (o.origin ?? '*')) as CorsPolicy['origin'],
    methods: list(o.methods) ?? DEFAULT_METHODS,
    allowedHeaders: list(o.allowedHeaders ?? o.headers),
    exposedHeaders: list(o.exposedHeaders),
    credentials: o.credentials === true,
    maxAge: maxAge === '' ? undefined : maxAge,
    preflightContinue: o.preflightContinue === true,
    optionsSuccessStatus: o.optionsSuccessStatus ?? 204,
    dynamic: dynamic || typeof o.origin === 'function',
  };
}

function isOriginAllowed(origin: string | undefined, allowed: unknown): boolean {
  if (Array.isArray(allowed)) return allowed.some((a) => isOriginAllowed(origin, a));
  if (typeof allowed === 'string') return origin === allowed;
  if (allowed instanceof RegExp) return allowed.test(origin as string);
  return !!allowed;
}

/** Origin headers exactly as the cors package decides them. */
function applyOrigin(res: Response, origin: unknown, requestOrigin: string | undefined): void {
  if (!origin || origin === '*') {
    res.header('Access-Control-Allow-Origin', '*');
  } else if (typeof origin === 'string') {
    res.header('Access-Control-Allow-Origin', origin);
    res.vary('Origin');
  } else {
    if (isOriginAllowed(requestOrigin, origin) && requestOrigin) {
      res.header('Access-Control-Allow-Origin', requestOrigin);
    }
    res.vary('Origin');
  }
}

function applyCommon(res: Response, p: CorsPolicy): void {
  if (p.credentials) res.header('Access-Control-Allow-Credentials', 'true');
}

function answer(req: Request, res: Response, next: () => Promise<void>, p: CorsPolicy, origin: unknown): unknown {
  const requestOrigin = req.get('origin');
  applyOrigin(res, origin, requestOrigin);
  applyCommon(res, p);
  if (req.method === 'OPTIONS') {
    if (p.methods) res.header('Access-Control-Allow-Methods', p.methods);
    let allowed = p.allowedHeaders;
    if (allowed === undefined) {
      allowed = req.get('access-control-request-headers');
      res.vary('Access-Control-Request-Headers');
    }
    if (allowed) res.header('Access-Control-Allow-Headers', allowed);
    if (p.maxAge) res.header('Access-Control-Max-Age', p.maxAge);
    if (p.exposedHeaders) res.header('Access-Control-Expose-Headers', p.exposedHeaders);
    if (p.preflightContinue) return next();
    // (the cors package also sets Content-Length: 0; the engine frames the empty body itself)
    res.status(p.optionsSuccessStatus).end();
    return undefined;
  }
  if (p.exposedHeaders) res.header('Access-Control-Expose-Headers', p.exposedHeaders);
  return next();
}

function resolveOrigin(fn: OriginFunction, origin: string | undefined, req: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let out: unknown;
    try {
      out = fn(origin, (err, v) => (err ? reject(err) : resolve(v)), req);
    } catch (err) {
      reject(err);
      return;
    }
    // A returned value (or promise) decides; otherwise the callback will (a function that takes one).
    if (out !== undefined) Promise.resolve(out).then(resolve, reject);
    else if (fn.length < 2) resolve(undefined);
  });
}

/**
 * CORS middleware with the cors package's options and answers: every OPTIONS request is a preflight answered here
 * (204 with Allow-Methods/-Headers/Max-Age) unless `preflightContinue`; other requests get the origin headers and
 * continue. With `app.use(cors())`, OPTIONS requests to paths that have routes reach it too (not the engine's 405).
 *
 * @example
 * app.use(cors());                                                         // Access-Control-Allow-Origin: *
 * app.use('/api', cors({ origin: ['https://app.example.com', /\.example\.org$/], credentials: true, maxAge: 600 }));
 * app.use(cors({ origin: (origin) => allowList.has(origin ?? '') }));
 */
export function cors(options: CorsOptions | CorsOptionsDelegate = {}): Middleware {
  if (typeof options === 'function') {
    const delegate = options;
    const mw: Middleware = async (req, res, next) => {
      const o = await delegate(req);
      return run(compile(o, true), o.origin, req, res, next);
    };
    return Object.assign(mw, { [CORS_POLICY]: compile({}, true) });
  }
  const policy = compile(options, false);
  const originOption = options.origin;
  const mw: Middleware = (req, res, next) => run(policy, originOption, req, res, next);
  return Object.assign(mw, { [CORS_POLICY]: policy });
}

function run(
  p: CorsPolicy,
  originOption: CorsOptions['origin'],
  req: Request,
  res: Response,
  next: () => Promise<void>,
): unknown {
  if (typeof originOption === 'function') {
    return resolveOrigin(originOption, req.get('origin'), req).then((origin) =>
      origin ? answer(req, res, next, p, origin) : next(),
    );
  }
  const origin = originOption ?? '*';
  // origin: false (or '') turns CORS off for this middleware, as in the cors package
  if (!origin) return next();
  return answer(req, res, next, p, origin);
}

/**
 * The compiled policy of a `cors()` middleware (for an engine answering preflights natively), or undefined.
 *
 * @example
 * const policy = corsPolicy({ origin: 'https://app.example', credentials: true });
 */
export function corsPolicy(mw: unknown): CorsPolicy | undefined {
  return typeof mw === 'function' ? (mw as { [CORS_POLICY]?: CorsPolicy })[CORS_POLICY] : undefined;
}
