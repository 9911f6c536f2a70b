// multipart/form-data through busboy, fed from the request's body source as it arrives: fields and
// files come out in order; files are held in memory or written to a directory, under limits.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { mediaType, tooLarge } from './body.js';
import { ErrorCodes, HttpError } from './errors.js';

/**
 * Limits of `req.multipart()`; going over any of them is a 413 whose message names it.
 *
 * @example
 * for await (const part of req.multipart({ limits: { fileSize: 10 << 20, files: 3, fields: 20 } })) console.log(part.name);
 */
export interface MultipartLimits {
  /** Largest file in bytes. Default: no limit but `bodyLimit`. */
  fileSize?: number;
  /** Most files. Default: no limit. */
  files?: number;
  /** Most non-file fields. Default: no limit. */
  fields?: number;
  /** Most parts (fields + files). Default: no limit. */
  parts?: number;
  /** Largest field value in bytes. Default 1 MiB. */
  fieldSize?: number;
  /** Longest field name (of fields and files) in bytes. Default: no limit. */
  fieldNameSize?: number;
  /** Largest whole multipart body in bytes. Default: no limit but `bodyLimit`. */
  total?: number;
}

/**
 * Options of `req.multipart()`.
 *
 * @example
 * for await (const part of req.multipart({ dest: os.tmpdir(), limits: { fileSize: 50 << 20 } })) console.log(part);
 */
export interface MultipartOptions {
  limits?: MultipartLimits;
  /**
   * Write files into this directory (created if missing) under random names, instead of keeping them
   * in memory. Files of a multipart body that fails are removed again.
   */
  dest?: string;
}

/**
 * A non-file field of a multipart body.
 *
 * @example
 * for await (const part of req.multipart()) if (part.kind === 'field') console.log(part.name, part.value);
 */
export interface MultipartField {
  kind: 'field';
  name: string;
  value: string;
  mimeType: string;
  encoding: string;
}

/**
 * A file of a multipart body: in memory (`buffer`) or, with `dest`, on disk (`path`).
 *
 * @example
 * for await (const part of req.multipart({ dest: './uploads' }))
 *   if (part.kind === 'file') console.log(part.name, part.filename, part.mimeType, part.size, part.path);
 */
export interface MultipartFile {
  kind: 'file';
  /** The form field name. */
  name: string;
  /** The file name the client sent (directory parts removed); may be empty. */
  filename: string;
  mimeType: string;
  encoding: string;
  /** Bytes received. */
  size: number;
  /** The content, unless `dest` was given. */
  buffer?: Buffer;
  /** Where the file was written, when `dest` was given. */
  path?: string;
}

/**
 * A part of a multipart body: a field or a file.
 *
 * @example
 * await req.multipart({}, (part) => console.log(part.kind, part.name));
 */
export type MultipartPart = MultipartField | MultipartFile;

type FileStream = Readable & { truncated?: boolean };

function limitError(what: string, limit: number, option: string, bytes: boolean): HttpError {
  const msg = `${what} than ${limit}${bytes ? ' bytes' : ''} (the limits.${option} option)`;
  return bytes ? tooLarge(msg) : new HttpError(413, msg, { code: ErrorCodes.FORM_LIMIT });
}

/**
 * Parses a multipart/form-data body from `source`, yielding its fields and files in order. Throws
 * 415 for another Content-Type, 400 for a malformed body, 413 over a limit.
 */
export async function* parseMultipart(
  contentType: string | undefined,
  source: () => AsyncIterable<Buffer> | Iterable<Buffer>,
  declaredLength: number | undefined,
  options: MultipartOptions = {},
): AsyncGenerator<MultipartPart, void, undefined> {
  if (mediaType(contentType) !== 'multipart/form-data') {
    throw new HttpError(
      415,
      `req.multipart() reads multipart/form-data bodies; this request's Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}`,
      { code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE },
    );
  }
  const limits = options.limits ?? {};
  const total = limits.total ?? Number.POSITIVE_INFINITY;
  if (declaredLength !== undefined && declaredLength > total) {
    throw tooLarge(`Multipart body is larger than ${total} bytes (the limits.total option)`);
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { 'content-type': contentType },
      limits: {
        // busboy flags a file that reaches fileSize; a file of exactly fileSize bytes is fine here.
        fileSize: limits.fileSize === undefined ? undefined : limits.fileSize + 1,
        files: limits.files,
        fields: limits.fields,
        parts: limits.parts,
        fieldSize: limits.fieldSize ?? 1024 * 1024,
      },
      // Browsers send file names as raw UTF-8.
      defParamCharset: 'utf8',
    });
  } catch (err) {
    throw new HttpError(400, `Multipart body cannot be parsed: ${(err as Error).message}`, {
      code: ErrorCodes.INVALID_MULTIPART,
    });
  }

  const dest = options.dest;
  let madeDir: Promise<unknown> | undefined;
  const written: string[] = [];
  const diskJobs: Promise<MultipartPart>[] = [];
  const handedOut = new Set<string>();
  const queue: Promise<MultipartPart>[] = [];
  let failure: unknown;
  let stopped = false;
  let closed = false;
  let notify: (() => void) | undefined;
  let rejectFailed!: (err: unknown) => void;
  const failed = new Promise<never>((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => {});
  const wake = (): void => {
    const n = notify;
    notify = undefined;
    n?.();
  };
  const fail = (err: unknown): void => {
    if (failure !== undefined || stopped) return;
    failure = err;
    rejectFailed(err);
    bb.destroy();
    wake();
  };
  const push = (p: Promise<MultipartPart>): void => {
    p.catch(() => {});
    queue.push(p);
    wake();
  };

  // busboy checks fieldNameSize only for urlencoded bodies: check names here.
  const maxName = limits.fieldNameSize ?? Number.POSITIVE_INFINITY;
  const nameTooLong = (name: string): boolean => {
    if (name.length * 3 <= maxName || Buffer.byteLength(name) <= maxName) return false;
    fail(limitError('Multipart body has a field name longer', maxName, 'fieldNameSize', true));
    return true;
  };

  bb.on('field', (name, value, info) => {
    if (nameTooLong(name)) return;
    if (info.valueTruncated) {
      fail(limitError(`Field "${name}" is larger`, limits.fieldSize ?? 1024 * 1024, 'fieldSize', true));
    } else {
      push(Promise.resolve({ kind: 'field', name, value, mimeType: info.mimeType, encoding: info.encoding }));
    }
  });
  bb.on('file', (name, stream: FileStream, info) => {
    if (nameTooLong(name)) {
      stream.resume();
      return;
    }
    const base = { kind: 'file' as const, name, filename: info.filename ?? '', mimeType: info.mimeType };
    const tooBig = () =>
      limitError(`File "${base.filename || name}" is larger`, limits.fileSize ?? 0, 'fileSize', true);
    stream.once('limit', () => fail(tooBig()));
    // Destroying busboy errors the open file stream, maybe before a writer is attached (mkdir).
    stream.on('error', () => {});
    if (dest === undefined) {
      push(
        new Promise<MultipartPart>((resolve, reject) => {
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
          });
          stream.once('error', reject);
          stream.once('end', () => {
            if (stream.truncated) reject(tooBig());
            else resolve({ ...base, encoding: info.encoding, size, buffer: Buffer.concat(chunks, size) });
          });
        }),
      );
      return;
    }
    const path = join(dest, randomUUID());
    written.push(path);
    const job = (async (): Promise<MultipartPart> => {
      madeDir ??= mkdir(dest, { recursive: true });
      await madeDir;
      const out = createWriteStream(path, { flags: 'wx' });
      await pipeline(stream, out);
      if (stream.truncated) throw tooBig();
      return { ...base, encoding: info.encoding, size: out.bytesWritten, path };
    })();
    diskJobs.push(job);
    push(job);
  });
  bb.on('filesLimit', () => fail(limitError('Multipart body has more files', limits.files ?? 0, 'files', false)));
  bb.on('fieldsLimit', () => fail(limitError('Multipart body has more fields', limits.fields ?? 0, 'fields', false)));
  bb.on('partsLimit', () => fail(limitError('Multipart body has more parts', limits.parts ?? 0, 'parts', false)));
  bb.on('error', (err: Error) => {
    fail(
      err instanceof HttpError
        ? err
        : new HttpError(400, `Multipart body is malformed: ${err.message}`, { code: ErrorCodes.INVALID_MULTIPART }),
    );
  });
  bb.on('close', () => {
    closed = true;
    wake();
  });

  const feed = (async () => {
    let seen = 0;
    try {
      for await (const chunk of source()) {
        if (failure !== undefined || stopped) return;
        seen += chunk.length;
        if (seen > total) {
          fail(tooLarge(`Multipart body is larger than ${total} bytes (the limits.total option)`));
          return;
        }
        if (!bb.write(chunk)) await Promise.race([once(bb, 'drain'), failed]);
      }
      if (failure === undefined && !stopped) bb.end();
    } catch (err) {
      fail(err);
    }
  })();

  let ok = false;
  try {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) {
        const part = await Promise.race([next, failed]);
        if (part.kind === 'file' && part.path !== undefined) handedOut.add(part.path);
        yield part;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (closed) {
        await feed;
        if (failure !== undefined) throw failure;
        ok = true;
        return;
      }
      await new Promise<void>((resolve) => {
        notify = resolve;
      });
    }
  } catch (err) {
    if (failure === undefined) fail(err);
    throw err;
  } finally {
    if (!ok) {
      if (failure === undefined) {
        // The consumer stopped early: drop the rest, keep the files it was handed.
        stopped = true;
        bb.destroy();
      }
      // Let every file write settle first, so no file is created after its removal.
      await Promise.allSettled(diskJobs);
      const drop = failure === undefined ? written.filter((p) => !handedOut.has(p)) : written;
      await Promise.all(drop.map((p) => unlink(p).catch(() => {})));
    }
  }
}
