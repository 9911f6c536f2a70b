// Fixtures shared by the static-file tests (tests/wire/static-*.test.ts, tests/api/sendfile.test.ts):
// a fresh temp directory per test file with files at a fixed mtime (so ETag and Last-Modified are
// known exactly), the validators Gale must send for them, and a strict multipart/byteranges parser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { ParsedResponse, RequestSpec } from '../helpers.js';
import { show, simpleRequest } from '../helpers.js';

/** Every fixture file gets this mtime (2020-09-13T12:26:40Z) unless written later by a test. */
export const MTIME = 1_600_000_000;
export const MTIME_HTTP = 'Sun, 13 Sep 2020 12:26:40 GMT';

/** The ETag Gale must send for a file of `size` bytes modified at `mtimeSecs`. */
export function etagFor(size: number, mtimeSecs = MTIME): string {
  return `W/"${size.toString(16)}-${mtimeSecs.toString(16)}"`;
}

/** IMF-fixdate of unix seconds. */
export function httpDate(secs: number): string {
  return new Date(secs * 1000).toUTCString();
}

/** Deterministic pseudo-random bytes (so a wrong offset can never look right). */
export function patternBytes(size: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    b[i] = x & 0xff;
  }
  return b;
}

export interface Tree {
  /** The temp directory (removed after the test file). */
  base: string;
  /** Absolute path of `rel` inside the temp directory. */
  p: (rel: string) => string;
  /** Writes a file (creating directories) with mtime MTIME unless `mtime` is given. */
  write: (rel: string, data: string | Buffer, mtime?: number) => void;
}

/**
 * Creates a fresh temp directory holding `files` (path relative to it → content), every file and
 * directory with mtime MTIME, removed when the test file ends.
 */
export function makeTree(files: Record<string, string | Buffer>): Tree {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gale-static-')));
  after(() => fs.rmSync(base, { recursive: true, force: true }));
  const p = (rel: string) => path.join(base, rel);
  const write = (rel: string, data: string | Buffer, mtime = MTIME) => {
    fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
    fs.writeFileSync(p(rel), data);
    fs.utimesSync(p(rel), mtime, mtime);
  };
  for (const [rel, data] of Object.entries(files)) write(rel, data);
  return { base, p, write };
}

/** GET (or another method) with Connection: close; returns the single response. */
export function get(
  port: number,
  target: string,
  headers: Record<string, string> = {},
  spec: Omit<RequestSpec, 'path' | 'headers'> = {},
): Promise<ParsedResponse> {
  return simpleRequest(port, { ...spec, path: target, headers });
}

/** Describes a response for assertion messages. */
export function describe(res: ParsedResponse, max = 600): string {
  return show(res.raw, max);
}

/** Asserts a plain 200 file answer: status, Content-Type, Content-Length, validators and exact body. */
export function assertFile(
  res: ParsedResponse,
  body: string | Buffer,
  contentType: string,
  opts: { mtime?: number; head?: boolean } = {},
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const what = describe(res);
  assert.equal(res.status, 200, what);
  assert.deepEqual(res.getAll('content-type'), [contentType], what);
  assert.equal(res.get('content-length'), String(bytes.length), what);
  assert.equal(res.get('etag'), etagFor(bytes.length, opts.mtime), what);
  assert.equal(res.get('last-modified'), httpDate(opts.mtime ?? MTIME), what);
  assert.equal(res.get('accept-ranges'), 'bytes', what);
  assert.equal(res.get('content-encoding'), undefined, what);
  if (opts.head) assert.equal(res.body.length, 0, what);
  else assert.ok(res.body.equals(bytes), `body differs: ${what}`);
}

/** Asserts the engine's plain 404 (never a file's bytes). */
export function assertNotFound(res: ParsedResponse, what: string): void {
  const desc = `${what} → ${describe(res)}`;
  assert.equal(res.status, 404, desc);
  assert.equal(res.text, 'Not Found', desc);
  assert.equal(res.get('etag'), undefined, desc);
}

export interface Part {
  headers: Array<[string, string]>;
  get: (name: string) => string | undefined;
  body: Buffer;
}

/**
 * Parses a multipart/byteranges body strictly (RFC 9110 §14.6 / RFC 2046): optional preamble,
 * `--boundary` delimiters each followed by CRLF, part headers, an empty line, the bytes, CRLF before
 * the next delimiter, and the closing `--boundary--`.
 */
export function parseMultipart(res: ParsedResponse): Part[] {
  const ct = res.get('content-type') ?? '';
  const m = /^multipart\/byteranges;\s*boundary=("?)([^";]+)\1$/i.exec(ct);
  assert.ok(m, `not multipart/byteranges: ${JSON.stringify(ct)}`);
  const boundary = m[2] as string;
  const body = res.body;
  const delim = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delim);
  assert.ok(pos >= 0, `no boundary in multipart body: ${show(body)}`);
  for (;;) {
    pos += delim.length;
    if (body.subarray(pos, pos + 2).toString('latin1') === '--') break; // closing delimiter
    assert.equal(
      body.subarray(pos, pos + 2).toString('latin1'),
      '\r\n',
      `delimiter not followed by CRLF: ${show(body)}`,
    );
    pos += 2;
    const headEnd = body.indexOf('\r\n\r\n', pos);
    assert.ok(headEnd >= 0, `part head not terminated: ${show(body)}`);
    const headers = body
      .subarray(pos, headEnd)
      .toString('latin1')
      .split('\r\n')
      .map((l): [string, string] => {
        const i = l.indexOf(':');
        assert.ok(i > 0, `bad part header line ${JSON.stringify(l)}`);
        return [l.slice(0, i).trim(), l.slice(i + 1).trim()];
      });
    const start = headEnd + 4;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), start);
    assert.ok(next >= 0, `part not followed by a delimiter: ${show(body)}`);
    parts.push({
      headers,
      get: (name) => headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
      body: Buffer.from(body.subarray(start, next)),
    });
    pos = next + 2;
  }
  return parts;
}
