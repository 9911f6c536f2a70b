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
import { ErrorCodes, GaleError } from '../errors.js';
import type { Lazy, RequestView as Request } from './api.js';
import type { TrustFn } from './config.js';

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
    if (secrets.length === 0) {
      // A signed cookie and no secret to verify it with: reading req.signedCookies says so (below) instead of an
      // empty object — cookie-parser('secret') on the native API steps aside (req.cookies is already parsed), so
      // its secret is never used and the app would silently see no signed cookies.
      for (const name of Object.keys(cookies)) {
        if ((cookies[name] as string).startsWith('s:')) {
          x.unverifiable = name;
          break;
        }
      }
    } else {
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

/** `req.signedCookies`: the verified signed cookies, or an error when one came and no secret can verify it. */
export function signedCookiesOf(req: Request): Record<string, string | false> {
  const x = cookieJar(req);
  if (x.unverifiable !== undefined) {
    throw new GaleError(
      ErrorCodes.NODE_MIDDLEWARE,
      `req.signedCookies: the request has a signed cookie (${JSON.stringify(x.unverifiable)}) but no secret is set to ` +
        "verify it: pass gale({ cookieSecret }). cookie-parser's secret is not used on Gale's native API (req.cookies " +
        'is already parsed, so cookie-parser steps aside); Express apps keep it with @gale-http/express.',
    );
  }
  return x.signed as Record<string, string | false>;
}

/** The request's `accepts` negotiator, made once. */
/**
 * The part of `accepts`' negotiator the request helpers use, declared here so that Gale's types do not need
 * @types/accepts installed.
 */
export interface Negotiator {
  types(types?: string[]): string[] | string | false;
  encodings(encodings?: string[]): string[] | string | false;
  charsets(charsets?: string[]): string[] | string | false;
  languages(languages?: string[]): string[] | string | false;
}

export function negotiator(req: Request): Negotiator {
  const x = req.lazy();
  if (x.negotiator === undefined) x.negotiator = accepts(forwardedFrom(req));
  return x.negotiator as Negotiator;
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
