// One Engine.IO session (engine.io's Socket): the open packet, server pings and the pong deadline, the write
// buffer, the polling → WebSocket upgrade (probe, noop, upgrade) and the close reasons engine.io names.
// `socket.conn` in Socket.IO is this object; it emits 'packet', 'packetCreate', 'heartbeat', 'upgrading',
// 'upgrade', 'drain', 'flush', 'data', 'message' and 'close' as engine.io does.
// Over 400 lines: it is engine.io's Socket class, whose heartbeat (ping timers, pong deadline), write buffer with its
// send callbacks, and transport switch during an upgrade (_maybeUpgrade, ~50 lines) all read and reset the same private
// fields, so they stay on one class as in engine.io.
import { EventEmitter } from 'node:events';
import type { EioPacket, Transport, TransportOwner } from './transport.js';
import type { HttpRequest, Message, SendCallback, SendOptions, SessionHost } from './types.js';
import type { WebSocketTransport } from './websocket.js';

/** Sessions with a 'packetCreate' listener now (see `Socket.watched`). */
let packetWatchers = 0;

/**
 * An Engine.IO session (engine.io's `Socket`; `socket.conn` in @gale-http/socket.io): its transport, upgrades, and
 * messages — strings, or Buffers for binary data.
 *
 * @example
 * engine.on('connection', (socket) => {
 *   socket.send('welcome', { compress: false }, () => console.log('handed to', socket.transport.name));
 *   socket.on('message', (data) => socket.send(typeof data === 'string' ? data.toUpperCase() : data));
 *   socket.on('upgrade', (transport) => console.log('upgraded to', transport.name));
 *   socket.on('close', (reason, description) => console.log('closed:', reason, description));
 * });
 */
export class Socket extends EventEmitter {
  /**
   * @internal Whether any session has a 'packetCreate' listener: packets the engine writes itself (Socket.IO
   * broadcasts through pub/sub, which no session's JavaScript sees) are reported to those, and this keeps the
   * check to one compare per broadcast when none listens.
   */
  static get watched(): boolean {
    return packetWatchers > 0;
  }
  /** The session id (sid). */
  readonly id: string;
  /**
   * The request that opened the session (its headers, url and address stay readable): Gale's Request on a Gale app,
   * node's IncomingMessage on a node:http server.
   */
  readonly request: HttpRequest;
  readonly remoteAddress: string;
  readonly protocol = 4;
  readyState: 'opening' | 'open' | 'closing' | 'closed' = 'opening';
  transport: Transport;
  upgrading = false;
  upgraded = false;
  /** @internal the Socket.IO client's hooks (called directly on the message path) */
  _ondata: ((data: string | Buffer) => void) | undefined;
  /** @internal */
  _onclose: ((reason: string, description?: unknown) => void) | undefined;
  private readonly server: SessionHost;
  private writeBuffer: EioPacket[] = [];
  private packetsFn: SendCallback[] = [];
  private sentCallbackFn: (SendCallback[] | null)[] = [];
  private pingIntervalTimer: NodeJS.Timeout | undefined;
  private pingTimeoutTimer: NodeJS.Timeout | undefined;
  private hasRefreshedPingTimeout = false;
  /** When the next ping is due, in whole ms of the monotonic clock (see `monotonicMs`). */
  private pingDue = 0;
  /** When the awaited pong is due (same clock); 0 when none is awaited. */
  private pongDue = 0;
  private cancelUpgrade: (() => void) | undefined;

  constructor(id: string, server: SessionHost, transport: Transport, req: HttpRequest, remoteAddress: string) {
    super();
    this.id = id;
    this.server = server;
    this.request = req;
    this.remoteAddress = remoteAddress;
    this.on('newListener', (event: string | symbol) => {
      if (event === 'packetCreate' && this.listenerCount('packetCreate') === 0) packetWatchers++;
    });
    this.on('removeListener', (event: string | symbol) => {
      if (event === 'packetCreate' && this.listenerCount('packetCreate') === 0) packetWatchers--;
    });
    this.transport = transport;
    this.setTransport(transport);
    this.onOpen();
  }

  private onOpen(): void {
    this.readyState = 'open';
    this.transport.sid = this.id;
    const o = this.server.opts;
    this.sendPacket(
      'open',
      JSON.stringify({
        sid: this.id,
        upgrades: this.getAvailableUpgrades(),
        pingInterval: o.pingInterval,
        pingTimeout: o.pingTimeout,
        maxPayload: o.maxHttpBufferSize,
      }),
    );
    if (o.initialPacket !== undefined) this.sendPacket('message', o.initialPacket);
    this.emit('open');
    this.schedulePing();
  }

  /** The owner slots of the current transport: packets, errors and close go to this session. */
  private readonly owner: TransportOwner = {
    onPacket: (p) => this.onPacket(p),
    onError: (msg, desc) => this.onError(msg, desc),
    onClose: () => this.onClose('transport close'),
    onReady: () => this.flush(),
    onDrain: () => this.onDrain(),
  };

  private onPacket(packet: EioPacket): void {
    if (this.readyState !== 'open') return;
    if (this.listenerCount('packet') > 0) this.emit('packet', packet);
    const type = packet.type;
    if (this.pingTimeoutTimer !== undefined && !this.hasRefreshedPingTimeout && type !== 'pong') {
      // Anything from the client while a pong is due proves it is alive: extend the deadline once.
      this.pingTimeoutTimer.refresh();
      this.pongDue = monotonicMs() + this.server.opts.pingTimeout;
      this.hasRefreshedPingTimeout = true;
    }
    switch (type) {
      case 'message':
        this._ondata?.(packet.data);
        this.emit('data', packet.data);
        this.emit('message', packet.data);
        return;
      case 'pong':
        clearTimeout(this.pingTimeoutTimer);
        this.pingTimeoutTimer = undefined;
        this.pongDue = 0;
        this.pingIntervalTimer?.refresh();
        this.pingDue = monotonicMs() + this.server.opts.pingInterval;
        this.emit('heartbeat');
        return;
      case 'ping':
        // Engine.IO v4: the server pings, never the client.
        this.onError('invalid heartbeat direction');
        return;
      case 'error':
        this.onClose('parse error');
        return;
    }
  }

  private onError(message: string, description?: unknown): void {
    this.onClose('transport error', description ?? message);
  }

  private schedulePing(): void {
    this.pingDue = monotonicMs() + this.server.opts.pingInterval;
    this.pingIntervalTimer = setTimeout(() => {
      this.hasRefreshedPingTimeout = false;
      this.sendPacket('ping');
      this.resetPingTimeout();
    }, this.server.opts.pingInterval);
    this.pingIntervalTimer.unref();
  }

  private resetPingTimeout(): void {
    clearTimeout(this.pingTimeoutTimer);
    // From when the ping was due, not from a late timer: the client expects pings on that schedule, and gives up
    // pingInterval + pingTimeout after the last one it got (engine.io-client), whatever kept this loop busy.
    this.pongDue = Math.min(monotonicMs(), this.pingDue) + this.server.opts.pingTimeout;
    this.pingTimeoutTimer = setTimeout(() => {
      if (this.readyState === 'closed') return;
      this.onClose('ping timeout');
    }, this.server.opts.pingTimeout);
    this.pingTimeoutTimer.unref();
  }

  /**
   * @internal true when the awaited pong is overdue though the timeout timer has not run yet, and then the session
   * closes ('ping timeout') as the timer would: timers run in their own phase of the loop, after the sockets read
   * in the same turn, and fire late on a busy loop, so a request read after the deadline could still find the
   * session open and be served. Checked on the session's HTTP requests (polls, POSTs, upgrades).
   */
  _overdue(): boolean {
    if (this.pongDue === 0 || this.readyState === 'closed' || preciseMs() < this.pongDue) return false;
    this.onClose('ping timeout');
    return true;
  }

  private setTransport(transport: Transport): void {
    this.transport = transport;
    transport.owner = this.owner;
  }

  private onDrain(): void {
    const fns = this.sentCallbackFn.shift();
    if (fns) for (const fn of fns) fn(this.transport);
  }

  /**
   * @internal a WebSocket for this session arrived: wait for its probe ping, answer it, nudge the pending poll
   * with noops, and switch on the client's upgrade packet (engine.io's _maybeUpgrade).
   */
  _maybeUpgrade(transport: Transport): void {
    this.upgrading = true;
    let check: NodeJS.Timeout | undefined;
    const timeout = setTimeout(() => {
      cleanup();
      if (transport.readyState === 'open') transport.close();
    }, this.server.opts.upgradeTimeout);
    timeout.unref();
    const cleanup = (): void => {
      this.upgrading = false;
      clearInterval(check);
      clearTimeout(timeout);
      this.cancelUpgrade = undefined;
      transport.owner = { onPacket() {}, onError() {}, onClose() {}, onReady() {}, onDrain() {} };
    };
    const fail = (): void => {
      cleanup();
      transport.close();
    };
    this.cancelUpgrade = fail;
    // Force a polling cycle so the client sees the probe answer quickly.
    const nudge = (): void => {
      if (this.transport.name === 'polling' && this.transport.writable) this.transport.send([{ type: 'noop' }]);
    };
    transport.owner = {
      onPacket: (packet) => {
        if (packet.type === 'ping' && packet.data === 'probe') {
          transport.send([{ type: 'pong', data: 'probe' }]);
          this.emit('upgrading', transport);
          clearInterval(check);
          check = setInterval(nudge, 100);
          check.unref();
        } else if (packet.type === 'upgrade' && this.readyState !== 'closed') {
          cleanup();
          this.transport.discard();
          this.upgraded = true;
          this.clearTransport();
          this.setTransport(transport);
          this.emit('upgrade', transport);
          this.flush();
          if (this.readyState === 'closing') transport.close(() => this.onClose('forced close'));
        } else {
          fail();
        }
      },
      onError: fail,
      onClose: fail,
      onReady() {},
      onDrain() {},
    };
  }

  /** Detaches the current transport (after an upgrade or on close) and closes it. */
  private clearTransport(): void {
    const old = this.transport;
    old.owner = { onPacket() {}, onError() {}, onClose() {}, onReady() {}, onDrain() {} };
    old.close();
    clearTimeout(this.pingTimeoutTimer);
    this.pingTimeoutTimer = undefined;
    this.pongDue = 0;
  }

  /** @internal the session ended for `reason` */
  onClose(reason: string, description?: unknown): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    clearTimeout(this.pingIntervalTimer);
    clearTimeout(this.pingTimeoutTimer);
    this.cancelUpgrade?.();
    this.writeBuffer = [];
    this.packetsFn = [];
    this.sentCallbackFn = [];
    this.clearTransport();
    this._onclose?.(reason, description);
    this.emit('close', reason, description);
  }

  /**
   * Sends a message: a string, or binary data (a Buffer, ArrayBuffer or typed array). `callback` runs once it
   * has been handed to the network; `{ compress: false }` skips permessage-deflate / HTTP compression for it.
   * Dropped once the session is closing or closed, as in engine.io.
   *
   * @example
   * socket.send('hello');
   * socket.send(Buffer.from([1, 2, 3]), () => console.log('sent'));
   */
  send(data: Message, options?: SendOptions | SendCallback, callback?: SendCallback): this {
    this.sendPacket('message', data, options, callback);
    return this;
  }

  /**
   * The same as `send`.
   *
   * @example
   * socket.write('hello', { compress: false });
   */
  write(data: Message, options?: SendOptions | SendCallback, callback?: SendCallback): this {
    this.sendPacket('message', data, options, callback);
    return this;
  }

  /** No listener wants to see packets go by (packetCreate, flush, drain): they may skip the write buffer. */
  private unobserved(): boolean {
    return (
      this.listenerCount('packetCreate') === 0 &&
      this.listenerCount('flush') === 0 &&
      this.listenerCount('drain') === 0 &&
      this.server.listenerCount('flush') === 0 &&
      this.server.listenerCount('drain') === 0
    );
  }

  /** @internal */
  sendPacket(
    type: EioPacket['type'],
    data?: unknown,
    opts?: SendOptions | SendCallback,
    callback?: SendCallback,
  ): void {
    let options = opts;
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    if (this.readyState === 'closing' || this.readyState === 'closed') return;
    const t = this.transport;
    if (
      type === 'message' &&
      typeof data === 'string' &&
      t.name === 'websocket' &&
      callback === undefined &&
      this.writeBuffer.length === 0 &&
      this.unobserved()
    ) {
      // The common case: a text message, nothing queued, a WebSocket ready. Out at once, no packet object.
      (t as WebSocketTransport).sendText(`4${data}`, options?.compress !== false);
      return;
    }
    const packet: EioPacket = { type, options: { compress: options?.compress !== false } };
    // (A broadcast's precomputed WebSocket frame rides along for 'packetCreate' listeners, as in engine.io.)
    const frame = (options as { wsPreEncodedFrame?: unknown } | undefined)?.wsPreEncodedFrame;
    if (frame !== undefined) (packet.options as Record<string, unknown>).wsPreEncodedFrame = frame;
    if (data !== undefined && data !== '') packet.data = data;
    if (this.listenerCount('packetCreate') > 0) this.emit('packetCreate', packet);
    if (
      t.name === 'websocket' &&
      t.writable &&
      callback === undefined &&
      this.writeBuffer.length === 0 &&
      this.unobserved()
    ) {
      // The common case: nothing queued, a WebSocket ready. One packet out, no arrays.
      (t as WebSocketTransport).sendOne(packet);
      return;
    }
    this.writeBuffer.push(packet);
    if (callback !== undefined) this.packetsFn.push(callback);
    this.flush();
  }

  private flush(): void {
    if (this.readyState === 'closed' || !this.transport.writable || this.writeBuffer.length === 0) return;
    this.emit('flush', this.writeBuffer);
    this.server.emit('flush', this, this.writeBuffer);
    const wbuf = this.writeBuffer;
    this.writeBuffer = [];
    if (this.packetsFn.length > 0) {
      this.sentCallbackFn.push(this.packetsFn);
      this.packetsFn = [];
    } else {
      this.sentCallbackFn.push(null);
    }
    this.transport.send(wbuf);
    this.emit('drain');
    this.server.emit('drain', this);
  }

  private getAvailableUpgrades(): string[] {
    return this.server.upgrades(this.transport.name);
  }

  /**
   * Closes the session (after the write buffer drains); `discard` closes the transport at once. The close
   * reason is 'forced close'.
   */
  close(discard?: boolean): void {
    if (discard && (this.readyState === 'open' || this.readyState === 'closing')) {
      this.closeTransport(discard);
      return;
    }
    if (this.readyState !== 'open') return;
    this.readyState = 'closing';
    if (this.writeBuffer.length > 0) {
      this.once('drain', () => this.closeTransport(discard));
      return;
    }
    this.closeTransport(discard);
  }

  private closeTransport(discard?: boolean): void {
    if (discard) this.transport.discard();
    this.transport.close(() => this.onClose('forced close'));
  }
}

/**
 * Whole milliseconds of the monotonic clock, as libuv's loop time counts them (hrtime floored to the ms): a
 * deadline counted from here is never later than the one a timer started at the same moment keeps, so a peer whose
 * own timer waited out the interval is past it.
 */
function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** The monotonic clock in ms, with its fraction. */
function preciseMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}
