// Gale's HttpArena entry (bench/arena/README.md): the endpoints of HttpArena's HTTP/1.1 profiles on Gale's native API,
// as any Gale user would write them. One process per core through node:cluster with SO_REUSEPORT (ARENA_WORKERS, the
// cores by default); the bench runs it with ARENA_WORKERS=1. Data from ARENA_DATA (dataset.json, static/), Postgres
// from DATABASE_URL, TLS from TLS_CERT and TLS_KEY; HttpArena's ports (PORT, H1TLS_PORT, H2PORT, H2C_PORT) below.
import cluster from 'node:cluster';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { gale } from 'gale';
import pg from 'pg';
import postgres from 'postgres';

const workers = Number(process.env.ARENA_WORKERS ?? availableParallelism());
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  await serve();
}

async function serve() {
  const dataDir = process.env.ARENA_DATA ?? '/data';
  const dataset = JSON.parse(readFileSync(join(dataDir, 'dataset.json'), 'utf8'));
  // Postgres through Postgres.js (`postgres`), its queries prepared as named statements, a pool of ARENA_PG_POOL (8)
  // connections: on async-db and crud it spent 39 and 23 µs of server CPU per request where node-postgres' pool with
  // named statements spent 68 and 36 (bench/README.md). ARENA_PG_DRIVER=pg runs node-postgres instead, to compare.
  const poolSize = Number(process.env.ARENA_PG_POOL ?? 8);
  const pool = !process.env.DATABASE_URL
    ? null
    : process.env.ARENA_PG_DRIVER === 'pg'
      ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: poolSize })
      : postgresJs(postgres(process.env.DATABASE_URL, { max: poolSize }));

  const options = {
    // json-comp: gzip when the client asks (Accept-Encoding), nothing otherwise; static files have their
    // precompressed siblings. gzip at level 1 rather than brotli: libdeflate's level 1 made json-comp's answers
    // (4–8 KB of JSON) ~1.4 KB in ~13 µs where brotli quality 4 took ~70 µs for ~1.2 KB, and HttpArena's score
    // (rps × (smallest bytes ÷ own)²) comes out ahead at the lower cost (bench/README.md, json-comp).
    compression: { brotli: false, gzipLevel: 1 },
    // upload: bodies up to 20 MB are read.
    bodyLimit: 32 << 20,
    // Each worker binds the port itself and the kernel spreads connections (node:cluster's round robin otherwise).
    reusePort: true,
    // No `Connection: keep-alive` / `Keep-Alive: timeout=65` on every answer (node:http's habit, Gale's default):
    // an HTTP/1.1 connection is persistent without them, and uWebSockets.js, Bun and Deno send neither.
    keepAliveHeader: false,
  };
  const host = process.env.HOST ?? '0.0.0.0';
  const port = (name, dflt) => Number(process.env[name] ?? dflt);
  const tls = tlsFiles();
  // HttpArena's ports: 8080 HTTP/1.1; 8081 HTTP/1.1 over TLS (json-tls); 8443 HTTP/2 over TLS (baseline-h2,
  // static-h2); 8082 h2c only (baseline-h2c, json-h2c). One app per port, the same routes on each.
  const listeners = [
    { port: port('PORT', 8080) },
    ...(tls ? [{ port: port('H1TLS_PORT', 8081), tls }] : []),
    ...(tls ? [{ port: port('H2PORT', 8443), tls, http2: true, http3: true }] : []),
    { port: port('H2C_PORT', 8082), http2: { http1: false } },
  ];
  for (const l of listeners) {
    const app = gale(options);
    routes(app);
    await app.listen({ host, ...l });
  }

  /** node-postgres' `pool.query({ text, values })` over Postgres.js (rows, rowCount), the statement prepared by name. */
  function postgresJs(sql) {
    return {
      async query({ text, values }) {
        const rows = await sql.unsafe(text, values, { prepare: true });
        return { rows, rowCount: rows.count };
      },
    };
  }

  /** HttpArena's /certs (TLS_CERT, TLS_KEY), or null without them: then only the cleartext ports are served. */
  function tlsFiles() {
    const cert = process.env.TLS_CERT ?? '/certs/server.crt';
    const key = process.env.TLS_KEY ?? '/certs/server.key';
    return existsSync(cert) && existsSync(key) ? { cert, key } : null;
  }

  /** Every endpoint of HttpArena's profiles, on `app`. */
  function routes(app) {
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
      // Read as it arrives, counting: HttpArena's contract is the number of bytes received. Transient chunks are
      // freed as the loop moves on (uWebSockets.js' onData hands out chunks the same way).
      let size = 0;
      for await (const chunk of req.chunks({ transient: true })) size += chunk.length;
      res.type('text/plain').send(String(size));
    });

    // The items table's columns, and an item as HttpArena's answers carry it (async-db and crud).
    const columns = 'id, name, category, price, quantity, active, tags, rating_score, rating_count';
    const item = (r) => ({
      id: r.id,
      name: r.name,
      category: r.category,
      price: r.price,
      quantity: r.quantity,
      active: r.active,
      tags: r.tags,
      rating: { score: r.rating_score, count: r.rating_count },
    });

    const query = `SELECT ${columns} FROM items WHERE price BETWEEN $1 AND $2 LIMIT $3`;
    app.get('/async-db', async (req) => {
      if (pool === null) return { items: [], count: 0 };
      const min = Number.parseInt(req.query.min, 10) || 10;
      const max = Number.parseInt(req.query.max, 10) || 50;
      const limit = Math.min(Math.max(Number.parseInt(req.query.limit, 10) || 50, 1), 50);
      const { rows } = await pool.query({ name: 'async-db', text: query, values: [min, max, limit] });
      const items = rows.map(item);
      return { items, count: items.length };
    });

    // crud (HttpArena's production rules): the pool above; single-item reads cache-aside in this process (a Map of
    // serialized answers) with a 200 ms absolute lifetime, not warmed ahead, dropped on PUT.
    const CACHE_MS = 200;
    const cached = new Map();
    const noDatabase = (res) => res.status(500).json({ error: 'no database: set DATABASE_URL' });

    app.get('/crud/items', async (req, res) => {
      if (pool === null) return noDatabase(res);
      const category = req.query.category || 'electronics';
      const page = Math.max(Number.parseInt(req.query.page, 10) || 1, 1);
      const limit = Math.min(Math.max(Number.parseInt(req.query.limit, 10) || 10, 1), 50);
      const { rows } = await pool.query({
        name: 'crud-list',
        text: `SELECT ${columns} FROM items WHERE category = $1 ORDER BY id LIMIT $2 OFFSET $3`,
        values: [category, limit, (page - 1) * limit],
      });
      const items = rows.map(item);
      return { items, total: items.length, page, limit };
    });

    app.get('/crud/items/:id', async (req, res) => {
      if (pool === null) return noDatabase(res);
      const id = Number.parseInt(req.params.id, 10);
      if (!Number.isFinite(id)) return res.status(404).send('Not found');
      const hit = cached.get(id);
      if (hit !== undefined && hit.until > Date.now()) {
        return res.header('X-Cache', 'HIT').type('application/json').send(hit.json);
      }
      const { rows } = await pool.query({
        name: 'crud-read',
        text: `SELECT ${columns} FROM items WHERE id = $1 LIMIT 1`,
        values: [id],
      });
      if (rows.length === 0) return res.status(404).send('Not found');
      const json = JSON.stringify(item(rows[0]));
      cached.set(id, { json, until: Date.now() + CACHE_MS });
      res.header('X-Cache', 'MISS').type('application/json').send(json);
    });

    app.post('/crud/items', async (req, res) => {
      if (pool === null) return noDatabase(res);
      const b = await req.json();
      const { rows } = await pool.query({
        name: 'crud-create',
        text:
          `INSERT INTO items (${columns}) VALUES ($1, $2, $3, $4, $5, true, '["bench"]', 0, 0) ` +
          'ON CONFLICT (id) DO UPDATE SET name = $2, price = $4, quantity = $5 RETURNING id',
        values: [b.id, b.name ?? 'New Product', b.category ?? 'test', b.price ?? 0, b.quantity ?? 0],
      });
      res
        .status(201)
        .json({ id: rows[0].id, name: b.name, category: b.category, price: b.price, quantity: b.quantity });
    });

    app.put('/crud/items/:id', async (req, res) => {
      if (pool === null) return noDatabase(res);
      const id = Number.parseInt(req.params.id, 10);
      if (!Number.isFinite(id)) return res.status(404).send('Not found');
      const b = await req.json();
      const { rowCount } = await pool.query({
        name: 'crud-update',
        text: 'UPDATE items SET name = $1, price = $2, quantity = $3 WHERE id = $4',
        values: [b.name ?? 'Updated', b.price ?? 0, b.quantity ?? 0, id],
      });
      if (rowCount === 0) return res.status(404).send('Not found');
      cached.delete(id);
      return { id, name: b.name, price: b.price, quantity: b.quantity };
    });

    // echo-ws: every message back to its sender as it came, with the WebSocket API's defaults.
    app.ws('/ws', { message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });

    // The 20 files, read from disk on every request (HttpArena's rule for production entries: no memory cache), with
    // their .br/.gz siblings for clients that accept them (Gale's documented `precompressed`). No ETag or
    // Last-Modified, as HttpArena's nginx entry (`etag off`, `add_header Last-Modified ''`): its clients never
    // revalidate. ARENA_STATIC_CACHE=1 keeps the files in the engine's memory instead (`cache`): the bench's
    // `gale-cache` row, comparable with entries that preload their files (HttpArena's `tuned` type), not what this
    // entry submits.
    const cache = process.env.ARENA_STATIC_CACHE === '1';
    app.static('/static', join(dataDir, 'static'), { precompressed: true, cache, etag: false, lastModified: false });
  }
}
