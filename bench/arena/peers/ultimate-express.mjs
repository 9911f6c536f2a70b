// HttpArena's ultimate-express entry (its frameworks/ultimate-express/app.js at commit 28606baf, MIT), run by the arena
// bench on the peers' builds (../shared/peers, GALE_BENCH_PEERS): the same routes and code, with the Express-family
// module ARENA_PEER names (ultimate-express, or fulmine.js, its drop-in fork) loaded from EXPRESS_IMPL as the bench's
// other apps load it (apps/peers.mjs), the data from ARENA_DATA and the port from PORT. Left out: its SQLite /db route
// (HttpArena's retired sync-db profile) and the cluster fork when ARENA_WORKERS=1 (one process on one core).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import cluster from 'node:cluster';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { loadPeer, reportCompiledRoutes } from '../../apps/peers.mjs';

const require = createRequire(import.meta.url);

const workers = Number(
  process.env.ARENA_WORKERS ?? (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
);

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  const express = loadPeer(process.env.ARENA_PEER, process.env.EXPRESS_IMPL);
  const dataDir = process.env.ARENA_DATA ?? '/data';

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const SERVER_HDR = { server: 'ultimate-express' };

  // Dataset
  let datasetItems;
  try {
    datasetItems = JSON.parse(fs.readFileSync(path.join(dataDir, 'dataset.json'), 'utf8'));
  } catch (e) {}

  // PostgreSQL
  let pgPool;
  const dbUrl = process.env.DATABASE_URL;
  if (dbUrl) {
    try {
      const { Pool } = require('pg');
      pgPool = new Pool({ connectionString: dbUrl, max: 4 });
    } catch (e) {}
  }

  // MIME types for static files
  const MIME_TYPES = {
    '.css': 'text/css',
    '.js': 'application/javascript',
    '.html': 'text/html',
    '.woff2': 'font/woff2',
    '.svg': 'image/svg+xml',
    '.webp': 'image/webp',
    '.json': 'application/json',
  };

  // Pre-load static files with pre-compressed variants
  const staticFiles = {};
  const staticDir = path.join(dataDir, 'static');
  try {
    for (const name of fs.readdirSync(staticDir)) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue;
      const buf = fs.readFileSync(`${staticDir}/${name}`);
      const ext = name.slice(name.lastIndexOf('.'));
      let br = null;
      let gz = null;
      try {
        br = fs.readFileSync(`${staticDir}/${name}.br`);
      } catch (_) {}
      try {
        gz = fs.readFileSync(`${staticDir}/${name}.gz`);
      } catch (_) {}
      staticFiles[name] = { buf, br, gz, ct: MIME_TYPES[ext] || 'application/octet-stream' };
    }
  } catch (e) {}

  function sumQuery(query) {
    let sum = 0;
    for (const k in query) {
      const n = parseInt(query[k], 10);
      if (n === n) sum += n;
    }
    return sum;
  }

  app.get('/pipeline', (req, res) => {
    res.set(SERVER_HDR).type('text/plain').send('ok');
  });

  app.get('/json/:count', (req, res) => {
    if (datasetItems) {
      let count = parseInt(req.params.count, 10) || 0;
      if (count < 0) count = 0;
      if (count > datasetItems.length) count = datasetItems.length;
      const m = parseInt(req.query.m) || 1;
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
      res.set(SERVER_HDR).type('application/json').send(body);
    } else {
      res.status(500).send('No dataset');
    }
  });

  app.get('/async-db', async (req, res) => {
    if (!pgPool) {
      return res.set(SERVER_HDR).type('application/json').send('{"items":[],"count":0}');
    }
    const min = parseInt(req.query.min, 10) || 10;
    const max = parseInt(req.query.max, 10) || 50;
    let limit = parseInt(req.query.limit, 10) || 50;
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
      res.set(SERVER_HDR).type('application/json').send(body);
    } catch (e) {
      res.set(SERVER_HDR).type('application/json').send('{"items":[],"count":0}');
    }
  });

  app.post('/upload', (req, res) => {
    let size = 0;
    req.on('data', (chunk) => (size += chunk.length));
    req.on('end', () => {
      res.set(SERVER_HDR).type('text/plain').send(String(size));
    });
  });

  app.get('/baseline2', (req, res) => {
    res
      .set(SERVER_HDR)
      .type('text/plain')
      .send(String(sumQuery(req.query)));
  });

  app.all('/baseline11', (req, res) => {
    const querySum = sumQuery(req.query);
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        let total = querySum;
        const n = parseInt(body.trim(), 10);
        if (n === n) total += n;
        res.set(SERVER_HDR).type('text/plain').send(String(total));
      });
    } else {
      res.set(SERVER_HDR).type('text/plain').send(String(querySum));
    }
  });

  app.get('/static/:filename', (req, res) => {
    const sf = staticFiles[req.params.filename];
    if (!sf) return res.status(404).send('Not found');
    const ae = req.headers['accept-encoding'] || '';
    if (sf.br && ae.includes('br')) {
      res
        .set({ ...SERVER_HDR, 'content-type': sf.ct, 'content-encoding': 'br', 'content-length': String(sf.br.length) })
        .send(sf.br);
    } else if (sf.gz && ae.includes('gzip')) {
      res
        .set({
          ...SERVER_HDR,
          'content-type': sf.ct,
          'content-encoding': 'gzip',
          'content-length': String(sf.gz.length),
        })
        .send(sf.gz);
    } else {
      res.set({ ...SERVER_HDR, 'content-type': sf.ct, 'content-length': String(sf.buf.length) }).send(sf.buf);
    }
  });

  reportCompiledRoutes(process.env.ARENA_PEER, process.env.EXPRESS_IMPL, app);
  app.listen(Number(process.env.PORT ?? 8080));
}
