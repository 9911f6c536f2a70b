// Piping a body source (Node Readable, Web ReadableStream, async iterable) into a streamed response:
// pull one chunk, write it, wait for 'drain' when write() says so, end at the end; stop the source
// when the client goes away, destroy the response when the source fails.
import { ErrorCodes, GaleError } from './errors.js';

/**
 * What `res.stream()` accepts and what a handler may return to stream a body.
 *
 * @example
 * app.get('/export', (req, res) => res.type('csv').stream(rowsAsCsv())); // an async iterable, Readable or ReadableStream
 */
export type StreamSource =
  | NodeJS.ReadableStream
  | ReadableStream<string | Uint8Array>
  | AsyncIterable<string | Uint8Array | ArrayBufferView | ArrayBuffer>;

/** The part of Response the pump drives (kept small so this file has no Response import). */
export interface StreamTarget {
  readonly finished: boolean;
  readonly headersSent: boolean;
  write(chunk: string | Uint8Array): boolean;
  end(): void;
  destroy(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

interface Pull {
  next(): Promise<IteratorResult<unknown>>;
  /** Stops the source (client gone, or write failed). */
  cancel(reason: unknown): void;
  /** Called after a normal end. */
  done(): void;
}

/** True for values `res.stream()` can pipe (checked before JSON, so plain objects stay JSON). */
export function isStreamSource(v: unknown): v is StreamSource {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string | symbol, unknown>;
  return (
    typeof o.getReader === 'function' ||
    (typeof o.pipe === 'function' && typeof o.on === 'function') ||
    typeof o[Symbol.asyncIterator] === 'function'
  );
}

const noop = (): void => {};

function pullFrom(source: StreamSource): Pull {
  const s = source as unknown as Record<string | symbol, unknown>;
  if (typeof s.getReader === 'function') {
    const reader = (source as ReadableStream<unknown>).getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<unknown>>,
      cancel: (reason) => reader.cancel(reason).catch(noop),
      done: () => reader.releaseLock(),
    };
  }
  const it = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const destroy = typeof s.destroy === 'function' ? (s.destroy as (e?: Error) => void).bind(source) : undefined;
  return {
    next: () => it.next(),
    cancel: () => {
      // A Node stream is destroyed (its iterator then settles); a generator is asked to return.
      if (destroy) destroy();
      else it.return?.().then(undefined, noop);
    },
    done: noop,
  };
}

/** The bytes or text of one chunk; anything else is a programming error in the source. */
export function toChunk(value: unknown): string | Uint8Array {
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new GaleError(
    ErrorCodes.INVALID_CHUNK,
    `a streamed body yielded ${value === null ? 'null' : typeof value}; yield strings or bytes (Uint8Array/Buffer)`,
  );
}

/**
 * Streams `source` into `res`. Resolves true when the whole source was sent and the response ended,
 * false when the client went away first (the source is then stopped). Rejects with the source's
 * error after destroying the response if its head was already sent (else the response is left for
 * the caller to answer). `first` sees the first chunk before the head goes out (to pick a type).
 */
export async function pump(
  res: StreamTarget,
  source: StreamSource,
  first?: (chunk: string | Uint8Array) => void,
): Promise<boolean> {
  if (res.finished) {
    throw new GaleError(ErrorCodes.HEADERS_SENT, 'cannot stream a body: the response already ended');
  }
  const pull = pullFrom(source);
  let gone = false;
  // Set while waiting for the source: the client going away settles the wait at once, so a source
  // that never yields again cannot keep the response (and the source) alive.
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    gone = true;
    wake?.();
  };
  res.once('close', onClose);
  let started = false;
  try {
    for (;;) {
      if (gone || res.finished) {
        pull.cancel(new Error('client disconnected'));
        return false;
      }
      let r: IteratorResult<unknown> | undefined;
      try {
        r = await new Promise<IteratorResult<unknown> | undefined>((resolve, reject) => {
          wake = () => resolve(undefined);
          pull.next().then(resolve, reject);
        });
      } catch (err) {
        if (gone || res.finished) return false;
        throw err;
      } finally {
        wake = undefined;
      }
      if (r === undefined || gone || res.finished) {
        pull.cancel(new Error('client disconnected'));
        return false;
      }
      if (r.done) break;
      const chunk = toChunk(r.value);
      if (chunk.length === 0) continue;
      if (!started) {
        started = true;
        first?.(chunk);
      }
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const go = (): void => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.once('drain', go);
          res.once('close', go);
        });
      }
    }
    pull.done();
    if (!res.finished) res.end();
    return true;
  } catch (err) {
    pull.cancel(err);
    if (res.headersSent && !res.finished) res.destroy();
    throw err;
  } finally {
    res.off('close', onClose);
  }
}
