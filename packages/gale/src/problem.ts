// RFC 9457 problem documents for the error answers Gale makes in JavaScript (an uncaught HttpError, a bad body, the
// default 404), and the Accept rule that picks them over plain text: the same rule and codes as the engine's own
// answers (crates/gale-http/src/problem.rs); problem.test.ts holds both to one table.

/**
 * How Gale writes its own error answers (`gale({ errorFormat })`).
 *
 * @example
 * const api = gale({ errorFormat: 'problem' }); // 404s, 400s, 500s as application/problem+json
 */
export type ErrorFormat = 'negotiate' | 'text' | 'problem';

/**
 * An RFC 9457 problem document as Gale writes it: `type` is `about:blank` (the status says it all), `title` the
 * status's reason phrase, `detail` the message when it says more than the title, `code` Gale's stable error code.
 *
 * @example
 * const res = await app.request('/nope', { headers: { accept: 'application/json' } });
 * const problem = (await res.json()) as ProblemDocument; // { type: 'about:blank', title: 'Not Found', status: 404, code: 'GALE_ERR_NOT_FOUND' }
 */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  [extension: string]: unknown;
}

const JSON_TYPE = /^application\/(?:json|[^\s;]+\+json)$/i;
const TEXT_TYPE = /^(?:\*\/\*|text\/(?:\*|plain|html))$/i;
const QUALITY = /^q=([01](?:\.\d{0,3})?)$/i;

/**
 * Whether a client that sent `accept` is better answered with JSON than text: some JSON type (`application/json`,
 * `application/problem+json`, `application/*+json`) has a quality above 0 and at least that of any text type or
 * wildcard (`text/plain`, `text/html`, `text/*`, `*∕*`).
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  let json = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [media = '', ...params] = range.split(';');
    let q = 1000;
    for (const p of params) {
      const t = p.trim();
      if (t.length > 2 && t.slice(0, 2).toLowerCase() === 'q=') q = quality(t);
    }
    const m = media.trim();
    if (JSON_TYPE.test(m)) json = Math.max(json, q);
    else if (TEXT_TYPE.test(m)) text = Math.max(text, q);
  }
  return json > 0 && json >= text;
}

/** A quality value in thousandths; 0 when malformed (as the engine reads it). */
function quality(param: string): number {
  const m = QUALITY.exec(param);
  if (m === null) return 0;
  const n = Math.round(Number(m[1]) * 1000);
  return n <= 1000 ? n : 0;
}

/** The reason phrases Gale's documents use as `title` (the engine's, RFC 9110's wording). */
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
};

/** Stable codes of statuses that carry no code of their own (an HttpError made without one). */
const STATUS_CODES: Record<number, string> = {
  400: 'GALE_ERR_BAD_REQUEST',
  403: 'GALE_ERR_FORBIDDEN',
  404: 'GALE_ERR_NOT_FOUND',
  405: 'GALE_ERR_METHOD_NOT_ALLOWED',
  408: 'GALE_ERR_REQUEST_TIMEOUT',
  411: 'GALE_ERR_LENGTH_REQUIRED',
  412: 'GALE_ERR_PRECONDITION_FAILED',
  413: 'GALE_ERR_BODY_TOO_LARGE',
  414: 'GALE_ERR_URI_TOO_LONG',
  415: 'GALE_ERR_UNSUPPORTED_MEDIA_TYPE',
  416: 'GALE_ERR_RANGE_NOT_SATISFIABLE',
  417: 'GALE_ERR_EXPECTATION_FAILED',
  426: 'GALE_ERR_UPGRADE_REQUIRED',
  431: 'GALE_ERR_HEADERS_TOO_LARGE',
  500: 'GALE_ERR_INTERNAL',
  501: 'GALE_ERR_NOT_IMPLEMENTED',
  503: 'GALE_ERR_UNAVAILABLE',
  505: 'GALE_ERR_VERSION_NOT_SUPPORTED',
};

/** Whether an error answer to a request with this `accept` is a problem document under `format`. */
export function wantsProblem(format: ErrorFormat, accept: string | undefined): boolean {
  return format === 'problem' || (format === 'negotiate' && prefersJson(accept));
}

/** The problem document of an error answer; `code` defaults to the status's stable code. */
export function problemDocument(status: number, detail: string, code?: string): ProblemDocument {
  const title = TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
  const doc: ProblemDocument = { type: 'about:blank', title, status };
  if (detail !== '' && detail !== title) doc.detail = detail;
  const c = code ?? STATUS_CODES[status];
  if (c !== undefined) doc.code = c;
  return doc;
}
