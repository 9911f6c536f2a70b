// Body parsing without I/O: Content-Type parameters, charsets, Content-Encoding, JSON with error
// positions, urlencoded forms (flat, or nested with qs). request.ts reads the bytes and calls these.
import { isUtf8 } from 'node:buffer';
import zlib from 'node:zlib';
import { ErrorCodes, HttpError } from './errors.js';
import { parseFlat } from './flat-form.js';
import { loadQs } from './qs.js';
import type { JsonConfig, UrlencodedConfig } from './request/config.js';

/** The media type of a Content-Type value, lower-case, without parameters (`''` when absent). */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type value, lower-case, unquoted. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  if (!m) return undefined;
  return (m[1] ?? m[2] ?? '').toLowerCase() || undefined;
}

/** application/json or any `+json` type. */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.endsWith('+json') && type.includes('/'));
}

/** `s` without a leading byte order mark. */
export function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

function unsupportedCharset(charset: string, supported: string): HttpError {
  return new HttpError(415, `Unsupported charset "${charset}" in Content-Type; send ${supported}`, {
    code: ErrorCodes.UNSUPPORTED_CHARSET,
  });
}

/**
 * Decodes `buf` in `charset`: utf-8, iso-8859-1/latin1 and utf-16le natively, any other WHATWG
 * encoding label through TextDecoder; an unknown charset is a 415. A leading BOM is dropped.
 */
export function decodeText(buf: Buffer, charset: string): string {
  switch (charset) {
    case 'utf-8':
    case 'utf8':
      return stripBom(buf.toString('utf8'));
    case 'iso-8859-1':
    case 'latin1':
    case 'l1':
    case 'us-ascii':
    case 'ascii':
      return buf.toString('latin1');
    case 'utf-16le':
    case 'utf16le':
    case 'ucs-2':
    case 'ucs2':
      return stripBom(buf.toString('utf16le'));
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    throw unsupportedCharset(charset, 'utf-8, iso-8859-1, utf-16le or another WHATWG encoding');
  }
  return decoder.decode(buf);
}

/**
 * Undoes a Content-Encoding (gzip, deflate, br), never producing more than `limit` bytes (→ 413
 * naming `limitName`). Anything else but identity is a 415; corrupt data is a 400.
 */
export function inflate(buf: Buffer, encoding: string | undefined, limit: number, limitName: string): Buffer {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc === 'identity' || enc === '') return buf;
  const opts = { maxOutputLength: Math.max(1, Math.min(limit, 2 ** 31 - 1)) };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(buf, opts);
    if (enc === 'deflate') return zlib.inflateSync(buf, opts);
    if (enc === 'br') return zlib.brotliDecompressSync(buf, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`The decompressed request body is larger than the ${limitName} option (${limit} bytes)`);
    }
    throw new HttpError(400, `Request body could not be decompressed (${enc}): ${(err as Error).message}`, {
      code: ErrorCodes.CONTENT_ENCODING,
    });
  }
  throw new HttpError(415, `Unsupported Content-Encoding "${enc}"; send gzip, deflate, br or identity`, {
    code: ErrorCodes.CONTENT_ENCODING,
  });
}

export function tooLarge(message: string): HttpError {
  return new HttpError(413, message, { code: ErrorCodes.BODY_TOO_LARGE });
}

// ---------------------------------------------------------------------------------------------
// JSON

function where(s: string, pos: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < pos && i < s.length; i++) {
    if (s.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return `at position ${pos} (line ${line}, column ${col})`;
}

/**
 * Finds the first syntax error in `s` (RFC 8259): its position and what was expected there.
 * Iterative, so deeply nested input cannot overflow the stack. Undefined when `s` is valid JSON.
 */
export function findJsonError(s: string): { pos: number; expected: string } | undefined {
  const n = s.length;
  let i = 0;
  const stack: boolean[] = []; // true: object, false: array
  const ws = (): void => {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else return;
    }
  };
  const isDigit = (c: number) => c >= 48 && c <= 57;
  const err = (expected: string) => ({ pos: i, expected });
  const string = (): { pos: number; expected: string } | undefined => {
    i++; // opening quote
    for (;;) {
      if (i >= n) return err("the closing '\"' of a string");
      const c = s.charCodeAt(i);
      if (c === 34) {
        i++;
        return undefined;
      }
      if (c < 0x20) return err('a string character (control characters must be escaped)');
      if (c === 92) {
        i++;
        const e = s[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(s[i + k] ?? '')) {
              i += k;
              return err('4 hex digits after \\u');
            }
          }
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else return err('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
      } else i++;
    }
  };
  const number = (): { pos: number; expected: string } | undefined => {
    if (s[i] === '-') i++;
    if (s[i] === '0') i++;
    else if (isDigit(s.charCodeAt(i))) while (isDigit(s.charCodeAt(i))) i++;
    else return err('a digit');
    if (s[i] === '.') {
      i++;
      if (!isDigit(s.charCodeAt(i))) return err('a digit after the decimal point');
      while (isDigit(s.charCodeAt(i))) i++;
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      if (!isDigit(s.charCodeAt(i))) return err('a digit in the exponent');
      while (isDigit(s.charCodeAt(i))) i++;
    }
    return undefined;
  };
  const key = (): { pos: number; expected: string } | undefined => {
    ws();
    if (s[i] !== '"') return err('a double-quoted property name');
    const e = string();
    if (e) return e;
    ws();
    if (s[i] !== ':') return err("':' after a property name");
    i++;
    return undefined;
  };
  for (;;) {
    // one value
    ws();
    const c = s[i];
    let e: { pos: number; expected: string } | undefined;
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') i++;
      else {
        stack.push(true);
        e = key();
        if (e) return e;
        continue;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') i++;
      else {
        stack.push(false);
        continue;
      }
    } else if (c === '"') e = string();
    else if (c === '-' || isDigit(s.charCodeAt(i))) e = number();
    else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (let k = 0; k < word.length; k++, i++) if (s[i] !== word[k]) return err(`'${word}'`);
    } else return err('a JSON value');
    if (e) return e;
    // close what the value ends
    for (;;) {
      ws();
      if (stack.length === 0) return i < n ? err('the end of the document') : undefined;
      const obj = stack[stack.length - 1] as boolean;
      if (s[i] === ',') {
        i++;
        if (obj) {
          e = key();
          if (e) return e;
        }
        break;
      }
      if (s[i] === (obj ? '}' : ']')) {
        i++;
        stack.pop();
        continue;
      }
      return err(obj ? "',' or '}' after a property value" : "',' or ']' after an array element");
    }
  }
}

function found(s: string, pos: number): string {
  return pos >= s.length ? 'the end of the body' : JSON.stringify(String.fromCodePoint(s.codePointAt(pos) as number));
}

/** Parses JSON text; syntax errors become 400s naming what was expected, what was found, and where. */
export function parseJson(text: string, o: JsonConfig): unknown {
  if (o.strict) {
    let i = 0;
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
    const c = text[i];
    if (c !== '{' && c !== '[') {
      throw new HttpError(
        400,
        `Request body must be a JSON object or array (json.strict), but found ${found(text, i)} ${where(text, i)}`,
        { code: ErrorCodes.INVALID_JSON },
      );
    }
  }
  try {
    return o.reviver === undefined
      ? JSON.parse(text)
      : JSON.parse(text, o.reviver as (k: string, v: unknown) => unknown);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const e = findJsonError(text);
    const detail = e
      ? `expected ${e.expected} but found ${found(text, e.pos)} ${where(text, e.pos)}`
      : (err as Error).message;
    throw new HttpError(400, `Request body is not valid JSON: ${detail}`, {
      code: ErrorCodes.INVALID_JSON,
      cause: err,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// urlencoded

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Checks that every `%` starts a `%XX` escape and (utf-8) that each run of escapes is valid UTF-8;
 * throws a 400 naming the position otherwise.
 */
export function checkPercentEncoding(text: string, utf8: boolean): void {
  let i = text.indexOf('%');
  while (i !== -1) {
    const start = i;
    const bytes: number[] = [];
    while (text.charCodeAt(i) === 37) {
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) {
        throw new HttpError(
          400,
          `Form body is not valid urlencoded data: malformed percent-encoding ${JSON.stringify(text.slice(i, i + 3))} at position ${i}`,
          { code: ErrorCodes.INVALID_URLENCODED },
        );
      }
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    }
    if (utf8 && bytes.some((b) => b >= 0x80) && !isUtf8(Buffer.from(bytes))) {
      throw new HttpError(
        400,
        `Form body is not valid urlencoded data: the percent-encoded bytes ${JSON.stringify(text.slice(start, i))} at position ${start} are not valid UTF-8`,
        { code: ErrorCodes.INVALID_URLENCODED },
      );
    }
    i = text.indexOf('%', i);
  }
}

/** Parses an urlencoded form as body-parser does (flat keys, or nested with qs when `extended`), strictly. */
export function parseUrlencoded(text: string, o: UrlencodedConfig, charset: 'utf-8' | 'iso-8859-1') {
  if (text.length === 0) return Object.create(null) as Record<string, unknown>;
  let count = 0;
  let at = -1;
  do {
    if (++count > o.parameterLimit) {
      throw new HttpError(
        413,
        `Form body has more than ${o.parameterLimit} parameters (the urlencoded.parameterLimit option)`,
        { code: ErrorCodes.FORM_LIMIT },
      );
    }
    at = text.indexOf('&', at + 1);
  } while (at !== -1);
  checkPercentEncoding(text, charset === 'utf-8');
  if (!o.extended) return parseFlat(text, charset === 'iso-8859-1');
  const qs = loadQs('the urlencoded.extended option');
  try {
    return qs.parse(text, {
      plainObjects: true,
      arrayLimit: o.extended ? Math.max(100, count) : count,
      depth: o.extended ? o.depth : 0,
      parameterLimit: o.parameterLimit,
      charset,
      strictDepth: true,
    }) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof RangeError) {
      throw new HttpError(413, `Form body nests deeper than ${o.depth} levels (the urlencoded.depth option)`, {
        code: ErrorCodes.FORM_LIMIT,
      });
    }
    throw err;
  }
}
