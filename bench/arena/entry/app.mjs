// Gale's HttpArena entry (bench/arena/README.md): the endpoints of HttpArena's HTTP/1.1 profiles on Gale's native API,
// as any Gale user would write them. One process per core through node:cluster with SO_REUSEPORT (ARENA_WORKERS, the
// cores by default); the bench runs it with ARENA_WORKERS=1. Data from ARENA_DATA (dataset.json, static/), Postgres
// from DATABASE_URL; listens on PORT (8080 by default, as HttpArena's entries do).
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { gale } from 'gale';
import pg from 'pg';

const workers = Number(process.env.ARENA_WORKERS ?? availableParallelism());
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  await serve();
}

async function serve() {
  const dataDir = process.env.ARENA_DATA ?? '/data';
  const dataset = JSON.parse(readFileSync(join(dataDir, 'dataset.json'), 'utf8'));
  // Postgres through node-postgres' pool; HttpArena's async-db rows are ones the pool serves on prepared statements.
  const pool = process.env.DATABASE_URL
    ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.ARENA_PG_POOL ?? 8) })
    : null;

  const app = gale({
    // json-comp: gzip or brotli when the client asks (Accept-Encoding), nothing otherwise; static files have their
    // precompressed siblings.
    compression: true,
    // upload: bodies up to 20 MB are read.
    bodyLimit: 32 << 20,
    // Each worker binds the port itself and the kernel spreads connections (node:cluster's round robin otherwise).
    reusePort: true,
  });

  /** The sum of every integer query value (HttpArena's baseline: `?a=13&b=42` → 55). */
  const sumQuery = (query) => {
    let sum = 0;
    for (const k in query) {
      const n = Number.parseInt(query[k], 10);
      if (!Number.isNaN(n)) sum += n;
    }
    return sum;
  };

  app.get('/pipeline', (_req, res) => res.type('text/plain').send('ok'));
  app.get('/baseline2', (req, res) => res.type('text/plain').send(String(sumQuery(req.query))));
  app.get('/baseline11', (req, res) => res.type('text/plain').send(String(sumQuery(req.query))));
  app.post('/baseline11', async (req, res) => {
    const n = Number.parseInt((await req.text()).trim(), 10);
    res.type('text/plain').send(String(sumQuery(req.query) + (Number.isNaN(n) ? 0 : n)));
  });

  app.get('/json/:count', (req) => {
    const count = Math.min(Math.max(Number.parseInt(req.params.count, 10) || 0, 0), dataset.length);
    const m = Number.parseInt(req.query.m, 10) || 1;
    const items = new Array(count);
    for (let i = 0; i < count; i++) {
      const d = dataset[i];
      items[i] = {
        id: d.id,
        name: d.name,
        category: d.category,
        price: d.price,
        quantity: d.quantity,
        active: d.active,
        tags: d.tags,
        rating: d.rating,
        total: d.price * d.quantity * m,
      };
    }
    return { items, count };
  });

  app.post('/upload', async (req, res) => {
    // Read as it arrives, counting: HttpArena's contract is the number of bytes received.
    let size = 0;
    for await (const chunk of req.stream()) size += chunk.length;
    res.type('text/plain').send(String(size));
  });

  const query =
    'SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items ' +
    'WHERE price BETWEEN $1 AND $2 LIMIT $3';
  app.get('/async-db', async (req) => {
    if (pool === null) return { items: [], count: 0 };
    const min = Number.parseInt(req.query.min, 10) || 10;
    const max = Number.parseInt(req.query.max, 10) || 50;
    const limit = Math.min(Math.max(Number.parseInt(req.query.limit, 10) || 50, 1), 50);
    const { rows } = await pool.query({ name: 'async-db', text: query, values: [min, max, limit] });
    const items = rows.map((r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      price: r.price,
      quantity: r.quantity,
      active: r.active,
      tags: r.tags,
      rating: { score: r.rating_score, count: r.rating_count },
    }));
    return { items, count: items.length };
  });

  // The 20 files, read from disk on every request (HttpArena's rule for production entries: no memory cache), with
  // their .br/.gz siblings for clients that accept them (Gale's documented `precompressed`). ARENA_STATIC_CACHE=1
  // keeps them in the engine's memory instead (`cache`): the bench's `gale-cache` row, comparable with entries that
  // preload their files (HttpArena's `tuned` type), not what this entry submits.
  const cache = process.env.ARENA_STATIC_CACHE === '1';
  app.static('/static', join(dataDir, 'static'), { precompressed: true, cache });

  await app.listen({ port: Number(process.env.PORT ?? 8080), host: process.env.HOST ?? '0.0.0.0' });
}
