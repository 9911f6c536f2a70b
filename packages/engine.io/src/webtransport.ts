// Engine.IO's WebTransport transport (engine.io 6.5+'s `webtransport`): a Gale WebTransport session's first
// bidirectional stream carries the packets, each framed as engine.io-parser's stream encoding frames it (a header
// with the length and a binary flag, then the packet), as engine.io-client's WebTransport transport reads and writes.
import { decodePacket, encodePacket } from 'engine.io-parser';
import type { WebTransportBidiStream, WebTransportSession } from 'gale';
import { type EioPacket, Transport } from './transport.js';

const EMPTY = Buffer.alloc(0);

/** A packet's bytes: binary data as it is, anything else as engine.io-parser's text encoding ('4hello', '2'). */
function bodyOf(packet: EioPacket): Buffer {
  const data = packet.data;
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let text = '';
  // (Synchronous for every packet: the callback runs before encodePacket returns.)
  encodePacket(packet, true, (s) => {
    text = s as string;
  });
  return Buffer.from(text);
}

/**
 * The transport of a session on WebTransport: `session` is the Gale session, `stream` its bidirectional stream.
 *
 * @example
 * socket.on('upgrade', (transport) => {
 *   if (transport instanceof WebTransportTransport) console.log('on', transport.session.req.url);
 * });
 */
export class WebTransportTransport extends Transport {
  readonly name = 'webtransport' as const;
  readonly session: WebTransportSession;
  readonly stream: WebTransportBidiStream;
  private readonly maxPayload: number;
  private pending: Buffer = EMPTY;

  constructor(session: WebTransportSession, stream: WebTransportBidiStream, maxPayload: number) {
    super();
    this.session = session;
    this.stream = stream;
    this.maxPayload = maxPayload;
    this.writable = true;
    stream.on('data', (chunk: Buffer) => this.onChunk(chunk));
    stream.on('error', (err: Error) => this.onError('webtransport error', err));
    stream.on('close', () => this.onClose());
    stream.on('drain', () => {
      this.writable = true;
      this.owner.onReady();
    });
  }

  /**
   * Waits (up to `timeout` ms) for the stream's first packet, which must be 'open': `onOpen` gets the sid its data
   * names (an upgrade of that session) or undefined (a new session). Anything else closes the session.
   */
  awaitOpen(timeout: number, onOpen: (sid: string | undefined) => void): void {
    const timer = setTimeout(() => this.close(), timeout);
    timer.unref();
    const none = { onPacket() {}, onError() {}, onClose() {}, onReady() {}, onDrain() {} };
    this.owner = {
      ...none,
      onPacket: (packet) => {
        clearTimeout(timer);
        this.owner = none;
        if (packet.type !== 'open') return this.close();
        if (packet.data === undefined) return onOpen(undefined);
        let sid: unknown;
        try {
          sid = (JSON.parse(String(packet.data)) as { sid?: unknown }).sid;
        } catch {}
        if (typeof sid === 'string') onOpen(sid);
        else this.close();
      },
      onError: () => this.close(),
      onClose: () => clearTimeout(timer),
    };
  }

  /** Frames as they arrive: each whole one decoded (engine.io-parser's createPacketDecoderStream, for Buffers). */
  private onChunk(chunk: Buffer): void {
    let buf = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (buf.length > 0) {
      const first = buf[0] as number;
      const binary = (first & 0x80) !== 0;
      let len = first & 0x7f;
      let at = 1;
      if (len === 126) {
        if (buf.length < 3) break;
        len = buf.readUInt16BE(1);
        at = 3;
      } else if (len === 127) {
        if (buf.length < 9) break;
        const high = buf.readUInt32BE(1);
        len = high * 2 ** 32 + buf.readUInt32BE(5);
        at = 9;
        if (high >= 2 ** 21) len = Number.POSITIVE_INFINITY;
      }
      if (len === 0 || len > this.maxPayload) {
        this.pending = EMPTY;
        this.onError('webtransport error', `a packet of ${len} bytes (maxHttpBufferSize is ${this.maxPayload})`);
        this.close();
        return;
      }
      if (buf.length < at + len) break;
      const payload = buf.subarray(at, at + len);
      buf = buf.subarray(at + len);
      this.onPacket(decodePacket(binary ? Buffer.from(payload) : payload.toString(), 'nodebuffer'));
      if (this.readyState !== 'open') return;
    }
    this.pending = buf.length === 0 ? EMPTY : Buffer.from(buf);
  }

  send(packets: EioPacket[]): void {
    for (const packet of packets) {
      const b = bodyOf(packet);
      const binary = typeof packet.data === 'object' && packet.data !== null;
      const header =
        b.length < 126
          ? Buffer.from([b.length])
          : b.length < 65536
            ? Buffer.from([126, b.length >> 8, b.length & 0xff])
            : Buffer.alloc(9);
      if (b.length >= 65536) {
        header[0] = 127;
        header.writeBigUInt64BE(BigInt(b.length), 1);
      }
      if (binary) header[0] = (header[0] as number) | 0x80;
      if (!this.stream.write(Buffer.concat([header, b]))) this.writable = false;
    }
    // Handed to the stream (its buffer paces the rest: not writable until it drains).
    this.owner.onDrain();
  }

  canSendVolatile(): boolean {
    return this.writable && this.stream.writableLength === 0;
  }

  protected doClose(fn: () => void): void {
    this.session.close();
    fn();
  }
}
