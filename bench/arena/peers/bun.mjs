// HttpArena's bun entry (its frameworks/bun/server.ts, MIT, removed from its tree on 2026-04-10 at d5c87281) as the
// arena bench runs it on the pinned Bun (lib/runtimes.ts): Bun.serve with its own path dispatch, static files read by
// Bun.file per request and `pg` with a pool of 4, as written there (types stripped: the bench runs it as JavaScript);
// brought to today's contract as node-http.mjs is: `/json/{count}?m=` with each item's total, `/async-db` with `limit`,
// and json-comp by gzip (level 1, as its `/compression` route compressed) when the client accepts it. Left out: its
// SQLite /db route (the retired sync-db profile). Data from ARENA_DATA, ports from PORT and H2PORT, certificates from
// TLS_CERT and TLS_KEY; one process (its entrypoint.sh starts one per CPU; ARENA_WORKERS=1 here).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
const fs = require('fs');
const zlib = require('zlib');

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

// Load raw dataset for per-request JSON processing
const datasetItems = JSON.parse(fs.readFileSync(`${dataDir}/dataset.json`, 'utf8'));

// PostgreSQL pool for async-db
let pgPool = null;
{
  const dbUrl = process.env.DATABASE_URL;
  if (dbUrl) {
    try {
      const { Pool } = require('pg');
      pgPool = new Pool({ connectionString: dbUrl, max: 4 });
    } catch (_) {}
  }
}

const STATIC_DIR = `${dataDir}/static`;

function sumQuery(url) {
  const q = url.indexOf('?');
  if (q === -1) return 0;
  let sum = 0;
  const qs = url.slice(q + 1);
  let i = 0;
  while (i < qs.length) {
    const eq = qs.indexOf('=', i);
    if (eq === -1) break;
    let amp = qs.indexOf('&', eq);
    if (amp === -1) amp = qs.length;
    const n = parseInt(qs.slice(eq + 1, amp), 10);
    if (!isNaN(n)) sum += n;
    i = amp + 1;
  }
  return sum;
}

function queryParam(url, qIdx, key) {
  if (qIdx === -1) return undefined;
  for (const pair of url.slice(qIdx + 1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq) === key) return pair.slice(eq + 1);
  }
  return undefined;
}

async function handleRequest(req) {
  const url = req.url;
  const protoEnd = url.indexOf('//') + 2;
  const pathStart = url.indexOf('/', protoEnd);
  const qIdx = url.indexOf('?', pathStart);
  const path = qIdx === -1 ? url.slice(pathStart) : url.slice(pathStart, qIdx);

  if (path === '/async-db') {
    if (!pgPool) {
      return new Response('{"items":[],"count":0}', {
        headers: { 'content-type': 'application/json' },
      });
    }
    const min = parseFloat(queryParam(url, qIdx, 'min')) || 10;
    const max = parseFloat(queryParam(url, qIdx, 'max')) || 50;
    let limit = parseInt(queryParam(url, qIdx, 'limit'), 10) || 50;
    if (limit < 1) limit = 1;
    if (limit > 50) limit = 50;
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
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
    } catch (e) {
      return new Response('{"items":[],"count":0}', {
        headers: { 'content-type': 'application/json' },
      });
    }
  }

  if (path === '/pipeline') {
    return new Response('ok', { headers: { 'content-type': 'text/plain' } });
  }

  if (path.startsWith('/json/')) {
    let count = parseInt(path.slice(6), 10) || 0;
    if (count < 0) count = 0;
    if (count > datasetItems.length) count = datasetItems.length;
    const m = parseInt(queryParam(url, qIdx, 'm'), 10) || 1;
    const items = datasetItems.slice(0, count).map((d) => ({
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
    const body = Buffer.from(JSON.stringify({ items, count }));
    const ae = req.headers.get('accept-encoding') || '';
    if (ae.includes('gzip')) {
      const compressed = Bun.gzipSync(body, { level: 1 });
      return new Response(compressed, {
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(compressed.length),
        },
      });
    }
    return new Response(body, {
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    });
  }

  if (path === '/baseline2') {
    const body = String(sumQuery(url));
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  }

  if (path.startsWith('/static/')) {
    const name = path.slice(8);
    const filePath = `${STATIC_DIR}/${name}`;
    const file = Bun.file(filePath);
    if (await file.exists()) {
      const ext = name.slice(name.lastIndexOf('.'));
      return new Response(file, {
        headers: { 'content-type': MIME_TYPES[ext] || 'application/octet-stream' },
      });
    }
    return new Response('Not found', { status: 404 });
  }

  if (path === '/upload' && req.method === 'POST') {
    let size = 0;
    if (req.body) {
      for await (const chunk of req.body) {
        size += chunk.byteLength;
      }
    }
    return new Response(String(size), { headers: { 'content-type': 'text/plain' } });
  }

  // /baseline11 and /pipeline
  if (path !== '/baseline11' && path !== '/pipeline') {
    return new Response('Not found', { status: 404 });
  }

  if (req.method !== 'GET' && req.method !== 'POST') {
    return new Response('Method Not Allowed', { status: 405 });
  }

  const querySum = sumQuery(url);
  if (req.method === 'POST') {
    return req.text().then((body) => {
      let total = querySum;
      const n = parseInt(body.trim(), 10);
      if (!isNaN(n)) total += n;
      return new Response(String(total), { headers: { 'content-type': 'text/plain' } });
    });
  }

  return new Response(String(querySum), { headers: { 'content-type': 'text/plain' } });
}

// Read TLS certs
let tlsOptions;
try {
  tlsOptions = {
    cert: fs.readFileSync(process.env.TLS_CERT ?? '/certs/server.crt', 'utf8'),
    key: fs.readFileSync(process.env.TLS_KEY ?? '/certs/server.key', 'utf8'),
  };
} catch (_) {}

// HTTP server on port 8080 (PORT here)
Bun.serve({
  port: Number(process.env.PORT ?? 8080),
  hostname: process.env.HOST ?? '0.0.0.0',
  fetch: handleRequest,
  // Bun answers bodies past 128 MiB with 413; the 20 MB uploads fit its default.
  reusePort: true,
});

// HTTPS/H2 server on port 8443 (H2PORT here)
if (tlsOptions) {
  Bun.serve({
    port: Number(process.env.H2PORT ?? 8443),
    hostname: process.env.HOST ?? '0.0.0.0',
    tls: tlsOptions,
    fetch: handleRequest,
    reusePort: true,
  });
}
