// HttpArena's node entry (its frameworks/node/server.js, MIT, removed from its tree on 2026-04-10 at d5c87281) as the
// arena bench runs it: node:http with its own routing, query parsing and preloaded static files, and `pg` with a pool
// of 4, as written there; brought to today's contract the way HttpArena's live JS entries (ultimate-express) answer
// it: `/json/{count}?m=` with each item's total, `/async-db` with `limit`, and json-comp by gzip (level 1, as that
// entry compressed its `/compression` answer) when the client accepts it. Data from ARENA_DATA, port from PORT.
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
const SERVER_HEADERS = { server: 'node' };

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
    if (n === n) sum += n; // NaN check
    i = amp + 1;
  }
  return sum;
}

function queryParams(url) {
  const q = url.indexOf('?');
  const out = {};
  if (q === -1) return out;
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

const server = http.createServer((req, res) => {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);

  if (path === '/pipeline') {
    res.writeHead(200, { 'content-type': 'text/plain', ...SERVER_HEADERS });
    res.end('ok');
  } else if (path.startsWith('/json/')) {
    if (datasetItems) {
      let count = parseInt(path.slice(6), 10) || 0;
      if (count < 0) count = 0;
      if (count > datasetItems.length) count = datasetItems.length;
      const m = parseInt(queryParams(url).m, 10) || 1;
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
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': compressed.length,
          ...SERVER_HEADERS,
        });
        res.end(compressed);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': buf.length, ...SERVER_HEADERS });
        res.end(buf);
      }
    } else {
      res.writeHead(500);
      res.end('No dataset');
    }
  } else if (path === '/async-db') {
    if (!pgPool) {
      res.writeHead(200, { 'content-type': 'application/json', ...SERVER_HEADERS });
      res.end('{"items":[],"count":0}');
    } else {
      const p = queryParams(url);
      const min = parseInt(p.min, 10) || 10;
      const max = parseInt(p.max, 10) || 50;
      let limit = parseInt(p.limit, 10) || 50;
      if (limit < 1) limit = 1;
      if (limit > 50) limit = 50;
      pgPool
        .query(
          'SELECT id, name, category, price, quantity, active, tags, rating_score, rating_count FROM items WHERE price BETWEEN $1 AND $2 LIMIT $3',
          [min, max, limit],
        )
        .then((result) => {
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
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...SERVER_HEADERS,
          });
          res.end(body);
        })
        .catch(() => {
          res.writeHead(200, { 'content-type': 'application/json', ...SERVER_HEADERS });
          res.end('{"items":[],"count":0}');
        });
    }
  } else if (path === '/baseline2') {
    const body = String(sumQuery(url));
    res.writeHead(200, { 'content-type': 'text/plain', ...SERVER_HEADERS });
    res.end(body);
  } else if (path === '/upload' && req.method === 'POST') {
    let size = 0;
    req.on('data', (chunk) => (size += chunk.length));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', ...SERVER_HEADERS });
      res.end(String(size));
    });
  } else if (path.startsWith('/static/')) {
    const name = path.slice(8);
    const sf = staticFiles[name];
    if (sf) {
      res.writeHead(200, { 'content-type': sf.ct, 'content-length': sf.buf.length, ...SERVER_HEADERS });
      res.end(sf.buf);
    } else {
      res.writeHead(404);
      res.end();
    }
  } else {
    // /baseline11 — GET or POST
    const querySum = sumQuery(url);
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        let total = querySum;
        const n = parseInt(body.trim(), 10);
        if (n === n) total += n;
        res.writeHead(200, { 'content-type': 'text/plain', ...SERVER_HEADERS });
        res.end(String(total));
      });
    } else {
      res.writeHead(200, { 'content-type': 'text/plain', ...SERVER_HEADERS });
      res.end(String(querySum));
    }
  }
});

server.keepAliveTimeout = 0;

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
          res.writeHead(200, { 'content-type': sf.ct, 'content-length': sf.buf.length, server: 'node' });
          res.end(sf.buf);
        } else {
          res.writeHead(404);
          res.end();
        }
      } else {
        const sum = sumQuery(url);
        res.writeHead(200, { 'content-type': 'text/plain', server: 'node' });
        res.end(String(sum));
      }
    });
    h2server.listen(Number(process.env.H2PORT ?? 8443));
  } catch (e) {
    // TLS certs not available, skip H2
  }
}

const workers = Number(
  process.env.ARENA_WORKERS ?? (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
);
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  loadDataset();
  loadStaticFiles();
  loadPgPool();
  server.listen(Number(process.env.PORT ?? 8080));
  startH2();
}
