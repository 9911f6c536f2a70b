// HttpArena's deno entry (its frameworks/deno/main.ts, MIT, removed from its tree on 2026-04-10 at d5c87281) as the
// arena bench runs it on the pinned Deno (lib/runtimes.ts) with `deno serve`, one process (its Dockerfile adds
// --parallel for one per CPU): its own path dispatch, static files read per request and `npm:pg` with a pool of 4, as
// written there (types stripped: the bench runs it as JavaScript); brought to today's contract as node-http.mjs is:
// `/json/{count}?m=` with each item's total, `/async-db` with `limit`, and json-comp by gzip (level 1, as its
// `/compression` route compressed) when the client accepts it. Left out: its SQLite /db route (the retired sync-db
// profile; its driver comes from jsr, which these machines cannot reach). Data from ARENA_DATA.
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import { gzipSync } from 'node:zlib';

const MIME_TYPES = {
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.html': 'text/html',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.json': 'application/json',
};

const dataDir = Deno.env.get('ARENA_DATA') || '/data';
const STATIC_DIR = `${dataDir}/static`;

const datasetPath = Deno.env.get('DATASET_PATH') || `${dataDir}/dataset.json`;
let datasetItems;

try {
  datasetItems = JSON.parse(Deno.readTextFileSync(datasetPath));
} catch {
  /* dataset not available */
}

// PostgreSQL pool for async-db
let pgPool = null;
{
  const dbUrl = Deno.env.get('DATABASE_URL');
  if (dbUrl) {
    try {
      const pg = await import('npm:pg@8');
      pgPool = new pg.default.Pool({ connectionString: dbUrl, max: 4 });
    } catch {
      /* pg not available */
    }
  }
}

const PLAIN = { 'content-type': 'text/plain', server: 'deno' };
const JSON_HDR = { 'content-type': 'application/json', server: 'deno' };

function sumQuery(url, pathEnd) {
  const q = url.indexOf('?', pathEnd);
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
    if (n === n) sum += n;
    i = amp + 1;
  }
  return sum;
}

function parseQueryParam(url, queryStart, key, def) {
  if (queryStart === -1) return def;
  const qs = url.slice(queryStart + 1);
  for (const pair of qs.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    if (pair.slice(0, eq) === key) {
      const v = parseFloat(pair.slice(eq + 1));
      return isNaN(v) ? def : v;
    }
  }
  return def;
}

export default {
  async fetch(req) {
    const url = req.url;
    const pathStart = url.indexOf('/', 8);
    const queryStart = url.indexOf('?', pathStart);
    const path = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart);

    if (path === '/pipeline') {
      return new Response('ok', { headers: PLAIN });
    }

    if (path.startsWith('/json/')) {
      if (datasetItems) {
        let count = parseInt(path.slice(6), 10) || 0;
        if (count < 0) count = 0;
        if (count > datasetItems.length) count = datasetItems.length;
        const m = parseQueryParam(url, queryStart, 'm', 1);
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
        const body = JSON.stringify({ items, count });
        const ae = req.headers.get('accept-encoding') || '';
        if (ae.includes('gzip')) {
          const compressed = gzipSync(new TextEncoder().encode(body), { level: 1 });
          return new Response(compressed, {
            headers: {
              'content-type': 'application/json',
              'content-encoding': 'gzip',
              'content-length': String(compressed.length),
              server: 'deno',
            },
          });
        }
        return new Response(body, { headers: JSON_HDR });
      }
      return new Response('No dataset', { status: 500 });
    }

    if (path === '/async-db') {
      if (!pgPool) {
        return new Response('{"items":[],"count":0}', { headers: JSON_HDR });
      }
      const min = parseQueryParam(url, queryStart, 'min', 10);
      const max = parseQueryParam(url, queryStart, 'max', 50);
      let limit = parseQueryParam(url, queryStart, 'limit', 50);
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
        return new Response(body, { headers: JSON_HDR });
      } catch {
        return new Response('{"items":[],"count":0}', { headers: JSON_HDR });
      }
    }

    if (path === '/upload' && req.method === 'POST') {
      let size = 0;
      if (req.body) {
        for await (const chunk of req.body) {
          size += chunk.byteLength;
        }
      }
      return new Response(String(size), { headers: PLAIN });
    }

    if (path.startsWith('/static/')) {
      const filename = path.slice(8);
      try {
        const data = await Deno.readFile(`${STATIC_DIR}/${filename}`);
        const ext = filename.slice(filename.lastIndexOf('.'));
        return new Response(data, {
          headers: {
            'content-type': MIME_TYPES[ext] || 'application/octet-stream',
            'content-length': String(data.length),
            server: 'deno',
          },
        });
      } catch {
        return new Response('Not found', { status: 404 });
      }
    }

    // /baseline11 and /pipeline
    if (path !== '/baseline11' && path !== '/pipeline') {
      return new Response('Not found', { status: 404 });
    }

    if (req.method !== 'GET' && req.method !== 'POST') {
      return new Response('Method Not Allowed', { status: 405 });
    }

    let sum = sumQuery(url, pathStart);
    if (req.method === 'POST') {
      const body = (await req.text()).trim();
      const n = parseInt(body, 10);
      if (n === n) sum += n;
    }
    return new Response(String(sum), { headers: PLAIN });
  },
};
