// The adapter used with `connectionStateRecovery` (socket.io-adapter's SessionAwareAdapter): keeps the sessions of
// sockets that dropped and the event packets sent meanwhile, so a client that comes back within
// maxDisconnectionDuration gets its id, rooms, data and every packet it missed.
import { Adapter } from './adapter.js';
import type { BroadcastOptions, Packet, Session, SessionToPersist } from './types.js';
import type { AdapterNamespace } from './views.js';

interface StoredPacket {
  id: string;
  opts: BroadcastOptions;
  data: unknown[];
  emittedAt: number;
}

let offsetSeq = 0;
/** A unique, increasing packet offset (socket.io uses yeast ids: time, then a counter). */
function nextOffset(): string {
  offsetSeq = (offsetSeq + 1) % 1_000_000;
  return `${Date.now().toString(36)}.${offsetSeq.toString(36)}`;
}

/**
 * The adapter used with `connectionStateRecovery`: keeps the sessions of sockets that dropped and the event
 * packets sent meanwhile (each gets an offset, appended as its last argument, which the client echoes back).
 *
 * @example
 * const io = new Server(app, { connectionStateRecovery: { maxDisconnectionDuration: 120_000 } }); // uses this adapter
 */
export class SessionAwareAdapter extends Adapter {
  private readonly sessions = new Map<string, SessionToPersist & { disconnectedAt: number }>();
  private packets: StoredPacket[] = [];
  private readonly maxDisconnectionDuration: number;
  private readonly timer: NodeJS.Timeout;

  constructor(nsp: AdapterNamespace) {
    super(nsp);
    this.maxDisconnectionDuration = nsp.server._opts.connectionStateRecovery?.maxDisconnectionDuration ?? 120_000;
    this.timer = setInterval(() => this.expire(), 60_000);
    this.timer.unref();
  }

  private expire(): void {
    const threshold = Date.now() - this.maxDisconnectionDuration;
    for (const [pid, s] of this.sessions) if (s.disconnectedAt < threshold) this.sessions.delete(pid);
    const keep = this.packets.findIndex((p) => p.emittedAt >= threshold);
    this.packets = keep === -1 ? [] : this.packets.slice(keep);
  }

  override close(): void {
    clearInterval(this.timer);
  }

  override persistSession(session: SessionToPersist): void {
    this.sessions.set(session.pid, { ...session, disconnectedAt: Date.now() });
  }

  override restoreSession(pid: string, offset: string): Session | null {
    const session = this.sessions.get(pid);
    if (session === undefined) return null;
    if (session.disconnectedAt + this.maxDisconnectionDuration < Date.now()) {
      this.sessions.delete(pid);
      return null;
    }
    const index = this.packets.findIndex((p) => p.id === offset);
    if (index === -1) return null;
    const missedPackets: unknown[][] = [];
    for (let i = index + 1; i < this.packets.length; i++) {
      const p = this.packets[i] as StoredPacket;
      if (shouldInclude(session.rooms, p.opts)) missedPackets.push(p.data);
    }
    const { disconnectedAt: _, ...rest } = session;
    return { ...rest, missedPackets };
  }

  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    // Event packets without ack and not volatile are kept (an ack cannot be restored on reconnection).
    if (packet.type === 2 && packet.id === undefined && opts.flags?.volatile === undefined) {
      const id = nextOffset();
      (packet.data as unknown[]).push(id);
      this.packets.push({ id, opts, data: packet.data, emittedAt: Date.now() });
    }
    super.broadcast(packet, opts);
  }
}

function shouldInclude(rooms: string[], opts: BroadcastOptions): boolean {
  const included = opts.rooms.size === 0 || rooms.some((r) => opts.rooms.has(r));
  const notExcluded = rooms.every((r) => !opts.except?.has(r));
  return included && notExcluded;
}
