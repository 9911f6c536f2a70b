// A request body as the engine hands it over: whole when it had arrived before the handler ran,
// else in pieces as they arrive (the engine pauses the socket while JS holds 256 KiB unread).
import { Readable } from 'node:stream';
import { ErrorCodes, HttpError } from './errors.js';
import type { NativeServer } from './native.js';

const MESSAGES: Record<number, string> = {
  400: 'Bad Request: the request body is malformed (bad chunked encoding)',
  408: 'Request Timeout: the request body did not arrive in time',
  413: 'Payload Too Large: the request body is larger than the bodyLimit option',
};

/** Wakes the reader of request `id`'s body if the engine owed it a wake-up (it takes again, and learns why). */
export function wakeOwed(owed: Map<number, BodySource>, id: number): void {
  const src = owed.get(id);
  if (src !== undefined) {
    owed.delete(id);
    src.wake();
  }
}

/** Reads one request's body from the engine. `all()` caches, so several readers see the same bytes. */
export class BodySource {
  private readonly n: NativeServer;
  private readonly id: number;
  private chunks: Buffer[] = [];
  private done = false;
  private error = 0;
  private whole: Buffer | undefined;
  private waiter: (() => void) | undefined;
  /** A wake-up that came while nobody waited (the next wait returns at once). */
  private woken = false;
  private iterating = false;
  /** The body, when it was taken as text (`text()`); its bytes are made from it if a reader asks for them. */
  private asText: string | undefined;

  /**
   * The app's bodies the engine owes a wake-up, by request id (`RequestConfig.owed`): a take that finds more to come
   * registers here, and the engine's Body event for the id wakes the reader (dispatch.ts). Kept apart from the live
   * responses, so a reader still hears it after the response ended (a handler may answer first and read after).
   */
  private readonly owed: Map<number, BodySource>;

  constructor(n: NativeServer, id: number, owed: Map<number, BodySource>) {
    this.n = n;
    this.id = id;
    this.owed = owed;
  }

  /** The engine has more (or the body ended or failed): wake a waiting reader. */
  wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w();
    else this.woken = true;
  }

  /** Takes what the engine holds; false when nothing more will come. */
  private pull(): boolean {
    if (this.done) return false;
    const r = this.n.takeBody(this.id);
    if (r === undefined) {
      // The request is gone: answered already, or the client left.
      this.done = true;
      this.error = this.error || 499;
      return false;
    }
    let chunk: Buffer;
    let state = 1;
    if (Array.isArray(r)) [chunk, state] = r;
    else chunk = r;
    if (chunk.length > 0) this.chunks.push(chunk);
    if (state === 0) this.owed.set(this.id, this);
    else if (state === 1) this.done = true;
    else {
      this.done = true;
      this.error = state;
    }
    return !this.done;
  }

  private wait(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private fail(): never {
    if (this.error === 499) {
      throw new HttpError(400, 'the request body is no longer available (client gone, or read after the response)', {
        code: ErrorCodes.REQUEST_ENDED,
      });
    }
    throw new HttpError(this.error, MESSAGES[this.error] ?? 'the request body could not be read', {
      code: ErrorCodes.BODY_FAILED,
    });
  }

  /**
   * The whole body as text when nothing of it was read yet and it is all here, valid UTF-8 and at most `limit` bytes
   * (no Buffer is made: the engine hands a string); else undefined, and the bytes are read as usual.
   */
  text(limit: number): string | undefined {
    if (this.asText !== undefined) return this.asText;
    if (this.whole !== undefined || this.done || this.iterating || this.chunks.length > 0) return undefined;
    const s = this.n.takeBodyText(this.id, limit);
    if (s === undefined) return undefined;
    this.done = true;
    this.asText = s;
    return s;
  }

  /** The bytes of a body taken as text (valid UTF-8, so they are the bytes received). */
  private fromText(): Buffer | undefined {
    if (this.asText !== undefined && this.whole === undefined) {
      this.whole = Buffer.from(this.asText, 'utf8');
      this.chunks = [this.whole];
    }
    return this.whole;
  }

  /** The whole body if it is all here already (taken from the engine, no waiting), else undefined. Throws its error. */
  ready(): Buffer | undefined {
    if (this.whole !== undefined || this.fromText() !== undefined) return this.whole;
    if (this.iterating) return undefined;
    if (!this.done) this.pull();
    if (!this.done) return undefined;
    if (this.error !== 0) this.fail();
    return this.join();
  }

  /** The whole body. */
  async all(): Promise<Buffer> {
    if (this.whole !== undefined || this.fromText() !== undefined) return this.whole as Buffer;
    while (this.pull()) await this.wait();
    if (this.error !== 0) this.fail();
    return this.join();
  }

  /** The chunks taken, as one Buffer kept for every later reader. */
  private join(): Buffer {
    const parts = this.chunks;
    if (parts.length === 1) this.whole = parts[0] as Buffer;
    else {
      this.whole = Buffer.concat(parts);
      // The pieces were never handed out (iterate() takes what it yields out of the list): free them now, so a
      // large body read whole costs V8 no full collection (see dropChunk).
      for (const p of parts) this.n.dropChunk(p);
    }
    this.chunks = [this.whole];
    return this.whole;
  }

  /**
   * The body piece by piece, as it arrives (once: a body can be streamed a single time). `transient`: each chunk is
   * freed when the reader asks for the next one or stops (the body read whole by `all()` is never freed).
   */
  async *iterate(transient = false): AsyncGenerator<Buffer> {
    if (this.whole !== undefined || this.fromText() !== undefined) {
      yield this.whole as Buffer;
      return;
    }
    if (this.iterating)
      throw new HttpError(500, 'the request body is already being read', { code: ErrorCodes.BODY_FAILED });
    this.iterating = true;
    for (;;) {
      const more = this.pull();
      while (this.chunks.length > 0) {
        const chunk = this.chunks.shift() as Buffer;
        if (!transient) yield chunk;
        else {
          try {
            yield chunk;
          } finally {
            this.n.dropChunk(chunk);
          }
        }
      }
      if (!more) break;
      await this.wait();
    }
    if (this.error !== 0) this.fail();
  }

  /** A Node Readable of the body; reading pulls from the engine, so backpressure reaches the socket. */
  readable(): Readable {
    return Readable.from(this.iterate(), { objectMode: false });
  }

  /** A Web ReadableStream of the body. */
  webStream(): ReadableStream<Uint8Array> {
    const it = this.iterate();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await it.next();
          if (done) controller.close();
          else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        } catch (err) {
          controller.error(err);
        }
      },
      cancel() {
        void it.return(undefined);
      },
    });
  }
}
