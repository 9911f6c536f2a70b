// Makes a prototype behave as a Readable whose state is created on first use: every Readable method
// and getter first runs `this._stream()` (which calls the Readable constructor on the object), so a
// request whose body is never used as a stream never pays for a ReadableState.
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';

interface Lazy {
  _readableState: unknown;
  _stream(): void;
}

/** Wraps Readable's methods and getters on `proto` (which must define `_stream()`), then chains it to Readable. */
export function lazyReadable(proto: object): void {
  // Readable's methods and getters need its state: each makes the state first (once), then runs.
  const readableProto = Readable.prototype as unknown as Record<string | symbol, unknown>;
  const ownProto = proto as unknown as Record<string | symbol, unknown>;
  const SAFE = new Set<string | symbol>(['constructor', '_read', 'removeListener', 'off', 'removeAllListeners']);
  function wrapMethod(name: string | symbol, fn: (...a: unknown[]) => unknown): void {
    Object.defineProperty(ownProto, name, {
      configurable: true,
      writable: true,
      value: function (this: Lazy, ...args: unknown[]) {
        this._stream();
        return fn.apply(this, args);
      },
    });
  }
  for (const key of Reflect.ownKeys(Readable.prototype)) {
    if (SAFE.has(key) || Object.hasOwn(ownProto, key)) continue;
    const d = Object.getOwnPropertyDescriptor(Readable.prototype, key) as PropertyDescriptor;
    if (typeof d.value === 'function') wrapMethod(key, d.value);
    else if (d.get) {
      const get = d.get;
      const set = d.set;
      Object.defineProperty(ownProto, key, {
        configurable: true,
        get(this: Lazy) {
          this._stream();
          return get.call(this);
        },
        set: set
          ? function (this: Lazy, v: unknown) {
              this._stream();
              set.call(this, v);
            }
          : undefined,
      });
    }
  }
  for (const key of ['once', 'prependListener', 'prependOnceListener'] as const) {
    wrapMethod(key, readableProto[key] as (...a: unknown[]) => unknown);
  }
  // Removing listeners needs no stream: before the state exists, EventEmitter's own methods do.
  for (const key of ['removeListener', 'off', 'removeAllListeners'] as const) {
    const viaStream = readableProto[key] as (...a: unknown[]) => unknown;
    const plain = (EventEmitter.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[key] as (
      ...a: unknown[]
    ) => unknown;
    Object.defineProperty(ownProto, key, {
      configurable: true,
      writable: true,
      value: function (this: Lazy, ...args: unknown[]) {
        return (this._readableState === undefined ? plain : viaStream).apply(this, args);
      },
    });
  }
  Object.setPrototypeOf(proto, Readable.prototype);
}
