// CSRF protection (off unless you add it): a per-client secret, kept in req.session when the session middleware
// runs first (synchronizer token) or else in an httpOnly cookie (double submit, HMAC-signed when `secret` is
// given, so a sibling subdomain cannot plant one); `req.csrfToken()` makes tokens (salt + hash of salt and
// secret), and requests with unsafe methods must send one back in a header or the `_csrf` form/JSON field, else 403.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Middleware } from '../chain.js';
import { ErrorCodes, HttpError } from '../errors.js';
import type { Request } from '../request/request.js';
import type { Response } from '../response/response.js';

/**
 * Options of `csrf()`.
 *
 * @example
 * app.use(csrf({ cookie: { name: '__Host-csrf', sameSite: 'strict' }, ignoreMethods: ['GET', 'HEAD', 'OPTIONS'] }));
 */
export interface CsrfOptions {
  /** Methods that need no token. Default GET, HEAD, OPTIONS. */
  ignoreMethods?: string[];
  /** Request headers a token is read from, in order. Default `x-csrf-token`, `csrf-token`, `x-xsrf-token`. */
  headers?: string[];
  /** Body field a token is read from (urlencoded and JSON bodies). Default `'_csrf'`. */
  field?: string;
  /**
   * Signs the secret cookie (double-submit mode) so it cannot be set from elsewhere (another subdomain). Strongly
   * recommended without sessions.
   */
  secret?: string;
  /** The secret cookie (double-submit mode). Defaults: name `_csrf`, path '/', httpOnly, sameSite 'lax'. */
  cookie?: { name?: string; path?: string; domain?: string; secure?: boolean; sameSite?: 'lax' | 'strict' | 'none' };
}

declare module '../request/request.js' {
  interface Request {
    /**
     * A CSRF token for this client (set by the `csrf()` middleware): put it in forms (`_csrf` field) or send it
     * back in the `X-CSRF-Token` header.
     *
     * @example
     * app.get('/form', (req) => html`<form method="post"><input type="hidden" name="_csrf" value="${req.csrfToken()}">…</form>`);
     */
    csrfToken(): string;
  }
}

const SESSION_KEY = '_csrfSecret';

function digest(salt: string, secret: string): string {
  return createHash('sha256').update(`${salt}.${secret}`).digest('base64url');
}

// `salt.hash`: '.' is not in the base64url alphabet, so it splits a token unambiguously.
function tokenFor(secret: string): string {
  const salt = randomBytes(9).toString('base64url');
  return `${salt}.${digest(salt, secret)}`;
}

function verify(token: string, secret: string): boolean {
  const dot = token.indexOf('.');
  if (dot <= 0) return false;
  const want = Buffer.from(`${token.slice(0, dot)}.${digest(token.slice(0, dot), secret)}`);
  const given = Buffer.from(token);
  return want.length === given.length && timingSafeEqual(want, given);
}

function forbidden(why: string): HttpError {
  return new HttpError(
    403,
    `Forbidden: ${why}. Send the token from req.csrfToken() in the X-CSRF-Token header or the _csrf form field`,
    { code: ErrorCodes.CSRF },
  );
}

/**
 * CSRF middleware. Requests with other methods than GET/HEAD/OPTIONS need a valid token (header, or the `_csrf`
 * field of an urlencoded or JSON body), else they get 403 (`GALE_ERR_CSRF`). Put it after `session()` to keep the
 * secret in the session; without one, the secret lives in an httpOnly cookie (give `secret` to sign it).
 *
 * @example
 * app.use(session({ secret: process.env.SESSION_SECRET }));
 * app.use(csrf());
 * app.get('/transfer', (req) => html`<form method="post"><input type="hidden" name="_csrf" value="${req.csrfToken()}">…`);
 * app.post('/transfer', (req) => 'done'); // only with a valid token
 */
export function csrf(options: CsrfOptions = {}): Middleware {
  const ignore = new Set((options.ignoreMethods ?? ['GET', 'HEAD', 'OPTIONS']).map((m) => m.toUpperCase()));
  const headers = (options.headers ?? ['x-csrf-token', 'csrf-token', 'x-xsrf-token']).map((h) => h.toLowerCase());
  const field = options.field ?? '_csrf';
  const key = options.secret;
  const cookieName = options.cookie?.name ?? '_csrf';

  const signCookie = (secret: string): string =>
    key === undefined ? secret : `${secret}.${createHmac('sha256', key).update(secret).digest('base64url')}`;
  const readCookie = (value: string | undefined): string | undefined => {
    if (value === undefined || key === undefined) return value || undefined;
    const dot = value.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const secret = value.slice(0, dot);
    return signCookie(secret) === value ? secret : undefined;
  };

  const currentSecret = (req: Request): string | undefined => {
    const s = req.session as Record<string, unknown> | undefined;
    if (s !== undefined) return typeof s[SESSION_KEY] === 'string' ? (s[SESSION_KEY] as string) : undefined;
    return readCookie(req.cookies[cookieName]);
  };

  const newSecret = (req: Request, res: Response): string => {
    const secret = randomBytes(18).toString('base64url');
    const s = req.session as Record<string, unknown> | undefined;
    if (s !== undefined) s[SESSION_KEY] = secret;
    else {
      res.cookie(cookieName, signCookie(secret), {
        path: options.cookie?.path ?? '/',
        domain: options.cookie?.domain,
        secure: options.cookie?.secure,
        sameSite: options.cookie?.sameSite ?? 'lax',
        httpOnly: true,
      });
    }
    return secret;
  };

  const tokenFromBody = async (req: Request): Promise<string | undefined> => {
    const type = req.get('content-type') ?? '';
    if (!/^(application\/x-www-form-urlencoded|application\/json|[^;]*\+json)/i.test(type)) return undefined;
    const body = (await req.parseBody()) as Record<string, unknown> | undefined;
    const v = body?.[field];
    return typeof v === 'string' ? v : undefined;
  };

  return async (req, res, next) => {
    let secret = currentSecret(req);
    req.csrfToken = () => {
      secret ??= newSecret(req, res);
      return tokenFor(secret);
    };
    if (!ignore.has(req.method)) {
      if (secret === undefined)
        throw forbidden('no CSRF secret for this client (load a page that calls req.csrfToken() first)');
      let token: string | undefined;
      for (const h of headers) {
        token = req.get(h);
        if (token !== undefined) break;
      }
      token ??= await tokenFromBody(req);
      if (token === undefined) throw forbidden('missing CSRF token');
      if (!verify(token, secret)) throw forbidden('invalid CSRF token');
    }
    return next();
  };
}
