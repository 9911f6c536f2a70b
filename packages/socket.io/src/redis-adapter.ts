// A Socket.IO adapter over Redis pub/sub, speaking @socket.io/redis-adapter 8's wire format (the same channels,
// msgpack broadcasts, JSON/msgpack requests and responses), so @gale-http/socket.io servers and socket.io servers using
// @socket.io/redis-adapter can share one Redis: broadcasts, rooms, fetchSockets, socketsJoin/Leave,
// disconnectSockets, serverSideEmit and acknowledged broadcasts work across all of them. Works with ioredis and
// node-redis (v4+) clients, as the original does.
// Over 400 lines: it ports @socket.io/redis-adapter 8's RedisAdapter as one class: both sides of its ten request types
// (answering in onRequest, collecting in onResponse) and its broadcast, sockets, fetchSockets and serverSideEmit
// overrides and allRooms share the pending-request maps, the channel names and the client kind (ioredis or node-redis).
import { randomBytes } from 'node:crypto';
import * as msgpack from 'notepack.io';
import { Adapter } from './adapter.js';
import type { AnyArgs, BroadcastFlags, BroadcastOptions, Packet } from './types.js';
import type { AdapterNamespace, AdapterSocket } from './views.js';

/** Request types between servers (the numbers are @socket.io/redis-adapter's). */
enum RequestType {
  SOCKETS = 0,
  ALL_ROOMS = 1,
  REMOTE_JOIN = 2,
  REMOTE_LEAVE = 3,
  REMOTE_DISCONNECT = 4,
  REMOTE_FETCH = 5,
  SERVER_SIDE_EMIT = 6,
  BROADCAST = 7,
  BROADCAST_CLIENT_COUNT = 8,
  BROADCAST_ACK = 9,
}

/**
 * Options of `createRedisAdapter` (@socket.io/redis-adapter's names and defaults).
 *
 * @example
 * const io = new Server(app, { adapter: createRedisAdapter(pub, sub, { key: 'chat', requestsTimeout: 2_000 }) });
 */
export interface RedisAdapterOptions {
  /** Channel prefix. Default 'socket.io'. */
  key?: string;
  /** ms to wait for the other servers' answers (fetchSockets, serverSideEmitWithAck, allRooms). Default 5000. */
  requestsTimeout?: number;
  /** Answer on the asking server's own channel instead of the shared response channel. Default false. */
  publishOnSpecificResponseChannel?: boolean;
  /** Encoder of broadcasts (must match the other servers'). Default msgpack (notepack.io). */
  parser?: { encode(v: unknown): unknown; decode(b: unknown): unknown };
}

// biome-ignore lint/suspicious/noExplicitAny: ioredis or node-redis client, duck-typed as in the original
type RedisClient = any;

interface PendingRequest {
  type: RequestType;
  numSub: number;
  msgCount: number;
  timeout: NodeJS.Timeout;
  // biome-ignore lint/suspicious/noExplicitAny: the result type depends on the request
  resolve: (...args: any[]) => void;
  sockets?: Set<string> | unknown[];
  rooms?: Set<string>;
  responses?: unknown[];
}

// biome-ignore lint/suspicious/noExplicitAny: decoded requests from other servers
type Request = any;

/** A client call's promise whose failure (Redis away, connection closing) must not become an unhandled rejection. */
function quiet(r: unknown): void {
  if (r !== null && typeof (r as Promise<unknown>)?.catch === 'function') (r as Promise<unknown>).catch(() => {});
}

const uid = () => randomBytes(6).toString('hex').slice(0, 6);
const isNumeric = (s: string) => s !== '' && !Number.isNaN(Number(s)) && !Number.isNaN(Number.parseFloat(s));

/**
 * An adapter class for `new Server(app, { adapter })` that spreads rooms and broadcasts over Redis, compatible with
 * @socket.io/redis-adapter (`createAdapter(pubClient, subClient, opts)` there).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { Server, createRedisAdapter } from '@gale-http/socket.io';
 * const pub = new Redis(process.env.REDIS_URL);
 * const io = new Server(app, { adapter: createRedisAdapter(pub, pub.duplicate()) });
 * io.to('room').emit('news', 'reaches every server');
 * const all = await io.fetchSockets(); // sockets of every server
 */
export function createRedisAdapter(
  pubClient: RedisClient,
  subClient: RedisClient,
  opts: RedisAdapterOptions = {},
): new (
  nsp: AdapterNamespace,
) => RedisAdapter {
  // Called with `new` by the server: returning an object from a constructor returns that object.
  return function (nsp: AdapterNamespace) {
    return new RedisAdapter(nsp, pubClient, subClient, opts);
  } as unknown as new (
    nsp: AdapterNamespace,
  ) => RedisAdapter;
}

/**
 * The Redis adapter of one namespace (see createRedisAdapter).
 *
 * @example
 * const io = new Server(app, { adapter: createRedisAdapter(pub, sub) });
 * const adapter = io.of('/').adapter; // a RedisAdapter: rooms and broadcasts reach every server
 */
export class RedisAdapter extends Adapter {
  readonly uid = uid();
  readonly pubClient: RedisClient;
  readonly subClient: RedisClient;
  private readonly requestsTimeout: number;
  private readonly specificResponses: boolean;
  private readonly parser: { encode(v: unknown): unknown; decode(b: unknown): unknown };
  readonly channel: string;
  readonly requestChannel: string;
  readonly responseChannel: string;
  private readonly specificResponseChannel: string;
  private readonly requests = new Map<string, PendingRequest>();
  private readonly ackRequests = new Map<
    string,
    { clientCountCallback: (n: number) => void; ack: (...args: AnyArgs) => void }
  >();
  private readonly isV4: boolean;
  private readonly handlers: Record<string, (...args: AnyArgs) => void> = {};
  private readonly onError: () => void;

  constructor(nsp: AdapterNamespace, pubClient: RedisClient, subClient: RedisClient, opts: RedisAdapterOptions = {}) {
    super(nsp);
    this.pubClient = pubClient;
    this.subClient = subClient;
    this.requestsTimeout = opts.requestsTimeout ?? 5000;
    this.specificResponses = opts.publishOnSpecificResponseChannel === true;
    this.parser = opts.parser ?? msgpack;
    const prefix = opts.key ?? 'socket.io';
    this.channel = `${prefix}#${nsp.name}#`;
    this.requestChannel = `${prefix}-request#${nsp.name}#`;
    this.responseChannel = `${prefix}-response#${nsp.name}#`;
    this.specificResponseChannel = `${this.responseChannel}${this.uid}#`;
    this.isV4 = typeof pubClient.pSubscribe === 'function';
    const channels = [this.requestChannel, this.responseChannel, this.specificResponseChannel];
    if (this.isV4) {
      this.handlers.psub = (msg: Buffer, channel: Buffer) => this.onMessage(channel, msg);
      this.handlers.sub = (msg: Buffer, channel: Buffer) => void this.onRequest(channel, msg);
      quiet(subClient.pSubscribe(`${this.channel}*`, this.handlers.psub, true));
      quiet(subClient.subscribe(channels, this.handlers.sub, true));
    } else {
      this.handlers.pmessageBuffer = (_p: Buffer, channel: Buffer, msg: Buffer) => this.onMessage(channel, msg);
      this.handlers.messageBuffer = (channel: Buffer, msg: Buffer) => void this.onRequest(channel, msg);
      quiet(subClient.psubscribe(`${this.channel}*`));
      subClient.on('pmessageBuffer', this.handlers.pmessageBuffer);
      quiet(subClient.subscribe(channels));
      subClient.on('messageBuffer', this.handlers.messageBuffer);
    }
    // Without an error listener a Redis outage would be an uncaught 'error' event.
    this.onError = function (this: RedisClient) {
      if (this.listenerCount('error') === 1)
        console.warn("@gale-http/socket.io redis adapter: missing 'error' handler on a Redis client");
    };
    pubClient.on('error', this.onError);
    subClient.on('error', this.onError);
  }

  /** A broadcast from another server. */
  private onMessage(channelBuf: Buffer | string, msg: Buffer): void {
    const channel = channelBuf.toString();
    if (!channel.startsWith(this.channel)) return;
    const room = channel.slice(this.channel.length, -1);
    if (room !== '' && !this.hasRoom(room)) return;
    let decoded: [string, Packet, { rooms: string[]; except: string[]; flags?: BroadcastFlags }];
    try {
      decoded = this.parser.decode(msg) as typeof decoded;
    } catch {
      return;
    }
    const [from, packet, opts] = decoded;
    if (from === this.uid) return;
    if (packet && packet.nsp === undefined) packet.nsp = '/';
    if (!packet || packet.nsp !== this.nsp.name) return;
    super.broadcast(packet, { rooms: new Set(opts.rooms), except: new Set(opts.except), flags: opts.flags });
  }

  private hasRoom(room: string): boolean {
    // biome-ignore lint/suspicious/noExplicitAny: socket.io allows numeric rooms; the original checks them so
    return (isNumeric(room) && this.rooms.has(Number.parseFloat(room) as any)) || this.rooms.has(room);
  }

  private decode(msg: Buffer): Request | undefined {
    try {
      return msg[0] === 0x7b ? JSON.parse(msg.toString()) : this.parser.decode(msg);
    } catch {
      return undefined;
    }
  }

  /** A request (or a response) from another server. */
  private async onRequest(channelBuf: Buffer | string, msg: Buffer): Promise<void> {
    const channel = channelBuf.toString();
    if (channel.startsWith(this.responseChannel)) {
      this.onResponse(msg);
      return;
    }
    if (!channel.startsWith(this.requestChannel)) return;
    const request = this.decode(msg);
    if (request === undefined) return;
    const opts = (o: Request): BroadcastOptions => ({ rooms: new Set(o?.rooms), except: new Set(o?.except) });
    switch (request.type) {
      case RequestType.SOCKETS: {
        if (this.requests.has(request.requestId)) return;
        const sockets = await super.sockets(new Set(request.rooms));
        this.publishResponse(request, JSON.stringify({ requestId: request.requestId, sockets: [...sockets] }));
        return;
      }
      case RequestType.ALL_ROOMS:
        if (this.requests.has(request.requestId)) return;
        this.publishResponse(request, JSON.stringify({ requestId: request.requestId, rooms: [...this.rooms.keys()] }));
        return;
      case RequestType.REMOTE_JOIN:
      case RequestType.REMOTE_LEAVE:
      case RequestType.REMOTE_DISCONNECT: {
        if (request.opts) {
          if (request.type === RequestType.REMOTE_JOIN) super.addSockets(opts(request.opts), request.rooms);
          else if (request.type === RequestType.REMOTE_LEAVE) super.delSockets(opts(request.opts), request.rooms);
          else super.disconnectSockets(opts(request.opts), request.close);
          return;
        }
        const socket = this.nsp.sockets.get(request.sid);
        if (socket === undefined) return;
        if (request.type === RequestType.REMOTE_JOIN) socket.join(request.room);
        else if (request.type === RequestType.REMOTE_LEAVE) socket.leave(request.room);
        else socket.disconnect(request.close);
        this.publishResponse(request, JSON.stringify({ requestId: request.requestId }));
        return;
      }
      case RequestType.REMOTE_FETCH: {
        if (this.requests.has(request.requestId)) return;
        const local = (await super.fetchSockets(opts(request.opts))) as AdapterSocket[];
        this.publishResponse(
          request,
          JSON.stringify({
            requestId: request.requestId,
            sockets: local.map((s) => {
              const { sessionStore: _, ...handshake } = s.handshake as typeof s.handshake & { sessionStore?: unknown };
              return { id: s.id, handshake, rooms: [...s.rooms], data: s.data };
            }),
          }),
        );
        return;
      }
      case RequestType.SERVER_SIDE_EMIT: {
        if (request.uid === this.uid) return;
        if (request.requestId === undefined) {
          this.nsp._onServerSideEmit(request.data);
          return;
        }
        let called = false;
        request.data.push((arg: unknown) => {
          if (called) return;
          called = true;
          this.send(
            this.responseChannel,
            JSON.stringify({ type: RequestType.SERVER_SIDE_EMIT, requestId: request.requestId, data: arg }),
          );
        });
        this.nsp._onServerSideEmit(request.data);
        return;
      }
      case RequestType.BROADCAST: {
        if (this.ackRequests.has(request.requestId)) return; // our own
        super.broadcastWithAck(
          request.packet,
          opts(request.opts),
          (clientCount) => {
            this.publishResponse(
              request,
              JSON.stringify({ type: RequestType.BROADCAST_CLIENT_COUNT, requestId: request.requestId, clientCount }),
            );
          },
          (arg) => {
            this.publishResponse(
              request,
              this.parser.encode({ type: RequestType.BROADCAST_ACK, requestId: request.requestId, packet: arg }),
            );
          },
        );
        return;
      }
    }
  }

  private publishResponse(request: Request, response: unknown): void {
    const channel = this.specificResponses ? `${this.responseChannel}${request.uid}#` : this.responseChannel;
    this.send(channel, response);
  }

  /** PUBLISH, never throwing: with Redis away the other servers are simply not reached. */
  private send(channel: string, message: unknown): void {
    try {
      quiet(this.pubClient.publish(channel, message));
    } catch {}
  }

  private onResponse(msg: Buffer): void {
    const response = this.decode(msg);
    if (response === undefined) return;
    const requestId = response.requestId;
    const ackRequest = this.ackRequests.get(requestId);
    if (ackRequest !== undefined) {
      if (response.type === RequestType.BROADCAST_CLIENT_COUNT) ackRequest.clientCountCallback(response.clientCount);
      else if (response.type === RequestType.BROADCAST_ACK) ackRequest.ack(response.packet);
      return;
    }
    const request = requestId === undefined ? undefined : this.requests.get(requestId);
    if (request === undefined) return;
    switch (request.type) {
      case RequestType.SOCKETS:
      case RequestType.REMOTE_FETCH:
        request.msgCount++;
        if (!Array.isArray(response.sockets)) return;
        if (request.type === RequestType.SOCKETS)
          for (const s of response.sockets) (request.sockets as Set<string>).add(s);
        else (request.sockets as unknown[]).push(...response.sockets);
        if (request.msgCount === request.numSub) this.settle(requestId, request.sockets);
        return;
      case RequestType.ALL_ROOMS:
        request.msgCount++;
        if (!Array.isArray(response.rooms)) return;
        for (const r of response.rooms) request.rooms?.add(r);
        if (request.msgCount === request.numSub) this.settle(requestId, request.rooms);
        return;
      case RequestType.SERVER_SIDE_EMIT:
        request.responses?.push(response.data);
        if (request.responses?.length === request.numSub) {
          clearTimeout(request.timeout);
          this.requests.delete(requestId);
          request.resolve(null, request.responses);
        }
        return;
    }
  }

  private settle(requestId: string, value: unknown): void {
    const request = this.requests.get(requestId);
    if (request === undefined) return;
    clearTimeout(request.timeout);
    this.requests.delete(requestId);
    request.resolve(value);
  }

  /** Asks every server and collects the answers (rejects after requestsTimeout). */
  private ask<T>(
    type: RequestType,
    body: Record<string, unknown>,
    numSub: number,
    seed: Partial<PendingRequest>,
    what: string,
  ): Promise<T> {
    const requestId = uid();
    return new Promise<T>((resolve, reject) => {
      const timeout = setTimeout(() => {
        if (this.requests.delete(requestId)) reject(new Error(`timeout reached while waiting for ${what} response`));
      }, this.requestsTimeout);
      this.requests.set(requestId, { type, numSub, msgCount: 1, timeout, resolve, ...seed });
      this.send(this.requestChannel, JSON.stringify({ uid: this.uid, requestId, type, ...body }));
    });
  }

  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    packet.nsp = this.nsp.name;
    if (opts.flags?.local !== true) {
      const raw = { rooms: [...opts.rooms], except: [...new Set(opts.except ?? [])], flags: opts.flags };
      const msg = this.parser.encode([this.uid, packet, raw]);
      let channel = this.channel;
      if (opts.rooms.size === 1) channel += `${opts.rooms.keys().next().value}#`;
      this.send(channel, msg);
    }
    super.broadcast(packet, opts);
  }

  override broadcastWithAck(
    packet: Packet,
    opts: BroadcastOptions,
    clientCountCallback: (clientCount: number) => void,
    ack: (...args: AnyArgs) => void,
  ): void {
    packet.nsp = this.nsp.name;
    if (opts.flags?.local !== true) {
      const requestId = uid();
      const raw = { rooms: [...opts.rooms], except: [...new Set(opts.except ?? [])], flags: opts.flags };
      this.send(
        this.requestChannel,
        this.parser.encode({ uid: this.uid, requestId, type: RequestType.BROADCAST, packet, opts: raw }),
      );
      this.ackRequests.set(requestId, { clientCountCallback, ack });
      // No way to know when every client of every server has answered: forget the request after the timeout.
      setTimeout(() => this.ackRequests.delete(requestId), opts.flags?.timeout ?? this.requestsTimeout).unref();
    }
    super.broadcastWithAck(packet, opts, clientCountCallback, ack);
  }

  /** Every room of every server. */
  async allRooms(): Promise<Set<string>> {
    const local = new Set(this.rooms.keys());
    const numSub = await this.serverCount();
    if (numSub <= 1) return local;
    return this.ask(RequestType.ALL_ROOMS, {}, numSub, { rooms: local }, 'allRooms');
  }

  override async sockets(rooms: Set<string>): Promise<Set<string>> {
    const local = await super.sockets(rooms);
    const numSub = await this.serverCount();
    if (numSub <= 1) return local;
    return this.ask(RequestType.SOCKETS, { rooms: [...rooms] }, numSub, { sockets: local }, 'sockets');
  }

  override async fetchSockets(opts: BroadcastOptions): Promise<(AdapterSocket | unknown)[]> {
    const local = await super.fetchSockets(opts);
    if (opts.flags?.local) return local;
    const numSub = await this.serverCount();
    if (numSub <= 1) return local;
    return this.ask(
      RequestType.REMOTE_FETCH,
      { opts: { rooms: [...opts.rooms], except: [...(opts.except ?? [])] } },
      numSub,
      { sockets: local },
      'fetchSockets',
    );
  }

  override addSockets(opts: BroadcastOptions, rooms: string[]): void {
    if (opts.flags?.local) {
      super.addSockets(opts, rooms);
      return;
    }
    this.remote(RequestType.REMOTE_JOIN, opts, { rooms: [...rooms] });
  }

  override delSockets(opts: BroadcastOptions, rooms: string[]): void {
    if (opts.flags?.local) {
      super.delSockets(opts, rooms);
      return;
    }
    this.remote(RequestType.REMOTE_LEAVE, opts, { rooms: [...rooms] });
  }

  override disconnectSockets(opts: BroadcastOptions, close: boolean): void {
    if (opts.flags?.local) {
      super.disconnectSockets(opts, close);
      return;
    }
    this.remote(RequestType.REMOTE_DISCONNECT, opts, { close });
  }

  /** A bulk operation for every server, this one included (it hears its own request). */
  private remote(type: RequestType, opts: BroadcastOptions, body: Record<string, unknown>): void {
    this.send(
      this.requestChannel,
      JSON.stringify({
        uid: this.uid,
        type,
        opts: { rooms: [...opts.rooms], except: [...(opts.except ?? [])] },
        ...body,
      }),
    );
  }

  override serverSideEmit(packet: AnyArgs): void {
    if (typeof packet[packet.length - 1] === 'function') {
      this.serverSideEmitWithAck(packet).catch(() => {});
      return;
    }
    this.send(this.requestChannel, JSON.stringify({ uid: this.uid, type: RequestType.SERVER_SIDE_EMIT, data: packet }));
  }

  private async serverSideEmitWithAck(packet: AnyArgs): Promise<void> {
    const ack = packet.pop() as (err: Error | null, responses: unknown[]) => void;
    const numSub = (await this.serverCount()) - 1;
    if (numSub <= 0) {
      ack(null, []);
      return;
    }
    const requestId = uid();
    const timeout = setTimeout(() => {
      const stored = this.requests.get(requestId);
      if (stored === undefined) return;
      this.requests.delete(requestId);
      ack(
        new Error(`timeout reached: only ${stored.responses?.length ?? 0} responses received out of ${stored.numSub}`),
        stored.responses ?? [],
      );
    }, this.requestsTimeout);
    this.requests.set(requestId, {
      type: RequestType.SERVER_SIDE_EMIT,
      numSub,
      msgCount: 0,
      timeout,
      resolve: ack,
      responses: [],
    });
    this.send(
      this.requestChannel,
      JSON.stringify({ uid: this.uid, requestId, type: RequestType.SERVER_SIDE_EMIT, data: packet }),
    );
  }

  /** Servers of this namespace: subscribers of the request channel (PUBSUB NUMSUB). */
  override async serverCount(): Promise<number> {
    const c = this.pubClient;
    let reply: unknown;
    if (this.isV4) reply = await c.sendCommand(['PUBSUB', 'NUMSUB', this.requestChannel]);
    else reply = await c.call('PUBSUB', 'NUMSUB', this.requestChannel);
    return Number.parseInt(String((reply as unknown[])[1]), 10);
  }

  override close(): void {
    const channels = [this.requestChannel, this.responseChannel, this.specificResponseChannel];
    if (this.isV4) {
      quiet(this.subClient.pUnsubscribe(`${this.channel}*`, this.handlers.psub, true));
      for (const c of channels) quiet(this.subClient.unsubscribe(c, this.handlers.sub, true));
    } else {
      quiet(this.subClient.punsubscribe(`${this.channel}*`));
      this.subClient.off('pmessageBuffer', this.handlers.pmessageBuffer);
      quiet(this.subClient.unsubscribe(channels));
      this.subClient.off('messageBuffer', this.handlers.messageBuffer);
    }
    this.pubClient.off('error', this.onError);
    this.subClient.off('error', this.onError);
  }
}
