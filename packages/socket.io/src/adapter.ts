// Rooms and broadcasts of one namespace, with socket.io-adapter's class shape (so a multi-server adapter can
// extend it), on Gale's native pub/sub: a socket connected over WebSocket subscribes in the engine to one topic
// per room (and one for the namespace); a broadcast encodes its packet once and the engine writes the same frame
// to every subscriber, the engine choosing who (rooms, exclusions, volatile). Long-polling sockets get it from JS.
import { EventEmitter } from 'node:events';
import { Socket as EioSocket, WsTransport } from '@gale-http/engine.io';
import type { WebSocket } from 'gale';
import type { Encoder } from 'socket.io-parser';
import { encodePacket } from './encode.js';
import type { AnyArgs, BroadcastFlags, BroadcastOptions, Packet, Session, SessionToPersist } from './types.js';
import type { AdapterNamespace, AdapterSocket } from './views.js';

/** Between a namespace's topic and a room name in engine topics ('\x1f', as socket.io's uWebSockets.js glue). */
const SEP = '\x1f';

type Frame = string | Buffer;

/**
 * The in-memory adapter (socket.io-adapter's `Adapter`), publishing through the Gale engine.
 *
 * @example
 * // A multi-server adapter extends it and overrides broadcast/serverSideEmit/fetchSockets/…:
 * class MyAdapter extends Adapter { override serverCount() { return Promise.resolve(2); } }
 * const io = new Server(app, { adapter: MyAdapter });
 */
export class Adapter extends EventEmitter {
  readonly nsp: AdapterNamespace;
  /** Room → socket ids. */
  readonly rooms = new Map<string, Set<string>>();
  /** Socket id → rooms. */
  readonly sids = new Map<string, Set<string>>();
  readonly encoder: Encoder;
  /** Connected sockets whose rooms are subscribed in the engine (their connection is a WebSocket). */
  private readonly native = new Set<string>();
  /** Connected sockets reached from JS (long-polling, not upgraded yet). */
  private readonly viaJs = new Set<string>();

  constructor(nsp: AdapterNamespace) {
    super();
    this.nsp = nsp;
    this.encoder = nsp.server.encoder;
  }

  init(): void | Promise<void> {}
  close(): void | Promise<void> {}
  /** Servers in the cluster (1 for this in-memory adapter). */
  serverCount(): Promise<number> {
    return Promise.resolve(1);
  }

  /** The engine topic of a room of this namespace (of the namespace itself without a room). */
  private topic(room?: string): string {
    return room === undefined ? this.nsp._topic : this.nsp._topic + SEP + room;
  }

  /** Adds socket `id` to `rooms`. */
  addAll(id: string, rooms: Set<string>): void | Promise<void> {
    let mine = this.sids.get(id);
    if (mine === undefined) {
      mine = new Set();
      this.sids.set(id, mine);
    }
    for (const room of rooms) {
      mine.add(room);
      let members = this.rooms.get(room);
      if (members === undefined) {
        members = new Set();
        this.rooms.set(room, members);
        this.emit('create-room', room);
      }
      if (!members.has(id)) {
        members.add(id);
        this.emit('join-room', room, id);
      }
    }
    this.track(id, rooms);
  }

  /** Subscribes the engine topics of a connected WebSocket socket (all its rooms the first time). */
  private track(id: string, rooms: Set<string>): void {
    if (this.native.has(id)) {
      const ws = this.wsOf(id);
      if (ws !== undefined) for (const room of rooms) ws.subscribe(this.topic(room));
      return;
    }
    if (this.viaJs.has(id)) return;
    // Not connected yet (joined in a middleware): its rooms are subscribed when it connects.
    if (!this.nsp.sockets.has(id)) return;
    const ws = this.wsOf(id);
    if (ws === undefined) this.viaJs.add(id);
    else this.subscribeAll(id, ws);
  }

  private subscribeAll(id: string, ws: WebSocket): void {
    this.viaJs.delete(id);
    this.native.add(id);
    ws.subscribe(this.topic());
    for (const room of this.sids.get(id) ?? []) ws.subscribe(this.topic(room));
  }

  /** @internal the socket's connection switched to WebSocket: its rooms move into the engine */
  _upgraded(id: string): void {
    if (!this.viaJs.has(id)) return;
    const ws = this.wsOf(id);
    if (ws !== undefined) this.subscribeAll(id, ws);
  }

  /** The open engine WebSocket of a connected socket, if that is its transport (not one of the `ws` library). */
  private wsOf(id: string): WebSocket | undefined {
    const t = this.nsp.sockets.get(id)?.conn.transport;
    if (!(t instanceof WsTransport)) return undefined;
    const ws = t.ws;
    return ws.readyState === 1 ? ws : undefined;
  }

  /** Removes socket `id` from `room`. */
  del(id: string, room: string): void | Promise<void> {
    this.sids.get(id)?.delete(room);
    this._del(room, id);
    if (this.native.has(id)) this.wsOf(id)?.unsubscribe(this.topic(room));
  }

  private _del(room: string, id: string): void {
    const members = this.rooms.get(room);
    if (members === undefined) return;
    if (members.delete(id)) this.emit('leave-room', room, id);
    if (members.size === 0 && this.rooms.delete(room)) this.emit('delete-room', room);
  }

  /** Removes socket `id` from all its rooms. */
  delAll(id: string): void {
    const mine = this.sids.get(id);
    if (mine === undefined) return;
    const ws = this.native.has(id) ? this.wsOf(id) : undefined;
    for (const room of mine) {
      this._del(room, id);
      ws?.unsubscribe(this.topic(room));
    }
    ws?.unsubscribe(this.topic());
    this.sids.delete(id);
    this.native.delete(id);
    this.viaJs.delete(id);
  }

  /**
   * Sends a packet to the selected sockets: encoded once; WebSocket sockets through the engine's pub/sub,
   * long-polling ones queued from JS.
   */
  broadcast(packet: Packet, opts: BroadcastOptions): void {
    const flags = opts.flags ?? {};
    packet.nsp = this.nsp.name;
    const encoded = encodePacket(this.encoder, packet) as Frame[];
    const watched = EioSocket.watched;
    const packetOpts = {
      preEncoded: true,
      volatile: flags.volatile,
      compress: flags.compress,
      // The WebSocket frame of a one-frame packet, as socket.io-adapter precomputes it (only when a session
      // listens for 'packetCreate' and can see it).
      wsPreEncodedFrame: watched && encoded.length === 1 ? wsFrame(encoded[0] as Frame) : undefined,
    };
    const except = this.computeExceptSids(opts.except);
    const rooms = opts.rooms;
    if (this.nsp._outgoing.size > 0) {
      for (const s of this.nsp._outgoing) if (this.targets(s.id, rooms, except)) s.notifyOutgoingListeners(packet);
    }
    for (const id of this.viaJs) {
      if (this.targets(id, rooms, except)) this.nsp.sockets.get(id)?.client.writeToEngine(encoded, packetOpts);
    }
    if (this.native.size === 0) return;
    // A volatile packet of several frames (binary attachments): whether a socket can take it now is decided for
    // the whole packet, in JS, so a socket gets all its frames or none.
    if (flags.volatile === true && encoded.length > 1) {
      for (const id of this.native) {
        if (this.targets(id, rooms, except)) this.nsp.sockets.get(id)?.client.writeToEngine(encoded, packetOpts);
      }
      return;
    }
    this.publish(encoded, rooms, opts.except, flags);
    // What the engine wrote for them, the sessions that listen for 'packetCreate' hear of, as engine.io tells of
    // every packet.
    if (watched) {
      for (const id of this.native) {
        const conn = this.targets(id, rooms, except) ? this.nsp.sockets.get(id)?.conn : undefined;
        if (conn !== undefined && conn.listenerCount('packetCreate') > 0) {
          for (const f of encoded) {
            conn.emit('packetCreate', {
              type: 'message',
              data: f,
              options: { compress: flags.compress !== false, wsPreEncodedFrame: packetOpts.wsPreEncodedFrame },
            });
          }
        }
      }
    }
  }

  /** Whether a connected socket is selected. */
  private targets(id: string, rooms: Set<string>, except: Set<string>): boolean {
    if (except.has(id)) return false;
    if (rooms.size === 0) return true;
    for (const room of rooms) if (this.rooms.get(room)?.has(id)) return true;
    return false;
  }

  /**
   * The native part of a broadcast: one engine publish per frame. The engine picks the sockets: the union of the
   * rooms' topics (each socket once), minus the subscribers of the excepted rooms' topics (a socket's own id is a
   * room, so `socket.broadcast` excepts the sender), minus busy sockets for volatile packets; no JS runs per socket.
   */
  private publish(encoded: Frame[], rooms: Set<string>, exceptRooms: Set<string> | undefined, flags: BroadcastFlags) {
    const app = this.nsp.server._app;
    if (app === undefined) return;
    // Engine.IO over WebSocket: a text packet is '4' + the Socket.IO packet; binary attachments go as they are.
    const frames = encoded.map((e) => (typeof e === 'string' ? `4${e}` : e));
    const compress = flags.compress !== false;
    const topics = rooms.size === 0 ? this.topic() : Array.from(rooms, (r) => this.topic(r));
    const except = exceptRooms && exceptRooms.size > 0 ? Array.from(exceptRooms, (r) => this.topic(r)) : undefined;
    // A packet with binary attachments is several frames: skipping busy sockets frame by frame could split it.
    const volatile = flags.volatile === true && frames.length === 1;
    for (const f of frames) app.publish(topics, f, { binary: typeof f !== 'string', compress, except, volatile });
  }

  /**
   * Sends a packet expecting acks: each selected socket gets it (encoded once) and its ack is routed to `ack`;
   * `clientCountCallback` learns how many were reached.
   */
  broadcastWithAck(
    packet: Packet,
    opts: BroadcastOptions,
    clientCountCallback: (clientCount: number) => void,
    ack: (...args: AnyArgs) => void,
  ): void {
    const flags = opts.flags ?? {};
    const packetOpts = { preEncoded: true, volatile: flags.volatile, compress: flags.compress };
    packet.nsp = this.nsp.name;
    packet.id = this.nsp._ids++;
    const encoded = encodePacket(this.encoder, packet) as Frame[];
    let count = 0;
    this.apply(opts, (socket) => {
      count++;
      socket.acks.set(packet.id as number, ack);
      socket.notifyOutgoingListeners(packet);
      socket.client.writeToEngine(encoded, packetOpts);
    });
    clientCountCallback(count);
  }

  /** Ids of the sockets in `rooms` (all when empty). */
  sockets(rooms: Set<string>): Promise<Set<string>> {
    const ids = new Set<string>();
    this.apply({ rooms }, (socket) => ids.add(socket.id));
    return Promise.resolve(ids);
  }

  /** The rooms of socket `id`. */
  socketRooms(id: string): Set<string> | undefined {
    return this.sids.get(id);
  }

  /** The selected sockets. */
  fetchSockets(opts: BroadcastOptions): Promise<(AdapterSocket | unknown)[]> {
    const sockets: AdapterSocket[] = [];
    this.apply(opts, (socket) => sockets.push(socket));
    return Promise.resolve(sockets);
  }

  /** Makes the selected sockets join `rooms`. */
  addSockets(opts: BroadcastOptions, rooms: string[]): void {
    this.apply(opts, (socket) => socket.join(rooms));
  }

  /** Makes the selected sockets leave `rooms`. */
  delSockets(opts: BroadcastOptions, rooms: string[]): void {
    this.apply(opts, (socket) => {
      for (const room of rooms) socket.leave(room);
    });
  }

  /** Disconnects the selected sockets. */
  disconnectSockets(opts: BroadcastOptions, close: boolean): void {
    const selected: AdapterSocket[] = [];
    this.apply(opts, (socket) => selected.push(socket));
    for (const socket of selected) socket.disconnect(close);
  }

  /** Calls `callback` for each selected connected socket, once each (socket.io-adapter's apply). */
  apply(opts: BroadcastOptions, callback: (socket: AdapterSocket) => void): void {
    const except = this.computeExceptSids(opts.except);
    const sockets = this.nsp.sockets;
    if (opts.rooms.size > 0) {
      const seen = new Set<string>();
      for (const room of opts.rooms) {
        const members = this.rooms.get(room);
        if (members === undefined) continue;
        for (const id of members) {
          if (seen.has(id) || except.has(id)) continue;
          const socket = sockets.get(id);
          if (socket !== undefined) {
            callback(socket);
            seen.add(id);
          }
        }
      }
      return;
    }
    for (const id of this.sids.keys()) {
      if (except.has(id)) continue;
      const socket = sockets.get(id);
      if (socket !== undefined) callback(socket);
    }
  }

  /** The ids in any of `exceptRooms`. */
  computeExceptSids(exceptRooms?: Set<string>): Set<string> {
    const ids = new Set<string>();
    if (exceptRooms === undefined) return ids;
    for (const room of exceptRooms) {
      const members = this.rooms.get(room);
      if (members !== undefined) for (const id of members) ids.add(id);
    }
    return ids;
  }

  /**
   * Sends `[event, ...args]` to the other servers of the cluster. This adapter has none: an ack (a function
   * last) is answered with no responses. Multi-server adapters override this and deliver with
   * `nsp._onServerSideEmit(args)` on the receiving side.
   */
  serverSideEmit(packet: AnyArgs): void {
    const last = packet[packet.length - 1];
    if (typeof last === 'function') queueMicrotask(() => last(null, []));
  }

  /** Keeps a disconnected socket's session for connection state recovery (no-op here). */
  persistSession(_session: SessionToPersist): void | Promise<void> {}

  /** The session and missed packets for `pid` from `offset` (none here). */
  restoreSession(_pid: string, _offset: string): Session | null | Promise<Session | null> {
    return null;
  }
}

/**
 * The unmasked WebSocket frame of a text message carrying Engine.IO packet `e` ('4' + the Socket.IO packet), as
 * header and payload (socket.io-adapter's precomputed frame; binary attachments are not precomputed).
 */
function wsFrame(e: Frame): Buffer[] | undefined {
  if (typeof e !== 'string') return undefined;
  const payload = Buffer.from(`4${e}`);
  const n = payload.length;
  const header = Buffer.alloc(n < 126 ? 2 : n < 65536 ? 4 : 10);
  header[0] = 0x81; // FIN, text
  if (n < 126) header[1] = n;
  else if (n < 65536) {
    header[1] = 126;
    header.writeUInt16BE(n, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  return [header, payload];
}
