// Cross-process pub/sub for an app: `app.publish`/`ws.publish` reach the subscribers of every process of the
// cluster (over IPC through the primary) or of every machine (over Redis). Each process announces the topics it
// has subscribers for and counts, per topic, how many other processes want it: a topic nobody else wants costs
// no message at all, and local subscribers are always reached first, by the engine, without waiting.
// Over 400 lines: the PubSub class (~280 lines) keeps its publish, control-message and heartbeat paths together because
// all of them update one peer table and per-topic interest count; the rest is the Transport interfaces that ipc.ts and
// redis.ts implement and the documented option, Redis-client and stats types.
import { randomBytes } from 'node:crypto';
import type { App, PublishOptions, Relay, WsData } from 'gale';
import { consoleLogger, type Logger } from 'gale';
import type { Control, DataMessage } from './protocol.js';

/** What a transport (IPC, Redis) needs from the bus it carries. */
export interface TransportHost {
  readonly id: string;
  readonly logger: Logger;
  /** Topics this process has subscribers for (to subscribe again after a reconnection). */
  localTopics(): Iterable<string>;
  onControl(m: Control): void;
  /** A publish from another process; `arrivedOn` is the topic whose channel carried it (Redis). */
  onData(m: DataMessage, arrivedOn?: string): void;
  /** The link is up (again): announce everything. */
  onConnected(): void;
  /** The link went down. */
  onDisconnected(err?: unknown): void;
}

/** How a bus reaches the other processes. Payloads must be consumed (copied, serialized) synchronously. */
export interface Transport {
  readonly name: string;
  readonly connected: boolean;
  start(host: TransportHost): void;
  /** Receive publishes on `topic` from now on (Redis: subscribe its channel). */
  subscribe(topic: string): Promise<void>;
  unsubscribe(topic: string): Promise<void>;
  control(m: Control): void;
  /** Sends a publish on the channels of `channels`; resolves once handed on, rejects when it cannot be. */
  data(m: DataMessage, channels: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of `pubsub(app, options)`.
 *
 * @example
 * pubsub(app, { redis: 'redis://127.0.0.1:6379', prefix: 'shop', sharded: false, heartbeat: 2_000 });
 */
export interface PubSubOptions {
  /**
   * Redis to carry publishes between processes and machines: a URL (`redis://host:6379`), ioredis options, or an
   * ioredis client (duplicated: the bus opens its own two connections). Needs the `ioredis` package. Without it,
   * a cluster() worker uses the primary (IPC), and anything else is an error.
   */
  redis?: string | Record<string, unknown> | RedisLike;
  /** Prefix of the Redis channels, so several apps can share one Redis. Default 'gale'. */
  prefix?: string;
  /** Use sharded pub/sub (SSUBSCRIBE/SPUBLISH, Redis ≥ 7) for the topics: `'auto'` (when the server has it), or force. Default 'auto'. */
  sharded?: boolean | 'auto';
  /** Where connection errors and recoveries are logged. Default: the console. */
  logger?: Logger;
  /** ms between heartbeats; a process not heard from for three is forgotten. Default 5 000. */
  heartbeat?: number;
}

/**
 * A minimal view of an ioredis client (the package is an optional peer dependency).
 *
 * @example
 * import { Redis } from 'ioredis';
 * pubsub(app, { redis: new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') }); // duplicated, not used itself
 */
export interface RedisLike {
  duplicate(override?: Record<string, unknown>): RedisLike;
  publish(channel: string, message: string | Buffer): Promise<number>;
  spublish?(channel: string, message: string | Buffer): Promise<number>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  ssubscribe?(...channels: string[]): Promise<unknown>;
  sunsubscribe?(...channels: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
  // biome-ignore lint/suspicious/noExplicitAny: event listeners of many shapes
  on(event: string, fn: (...args: any[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
  readonly status: string;
}

/**
 * Counters of a bus.
 *
 * @example
 * const s = pubsubOf(app)?.stats();
 * if (s && !s.connected) console.warn(`pub/sub over ${s.transport} is down; ${s.failed} publishes stayed local`);
 */
export interface PubSubStats {
  transport: string;
  connected: boolean;
  /** Other processes known. */
  peers: number;
  /** Topics with local subscribers. */
  localTopics: number;
  /** Topics some other process wants. */
  remoteTopics: number;
  /** Publishes sent to other processes. */
  sent: number;
  /** Publishes nobody else wanted (no message sent). */
  skipped: number;
  /** Publishes received from other processes. */
  received: number;
  /** Publishes that could not be sent (delivered locally only). */
  failed: number;
}

interface Peer {
  topics: Set<string>;
  seq: number;
  seen: number;
}

/** Topics with this separator are process-local (@gale-http/socket.io's per-room topics: its adapter crosses processes itself). */
const LOCAL_ONLY = '\x1f';

/**
 * The cross-process pub/sub of one app (made by `pubsub(app)`, or automatically in cluster workers).
 *
 * @example
 * const bus = pubsub(app, { redis: process.env.REDIS_URL });
 * app.ws('/chat', { open: (ws) => ws.subscribe('chat'), message: (ws, m) => ws.publish('chat', m) }); // every machine
 * await bus.publish('chat', 'hello'); // resolves once Redis took it (rejects if it could not)
 */
export class PubSub {
  readonly id = randomBytes(8).toString('hex');
  readonly logger: Logger;
  private readonly app: App;
  private readonly transport: Transport;
  private readonly local = new Set<string>();
  private readonly peers = new Map<string, Peer>();
  /** Topic → how many other processes want it (only topics someone wants). */
  private readonly interest = new Map<string, number>();
  private seq = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly heartbeat: number;
  private readonly timer: NodeJS.Timeout;
  private readonly unwatch: () => void;
  private closed = false;
  private readonly counts = { sent: 0, skipped: 0, received: 0, failed: 0 };
  private lastError = 0;
  private quietErrors = 0;
  /** Resolves the first time the link is up. */
  readonly ready: Promise<void>;
  private resolveReady!: () => void;

  /** @internal use pubsub() */
  constructor(app: App, transport: Transport, options: PubSubOptions = {}) {
    this.app = app;
    this.transport = transport;
    this.logger = options.logger ?? consoleLogger;
    this.heartbeat = options.heartbeat ?? 5000;
    this.ready = new Promise((r) => {
      this.resolveReady = r;
    });
    this.host = {
      id: this.id,
      logger: this.logger,
      localTopics: () => this.local,
      onControl: (m) => this.onControl(m),
      onData: (m, arrivedOn) => this.onData(m, arrivedOn),
      onConnected: () => {
        this.sendControl({ k: 'hello', from: this.id, topics: [...this.local], seq: this.seq });
        this.resolveReady();
      },
      onDisconnected: () => {},
    };
    transport.start(this.host);
    this.unwatch = app.onTopicChange((topic, active) => this.topicChanged(topic, active));
    app.setPublishRelay(this.relay);
    this.timer = setInterval(() => this.tick(), this.heartbeat);
    this.timer.unref();
  }

  /** The transport's view of this bus. */
  private readonly host: TransportHost;

  /**
   * Publishes to `topic` everywhere: this process's subscribers at once (as `app.publish`), then the other
   * processes that have subscribers. Resolves with the number of local sockets reached once the other processes'
   * part was handed to Redis or the primary; rejects if it could not be (the local part was delivered).
   */
  publish(topic: string | readonly string[], data: WsData, options?: PublishOptions): Promise<number> {
    const n = this.app.publish(topic, data, { ...options, local: true });
    const body = typeof data === 'string' || data instanceof Uint8Array ? data : toBytes(data);
    const binary = options?.binary ?? typeof body !== 'string';
    const sent = this.send(topic, body, binary, options?.compress ?? true, options?.except, options?.volatile);
    return sent === undefined ? Promise.resolve(n) : sent.then(() => n);
  }

  /** Counters and state, for metrics. */
  stats(): PubSubStats {
    return {
      transport: this.transport.name,
      connected: this.transport.connected,
      peers: this.peers.size,
      localTopics: this.local.size,
      remoteTopics: this.interest.size,
      ...this.counts,
    };
  }

  /** Whether another process has subscribers for `topic` (so a publish on it sends a message). */
  wanted(topic: string): boolean {
    return this.interest.has(topic);
  }

  /** Says goodbye and closes the connections; publishes are local only afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.unwatch();
    this.app.setPublishRelay(undefined);
    await this.chain;
    this.sendControl({ k: 'bye', from: this.id });
    await this.transport.close();
  }

  // What app.publish and ws.publish call after the engine delivered locally.
  private readonly relay: Relay = (topic, data, binary, compress, except, volatile) => {
    this.send(topic, data, binary, compress, except, volatile)?.catch(() => {});
  };

  private send(
    topic: string | readonly string[],
    data: string | Uint8Array,
    binary: boolean,
    compress: boolean,
    except: readonly string[] | undefined,
    volatile: boolean | undefined,
  ): Promise<void> | undefined {
    let topics: string[];
    let channels: string[];
    if (typeof topic === 'string') {
      if (!this.interest.has(topic)) {
        this.counts.skipped++;
        return undefined;
      }
      topics = [topic];
      channels = topics;
    } else {
      topics = [...topic];
      channels = topics.filter((t) => this.interest.has(t));
      if (channels.length === 0) {
        this.counts.skipped++;
        return undefined;
      }
    }
    const m: DataMessage = { k: 'data', from: this.id, topics, data, binary, compress };
    if (except !== undefined && except.length > 0) m.except = [...except];
    if (volatile) m.volatile = true;
    this.counts.sent++;
    let p: Promise<void>;
    try {
      p = this.transport.data(m, channels);
    } catch (err) {
      p = Promise.reject(err);
    }
    return p.catch((err: unknown) => {
      this.counts.sent--;
      this.counts.failed++;
      this.fail(`a publish on ${JSON.stringify(topics[0])} reached local subscribers only`, err);
      throw err;
    });
  }

  /** Logs an error at most every 10 s (a Redis outage would otherwise log every publish). */
  private fail(what: string, err: unknown): void {
    const now = Date.now();
    if (now - this.lastError < 10_000) {
      this.quietErrors++;
      return;
    }
    const more = this.quietErrors > 0 ? ` (and ${this.quietErrors} more since the last report)` : '';
    this.quietErrors = 0;
    this.lastError = now;
    this.logger.error(
      `gale pubsub (${this.transport.name}): ${what}: ${(err as Error)?.message ?? String(err)}${more}`,
    );
  }

  private topicChanged(topic: string, active: boolean): void {
    if (topic.includes(LOCAL_ONLY)) return;
    if (active) this.local.add(topic);
    else this.local.delete(topic);
    const seq = ++this.seq;
    // In order: subscribe the channel before telling others (so nothing sent after they know is missed);
    // tell others before unsubscribing (so they stop sending first).
    this.chain = this.chain.then(async () => {
      if (this.closed) return;
      try {
        if (active) await this.transport.subscribe(topic);
        this.sendControl({ k: active ? 'sub' : 'unsub', from: this.id, topic, seq });
        if (!active) await this.transport.unsubscribe(topic);
      } catch (err) {
        this.fail(`(un)subscribing ${JSON.stringify(topic)}`, err);
      }
    });
  }

  private sendControl(m: Control): void {
    if (!this.transport.connected) return; // the hello after reconnecting carries the whole state
    try {
      this.transport.control(m);
    } catch (err) {
      this.fail('a control message was not sent', err);
    }
  }

  private onControl(m: Control): void {
    if (m.from === this.id || this.closed) return;
    const now = Date.now();
    if (m.k === 'bye') {
      this.dropPeer(m.from);
      return;
    }
    let peer = this.peers.get(m.from);
    if (m.k === 'hello' || m.k === 'state') {
      this.setTopics(m.from, m.topics, m.seq, now);
      if (m.k === 'hello' && (m.to === undefined || m.to === this.id)) {
        this.sendControl({ k: 'state', from: this.id, topics: [...this.local], seq: this.seq });
      }
      return;
    }
    if (peer === undefined) {
      peer = { topics: new Set(), seq: -1, seen: now };
      this.peers.set(m.from, peer);
    }
    peer.seen = now;
    if (m.k === 'alive') {
      if (m.seq !== peer.seq) this.askState(m.from);
      return;
    }
    if (m.seq !== peer.seq + 1) this.askState(m.from);
    peer.seq = m.seq;
    if (m.k === 'sub') {
      if (!peer.topics.has(m.topic)) {
        peer.topics.add(m.topic);
        this.interest.set(m.topic, (this.interest.get(m.topic) ?? 0) + 1);
      }
    } else if (peer.topics.delete(m.topic)) {
      this.lessInterest(m.topic);
    }
  }

  private askState(peer: string): void {
    this.sendControl({ k: 'hello', from: this.id, topics: [...this.local], seq: this.seq, to: peer });
  }

  private setTopics(from: string, topics: string[], seq: number, now: number): void {
    const old = this.peers.get(from);
    const next = new Set(topics);
    if (old !== undefined) {
      for (const t of old.topics) if (!next.has(t)) this.lessInterest(t);
      for (const t of next) if (!old.topics.has(t)) this.interest.set(t, (this.interest.get(t) ?? 0) + 1);
    } else {
      for (const t of next) this.interest.set(t, (this.interest.get(t) ?? 0) + 1);
    }
    this.peers.set(from, { topics: next, seq, seen: now });
  }

  private lessInterest(topic: string): void {
    const n = (this.interest.get(topic) ?? 1) - 1;
    if (n <= 0) this.interest.delete(topic);
    else this.interest.set(topic, n);
  }

  private dropPeer(id: string): void {
    const peer = this.peers.get(id);
    if (peer === undefined) return;
    this.peers.delete(id);
    for (const t of peer.topics) this.lessInterest(t);
  }

  private onData(m: DataMessage, arrivedOn: string | undefined): void {
    if (m.from === this.id || this.closed) return;
    // A publish to several topics travels on each wanted topic's channel: act on the first one this process has.
    if (arrivedOn !== undefined && m.topics.length > 1) {
      const first = m.topics.find((t) => this.local.has(t));
      if (first !== arrivedOn) return;
    }
    this.counts.received++;
    try {
      this.app.publish(m.topics.length === 1 ? (m.topics[0] as string) : m.topics, m.data, {
        binary: m.binary,
        compress: m.compress,
        except: m.except,
        volatile: m.volatile,
        local: true,
      });
    } catch (err) {
      this.fail('a received publish could not be delivered', err);
    }
  }

  private tick(): void {
    this.sendControl({ k: 'alive', from: this.id, seq: this.seq });
    const limit = Date.now() - 3 * this.heartbeat - 1000;
    for (const [id, p] of this.peers) if (p.seen < limit) this.dropPeer(id);
  }
}

function toBytes(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
