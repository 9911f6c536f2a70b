// HttpArena's Express 5 entry (its frameworks/express/server.js, MIT, removed from its tree on 2026-04-10 at d5c87281)
// as the arena bench runs it: Express 5 on node:http with its body parsers, preloaded static files and `pg` with a
// pool of 4, as written there; brought to today's contract the way HttpArena's live JS entries (ultimate-express)
// answer it: `/json/:count?m=` with each item's total, `/async-db` with `limit`, and json-comp by gzip (level 1, as
// that entry compressed its `/compression` answer) when the client accepts it. Data from ARENA_DATA, port from PORT.
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const dataDir = process.env.ARENA_DATA ?? '/data';
const SERVER_NAME = 'express';

let datasetItems;
let pgPool;
const staticFiles = {};
const MIME_TYPES = {
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.html': 'text/html',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.json': 'application/json',
};

function loadStaticFiles() {
  const dir = path.join(dataDir, 'static');
  try {
    for (const name of fs.readdirSync(dir)) {
      const buf = fs.readFileSync(dir + '/' + name);
      const ext = name.slice(name.lastIndexOf('.'));
      staticFiles[name] = { buf, ct: MIME_TYPES[ext] || 'application/octet-stream' };
    }
  } catch (e) {}
}

function loadDataset() {
  try {
    datasetItems = JSON.parse(fs.readFileSync(path.join(dataDir, 'dataset.json'), 'utf8'));
  } catch (e) {}
}

function loadPgPool() {
  const dbUrl = process.env.DATABASE_URL;
  if (!dbUrl) return;
  try {
    const { Pool } = require('pg');
    pgPool = new Pool({ connectionString: dbUrl, max: 4 });
  } catch (e) {}
}

function sumQuery(query) {
  let sum = 0;
  if (query) {
    for (const key of Object.keys(query)) {
      const n = parseInt(query[key], 10);
      if (n === n) sum += n;
    }
  }
  return sum;
}

function startWorker() {
  loadDataset();
  loadStaticFiles();
  loadPgPool();

  const express = require('express');
  const app = express();

  // --- /upload --- (defined before body-parsing middleware so the stream is not buffered)
  app.post('/upload', (req, res) => {
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
    });
    req.on('end', () => {
      res.set('server', SERVER_NAME).set('Content-Type', 'text/plain').send(String(size));
    });
  });

  // --- /static/:filename --- (defined before body-parsing middleware so it's not affected)
  app.get('/static/:filename', (req, res) => {
    const sf = staticFiles[req.params.filename];
    if (sf) {
      res.writeHead(200, { 'content-type': sf.ct, 'content-length': sf.buf.length, server: SERVER_NAME });
      res.end(sf.buf);
    } else {
      res.writeHead(404);
      res.end();
    }
  });

  // Raw body parsing (applied to all routes except /upload which is already defined above)
  app.use(express.raw({ type: 'application/octet-stream', limit: '50mb' }));
  app.use(express.text({ type: 'text/plain', limit: '50mb' }));
  app.use(express.raw({ type: '*/*', limit: '50mb' }));

  // --- /pipeline ---
  app.get('/pipeline', (req, res) => {
    res.set('server', SERVER_NAME).type('text/plain').send('ok');
  });

  // --- /baseline11 GET & POST ---
  app.get('/baseline11', (req, res) => {
    const s = sumQuery(req.query);
    res.set('server', SERVER_NAME).type('text/plain').send(String(s));
  });

  app.post('/baseline11', (req, res) => {
    const querySum = sumQuery(req.query);
    const body = typeof req.body === 'string' ? req.body : req.body ? req.body.toString() : '';
    let total = querySum;
    const n = parseInt(body.trim(), 10);
    if (n === n) total += n;
    res.set('server', SERVER_NAME).type('text/plain').send(String(total));
  });

  // --- /baseline2 ---
  app.get('/baseline2', (req, res) => {
    const s = sumQuery(req.query);
    res.set('server', SERVER_NAME).type('text/plain').send(String(s));
  });

  // --- /json/:count ---
  app.get('/json/:count', (req, res) => {
    if (!datasetItems) {
      return res.status(500).send('No dataset');
    }
    let count = parseInt(req.params.count, 10) || 0;
    if (count < 0) count = 0;
    if (count > datasetItems.length) count = datasetItems.length;
    const m = parseInt(req.query.m, 10) || 1;
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
    const buf = Buffer.from(JSON.stringify({ items, count }));
    const acceptEncoding = req.headers['accept-encoding'] || '';
    if (acceptEncoding.includes('gzip')) {
      const compressed = zlib.gzipSync(buf, { level: 1 });
      res
        .set('server', SERVER_NAME)
        .set('content-type', 'application/json')
        .set('content-encoding', 'gzip')
        .set('content-length', compressed.length)
        .send(compressed);
    } else {
      res
        .set('server', SERVER_NAME)
        .writeHead(200, { 'content-type': 'application/json', 'content-length': buf.length });
      res.end(buf);
    }
  });

  // --- /async-db ---
  app.get('/async-db', async (req, res) => {
    if (!pgPool) {
      return res.set('server', SERVER_NAME).type('application/json').send('{"items":[],"count":0}');
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
      res
        .set('server', SERVER_NAME)
        .set('content-type', 'application/json')
        .set('content-length', Buffer.byteLength(body))
        .send(body);
    } catch (e) {
      res.set('server', SERVER_NAME).type('application/json').send('{"items":[],"count":0}');
    }
  });

  // Start HTTP/1.1 server
  const server = http.createServer(app);
  server.listen(Number(process.env.PORT ?? 8080), '0.0.0.0', () => {
    startH2();
  });
}

const workers = Number(
  process.env.ARENA_WORKERS ?? (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
);
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  startWorker();
}

// HTTP/2 TLS server on port 8443 (H2PORT here)
function startH2() {
  const certFile = process.env.TLS_CERT || '/certs/server.crt';
  const keyFile = process.env.TLS_KEY || '/certs/server.key';
  try {
    const opts = {
      cert: fs.readFileSync(certFile),
      key: fs.readFileSync(keyFile),
      allowHTTP1: false,
    };
    const h2server = http2.createSecureServer(opts, (req, res) => {
      const url = req.url;
      const q = url.indexOf('?');
      const p = q === -1 ? url : url.slice(0, q);
      if (p.startsWith('/static/')) {
        const name = p.slice(8);
        const sf = staticFiles[name];
        if (sf) {
          res.writeHead(200, { 'content-type': sf.ct, 'content-length': sf.buf.length, server: SERVER_NAME });
          res.end(sf.buf);
        } else {
          res.writeHead(404);
          res.end();
        }
      } else {
        // baseline h2
        let sum = 0;
        if (q !== -1) {
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
        }
        res.writeHead(200, { 'content-type': 'text/plain', server: SERVER_NAME });
        res.end(String(sum));
      }
    });
    h2server.listen(Number(process.env.H2PORT ?? 8443));
  } catch (e) {
    // TLS certs not available, skip H2
  }
}
