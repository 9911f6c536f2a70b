// Server-Sent Events over a streamed response: event framing (multi-line data, JSON for objects),
// comments, heartbeats on an unref'd timer, and cleanup when the client goes away.
import { ErrorCodes, GaleError } from './errors.js';

/**
 * Options for `res.sse()`.
 *
 * @example
 * const sse = res.sse({ heartbeat: 30_000, retry: 5000 });
 */
export interface SseOptions {
  /** Milliseconds between heartbeat comments that keep proxies from closing an idle stream; 0 for none. Default 15000. */
  heartbeat?: number;
  /** Sent first as `retry:`: how many milliseconds the browser waits before reconnecting. */
  retry?: number;
}

/**
 * One event. `data` strings are split into `data:` lines; anything else is sent as JSON.
 *
 * @example
 * sse.send({ event: 'update', id: '42', data: { price: 10 } }); // objects as JSON, multi-line strings split
 */
export interface SseMessage {
  data: unknown;
  event?: string;
  id?: string | number;
  retry?: number;
}

/** What the SSE stream needs from the response. */
export interface SseTarget {
  readonly finished: boolean;
  write(chunk: string): boolean;
  end(): void;
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

const LINE_BREAK = /\r\n|\r|\n/;

function field(name: string, value: string): string {
  if (/[\r\n]/.test(value)) {
    throw new GaleError(ErrorCodes.INVALID_SSE, `SSE ${name} must not contain line breaks: ${JSON.stringify(value)}`);
  }
  if (name === 'id' && value.includes('\0')) {
    throw new GaleError(ErrorCodes.INVALID_SSE, 'SSE id must not contain NUL');
  }
  return `${name}: ${value}\n`;
}

function retryField(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0) {
    throw new GaleError(ErrorCodes.INVALID_SSE, `SSE retry must be a non-negative integer, got ${ms}`);
  }
  return `retry: ${ms}\n`;
}

/** Formats one event as it goes on the wire (ends with the blank line that dispatches it). */
export function formatEvent(message: SseMessage | string): string {
  const m: SseMessage = typeof message === 'string' ? { data: message } : message;
  let out = '';
  if (m.event !== undefined) out += field('event', m.event);
  if (m.id !== undefined) out += field('id', String(m.id));
  if (m.retry !== undefined) out += retryField(m.retry);
  const data = typeof m.data === 'string' ? m.data : (JSON.stringify(m.data) ?? 'null');
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * An open event stream, from `res.sse()`.
 *
 * @example
 * app.get('/events', (req, res) => {
 *   const sse = res.sse({ heartbeat: 10_000 });
 *   const off = bus.subscribe((e) => sse.send({ event: 'update', id: e.seq, data: e }));
 *   sse.onClose(off);
 * });
 */
export class SseStream {
  /** The `Last-Event-ID` header the client reconnected with, if any. */
  readonly lastEventId: string | undefined;
  private readonly res: SseTarget;
  private timer: NodeJS.Timeout | undefined;
  private listeners: (() => void)[] | undefined;
  private isClosed = false;

  /** @internal use `res.sse()` */
  constructor(res: SseTarget, lastEventId: string | undefined, options: SseOptions) {
    this.res = res;
    this.lastEventId = lastEventId;
    const heartbeat = options.heartbeat ?? 15_000;
    if (!Number.isFinite(heartbeat) || heartbeat < 0) {
      throw new GaleError(
        ErrorCodes.INVALID_SSE,
        `SSE heartbeat must be a number of milliseconds ≥ 0, got ${heartbeat}`,
      );
    }
    // Client gone ('close') or the response ended some other way than close() ('finish').
    res.once('close', () => this.cleanup());
    res.once('finish', () => this.cleanup());
    // The head goes out now (with the retry hint, or an opening comment) so the client sees the stream open.
    res.write(options.retry === undefined ? ':ok\n\n' : `${retryField(options.retry)}\n`);
    if (heartbeat > 0 && !res.finished) {
      this.timer = setInterval(() => {
        if (!this.closed) this.res.write(':\n\n');
      }, heartbeat);
      this.timer.unref();
    }
  }

  /** True once the stream was closed by `close()` or the client went away. */
  get closed(): boolean {
    return this.isClosed || this.res.finished;
  }

  /**
   * Sends one event; a string is shorthand for `{ data: string }`. Returns false when the client is
   * not keeping up (the event is still queued; wait for `res.on('drain')` before sending more), and
   * false without sending once the stream is closed.
   *
   * @example
   * sse.send({ event: 'price', id: 42, data: { symbol: 'GALE', price: 1.5 } });
   * sse.send('line one\nline two'); // two data: lines, one event
   */
  send(message: SseMessage | string): boolean {
    const frame = formatEvent(message);
    if (this.closed) return false;
    return this.res.write(frame);
  }

  /**
   * Sends a comment line (ignored by EventSource; useful for debugging or keep-alive).
   *
   * @example
   * sse.comment('connected');
   */
  comment(text = ''): boolean {
    if (this.closed) return false;
    let out = '';
    for (const line of text.split(LINE_BREAK)) out += line === '' ? ':\n' : `: ${line}\n`;
    return this.res.write(`${out}\n`);
  }

  /**
   * Ends the stream (the client's EventSource will reconnect unless told otherwise).
   *
   * @example
   * sse.send({ event: 'done', data: '' });
   * sse.close();
   */
  close(): void {
    if (this.isClosed) return;
    if (!this.res.finished) this.res.end();
    this.cleanup();
  }

  /**
   * Calls `listener` once when the stream closes, by `close()` or because the client went away
   * (at once if it is already closed).
   *
   * @example
   * const timer = setInterval(() => sse.send({ data: Date.now() }), 1000);
   * sse.onClose(() => clearInterval(timer));
   */
  onClose(listener: () => void): this {
    if (this.isClosed) listener();
    else if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
    return this;
  }

  private cleanup(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) l();
  }
}
