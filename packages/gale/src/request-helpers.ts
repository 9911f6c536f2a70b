// Request helpers computed on first use: client address and host under trustProxy, cookies and
// signed cookies, content negotiation, `is` and `fresh`. Imports Request as a type only.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import accepts from 'accepts';
import cookie from 'cookie';
import signature from 'cookie-signature';
import fresh from 'fresh';
import proxyaddr from 'proxy-addr';
import typeis from 'type-is';
import type { Lazy, Request } from './request.js';
import type { TrustFn } from './request-config.js';

/**
 * The helpers of Request, documented here. Request implements them in request.ts, calling the
 * functions below.
 */
export interface RequestHelpers {
  /**
   * The client's address. Without the `trustProxy` option it is the socket address and
   * X-Forwarded-For is ignored (a client cannot forge it); with it, the left-most address of the
   * X-Forwarded-For chain that is reached through trusted proxies only (as Express).
   *
   * @example
   * // gale({ trustProxy: 'loopback' }); a local proxy sent X-Forwarded-For: 203.0.113.7
   * app.get('/whoami', (req) => ({ ip: req.ip, ips: req.ips })); // { ip: '203.0.113.7', ips: ['203.0.113.7'] }
   */
  readonly ip: string;

  /**
   * With `trustProxy`, the addresses of X-Forwarded-For that were reached through trusted proxies,
   * client first (as Express); `[]` when no proxy is trusted.
   *
   * @example
   * // gale({ trustProxy: true }), X-Forwarded-For: 203.0.113.7, 10.0.0.2
   * req.ips; // ['203.0.113.7', '10.0.0.2']
   */
  readonly ips: string[];

  /**
   * The Host header (with port), or X-Forwarded-Host when the socket's peer is a trusted proxy.
   *
   * @example
   * req.host; // 'example.com:8080'
   */
  readonly host: string | undefined;

  /**
   * `host` without the port (IPv6 literals keep their brackets).
   *
   * @example
   * app.get('/', (req) => req.hostname); // 'example.com'
   */
  readonly hostname: string | undefined;

  /**
   * `'http'`, or the first X-Forwarded-Proto value when the socket's peer is a trusted proxy.
   *
   * @example
   * if (req.protocol !== 'https') res.status(308).header('location', `https://${req.host}${req.originalUrl}`).end();
   */
  readonly protocol: string;

  /** `protocol === 'https'`. */
  readonly secure: boolean;

  /**
   * The parts of `hostname` before the domain, nearest first (the domain is the last
   * `subdomainOffset` parts, default 2): `tobi.ferrets.example.com` → `['ferrets', 'tobi']`.
   *
   * @example
   * const tenant = req.subdomains[0];
   */
  readonly subdomains: string[];

  /**
   * The Cookie header as name → value (values percent-decoded). With `cookieSecret`, signed cookies
   * (`s:` values) are in `signedCookies` instead (as cookie-parser).
   *
   * @example
   * app.get('/', (req) => `theme: ${req.cookies.theme ?? 'light'}`);
   */
  readonly cookies: Record<string, string>;

  /**
   * Signed cookies verified against `cookieSecret` (any of its secrets): the value, or `false` when
   * the signature does not match (tampered). Empty without `cookieSecret`.
   *
   * @example
   * // gale({ cookieSecret: process.env.COOKIE_SECRET })
   * const user = req.signedCookies.user; // string, false (tampered) or undefined
   */
  readonly signedCookies: Record<string, string | false>;

  /**
   * The best of `types` for the Accept header (extensions like `'json'` or MIME types), or false;
   * without arguments, the accepted types in preference order.
   *
   * @example
   * switch (req.accepts('json', 'html')) { case 'json': return data; case 'html': return res.html(page); default: throw new HttpError(406); }
   */
  accepts(): string[];
  accepts(types: string[]): string | false;
  accepts(...types: string[]): string | false;

  /**
   * The best of `encodings` for Accept-Encoding, or false; without arguments, all accepted ones.
   *
   * @example
   * const gzip = req.acceptsEncodings('br', 'gzip') ;
   */
  acceptsEncodings(): string[];
  acceptsEncodings(encodings: string[]): string | false;
  acceptsEncodings(...encodings: string[]): string | false;

  /**
   * The best of `charsets` for Accept-Charset, or false; without arguments, all accepted ones.
   *
   * @example
   * req.acceptsCharsets('utf-8'); // 'utf-8' or false
   */
  acceptsCharsets(): string[];
  acceptsCharsets(charsets: string[]): string | false;
  acceptsCharsets(...charsets: string[]): string | false;

  /**
   * The best of `languages` for Accept-Language, or false; without arguments, all accepted ones.
   *
   * @example
   * const lang = req.acceptsLanguages('en', 'fr', 'de') || 'en';
   */
  acceptsLanguages(): string[];
  acceptsLanguages(languages: string[]): string | false;
  acceptsLanguages(...languages: string[]): string | false;

  /**
   * Whether the Content-Type matches one of `types` (`'json'`, `'text/*'`, `'+json'`, …): the
   * matching type, false, or null when the request has no body (as Express's `req.is`).
   *
   * @example
   * if (req.is('json')) body = await req.json();
   */
  is(types: string[]): string | false | null;
  is(...types: string[]): string | false | null;

  /**
   * True when the client's cached copy is still good: a GET/HEAD whose If-None-Match /
   * If-Modified-Since match the ETag / Last-Modified set on the response, with a 2xx or 304 status.
   *
   * @example
   * res.header('etag', etag);
   * if (req.fresh) return res.status(304).end();
   */
  readonly fresh: boolean;

  /** `!fresh`. */
  readonly stale: boolean;
}

function headerText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

/** The request as proxy-addr, accepts and type-is read it. */
function forwardedFrom(req: Request): IncomingMessage {
  return { headers: req.headers, socket: { remoteAddress: req.remoteAddress } } as unknown as IncomingMessage;
}

/** `req.ip` when a proxy is trusted. */
export function clientIp(req: Request, trust: TrustFn): string {
  const x = req.lazy();
  if (x.ip === undefined) x.ip = proxyaddr(forwardedFrom(req), trust);
  return x.ip;
}

/** `req.ips` when a proxy is trusted. */
export function forwardedIps(req: Request, trust: TrustFn): string[] {
  const x = req.lazy();
  if (x.ips === undefined) {
    const all = proxyaddr.all(forwardedFrom(req), trust);
    all.reverse();
    all.pop();
    x.ips = all;
  }
  return x.ips;
}

/** `req.host`. */
export function hostOf(req: Request): string | undefined {
  const x = req.lazy();
  if (x.host === undefined) {
    const trust = req._cfg.trust;
    let val = trust === undefined ? undefined : req.get('x-forwarded-host');
    if (!val || !trust?.(req.remoteAddress, 0)) val = req.get('host');
    else if (val.indexOf(',') !== -1) val = val.slice(0, val.indexOf(',')).trimEnd();
    x.host = val || null;
  }
  return x.host ?? undefined;
}

/** `req.hostname`. */
export function hostnameOf(req: Request): string | undefined {
  const host = req.host;
  if (host === undefined) return undefined;
  const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', offset);
  return colon === -1 ? host : host.slice(0, colon);
}

/** `req.protocol` when a proxy is trusted. */
export function protocolOf(req: Request, trust: TrustFn): string {
  const x = req.lazy();
  if (x.protocol === undefined) {
    let proto = req._secureConn ? 'https' : 'http';
    if (trust(req.remoteAddress, 0)) {
      const h = req.get('x-forwarded-proto') || proto;
      const comma = h.indexOf(',');
      proto = (comma === -1 ? h : h.slice(0, comma)).trim();
    }
    x.protocol = proto;
  }
  return x.protocol;
}

/** `req.subdomains`. */
export function subdomainsOf(req: Request): string[] {
  const hostname = req.hostname;
  if (!hostname) return [];
  const parts = isIP(hostname) === 0 ? hostname.split('.').reverse() : [hostname];
  return parts.slice(req._cfg.subdomainOffset);
}

/** Parses the Cookie header once into `cookies` and (with secrets) `signed`. */
export function cookieJar(req: Request): Lazy {
  const x = req.lazy();
  if (x.cookies === undefined) {
    const header = req.get('cookie');
    const cookies: Record<string, string> = header ? cookie.parse(header) : {};
    const signed: Record<string, string | false> = Object.create(null);
    const secrets = req._cfg.secrets;
    if (secrets.length > 0) {
      for (const name of Object.keys(cookies)) {
        const value = cookies[name] as string;
        if (!value.startsWith('s:')) continue;
        let plain: string | false = false;
        for (const secret of secrets) {
          plain = signature.unsign(value.slice(2), secret);
          if (plain !== false) break;
        }
        signed[name] = plain;
        delete cookies[name];
      }
    }
    x.cookies = cookies;
    x.signed = signed;
  }
  return x;
}

/** The request's `accepts` negotiator, made once. */
export function negotiator(req: Request): accepts.Accepts {
  const x = req.lazy();
  if (x.negotiator === undefined) x.negotiator = accepts(forwardedFrom(req));
  return x.negotiator;
}

/** `req.is(types)`. */
export function isType(req: Request, types: string[]): string | false | null {
  return typeis(forwardedFrom(req), types);
}

/** `req.fresh`. */
export function isFresh(req: Request): boolean {
  const res = req._res;
  if (res === undefined) return false;
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const status = res.statusCode;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  return fresh(req.headers as fresh.Headers, {
    etag: headerText(res.getHeader('etag')),
    'last-modified': headerText(res.getHeader('last-modified')),
  });
}
