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
  NODE_MIDDLEWARE: 'GALE_ERR_NODE_MIDDLEWARE',
  /**
   * An option object given to gale()/serve(), listen(), app.static()/serveStatic() or app.ws() has a name Gale does
   * not know (the message names the nearest valid one) or a value of the wrong kind; thrown as a TypeError.
   */
  INVALID_OPTION: 'GALE_ERR_INVALID_OPTION',
  /** An optional package a feature needs is not installed (the message says which, and the npm command). */
  MISSING_PACKAGE: 'GALE_ERR_MISSING_PACKAGE',
  /** A name that moved to a package of its own (gale/express → @gale-http/express, gale.cluster → …). */
  MOVED: 'GALE_ERR_MOVED',
  /** `app.request()` could not make the request: an Upgrade (WebSocket, h2c), a closed app, a connection gone. */
  IN_PROCESS: 'GALE_ERR_IN_PROCESS',
  /** 503 from Gale: a handler left its request unanswered for `handlerTimeout` ms (the route is logged). */
  HANDLER_TIMEOUT: 'GALE_ERR_HANDLER_TIMEOUT',
  /** 400: the request did not pass its route's params, query, headers or body schema (see ValidationError). */
  VALIDATION: 'GALE_ERR_VALIDATION',
  /** A response schema that cannot be compiled to a serializer (no JSON Schema to be had from it). */
  RESPONSE_SCHEMA: 'GALE_ERR_RESPONSE_SCHEMA',
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
 * Where in the request a validation issue is: the route schema's key.
 *
 * @example
 * const inBody = (err: ValidationError, part: RequestPart = 'body') => err.issues.filter((i) => i.in === part);
 */
export type RequestPart = 'params' | 'query' | 'headers' | 'body';

/**
 * One failed check of a request against its route's schemas, as the 400 answer lists it.
 *
 * @example
 * app.onError((err, req, res) => {
 *   if (err instanceof ValidationError) return res.status(422).json({ fields: err.issues.map((i: ValidationIssue) => i.pointer) });
 *   throw err;
 * });
 */
export interface ValidationIssue {
  /** The part of the request: `params`, `query`, `headers` or `body`. */
  readonly in: RequestPart;
  /** The JSON Pointer (RFC 6901) of the value in that part, as a URI fragment: `#/items/0/name`; `#` for the whole. */
  readonly pointer: string;
  /** The same place as a list of keys: `['items', 0, 'name']`. */
  readonly path: readonly (string | number)[];
  /** What is wrong, as the schema library says it. */
  readonly message: string;
}

/**
 * The RFC 9457 problem document a failed validation is answered with (`application/problem+json`).
 *
 * @example
 * const r = await fetch('http://localhost:3000/users', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
 * const problem = (await r.json()) as ValidationProblem; // problem.errors[0].pointer === '#/name'
 */
export interface ValidationProblem {
  /** A URI naming the problem type: the GALE_ERR_VALIDATION section of docs/errors.md. */
  readonly type: string;
  readonly title: string;
  readonly status: 400;
  /** Every issue in one line, for people. */
  readonly detail: string;
  /** The stable error code, `GALE_ERR_VALIDATION`. */
  readonly code: string;
  /** Each failing field: where it is and what is wrong. */
  readonly errors: readonly ValidationIssue[];
}

/**
 * The `type` of the validation problem document (a link to its description in docs/errors.md).
 *
 * @example
 * const problem = (await response.json()) as ValidationProblem;
 * if (problem.type === VALIDATION_PROBLEM_TYPE) console.log(problem.errors.map((e) => e.pointer));
 */
export const VALIDATION_PROBLEM_TYPE = 'https://github.com/gale-http/gale/blob/main/docs/errors.md#gale_err_validation';

/**
 * A request that did not pass its route's schemas (`app.post(path, { body: Schema }, handler)`): the handler does
 * not run, and unless an error handler takes it the answer is 400 `application/problem+json` (RFC 9457) with
 * `type`, `title`, `status`, `detail`, `code` (`GALE_ERR_VALIDATION`) and `errors`, one per issue.
 *
 * @example
 * app.onError((err, req, res) => {
 *   if (err instanceof ValidationError) return res.status(400).json({ invalid: err.issues.map((i) => i.pointer) });
 *   throw err;
 * });
 */
export class ValidationError extends HttpError {
  /** Every failing check, in the order params, query, headers, body. */
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    super(400, describeIssues(issues), { code: ErrorCodes.VALIDATION });
    this.name = 'ValidationError';
    this.issues = issues;
  }

  /** The RFC 9457 problem document of this error. */
  get problem(): ValidationProblem {
    return {
      type: VALIDATION_PROBLEM_TYPE,
      title: 'The request does not match the schema of its route',
      status: 400,
      detail: this.message,
      code: ErrorCodes.VALIDATION,
      errors: this.issues,
    };
  }
}

function describeIssues(issues: readonly ValidationIssue[]): string {
  const each = issues.map((i) => `${i.in}${i.pointer === '#' ? '' : ` ${i.pointer.slice(1)}`}: ${i.message}`);
  return `${issues.length === 1 ? '1 problem' : `${issues.length} problems`}: ${each.join('; ')}`;
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
