// pubsub(app) over a real redis-server: Gale apps in this process (each its own peer on the bus, as separate
// processes would be) and one in a child process. Delivery across processes, no Redis command for topics nobody
// else wants (counted by Redis itself), several topics and `except`, a Redis outage (local delivery continues, the
// error is logged, remote delivery resumes by itself), a peer that dies without a goodbye, and bad setups.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type PubSub, pubsub } from '@gale-http/cluster';
import { type App, gale } from 'gale';
import { Redis } from 'ioredis';
import { Proc, type RedisServer, sleep, startRedis, until, WsClient } from './services.js';

const T = { timeout: 30_000 };
let redis: RedisServer;
let admin: Redis;

before(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { retryStrategy: (n) => Math.min(n * 100, 500) });
  admin.on('error', () => {});
});
after(async () => {
  admin?.disconnect();
  await redis?.stop();
});

interface Peer {
  app: App;
  bus: PubSub;
  port: number;
  logs: string[];
  sub(topics: string[]): Promise<WsClient>;
  close(): Promise<void>;
}

const peers: Peer[] = [];
after(async () => {
  for (const p of peers) await p.close();
});

async function peer(heartbeat = 5000): Promise<Peer> {
  const app = gale();
  const logs: string[] = [];
  const logger = {
    info: (m: unknown) => logs.push(`info ${String(m)}`),
    warn: (m: unknown) => logs.push(`warn ${String(m)}`),
    error: (m: unknown) => logs.push(`error ${String(m)}`),
  };
  const bus = pubsub(app, { redis: redis.url, logger, heartbeat });
  app.ws('/ws', {
    upgrade: (req) => ({
      topics: String(req.query.topics ?? '')
        .split(',')
        .filter(Boolean),
    }),
    open: (ws) => {
      for (const t of ws.data.topics) ws.subscribe(t);
      ws.send('"open"');
    },
  });
  const { port } = await app.listen(0, '127.0.0.1');
  await bus.ready;
  const clients: WsClient[] = [];
  const p: Peer = {
    app,
    bus,
    port,
    logs,
    sub: async (topics) => {
      const c = new WsClient(`ws://127.0.0.1:${port}/ws?topics=${topics.join(',')}`);
      clients.push(c);
      await c.next<unknown>((m) => m === 'open');
      return c;
    },
    close: async () => {
      for (const c of clients) c.close();
      await app.close({ timeout: 500 });
      await bus.close();
    },
  };
  peers.push(p);
  return p;
}

async function commandCalls(name: string): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

const texts = (c: WsClient) => c.messages.filter((m) => m !== 'open');

test(
  'a publish reaches the subscribers of another process through Redis; a topic nobody else wants sends nothing',
  T,
  async () => {
    // Heartbeats (also SPUBLISHed) are a minute apart here, so Redis's SPUBLISH count is the publishes' alone.
    const a = await peer(60_000);
    const b = await peer(60_000);
    const onA = await a.sub(['room']);
    const onB = await b.sub(['room']);
    await until('A learning that B wants "room"', 5000, () => a.bus.wanted('room'));
    assert.equal(a.app.publish('room', '"hi"'), 1, 'the local subscriber is counted at once (the engine wrote to it)');
    await onA.next<unknown>((m) => m === 'hi');
    await onB.next<unknown>((m) => m === 'hi');

    // Redis counts the commands: publishes on a topic only A has cost none; on a wanted one, one each.
    const solo = await a.sub(['only-a']);
    await until('B hearing of A’s new topic (its announcement is an SPUBLISH too)', 5000, () => b.bus.wanted('only-a'));
    const shardedBefore = await commandCalls('spublish');
    for (let i = 0; i < 50; i++) a.app.publish('only-a', `"${i}"`);
    await solo.next<unknown>((m) => m === '49');
    assert.equal(await commandCalls('spublish'), shardedBefore, 'no SPUBLISH for a topic no other process has');
    for (let i = 0; i < 5; i++) a.app.publish('room', `"r${i}"`);
    await onB.next<unknown>((m) => m === 'r4');
    assert.equal(
      await commandCalls('spublish'),
      shardedBefore + 5,
      'one sharded SPUBLISH per wanted publish (Redis 7)',
    );
    assert.equal(a.bus.stats().skipped >= 50, true);
  },
);

test('several topics reach each remote socket once; except leaves out the subscribers of a topic', T, async () => {
  const a = await peer();
  const b = await peer();
  const both = await b.sub(['t1', 't2']);
  const muted = await b.sub(['t1', 'muted']);
  const plain = await b.sub(['t1']);
  await until('A learning B’s topics', 5000, () => a.bus.wanted('t1') && a.bus.wanted('t2') && a.bus.wanted('muted'));
  a.app.publish(['t1', 't2'], '"union"');
  a.app.publish('t1', '"not for muted"', { except: ['muted'] });
  a.app.publish('t2', '"end"');
  await both.next<unknown>((m) => m === 'end');
  await plain.next<unknown>((m) => m === 'not for muted');
  await sleep(100);
  assert.deepEqual(texts(both), ['union', 'not for muted', 'end']);
  assert.deepEqual(texts(muted), ['union']);
  assert.deepEqual(texts(plain), ['union', 'not for muted']);
});

test(
  'Redis stopped and restarted: local delivery continues, the error is logged, remote delivery resumes',
  T,
  async () => {
    const a = await peer();
    const b = await peer();
    const onA = await a.sub(['news']);
    const onB = await b.sub(['news']);
    await until('A learning that B wants "news"', 5000, () => a.bus.wanted('news'));
    await redis.kill();
    await until('A noticing the outage', 5000, () =>
      a.logs.some((l) => /error gale pubsub: Redis unavailable/.test(l)),
    );
    assert.equal(a.app.publish('news', '"during"'), 1, 'delivered locally while Redis is away');
    await onA.next<unknown>((m) => m === 'during');
    await assert.rejects(a.bus.publish('news', '"awaited"'), /not connected|Stream|closed|writeable/i);
    await onA.next<unknown>((m) => m === 'awaited');
    await sleep(300);
    assert.ok(!texts(onB).includes('during'), 'nothing reached B while Redis was away');

    await redis.restart();
    let n = 0;
    await until(
      'remote delivery after the restart',
      15_000,
      () => {
        a.app.publish('news', `"after${n++}"`);
        return texts(onB).some((m) => String(m).startsWith('after'));
      },
      100,
    );
    assert.ok(
      a.logs.some((l) => /info gale pubsub: Redis is back after/.test(l)),
      a.logs.join('\n'),
    );
    assert.ok(
      a.logs.some((l) => /a publish on "news" reached local subscribers only/.test(l)),
      a.logs.join('\n'),
    );
  },
);

test('a process that dies without a goodbye is forgotten after three heartbeats', T, async () => {
  const a = await peer(100);
  const child = new Proc(process.execPath, [join(fileURLToPath(new URL('./fixtures/', import.meta.url)), 'peer.mjs')], {
    ...process.env,
    REDIS_URL: redis.url,
    TOPIC: 'ghost',
  });
  try {
    await child.waitFor(/ready/, 15_000);
    await until('A learning the child wants "ghost"', 5000, () => a.bus.wanted('ghost'));
    child.child.kill('SIGKILL');
    await child.exited;
    await until('A forgetting the dead process', 3000, () => !a.bus.wanted('ghost'));
    assert.ok(a.bus.stats().peers >= 0);
  } finally {
    await child.stop('SIGKILL');
  }
});

test('pubsub() says what is missing', () => {
  const app = gale();
  assert.throws(() => pubsub(app), /say where other processes are: \{ redis: "redis:\/\/host:6379" \}/);
  pubsub(app, { redis: redis.url }).close();
  assert.throws(() => pubsub(app, { redis: redis.url }), /already has one/);
});
