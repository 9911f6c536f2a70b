// One Engine.IO connection seen from Socket.IO (socket.io's Client): decodes its packets with socket.io-parser,
// connects it to namespaces (one Socket each), writes encoded packets to the session, and closes everything
// when the connection ends. Must not import server.ts (it is given the server, typed by what it uses of it).

import type { Socket as EioSocket, HttpRequest } from '@gale-http/engine.io';
import { Decoder, PacketType } from 'socket.io-parser';
import { encodePacket } from './encode.js';
import type { Namespace, NamespaceServer } from './namespace.js';
import type { Socket, SocketClient } from './socket.js';
import type { Packet, WriteOptions } from './types.js';

/**
 * What a client uses of its Server (`client.server`): the namespaces, dynamic ones included, and the connect timeout.
 * server.ts's Server implements it.
 *
 * @example
 * const server: ClientServer = io; // a Server: each Engine.IO connection gets a Client made with it
 * server.of('/chat').emit('hello');
 */
export interface ClientServer extends NamespaceServer {
  /** @internal ms a connection may stay without joining a namespace */
  readonly _connectTimeout: number;
  /** @internal a client asks for an unknown namespace: the dynamic one it matches, or false */
  _checkNamespace(name: string, auth: Record<string, unknown>, fn: (nsp: Namespace | false) => void): void;
}

/**
 * The Engine.IO connection behind a socket, shared by its namespaces (`socket.client`).
 *
 * @example
 * io.on('connection', (socket) => console.log(socket.client.conn.transport.name));
 */
export class Client implements SocketClient {
  readonly server: ClientServer;
  readonly conn: EioSocket;
  /** The Engine.IO session id. */
  readonly id: string;
  /** Sockets of this connection by socket id. */
  readonly sockets = new Map<string, Socket>();
  /** Sockets of this connection by namespace name. */
  readonly nsps = new Map<string, Socket>();
  private readonly decoder: Decoder;
  private connectTimeout: NodeJS.Timeout | undefined;
  /** The input being decoded is binary (an attachment): see ondata. */
  private binaryInput = false;

  constructor(server: ClientServer, conn: EioSocket) {
    this.server = server;
    this.conn = conn;
    this.id = conn.id;
    this.decoder = new Decoder();
    this.decoder.on('decoded', (packet: Packet) => this.ondecoded(packet));
    conn._ondata = (data) => this.ondata(data);
    conn._onclose = (reason, description) => this.onclose(reason, description);
    conn.on('upgrade', () => {
      for (const socket of this.sockets.values()) socket.adapter._upgraded?.(socket.id);
    });
    this.connectTimeout = setTimeout(() => {
      if (this.nsps.size === 0) this.close();
    }, server._connectTimeout);
    this.connectTimeout.unref();
  }

  /** The request that opened the connection (Gale's Request, or node's IncomingMessage on a node:http server). */
  get request(): HttpRequest {
    return this.conn.request;
  }

  private connect(name: string, auth: Record<string, unknown> = {}): void {
    if (this.server._nsps.has(name)) {
      this.doConnect(name, auth);
      return;
    }
    this.server._checkNamespace(name, auth, (dynamic) => {
      if (dynamic) this.doConnect(name, auth);
      else this._packet({ type: PacketType.CONNECT_ERROR, nsp: name, data: { message: 'Invalid namespace' } });
    });
  }

  private doConnect(name: string, auth: Record<string, unknown>): void {
    const nsp = this.server.of(name);
    nsp
      ._add(this, auth, (socket) => {
        this.sockets.set(socket.id, socket);
        this.nsps.set(nsp.name, socket);
        clearTimeout(this.connectTimeout);
        this.connectTimeout = undefined;
      })
      .catch((err: unknown) => console.error('@gale-http/socket.io: connecting a socket failed', err));
  }

  /** @internal disconnects every namespace, then closes the connection */
  _disconnect(): void {
    for (const socket of this.sockets.values()) socket.disconnect();
    this.sockets.clear();
    this.close();
  }

  /** @internal */
  _remove(socket: Socket): void {
    if (this.sockets.delete(socket.id)) this.nsps.delete(socket.nsp.name);
  }

  private close(): void {
    if (this.conn.readyState !== 'open') return;
    this.conn.close();
    this.onclose('forced server close');
  }

  /** @internal encodes and writes a packet */
  _packet(packet: Packet, opts: WriteOptions = {}): void {
    if (this.conn.readyState !== 'open') return;
    this.writeToEngine(encodePacket(this.server.encoder, packet), opts);
  }

  /** Writes already-encoded packets (a string, then binary attachments) to the session. */
  writeToEngine(encoded: (string | Buffer)[], opts: WriteOptions): void {
    const conn = this.conn;
    if (opts.volatile && !conn.transport.canSendVolatile()) return;
    if (encoded.length === 1) {
      conn.write(encoded[0] as string, opts);
      return;
    }
    for (const packet of encoded) conn.write(packet, opts);
  }

  private ondata(data: string | Buffer): void {
    // A packet decoded from binary input is one whose attachments just came (a binary event or ack).
    this.binaryInput = typeof data !== 'string';
    try {
      this.decoder.add(data);
    } catch (err) {
      this.onerror(err);
    }
  }

  private ondecoded(packet: Packet): void {
    const socket = this.nsps.get(packet.nsp);
    if (socket === undefined && packet.type === PacketType.CONNECT) {
      this.connect(packet.nsp, packet.data);
    } else if (socket !== undefined && packet.type !== PacketType.CONNECT && packet.type !== PacketType.CONNECT_ERROR) {
      // socket.io hands the packet over in process.nextTick; in order and at once here (no tick per event).
      socket._onpacket(packet, this.binaryInput);
    } else {
      this.close();
    }
  }

  /** A protocol violation: 'error' on every socket, then the connection closes ('forced close'). */
  private onerror(err: unknown): void {
    for (const socket of this.sockets.values()) socket._onerror(err);
    this.conn.close();
  }

  private onclose(reason: string, description?: unknown): void {
    this.conn._ondata = undefined;
    this.conn._onclose = undefined;
    clearTimeout(this.connectTimeout);
    this.connectTimeout = undefined;
    for (const socket of [...this.sockets.values()]) socket._onclose(reason, description);
    this.sockets.clear();
    this.decoder.destroy();
  }
}
