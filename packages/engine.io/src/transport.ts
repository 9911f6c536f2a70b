// The Engine.IO transport base (engine.io's Transport): state, the one owner that receives its packets, errors
// and close. Subclasses: polling.ts (HTTP long-polling), websocket.ts (a Gale WebSocket) and webtransport.ts.
// Owners are plain callback slots, not EventEmitter listeners: a transport has one owner at a time (the
// session, or the upgrade in progress), and the message path calls it directly.
import type { Packet as EioPacket } from 'engine.io-parser';

export type { EioPacket };

/** What a transport tells its owner. */
export interface TransportOwner {
  onPacket(packet: EioPacket): void;
  onError(message: string, description?: unknown): void;
  onClose(): void;
  /** The transport can take packets again (a poll arrived). */
  onReady(): void;
  /** A batch of packets was handed to the network. */
  onDrain(): void;
}

const NOBODY: TransportOwner = {
  onPacket() {},
  onError() {},
  onClose() {},
  onReady() {},
  onDrain() {},
};

/**
 * What every transport of a session is (engine.io's `Transport`): its `name`, `readyState` and whether it can
 * take packets now (`writable`).
 *
 * @example
 * engine.on('connection', (socket) => console.log(socket.transport.name, socket.transport.writable));
 */
export abstract class Transport {
  abstract readonly name: 'polling' | 'websocket' | 'webtransport';
  /** The session id, once the session exists. */
  sid = '';
  /** True when `send` would go out now (a pending poll, or an open WebSocket). */
  writable = false;
  readyState: 'open' | 'closing' | 'closed' = 'open';
  /** Set during an upgrade: this transport is being replaced and may close without notice. */
  discarded = false;
  /** @internal who gets packets, errors and close */
  owner: TransportOwner = NOBODY;

  /** Marks this transport as replaced by an upgrade. */
  discard(): void {
    this.discarded = true;
  }

  /** Closes the transport; `fn` runs once it is closed (or is about to be, for polling). */
  close(fn?: () => void): void {
    if (this.readyState === 'closed' || this.readyState === 'closing') return;
    this.readyState = 'closing';
    this.doClose(fn ?? (() => {}));
  }

  /** Packets decoded from the client. */
  protected onPacket(packet: EioPacket): void {
    this.owner.onPacket(packet);
  }

  /** A transport error (engine.io's onError: reported to the owner, which closes with 'transport error'). */
  protected onError(message: string, description?: unknown): void {
    this.owner.onError(message, description);
  }

  /** The transport ended. */
  onClose(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.owner.onClose();
  }

  /** Sends packets (the caller checked `writable`). */
  abstract send(packets: EioPacket[]): void;
  /** True when a volatile packet would go out at once (else it is dropped). */
  abstract canSendVolatile(): boolean;
  protected abstract doClose(fn: () => void): void;
}
