// The Redis pub/sub transport: control messages (JSON) on `<prefix>:ctl`, publishes on one channel per topic
// (`<prefix>:t:<topic>`) in a small binary frame; all of them sharded (SSUBSCRIBE/SPUBLISH) when the server has it. A process
// subscribes only the channels of topics it has subscribers for, so Redis delivers each publish only where it is
// wanted. Two ioredis connections (the subscriber one cannot publish); ioredis reconnects by itself, and on every
// reconnection the bus announces its state again. Publishes are never queued while Redis is away (they would
// arrive late): they fail at once and are delivered locally only.

import type { Control, DataMessage } from './protocol.js';
import type { RedisLike, Transport, TransportHost } from './pubsub.js';

const VERSION = 1;
const F_BINARY = 1;
const F_COMPRESS = 2;
const F_VOLATILE = 4;

/** Encodes a publish: version, flags, origin id (8 bytes), topics, except, payload. */
export function encodeData(m: DataMessage): Buffer {
  const topics = m.topics.map((t) => Buffer.from(t));
  const except = (m.except ?? []).map((t) => Buffer.from(t));
  const payload = typeof m.data === 'string' ? Buffer.from(m.data) : m.data;
  let size = 2 + 8 + 2 + 2 + payload.byteLength;
  for (const t of topics) size += 2 + t.length;
  for (const t of except) size += 2 + t.length;
  const b = Buffer.allocUnsafe(size);
  b[0] = VERSION;
  b[1] = (m.binary ? F_BINARY : 0) | (m.compress ? F_COMPRESS : 0) | (m.volatile ? F_VOLATILE : 0);
  b.write(m.from, 2, 8, 'hex');
  let o = 10;
  for (const list of [topics, except]) {
    b.writeUInt16BE(list.length, o);
    o += 2;
    for (const t of list) {
      b.writeUInt16BE(t.length, o);
      t.copy(b, o + 2);
      o += 2 + t.length;
    }
  }
  b.set(payload, o);
  return b;
}

/** Decodes a publish; throws on a malformed frame. */
export function decodeData(b: Buffer): DataMessage {
  if (b.length < 14 || b[0] !== VERSION) throw new Error('not a gale pub/sub frame');
  const flags = b[1] as number;
  const from = b.toString('hex', 2, 10);
  let o = 10;
  const lists: string[][] = [];
  for (let l = 0; l < 2; l++) {
    if (o + 2 > b.length) throw new Error('truncated frame');
    const n = b.readUInt16BE(o);
    o += 2;
    const list: string[] = [];
    for (let i = 0; i < n; i++) {
      if (o + 2 > b.length) throw new Error('truncated frame');
      const len = b.readUInt16BE(o);
      if (o + 2 + len > b.length) throw new Error('truncated frame');
      list.push(b.toString('utf8', o + 2, o + 2 + len));
      o += 2 + len;
    }
    lists.push(list);
  }
  const [topics, except] = lists as [string[], string[]];
  if (topics.length === 0) throw new Error('a frame without topics');
  const m: DataMessage = {
    k: 'data',
    from,
    topics,
    data: b.subarray(o),
    binary: (flags & F_BINARY) !== 0,
    compress: (flags & F_COMPRESS) !== 0,
  };
  if (except.length > 0) m.except = except;
  if (flags & F_VOLATILE) m.volatile = true;
  return m;
}

type RedisCtor = new (a?: unknown, b?: unknown) => RedisLike;

/** Reconnect quickly (Redis restarts are short), at most once a second. */
const retryStrategy = (times: number) => Math.min(times * 100, 1000);

export class RedisTransport implements Transport {
  readonly name: string;
  private readonly source: string | Record<string, unknown> | RedisLike;
  private readonly prefix: string;
  private readonly ctl: string;
  private shardedOption: boolean | 'auto';
  private sharded = false;
  private detected = false;
  private pub: RedisLike | undefined;
  private sub: RedisLike | undefined;
  private host!: TransportHost;
  private pubReady = false;
  private subReady = false;
  private up = false;
  private downSince = 0;
  private closing = false;
  /** Topics whose channel this connection subscribes. */
  private readonly wanted = new Set<string>();

  constructor(
    source: string | Record<string, unknown> | RedisLike,
    prefix = 'gale',
    sharded: boolean | 'auto' = 'auto',
  ) {
    this.source = source;
    this.prefix = prefix;
    this.ctl = `${prefix}:ctl`;
    this.shardedOption = sharded;
    this.name = `redis ${typeof source === 'string' ? source.replace(/\/\/[^@/]*@/, '//…@') : 'client'}`;
  }

  get connected(): boolean {
    return this.up;
  }

  private channel(topic: string): string {
    return `${this.prefix}:t:${topic}`;
  }

  start(host: TransportHost): void {
    this.host = host;
    this.connect().catch((err: unknown) => {
      host.logger.error(`gale pubsub: cannot use Redis: ${(err as Error).message}`);
    });
  }

  private async connect(): Promise<void> {
    const src = this.source;
    if (typeof src === 'object' && typeof (src as RedisLike).duplicate === 'function') {
      const client = src as RedisLike;
      this.pub = client.duplicate({ enableOfflineQueue: false, autoResendUnfulfilledCommands: false });
      this.sub = client.duplicate({ maxRetriesPerRequest: null });
    } else {
      let Redis: RedisCtor;
      try {
        const mod = (await import('ioredis')) as unknown as { Redis?: RedisCtor; default?: RedisCtor };
        Redis = (mod.Redis ?? mod.default) as RedisCtor;
      } catch {
        throw new Error('the ioredis package is needed for pub/sub over Redis: npm install ioredis');
      }
      const base = { retryStrategy, ...(typeof src === 'object' ? src : {}) };
      const make = (extra: Record<string, unknown>) =>
        typeof src === 'string' ? new Redis(src, { ...base, ...extra }) : new Redis({ ...base, ...extra });
      this.pub = make({ enableOfflineQueue: false, autoResendUnfulfilledCommands: false });
      this.sub = make({ maxRetriesPerRequest: null });
    }
    if (this.closing) {
      this.pub.disconnect();
      this.sub.disconnect();
      return;
    }
    const pub = this.pub;
    const sub = this.sub;
    const onError = (err: Error) => this.down(err);
    pub.on('error', onError);
    sub.on('error', onError);
    pub.on('close', () => {
      this.pubReady = false;
      this.down();
    });
    sub.on('close', () => {
      this.subReady = false;
      this.down();
    });
    pub.on('ready', () => {
      this.pubReady = true;
      this.maybeUp();
    });
    sub.on('ready', () => {
      this.onSubReady().catch((err: unknown) => this.down(err as Error));
    });
    const onMessage = (channel: Buffer, message: Buffer) => this.onMessage(channel, message);
    sub.on('messageBuffer', onMessage);
    sub.on('smessageBuffer', onMessage);
    if (pub.status === 'ready') {
      this.pubReady = true;
    }
    if (sub.status === 'ready') await this.onSubReady();
  }

  private async onSubReady(): Promise<void> {
    const sub = this.sub as RedisLike;
    if (!this.detected) {
      // Asked once, before the connection is in subscriber mode (INFO is not allowed there).
      let sharded = this.shardedOption === true;
      if (this.shardedOption === 'auto') {
        const info = await sub.info('server');
        const major = Number(/redis_version:(\d+)/.exec(info)?.[1] ?? 0);
        sharded = major >= 7 && typeof sub.ssubscribe === 'function';
      }
      this.sharded = sharded;
      this.detected = true;
    }
    // ioredis subscribes again what it had; subscribe whatever was wanted meanwhile (idempotent).
    // The control channel is a shard channel too when topics are: ioredis leaves subscriber mode when the count
    // of one kind of subscription drops to 0, so mixing kinds on one connection breaks it.
    const channels = [this.ctl, ...[...this.host.localTopics()].map((t) => this.channel(t))];
    for (const t of this.host.localTopics()) this.wanted.add(t);
    await this.subscribeChannels(channels);
    this.subReady = true;
    this.maybeUp();
  }

  private subscribeChannels(channels: string[]): Promise<unknown> {
    const sub = this.sub as RedisLike;
    if (this.sharded) return Promise.all(channels.map((c) => (sub.ssubscribe as (c: string) => Promise<unknown>)(c)));
    return sub.subscribe(...channels);
  }

  private maybeUp(): void {
    if (this.up || !this.pubReady || !this.subReady || this.closing) return;
    this.up = true;
    if (this.downSince !== 0) {
      this.host.logger.info(
        `gale pubsub: Redis is back after ${((Date.now() - this.downSince) / 1000).toFixed(1)} s; publishes reach other processes again`,
      );
      this.downSince = 0;
    }
    this.host.onConnected();
  }

  private down(err?: Error): void {
    if (this.closing) return;
    const wasUp = this.up;
    this.up = false;
    if (wasUp || (err !== undefined && this.downSince === 0)) {
      this.downSince = Date.now();
      this.host.logger.error(
        `gale pubsub: Redis unavailable (${err?.message ?? 'connection closed'}); publishes reach this process's subscribers only until it is back`,
      );
      this.host.onDisconnected(err);
    }
  }

  private onMessage(channel: Buffer, message: Buffer): void {
    const name = channel.toString();
    try {
      if (name === this.ctl) {
        this.host.onControl(JSON.parse(message.toString()) as Control);
        return;
      }
      const topicPrefix = `${this.prefix}:t:`;
      if (!name.startsWith(topicPrefix)) return;
      this.host.onData(decodeData(message), name.slice(topicPrefix.length));
    } catch {
      // Not ours (another program on the same channel names) or damaged: ignored.
    }
  }

  async subscribe(topic: string): Promise<void> {
    this.wanted.add(topic);
    if (!this.subReady) return; // subscribed with everything else once connected
    await this.subscribeChannels([this.channel(topic)]);
  }

  async unsubscribe(topic: string): Promise<void> {
    this.wanted.delete(topic);
    const sub = this.sub;
    if (!this.subReady || sub === undefined) return;
    if (this.sharded) await (sub.sunsubscribe as (c: string) => Promise<unknown>)(this.channel(topic));
    else await sub.unsubscribe(this.channel(topic));
  }

  control(m: Control): void {
    const pub = this.pub;
    if (pub === undefined) return;
    const send = this.sharded ? (pub.spublish as (c: string, f: string) => Promise<number>) : pub.publish;
    send.call(pub, this.ctl, JSON.stringify(m)).catch((err: unknown) => this.down(err as Error));
  }

  data(m: DataMessage, channels: readonly string[]): Promise<void> {
    const pub = this.pub;
    if (pub === undefined || !this.up) return Promise.reject(new Error('Redis is not connected'));
    const frame = encodeData(m);
    const send = this.sharded ? (pub.spublish as (c: string, f: Buffer) => Promise<number>) : pub.publish;
    if (channels.length === 1) return send.call(pub, this.channel(channels[0] as string), frame).then(() => {});
    return Promise.all(channels.map((t) => send.call(pub, this.channel(t), frame))).then(() => {});
  }

  async close(): Promise<void> {
    this.closing = true;
    this.up = false;
    const quit = async (c: RedisLike | undefined) => {
      if (c === undefined) return;
      try {
        if (c.status === 'ready') await c.quit();
        else c.disconnect();
      } catch {
        c.disconnect();
      }
    };
    await Promise.all([quit(this.pub), quit(this.sub)]);
  }
}
