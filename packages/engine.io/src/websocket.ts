// Engine.IO's WebSocket transport: one Engine.IO packet per WebSocket message, text frames for text packets, binary
// frames for binary ones. Two kinds: on a Gale WebSocket (app.ws: frames, limits and fan-out are the engine's), and
// on a `ws` library WebSocket (a node:http server's upgrade, as engine.io does it).
import { decodePacket, encodePacket } from 'engine.io-parser';
import type { WebSocket } from 'gale';
import type { WebSocket as NodeWebSocket } from 'ws';
import { type EioPacket, Transport } from './transport.js';

/**
 * Close codes the engine uses for protocol errors (1002 bad frame, 1007 bad UTF-8, 1009 too big, 1011 a
 * handler threw): the `ws` library reports these as an 'error' first, so engine.io says 'transport error'.
 */
const ERROR_CODES = new Set([1002, 1007, 1009, 1011]);

const COMPRESS = { compress: true } as const;
const PLAIN = { compress: false } as const;

/**
 * The current "tick" for volatile packets: bumped once in process.nextTick after any send, so a transport knows
 * whether it already sent something in this tick (see canSendVolatile) at the cost of one compare per send.
 */
let epoch = 0;
let bumpScheduled = false;
const bump = (): void => {
  epoch++;
  bumpScheduled = false;
};

/**
 * What both WebSocket transports share: packets to frames, volatile sends, and the session's fast paths.
 * `socket.transport` is one once a session has upgraded.
 *
 * @example
 * engine.on('connection', (socket) => {
 *   socket.on('upgrade', (transport) => {
 *     if (transport instanceof WebSocketTransport) console.log('now on', transport.name); // 'websocket'
 *   });
 * });
 */
export abstract class WebSocketTransport extends Transport {
  readonly name = 'websocket' as const;
  private sentEpoch = -1;

  constructor() {
    super();
    this.writable = true;
  }

  /** Whether the WebSocket is open. */
  protected abstract isOpen(): boolean;
  /** Bytes written but not yet handed to the network. */
  protected abstract buffered(): number;
  /** Sends one message. */
  protected abstract write(data: string | Uint8Array, compress: boolean): void;

  /** A whole message from the client (text as a string, binary as a Buffer). */
  onData(data: string | Buffer): void {
    this.onPacket(decodePacket(data));
  }

  /**
   * A volatile packet goes out only when nothing was sent to this socket earlier in this tick and nothing is
   * waiting in its buffer: engine.io's WebSocket transport is not writable from a send until the `ws` library's
   * write callback (the next tick at the earliest), and volatile packets are dropped meanwhile.
   */
  canSendVolatile(): boolean {
    return this.isOpen() && this.sentEpoch !== epoch && this.buffered() === 0;
  }

  private sent(): void {
    this.sentEpoch = epoch;
    if (!bumpScheduled) {
      bumpScheduled = true;
      process.nextTick(bump);
    }
  }

  send(packets: EioPacket[]): void {
    for (const packet of packets) this.sendOne(packet);
    this.owner.onDrain();
  }

  /** One packet. Message packets with text are written as '4' + data without the parser's callback. */
  sendOne(packet: EioPacket): void {
    const compress = packet.options?.compress ?? true;
    if (packet.type === 'message' && typeof packet.data === 'string') {
      this.sendText(`4${packet.data}`, compress);
      return;
    }
    if (!this.isOpen()) return;
    if (this.sentEpoch !== epoch) this.sent();
    encodePacket(packet, true, (data) => this.write(data as string | Uint8Array, compress));
  }

  /**
   * An encoded text packet ('4' + a Socket.IO packet for messages): engine.io-parser's encodePacket does exactly
   * this concatenation for text, so the session's fast path calls this directly.
   */
  sendText(frame: string, compress: boolean): void {
    if (!this.isOpen()) return;
    if (this.sentEpoch !== epoch) this.sent();
    this.write(frame, compress);
  }
}

/**
 * The WebSocket transport of a session on a Gale app (engine.io's `WebSocket` transport), on a Gale WebSocket:
 * `ws` is it.
 *
 * @example
 * socket.on('upgrade', (transport) => {
 *   if (transport instanceof WsTransport) console.log('buffered:', transport.ws.getBufferedAmount());
 * });
 */
export class WsTransport extends WebSocketTransport {
  readonly ws: WebSocket;

  constructor(ws: WebSocket) {
    super();
    this.ws = ws;
  }

  protected isOpen(): boolean {
    return this.ws.readyState === 1;
  }
  protected buffered(): number {
    return this.ws.getBufferedAmount();
  }
  protected write(data: string | Uint8Array, compress: boolean): void {
    this.ws.send(data, compress ? COMPRESS : PLAIN);
  }

  /** The WebSocket ended with `code`. */
  onWsClose(code: number): void {
    if (ERROR_CODES.has(code) && this.readyState === 'open') {
      this.onError('websocket error', code);
      return;
    }
    this.onClose();
  }

  protected doClose(fn: () => void): void {
    if (this.ws.readyState === 1) this.ws.close();
    fn();
  }
}

/**
 * The WebSocket transport of a session on a node:http or node:https server: a WebSocket of the `ws` library, which
 * upgraded the server's request (`ws` is it).
 *
 * @example
 * socket.on('upgrade', (transport) => {
 *   if (transport instanceof NodeWsTransport) console.log('buffered:', transport.ws.bufferedAmount);
 * });
 */
export class NodeWsTransport extends WebSocketTransport {
  readonly ws: NodeWebSocket;

  constructor(ws: NodeWebSocket) {
    super();
    this.ws = ws;
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      this.onData(isBinary ? buf : buf.toString());
    });
    ws.once('close', () => this.onClose());
    ws.on('error', (err: Error) => this.onError('websocket error', err));
  }

  protected isOpen(): boolean {
    return this.ws.readyState === 1;
  }
  protected buffered(): number {
    return this.ws.bufferedAmount;
  }
  protected write(data: string | Uint8Array, compress: boolean): void {
    this.ws.send(data, compress ? COMPRESS : PLAIN);
  }

  protected doClose(fn: () => void): void {
    this.ws.close();
    fn();
  }
}
