// HttpArena's hono-bun entry (its frameworks/hono-bun/server.ts at commit 28606baf, MIT; type production) as the arena
// bench runs it on the pinned Bun (lib/runtimes.ts): Hono on Bun.serve, `hono/compress` on /json, static files by
// Bun.file per request, `pg` with a pool of 8, and crud's 200 ms cache in a Map (Redis only when REDIS_URL is set,
// which the bench does not: one process). Types stripped by esbuild (comments go with them; the code is as written).
// Left out: its SQLite /db route (the retired sync-db profile). Data from ARENA_DATA, port from PORT; one process (its
// entrypoint.sh starts one per CPU).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)

import { readFileSync } from 'fs';
import { Hono } from 'hono';
import { compress } from 'hono/compress';

const SERVER_NAME = 'hono-bun';
const MIME_TYPES = {
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.html': 'text/html',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.json': 'application/json',
};
const dataDir = process.env.ARENA_DATA ?? '/data';
const datasetItems = JSON.parse(readFileSync(`${dataDir}/dataset.json`, 'utf8'));
let pgPool = null;
{
  const dbUrl = process.env.DATABASE_URL;
  if (dbUrl) {
    try {
      const { Pool } = require('pg');
      pgPool = new Pool({ connectionString: dbUrl, max: 8 });
    } catch (_) {}
  }
}
const CRUD_CACHE_TTL_MS = 200;
let redisClient = null;
{
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl) {
    try {
      const Redis = require('ioredis');
      redisClient = new Redis(redisUrl, {
        enableAutoPipelining: true,
        lazyConnect: false,
        maxRetriesPerRequest: 1,
      });
      redisClient.on('error', () => {});
    } catch (_) {}
  }
}
const crudCache = /* @__PURE__ */ new Map();
async function crudCacheGet(id) {
  if (redisClient) return await redisClient.get(`crud:${id}`);
  const hit = crudCache.get(id);
  if (!hit) return null;
  if (hit.expiresAt <= Date.now()) {
    crudCache.delete(id);
    return null;
  }
  return hit.json;
}
async function crudCacheSet(id, json) {
  if (redisClient) {
    await redisClient.set(`crud:${id}`, json, 'PX', 200);
    return;
  }
  crudCache.set(id, { json, expiresAt: Date.now() + CRUD_CACHE_TTL_MS });
}
async function crudCacheDel(id) {
  if (redisClient) {
    await redisClient.del(`crud:${id}`);
    return;
  }
  crudCache.delete(id);
}
const app = new Hono();
app.use('/json/*', compress());
app.get('/pipeline', (c) => {
  return new Response('ok', {
    headers: { 'content-type': 'text/plain', server: SERVER_NAME },
  });
});
app.get('/baseline11', (c) => {
  const query = c.req.query();
  let sum = 0;
  for (const v of Object.values(query)) sum += parseInt(v, 10) || 0;
  return new Response(String(sum), {
    headers: { 'content-type': 'text/plain', server: SERVER_NAME },
  });
});
app.post('/baseline11', async (c) => {
  const query = c.req.query();
  let querySum = 0;
  for (const v of Object.values(query)) querySum += parseInt(v, 10) || 0;
  const body = await c.req.text();
  let total = querySum;
  const n = parseInt(body.trim(), 10);
  if (!isNaN(n)) total += n;
  return new Response(String(total), {
    headers: { 'content-type': 'text/plain', server: SERVER_NAME },
  });
});
app.get('/baseline2', (c) => {
  const query = c.req.query();
  let sum = 0;
  for (const v of Object.values(query)) sum += parseInt(v, 10) || 0;
  return new Response(String(sum), {
    headers: { 'content-type': 'text/plain', server: SERVER_NAME },
  });
});
app.get('/json/:count', (c) => {
  const count = Math.max(0, Math.min(parseInt(c.req.param('count'), 10) || 0, datasetItems.length));
  const m = parseInt(c.req.query('m') || '1') || 1;
  const processedItems = datasetItems.slice(0, count).map((d) => ({
    id: d.id,
    name: d.name,
    category: d.category,
    price: d.price,
    quantity: d.quantity,
    active: d.active,
    tags: d.tags,
    rating: d.rating,
    total: d.price * d.quantity * m,
  }));
  const body = JSON.stringify({ items: processedItems, count });
  return new Response(body, {
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      server: SERVER_NAME,
    },
  });
});
app.get('/async-db', async (c) => {
  if (!pgPool) {
    return new Response('{"items":[],"count":0}', {
      headers: { 'content-type': 'application/json', server: SERVER_NAME },
    });
  }
  const min = parseInt(c.req.query('min') || '', 10) || 10;
  const max = parseInt(c.req.query('max') || '', 10) || 50;
  const limit = Math.max(1, Math.min(parseInt(c.req.query('limit') || '', 10) || 50, 50));
  try {
    const result = await pgPool.query(
      'SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items WHERE price BETWEEN $1 AND $2 LIMIT $3',
      [min, max, limit],
    );
    const items = result.rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      price: r.price,
      quantity: r.quantity,
      active: r.active,
      tags: r.tags,
      rating: { score: r.rating_score, count: r.rating_count },
    }));
    const body = JSON.stringify({ items, count: items.length });
    return new Response(body, {
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        server: SERVER_NAME,
      },
    });
  } catch (e) {
    return new Response('{"items":[],"count":0}', {
      headers: { 'content-type': 'application/json', server: SERVER_NAME },
    });
  }
});
app.post('/upload', async (c) => {
  let size = 0;
  const body = c.req.raw.body;
  if (body) {
    for await (const chunk of body) {
      size += chunk.byteLength;
    }
  }
  return new Response(String(size), {
    headers: { 'content-type': 'text/plain', server: SERVER_NAME },
  });
});
app.get('/static/:filename', async (c) => {
  const filename = c.req.param('filename');
  const file = Bun.file(`${dataDir}/static/${filename}`);
  if (await file.exists()) {
    const ext = filename.slice(filename.lastIndexOf('.'));
    return new Response(file, {
      headers: {
        'content-type': MIME_TYPES[ext] || 'application/octet-stream',
        server: SERVER_NAME,
      },
    });
  }
  return new Response('Not found', { status: 404 });
});
app.get('/crud/items', async (c) => {
  if (!pgPool) return c.json({ error: 'DB not available' }, 500);
  const category = c.req.query('category') || 'electronics';
  const page = Math.max(1, parseInt(c.req.query('page') || '1', 10) || 1);
  const rawLimit = parseInt(c.req.query('limit') || '10', 10) || 10;
  const limit = Math.max(1, Math.min(rawLimit, 50));
  const offset = (page - 1) * limit;
  const result = await pgPool.query(
    'SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items WHERE category = $1 ORDER BY id LIMIT $2 OFFSET $3',
    [category, limit, offset],
  );
  const items = result.rows.map((r) => ({
    id: r.id,
    name: r.name,
    category: r.category,
    price: r.price,
    quantity: r.quantity,
    active: r.active,
    tags: r.tags,
    rating: { score: r.rating_score, count: r.rating_count },
  }));
  return c.json({ items, total: items.length, page, limit });
});
app.get('/crud/items/:id', async (c) => {
  if (!pgPool) return c.json({ error: 'DB not available' }, 500);
  const id = parseInt(c.req.param('id'), 10);
  if (!Number.isFinite(id)) return c.notFound();
  const cachedJson = await crudCacheGet(id);
  if (cachedJson) {
    return new Response(cachedJson, {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-cache': 'HIT', server: SERVER_NAME },
    });
  }
  const result = await pgPool.query(
    'SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items WHERE id = $1 LIMIT 1',
    [id],
  );
  if (result.rows.length === 0) return c.notFound();
  const r = result.rows[0];
  const item = {
    id: r.id,
    name: r.name,
    category: r.category,
    price: r.price,
    quantity: r.quantity,
    active: r.active,
    tags: r.tags,
    rating: { score: r.rating_score, count: r.rating_count },
  };
  const json = JSON.stringify(item);
  await crudCacheSet(id, json);
  return new Response(json, {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-cache': 'MISS', server: SERVER_NAME },
  });
});
app.post('/crud/items', async (c) => {
  if (!pgPool) return c.json({ error: 'DB not available' }, 500);
  const body = await c.req.json();
  const result = await pgPool.query(
    `INSERT INTO items (id, name, category, price, quantity, active, tags, rating_score, rating_count)
     VALUES ($1, $2, $3, $4, $5, true, '["bench"]', 0, 0)
     ON CONFLICT (id) DO UPDATE SET name = $2, price = $4, quantity = $5
     RETURNING id`,
    [body.id, body.name ?? 'New Product', body.category ?? 'test', body.price ?? 0, body.quantity ?? 0],
  );
  const newId = result.rows[0].id;
  c.status(201);
  return c.json({ id: newId, name: body.name, category: body.category, price: body.price, quantity: body.quantity });
});
app.put('/crud/items/:id', async (c) => {
  if (!pgPool) return c.json({ error: 'DB not available' }, 500);
  const id = parseInt(c.req.param('id'), 10);
  if (!Number.isFinite(id)) return c.notFound();
  const body = await c.req.json();
  const result = await pgPool.query('UPDATE items SET name = $1, price = $2, quantity = $3 WHERE id = $4', [
    body.name ?? 'Updated',
    body.price ?? 0,
    body.quantity ?? 0,
    id,
  ]);
  if (result.rowCount === 0) return c.notFound();
  await crudCacheDel(id);
  return c.json({ id, name: body.name, price: body.price, quantity: body.quantity });
});
app.all('*', () => new Response('Not found', { status: 404 }));
Bun.serve({
  port: Number(process.env.PORT ?? 8080),
  hostname: process.env.HOST ?? '0.0.0.0',
  reusePort: true,
  fetch: app.fetch,
});
