// Session stores: the interface session() talks to, an in-process MemoryStore and a RedisStore over a client you
// pass (ioredis or node-redis v4+; neither is a dependency of Gale). Data is kept as JSON.

/**
 * A session's data: anything JSON can hold.
 *
 * @example
 * app.post('/login', async (req) => {
 *   req.session.user = 'ada'; // any JSON-serialisable values
 *   return 'ok';
 * });
 */
export type SessionData = Record<string, unknown>;

/**
 * Where store-backed sessions live. Methods may be synchronous or return promises.
 *
 * @example
 * const store: SessionStore = {
 *   get: async (sid) => cache.get(sid),
 *   set: async (sid, data, ttlMs) => void cache.set(sid, data, ttlMs),
 *   destroy: async (sid) => void cache.delete(sid),
 * };
 * app.use(session({ secret, store }));
 */
export interface SessionStore {
  /** The session's data, or undefined when there is none (or it expired). */
  get(id: string): SessionData | undefined | Promise<SessionData | undefined>;
  /** Saves the data for `ttl` milliseconds. */
  set(id: string, data: SessionData, ttl: number): void | Promise<void>;
  /** Removes the session. */
  destroy(id: string): void | Promise<void>;
  /** Extends the session's lifetime to `ttl` ms from now without changing it (rolling sessions). */
  touch?(id: string, data: SessionData, ttl: number): void | Promise<void>;
}

/**
 * Sessions in this process's memory: for development, tests and single-process apps (they are lost on restart and
 * not shared between workers). Expired sessions are dropped when read and swept as new ones are saved.
 *
 * @example
 * app.use(session({ secret: process.env.SESSION_SECRET, store: new MemoryStore() }));
 */
export class MemoryStore implements SessionStore {
  private readonly sessions = new Map<string, { json: string; expires: number }>();
  private writes = 0;

  get(id: string): SessionData | undefined {
    const s = this.sessions.get(id);
    if (s === undefined) return undefined;
    if (s.expires <= Date.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return JSON.parse(s.json) as SessionData;
  }

  set(id: string, data: SessionData, ttl: number): void {
    this.sessions.set(id, { json: JSON.stringify(data), expires: Date.now() + ttl });
    if (++this.writes % 1000 === 0) this.sweep();
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  touch(id: string, _data: SessionData, ttl: number): void {
    const s = this.sessions.get(id);
    if (s !== undefined) s.expires = Date.now() + ttl;
  }

  /** Sessions held now (expired ones not yet swept included). */
  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) if (s.expires <= now) this.sessions.delete(id);
  }
}

/** The commands RedisStore uses, as ioredis names them. */
interface IoRedisLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
  pexpire(key: string, ms: number): Promise<unknown>;
}
/** …and as node-redis v4+ names them. */
interface NodeRedisLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  pExpire(key: string, ms: number): Promise<unknown>;
}

/**
 * Options of `new RedisStore()`.
 *
 * @example
 * app.use(session({ secret, store: new RedisStore({ client: new Redis(), prefix: 'sess:' }) }));
 */
export interface RedisStoreOptions {
  /** A connected ioredis (`new Redis()`) or node-redis v4+ (`createClient()`, connected) client. */
  client: IoRedisLike | NodeRedisLike;
  /** Key prefix. Default `'sess:'`. */
  prefix?: string;
}

/**
 * Sessions in Redis, shared by every process that uses the same server: each is one key (`prefix` + id) holding
 * JSON, expiring with the session (PX).
 *
 * @example
 * import Redis from 'ioredis';
 * app.use(session({ secret: process.env.SESSION_SECRET, store: new RedisStore({ client: new Redis(process.env.REDIS_URL) }) }));
 */
export class RedisStore implements SessionStore {
  private readonly client: IoRedisLike | NodeRedisLike;
  private readonly prefix: string;
  private readonly nodeRedis: boolean;

  constructor(options: RedisStoreOptions) {
    const c = options?.client as unknown as Record<string, unknown> | undefined;
    if (c === undefined || typeof c.get !== 'function' || typeof c.set !== 'function') {
      throw new TypeError('RedisStore: pass { client } with an ioredis or node-redis client');
    }
    this.client = options.client;
    this.prefix = options.prefix ?? 'sess:';
    this.nodeRedis = typeof c.pExpire === 'function' && typeof c.pexpire !== 'function';
  }

  async get(id: string): Promise<SessionData | undefined> {
    const json = await this.client.get(this.prefix + id);
    return json === null ? undefined : (JSON.parse(json) as SessionData);
  }

  async set(id: string, data: SessionData, ttl: number): Promise<void> {
    const ms = Math.max(1, Math.ceil(ttl));
    if (this.nodeRedis) await (this.client as NodeRedisLike).set(this.prefix + id, JSON.stringify(data), { PX: ms });
    else await (this.client as IoRedisLike).set(this.prefix + id, JSON.stringify(data), 'PX', ms);
  }

  async destroy(id: string): Promise<void> {
    await this.client.del(this.prefix + id);
  }

  async touch(id: string, _data: SessionData, ttl: number): Promise<void> {
    const ms = Math.max(1, Math.ceil(ttl));
    if (this.nodeRedis) await (this.client as NodeRedisLike).pExpire(this.prefix + id, ms);
    else await (this.client as IoRedisLike).pexpire(this.prefix + id, ms);
  }
}
