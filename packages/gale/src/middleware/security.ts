// Security headers: the set helmet 8 sends by default, with helmet's option names (and its legacy aliases), built
// once into a header template that each response copies (one Map clone per request). `gale({ security })` and
// the `security()` middleware both come here. Only a Content-Security-Policy with function directives (nonces)
// is computed per request. Imports Gale's Request/Response as types only.
import type { Middleware } from '../chain.js';
import type { CspOptions, SecurityOptions } from '../options.js';
import type { Request } from '../request/request.js';
import { HeaderEntry } from '../response/api.js';
import type { Response } from '../response/response.js';

export type { CspDirectiveValue, CspOptions, SecurityOptions } from '../options.js';

const DEFAULT_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'font-src': ["'self'", 'https:', 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", 'https:', "'unsafe-inline'"],
  'upgrade-insecure-requests': [],
};
const SHOULD_BE_QUOTED = new Set([
  'none',
  'self',
  'strict-dynamic',
  'report-sample',
  'inline-speculation-rules',
  'unsafe-inline',
  'unsafe-eval',
  'unsafe-hashes',
  'wasm-unsafe-eval',
]);

function fail(header: string, what: string): never {
  throw new TypeError(`security(): ${header} ${what}`);
}

function checkCspValue(name: string, v: string): void {
  if (/[;,]/.test(v)) fail('Content-Security-Policy', `has an invalid value for ${JSON.stringify(name)}`);
  if (SHOULD_BE_QUOTED.has(v) || /^(nonce|sha256|sha384|sha512)-/.test(v)) {
    fail('Content-Security-Policy', `value ${JSON.stringify(v)} for ${JSON.stringify(name)} should be quoted`);
  }
}

type Directive = [name: string, values: (string | ((req: Request, res: Response) => string))[]];

function cspDirectives(o: CspOptions): Directive[] {
  const result = new Map<string, Directive[1]>(
    o.useDefaults === false ? [] : Object.entries(DEFAULT_DIRECTIVES).map(([k, v]) => [k, [...v]]),
  );
  for (const [raw, value] of Object.entries(o.directives ?? {})) {
    if (!/^[a-z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(raw)) {
      fail('Content-Security-Policy', `has an invalid directive name ${JSON.stringify(raw)}`);
    }
    const name = raw.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (value === null) {
      if (name === 'default-src') fail('Content-Security-Policy', 'needs a default-src (it was set to null)');
      result.delete(name);
      continue;
    }
    const values = typeof value === 'string' ? [value] : [...value];
    for (const v of values) if (typeof v === 'string') checkCspValue(name, v);
    result.set(name, values);
  }
  if (result.size === 0) fail('Content-Security-Policy', 'has no directives; set some or turn it off');
  if (!result.has('default-src')) fail('Content-Security-Policy', 'needs a default-src');
  return [...result];
}

function cspValue(directives: Directive[], req?: Request, res?: Response): string {
  const out: string[] = [];
  for (const [name, values] of directives) {
    let v = '';
    for (const e of values) {
      const s = typeof e === 'function' ? e(req as Request, res as Response) : e;
      if (typeof e === 'function') checkCspValue(name, s);
      v += ` ${s}`;
    }
    if (/[;,]/.test(v)) fail('Content-Security-Policy', `has an invalid value for ${JSON.stringify(name)}`);
    out.push(`${name}${v}`);
  }
  return out.join(';');
}

function pick<T>(o: SecurityOptions, name: keyof SecurityOptions, alias?: keyof SecurityOptions): T | undefined {
  if (alias !== undefined && name in o && alias in o) fail(String(name), `was given twice (also as ${String(alias)})`);
  return (o[name] ?? (alias === undefined ? undefined : o[alias])) as T | undefined;
}

function policy(header: string, allowed: readonly string[], given: string | undefined, fallback: string): string {
  const p = given ?? fallback;
  if (!allowed.includes(p)) fail(header, `does not support the ${JSON.stringify(p)} policy`);
  return p;
}

/** The compiled header set. */
interface Compiled {
  /** [name, value] in helmet's order, CSP excluded when it is computed per request. */
  fixed: [string, string][];
  /** A CSP with function directives: [header name, directives]. */
  dynamic: [string, Directive[]] | undefined;
}

function compile(o: SecurityOptions): Compiled {
  const fixed: [string, string][] = [];
  let dynamic: Compiled['dynamic'];
  const csp = o.contentSecurityPolicy;
  if (csp !== false) {
    const co: CspOptions = csp === true || csp === undefined ? {} : csp;
    const directives = cspDirectives(co);
    const name = co.reportOnly ? 'Content-Security-Policy-Report-Only' : 'Content-Security-Policy';
    if (directives.some(([, vs]) => vs.some((v) => typeof v === 'function'))) dynamic = [name, directives];
    else fixed.push([name, cspValue(directives)]);
  }
  const coep = o.crossOriginEmbedderPolicy;
  if (coep !== undefined && coep !== false) {
    const p = coep === true ? undefined : coep.policy;
    fixed.push([
      'Cross-Origin-Embedder-Policy',
      policy('Cross-Origin-Embedder-Policy', ['require-corp', 'credentialless', 'unsafe-none'], p, 'require-corp'),
    ]);
  }
  const coop = o.crossOriginOpenerPolicy;
  if (coop !== false) {
    const p = coop === true || coop === undefined ? undefined : coop.policy;
    const allowed = ['same-origin', 'same-origin-allow-popups', 'noopener-allow-popups', 'unsafe-none'];
    fixed.push(['Cross-Origin-Opener-Policy', policy('Cross-Origin-Opener-Policy', allowed, p, 'same-origin')]);
  }
  const corp = o.crossOriginResourcePolicy;
  if (corp !== false) {
    const p = corp === true || corp === undefined ? undefined : corp.policy;
    const allowed = ['same-origin', 'same-site', 'cross-origin'];
    fixed.push(['Cross-Origin-Resource-Policy', policy('Cross-Origin-Resource-Policy', allowed, p, 'same-origin')]);
  }
  if (o.originAgentCluster !== false) fixed.push(['Origin-Agent-Cluster', '?1']);
  const rp = o.referrerPolicy;
  if (rp !== false) {
    const given = rp === true || rp === undefined ? undefined : rp.policy;
    const tokens = given === undefined ? ['no-referrer'] : typeof given === 'string' ? [given] : given;
    const allowed = new Set([
      'no-referrer',
      'no-referrer-when-downgrade',
      'same-origin',
      'origin',
      'strict-origin',
      'origin-when-cross-origin',
      'strict-origin-when-cross-origin',
      'unsafe-url',
      '',
    ]);
    if (tokens.length === 0) fail('Referrer-Policy', 'received no policy tokens');
    if (new Set(tokens).size !== tokens.length) fail('Referrer-Policy', 'received a duplicate policy token');
    for (const tk of tokens)
      if (!allowed.has(tk)) fail('Referrer-Policy', `received an unexpected token ${JSON.stringify(tk)}`);
    fixed.push(['Referrer-Policy', tokens.join(',')]);
  }
  const hsts = pick<SecurityOptions['hsts']>(o, 'strictTransportSecurity', 'hsts');
  if (hsts !== false) {
    const h = hsts === true || hsts === undefined ? {} : hsts;
    const maxAge = h.maxAge ?? 365 * 24 * 60 * 60;
    if (!(maxAge >= 0 && Number.isFinite(maxAge))) fail('Strict-Transport-Security', `maxAge ${maxAge} is invalid`);
    const parts = [`max-age=${Math.floor(maxAge)}`];
    if (h.includeSubDomains === undefined || h.includeSubDomains) parts.push('includeSubDomains');
    if (h.preload) parts.push('preload');
    fixed.push(['Strict-Transport-Security', parts.join('; ')]);
  }
  if (pick(o, 'xContentTypeOptions', 'noSniff') !== false) fixed.push(['X-Content-Type-Options', 'nosniff']);
  const dns = pick<SecurityOptions['xDnsPrefetchControl']>(o, 'xDnsPrefetchControl', 'dnsPrefetchControl');
  if (dns !== false) fixed.push(['X-DNS-Prefetch-Control', typeof dns === 'object' && dns.allow ? 'on' : 'off']);
  if (pick(o, 'xDownloadOptions', 'ieNoOpen') !== false) fixed.push(['X-Download-Options', 'noopen']);
  const xfo = pick<SecurityOptions['xFrameOptions']>(o, 'xFrameOptions', 'frameguard');
  if (xfo !== false) {
    const action = (typeof xfo === 'object' ? (xfo.action ?? 'sameorigin') : 'sameorigin').toUpperCase();
    const value = action === 'SAME-ORIGIN' ? 'SAMEORIGIN' : action;
    if (value !== 'DENY' && value !== 'SAMEORIGIN')
      fail('X-Frame-Options', `has an invalid action ${JSON.stringify(action)}`);
    fixed.push(['X-Frame-Options', value]);
  }
  const xpc = pick<SecurityOptions['xPermittedCrossDomainPolicies']>(
    o,
    'xPermittedCrossDomainPolicies',
    'permittedCrossDomainPolicies',
  );
  if (xpc !== false) {
    const p = typeof xpc === 'object' ? xpc.permittedPolicies : undefined;
    const allowed = ['none', 'master-only', 'by-content-type', 'all'];
    fixed.push(['X-Permitted-Cross-Domain-Policies', policy('X-Permitted-Cross-Domain-Policies', allowed, p, 'none')]);
  }
  pick(o, 'xPoweredBy', 'hidePoweredBy'); // checked for the double-option error only: Gale sends no X-Powered-By
  if (pick(o, 'xXssProtection', 'xssFilter') !== false) fixed.push(['X-XSS-Protection', '0']);
  return { fixed, dynamic };
}

/** @internal the headers of `options` that need no request (a per-request CSP left out), for native answers */
export function fixedSecurityHeaders(options: SecurityOptions): Record<string, string> {
  return Object.fromEntries(compile(options).fixed);
}

/**
 * The header set `security(options)` adds, as a plain object: for static mounts and fixed responses, which the
 * engine answers without running middleware (`gale({ security })` adds them there by itself).
 *
 * @example
 * app.static('/assets', './public', { headers: securityHeaders() });
 */
export function securityHeaders(options: SecurityOptions = {}): Record<string, string> {
  const c = compile(options);
  if (c.dynamic !== undefined) {
    throw new TypeError(
      'securityHeaders(): a Content-Security-Policy with function directives is computed per request',
    );
  }
  return Object.fromEntries(c.fixed);
}

/**
 * Middleware adding security headers to every response it runs for: by default exactly the set helmet 8 sends by
 * default (Content-Security-Policy, Cross-Origin-Opener-Policy, Cross-Origin-Resource-Policy, Origin-Agent-Cluster,
 * Referrer-Policy, Strict-Transport-Security, X-Content-Type-Options, X-DNS-Prefetch-Control, X-Download-Options,
 * X-Frame-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection), with helmet's options. Headers the
 * handler sets afterwards win. `gale({ security: true | options })` installs it for the whole app.
 *
 * @example
 * app.use(security({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", 'cdn.example.com'] } } }));
 * app.use(security({ strictTransportSecurity: false, xFrameOptions: { action: 'deny' } }));
 */
export function security(options: SecurityOptions = {}): Middleware {
  const { fixed, dynamic } = compile(options);
  const template = new Map<string, HeaderEntry>(fixed.map(([k, v]) => [k.toLowerCase(), new HeaderEntry(k, v)]));
  return (req, res, next) => {
    const h = res._headers;
    if (h === undefined) res._headers = new Map(template);
    else for (const [k, e] of template) h.set(k, e);
    if (dynamic !== undefined) res.header(dynamic[0], cspValue(dynamic[1], req, res));
    return next();
  };
}
