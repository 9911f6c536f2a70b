// Body readers of Request: Content-Length rules, limits, decompression, then JSON / form / text /
// parsed / multipart. Every read goes through req._bodySource(); imports Request as a type only.
import {
  charsetOf,
  decodeText,
  inflate,
  isJsonType,
  mediaType,
  parseJson,
  parseUrlencoded,
  stripBom,
  tooLarge,
} from '../body.js';
import { ErrorCodes, HttpError } from '../errors.js';
import { type MultipartOptions, type MultipartPart, parseMultipart } from '../multipart.js';
import type { JsonOptions, TextOptions, UrlencodedOptions } from '../options.js';
import type { RequestView as Request } from './api.js';
import { type JsonConfig, parseBytes, type UrlencodedConfig } from './config.js';

function unsupportedType(reader: string, wants: string, contentType: string | undefined): HttpError {
  return new HttpError(
    415,
    `${reader} reads ${wants} bodies; this request's Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}`,
    { code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE },
  );
}

/** The Content-Length header as a number, if there is one. */
export function contentLength(req: Request): number | undefined {
  const v = req.get('content-length');
  return v === undefined ? undefined : Number(v);
}

/** `req.requireLength()`: the Content-Length, or 411 without one. */
export function requireLength(req: Request): number {
  const len = contentLength(req);
  if (len === undefined) {
    throw new HttpError(411, 'This endpoint needs a Content-Length header; send the body with a known length', {
      code: ErrorCodes.LENGTH_REQUIRED,
    });
  }
  return len;
}

/** True when the request has a body (Content-Length or Transfer-Encoding), as type-is decides. */
function hasBody(req: Request): boolean {
  return req.get('transfer-encoding') !== undefined || req.get('content-length') !== undefined;
}

/**
 * The bytes for a parsing reader: Content-Length rules, then the body, decompressed per
 * Content-Encoding, at most `limit` bytes (413 naming `limitName` otherwise). The Buffer itself when the whole body
 * is here already (most bodies: they came with the head), so a reader can answer without awaiting anything.
 */
export function readBody(req: Request, limit: number, limitName: string): Buffer | Promise<Buffer> {
  const len = req._cfg.requireLength ? req.requireLength() : contentLength(req);
  const encoding = req.get('content-encoding');
  if (encoding === undefined && len !== undefined && len > limit) {
    throw tooLarge(`Request body is ${len} bytes, larger than the ${limitName} option (${limit} bytes)`);
  }
  const checked = (raw: Buffer): Buffer => {
    const body = encoding === undefined ? raw : inflate(raw, encoding, limit, limitName);
    if (body.length > limit) {
      throw tooLarge(`Request body is ${body.length} bytes, larger than the ${limitName} option (${limit} bytes)`);
    }
    return body;
  };
  const src = req._bodySource();
  const now = src.ready();
  return now !== undefined ? checked(now) : src.all().then(checked);
}

/**
 * The body as UTF-8 text straight from the engine (no Buffer made) when it is all here, valid UTF-8, not
 * Content-Encoded and within `limit`; undefined otherwise (the bytes are read and decoded as usual, with their errors).
 */
function textNow(req: Request, limit: number): string | undefined {
  if (req.get('content-encoding') !== undefined) return undefined;
  const len = req._cfg.requireLength ? req.requireLength() : contentLength(req);
  if (len !== undefined && len > limit) return undefined;
  return req._bodySource().text(limit);
}

const isUtf8 = (charset: string): boolean => charset === 'utf-8' || charset === 'utf8';

/** `f` of the body, as a promise settled at once when the body is here (no await), else when it has arrived. */
function withBody<T>(req: Request, limit: number, limitName: string, f: (body: Buffer) => T): Promise<T> {
  try {
    const b = readBody(req, limit, limitName);
    return b instanceof Promise ? b.then(f) : Promise.resolve(f(b));
  } catch (err) {
    return Promise.reject(err);
  }
}

export function jsonConfig(req: Request, options: JsonOptions | undefined): JsonConfig {
  const d = req._cfg.json;
  if (options === undefined) return d;
  return {
    strict: options.strict ?? d.strict,
    reviver: options.reviver ?? d.reviver,
    limit: parseBytes(options.limit, d.limit, 'json.limit'),
    strictType: options.strictType ?? d.strictType,
  };
}

export function urlencodedConfig(req: Request, options: UrlencodedOptions | undefined): UrlencodedConfig {
  const d = req._cfg.urlencoded;
  if (options === undefined) return d;
  return {
    extended: options.extended ?? d.extended,
    depth: options.depth ?? d.depth,
    parameterLimit: options.parameterLimit ?? d.parameterLimit,
    limit: parseBytes(options.limit, d.limit, 'urlencoded.limit'),
  };
}

/** `req.text(options)`. */
export function readText(req: Request, options: TextOptions | undefined): Promise<string> {
  let charset: string;
  let limit: number;
  try {
    const d = req._cfg.text;
    limit = parseBytes(options?.limit, d.limit, 'text.limit');
    charset = charsetOf(req.get('content-type')) ?? (options?.defaultCharset ?? d.defaultCharset).toLowerCase();
    const now = isUtf8(charset) ? textNow(req, limit) : undefined;
    if (now !== undefined) return Promise.resolve(stripBom(now));
  } catch (err) {
    return Promise.reject(err);
  }
  return withBody(req, limit, 'text.limit', (body) => decodeText(body, charset));
}

export function readJson(req: Request, o: JsonConfig, emptyIsObject: boolean): Promise<unknown> {
  const ct = req.get('content-type');
  if (o.strictType && !isJsonType(mediaType(ct))) {
    return Promise.reject(unsupportedType('req.json() (json.strictType)', 'application/json', ct));
  }
  const charset = charsetOf(ct) ?? 'utf-8';
  if (!charset.startsWith('utf')) {
    return Promise.reject(
      new HttpError(415, `Unsupported charset "${charset}" for JSON; send utf-8`, {
        code: ErrorCodes.UNSUPPORTED_CHARSET,
      }),
    );
  }
  const parse = (text: string): unknown => {
    if (text.length === 0) {
      if (emptyIsObject) return {};
      throw new HttpError(400, 'Request body is empty; send a JSON document', { code: ErrorCodes.INVALID_JSON });
    }
    return parseJson(text, o);
  };
  try {
    const now = isUtf8(charset) ? textNow(req, o.limit) : undefined;
    if (now !== undefined) return Promise.resolve(parse(stripBom(now)));
  } catch (err) {
    return Promise.reject(err);
  }
  return withBody(req, o.limit, 'json.limit', (body) => parse(decodeText(body, charset)));
}

/** `req.json(options)`: a bad option rejects, as the body's own errors do. */
export function readJsonBody(req: Request, options: JsonOptions | undefined): Promise<unknown> {
  let config: JsonConfig;
  try {
    config = jsonConfig(req, options);
  } catch (err) {
    return Promise.reject(err);
  }
  return readJson(req, config, false);
}

export async function readForm(req: Request, o: UrlencodedConfig): Promise<unknown> {
  const ct = req.get('content-type');
  if (mediaType(ct) !== 'application/x-www-form-urlencoded') {
    throw unsupportedType('req.form()', 'application/x-www-form-urlencoded', ct);
  }
  const cs = charsetOf(ct) ?? 'utf-8';
  const charset =
    cs === 'utf-8' || cs === 'utf8' ? 'utf-8' : cs === 'iso-8859-1' || cs === 'latin1' ? 'iso-8859-1' : '';
  if (charset === '') {
    throw new HttpError(415, `Unsupported charset "${cs}" for a form; send utf-8 or iso-8859-1`, {
      code: ErrorCodes.UNSUPPORTED_CHARSET,
    });
  }
  const body = await readBody(req, o.limit, 'urlencoded.limit');
  return parseUrlencoded(body.toString(charset === 'utf-8' ? 'utf8' : 'latin1'), o, charset);
}

export async function readParsedBody(req: Request): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const type = mediaType(req.get('content-type'));
  if (type === '') return undefined;
  if (isJsonType(type)) return readJson(req, { ...req._cfg.json, strictType: false }, true);
  if (type === 'application/x-www-form-urlencoded') return readForm(req, req._cfg.urlencoded);
  if (type.startsWith('text/')) return req.text();
  return readBody(req, req._cfg.bodyLimit, 'bodyLimit');
}

/** `req.parseBody()`: read once; later calls get the same promise. */
export function parseBodyOnce(req: Request): Promise<unknown> {
  const x = req.lazy();
  if (x.body === undefined) x.body = readParsedBody(req);
  return x.body;
}

/** `req.arrayBuffer()`: the body's bytes, copied out of the Buffer's pool. */
export async function readArrayBuffer(req: Request): Promise<ArrayBuffer> {
  const b = await req._bodySource().all();
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

/** `req.multipart(options, onPart)`: each part to `onPart`, awaited in turn. */
export async function eachPart(
  req: Request,
  options: MultipartOptions | undefined,
  onPart: (part: MultipartPart) => unknown,
): Promise<void> {
  for await (const part of readMultipart(req, options)) await onPart(part);
}

export async function* readMultipart(
  req: Request,
  options: MultipartOptions = {},
): AsyncGenerator<MultipartPart, void, undefined> {
  const len = req._cfg.requireLength ? req.requireLength() : contentLength(req);
  yield* parseMultipart(req.get('content-type'), () => req._bodySource().iterate(), len, options);
}
