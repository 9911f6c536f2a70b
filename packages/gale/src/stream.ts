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

/**
 * Watches a response for its client going away: `gone` turns true, and a wait made through `race` settles at once
 * (with undefined), so a source that never yields again cannot keep the response, and the source, alive.
 * `stop()` when done.
 */
export class ClientWatch {
  gone = false;
  private wake: (() => void) | undefined;
  private readonly onClose = (): void => {
    this.gone = true;
    this.wake?.();
  };
  constructor(private readonly res: Pick<StreamTarget, 'once' | 'off'>) {
    res.once('close', this.onClose);
  }
  /** `p`'s outcome, or undefined once the client is gone (at once when it already is). */
  race<T>(p: Promise<T>): Promise<T | undefined> {
    if (this.gone) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      this.wake = () => resolve(undefined);
      p.then(resolve, reject);
    }).finally(() => {
      this.wake = undefined;
    });
  }
  stop(): void {
    this.res.off('close', this.onClose);
    this.wake = undefined;
  }
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
  const client = new ClientWatch(res);
  let started = false;
  try {
    for (;;) {
      if (client.gone || res.finished) {
        pull.cancel(new Error('client disconnected'));
        return false;
      }
      let r: IteratorResult<unknown> | undefined;
      try {
        r = await client.race(pull.next());
      } catch (err) {
        if (client.gone || res.finished) return false;
        throw err;
      }
      if (r === undefined || client.gone || res.finished) {
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
    client.stop();
  }
}
