// Catch-all listeners of a Socket.IO socket (socket.io's onAny/onAnyOutgoing family), kept apart from socket.ts:
// listeners for every incoming and every outgoing event, called with (event, ...args); a throwing one is logged.
import { EventEmitter } from 'node:events';
import type { AnyArgs, Listener, Packet } from './types.js';

export abstract class CatchAllListeners extends EventEmitter {
  private anyListeners: Listener[] | undefined;
  private anyOutgoing: Listener[] | undefined;

  /** Called when the socket gets its first outgoing listener (true) or loses its last (false). */
  protected abstract outgoingWatched(watched: boolean): void;

  /** Listens to every incoming event: `(event, ...args)`. */
  onAny(listener: Listener): this {
    if (this.anyListeners === undefined) this.anyListeners = [];
    this.anyListeners.push(listener);
    return this;
  }
  prependAny(listener: Listener): this {
    if (this.anyListeners === undefined) this.anyListeners = [];
    this.anyListeners.unshift(listener);
    return this;
  }
  /** Removes one catch-all listener, or all of them. */
  offAny(listener?: Listener): this {
    if (this.anyListeners === undefined) return this;
    if (listener === undefined) this.anyListeners = [];
    else {
      const i = this.anyListeners.indexOf(listener);
      if (i >= 0) this.anyListeners.splice(i, 1);
    }
    return this;
  }
  listenersAny(): Listener[] {
    return this.anyListeners ?? [];
  }
  /** Listens to every outgoing event: `(event, ...args)`. */
  onAnyOutgoing(listener: Listener): this {
    if (this.anyOutgoing === undefined) this.anyOutgoing = [];
    this.anyOutgoing.push(listener);
    this.outgoingWatched(true);
    return this;
  }
  prependAnyOutgoing(listener: Listener): this {
    if (this.anyOutgoing === undefined) this.anyOutgoing = [];
    this.anyOutgoing.unshift(listener);
    this.outgoingWatched(true);
    return this;
  }
  offAnyOutgoing(listener?: Listener): this {
    if (this.anyOutgoing === undefined) return this;
    if (listener === undefined) this.anyOutgoing = [];
    else {
      const i = this.anyOutgoing.indexOf(listener);
      if (i >= 0) this.anyOutgoing.splice(i, 1);
    }
    if (this.anyOutgoing.length === 0) this.outgoingWatched(false);
    return this;
  }
  listenersAnyOutgoing(): Listener[] {
    return this.anyOutgoing ?? [];
  }

  /** @internal */
  notifyOutgoingListeners(packet: Packet): void {
    const list = this.anyOutgoing;
    if (list === undefined || list.length === 0) return;
    for (const fn of list.slice()) this.call(fn, packet.data);
  }

  /** Calls the incoming listeners with `[event, ...args]`. */
  protected notifyAny(args: AnyArgs): void {
    const list = this.anyListeners;
    if (list === undefined || list.length === 0) return;
    for (const fn of list.slice()) this.call(fn, args);
  }

  private call(fn: Listener, args: AnyArgs): void {
    try {
      fn.apply(this, args);
    } catch (err) {
      console.error('@gale-http/socket.io: a catch-all listener threw', err);
    }
  }
}
