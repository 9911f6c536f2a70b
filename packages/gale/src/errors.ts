// HttpError and Gale's stable error codes (listed in docs/errors.md). No dependency on the engine.

/**
 * Stable codes carried by errors Gale throws or sends; see docs/errors.md.
 *
 * @example
 * app.onError((err, req, res) => {
 *   if ((err as GaleError).code === ErrorCodes.INVALID_JSON) return res.status(400).json({ error: 'bad JSON' });
 *   throw err;
 * });
 */
export const ErrorCodes = {
  HEADERS_SENT: 'GALE_ERR_HEADERS_SENT',
  INVALID_HEADER: 'GALE_ERR_INVALID_HEADER',
  INVALID_STATUS: 'GALE_ERR_INVALID_STATUS',
  INVALID_JSON: 'GALE_ERR_INVALID_JSON',
  INVALID_URLENCODED: 'GALE_ERR_INVALID_URLENCODED',
  INVALID_MULTIPART: 'GALE_ERR_INVALID_MULTIPART',
  BODY_TOO_LARGE: 'GALE_ERR_BODY_TOO_LARGE',
  FORM_LIMIT: 'GALE_ERR_FORM_LIMIT',
  LENGTH_REQUIRED: 'GALE_ERR_LENGTH_REQUIRED',
  UNSUPPORTED_MEDIA_TYPE: 'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
  UNSUPPORTED_CHARSET: 'GALE_ERR_UNSUPPORTED_CHARSET',
  CONTENT_ENCODING: 'GALE_ERR_CONTENT_ENCODING',
  REQUEST_ENDED: 'GALE_ERR_REQUEST_ENDED',
  ROUTE_CONFLICT: 'GALE_ERR_ROUTE_CONFLICT',
  NOT_LISTENING: 'GALE_ERR_NOT_LISTENING',
  INVALID_PATH: 'GALE_ERR_INVALID_PATH',
  NEXT_TWICE: 'GALE_ERR_NEXT_TWICE',
  BODY_FAILED: 'GALE_ERR_BODY_FAILED',
  INVALID_MIDDLEWARE: 'GALE_ERR_INVALID_MIDDLEWARE',
  COOKIE_SECRET: 'GALE_ERR_COOKIE_SECRET',
  INVALID_COOKIE: 'GALE_ERR_INVALID_COOKIE',
  INVALID_REDIRECT: 'GALE_ERR_INVALID_REDIRECT',
  NOT_ACCEPTABLE: 'GALE_ERR_NOT_ACCEPTABLE',
  INVALID_CHUNK: 'GALE_ERR_INVALID_CHUNK',
  INVALID_SSE: 'GALE_ERR_INVALID_SSE',
  VIEW_ENGINE: 'GALE_ERR_VIEW_ENGINE',
  VIEW_NOT_FOUND: 'GALE_ERR_VIEW_NOT_FOUND',
  CSRF: 'GALE_ERR_CSRF',
  SESSION: 'GALE_ERR_SESSION',
} as const;

/**
 * Options of `new HttpError(status, message, options)`.
 *
 * @example
 * throw new HttpError(429, 'slow down', { headers: { 'retry-after': '30' } });
 */
export interface HttpErrorOptions {
  /** Send `message` to the client (default: true below 500, false from 500). */
  expose?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** A stable machine-readable code. */
  code?: string;
  cause?: unknown;
}

/**
 * An error that becomes an HTTP response with its status.
 *
 * @example
 * app.get('/users/:id', (req) => {
 *   const user = users.get(req.params.id);
 *   if (!user) throw new HttpError(404, 'no such user');
 *   return user;
 * });
 */
export class HttpError extends Error {
  readonly status: number;
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  readonly code: string | undefined;

  constructor(status: number, message?: string, options: HttpErrorOptions = {}) {
    super(message ?? defaultMessage(status), options.cause === undefined ? undefined : { cause: options.cause });
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`HttpError status must be an integer from 400 to 599, got ${status}`);
    }
    this.name = 'HttpError';
    this.status = status;
    this.expose = options.expose ?? status < 500;
    this.headers = options.headers ?? {};
    this.code = options.code;
  }
}

/**
 * A code-carrying Error for programmer mistakes (wrong use of the API).
 *
 * @example
 * try {
 *   res.header('x-late', '1'); // after the response was sent
 * } catch (err) {
 *   if (err instanceof GaleError && err.code === ErrorCodes.HEADERS_SENT) console.warn('answered already');
 * }
 */
export class GaleError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'GaleError';
    this.code = code;
  }
}

const MESSAGES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function defaultMessage(status: number): string {
  return MESSAGES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');
}
