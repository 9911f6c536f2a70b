// HttpArena's Fastify entry (its frameworks/fastify/server.js, MIT, removed from its tree on 2026-04-10 at d5c87281)
// as the arena bench runs it: Fastify 5 with its content-type parsers, the upload route in an encapsulated plugin that
// reads the raw stream, preloaded static files and `pg` with a pool of 4, as written there; brought to today's
// contract the way HttpArena's live JS entries (ultimate-express) answer it: `/json/:count?m=` with each item's total,
// `/async-db` with `limit`, and json-comp by gzip (level 1, as that entry compressed its `/compression` answer) when
// the client accepts it. Data from ARENA_DATA, port from PORT.
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import cluster from 'node:cluster';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const dataDir = process.env.ARENA_DATA ?? '/data';
const SERVER_NAME = 'fastify';

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

  const Fastify = require('fastify');
  const app = Fastify({ logger: false, bodyLimit: 50 * 1024 * 1024 });

  // Register raw body parsers so req.body is available without manual stream reading
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (req, body, done) => done(null, body));
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (req, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => done(null, body));

  app.get('/static/:filename', (req, reply) => {
    const sf = staticFiles[req.params.filename];
    if (sf) {
      reply
        .header('server', SERVER_NAME)
        .header('content-type', sf.ct)
        .header('content-length', sf.buf.length)
        .send(sf.buf);
    } else {
      reply.code(404).send();
    }
  });

  app.get('/baseline11', (req, reply) => {
    const s = sumQuery(req.query);
    reply.header('server', SERVER_NAME).type('text/plain').send(String(s));
  });

  app.post('/baseline11', (req, reply) => {
    const querySum = sumQuery(req.query);
    const body = typeof req.body === 'string' ? req.body : req.body ? req.body.toString() : '';
    let total = querySum;
    const n = parseInt(body.trim(), 10);
    if (n === n) total += n;
    reply.header('server', SERVER_NAME).type('text/plain').send(String(total));
  });

  app.get('/baseline2', (req, reply) => {
    const s = sumQuery(req.query);
    reply.header('server', SERVER_NAME).type('text/plain').send(String(s));
  });

  // --- /pipeline ---
  app.get('/pipeline', (req, reply) => {
    reply.header('server', SERVER_NAME).type('text/plain').send('ok');
  });

  // --- /json/:count ---
  app.get('/json/:count', (req, reply) => {
    if (!datasetItems) {
      reply.code(500).send('No dataset');
      return;
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
      reply
        .header('server', SERVER_NAME)
        .header('content-type', 'application/json')
        .header('content-encoding', 'gzip')
        .header('content-length', compressed.length)
        .send(compressed);
    } else {
      reply
        .header('server', SERVER_NAME)
        .header('content-type', 'application/json')
        .header('content-length', buf.length)
        .send(buf);
    }
  });

  // --- /async-db ---
  app.get('/async-db', async (req, reply) => {
    if (!pgPool) {
      reply.header('server', SERVER_NAME).type('application/json').send('{"items":[],"count":0}');
      return;
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
      reply
        .header('server', SERVER_NAME)
        .header('content-type', 'application/json')
        .header('content-length', Buffer.byteLength(body))
        .send(body);
    } catch (e) {
      reply.header('server', SERVER_NAME).type('application/json').send('{"items":[],"count":0}');
    }
  });

  // --- /upload --- (streaming: bypass Fastify body parsing via encapsulated plugin)
  app.register(function (instance, opts, done) {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', function (request, payload, done) {
      done(null);
    });
    instance.post('/upload', (req, reply) => {
      let size = 0;
      req.raw.on('data', (chunk) => {
        size += chunk.length;
      });
      req.raw.on('end', () => {
        reply.header('server', SERVER_NAME).type('text/plain').send(String(size));
      });
    });
    done();
  });

  // Start HTTP/1.1 server
  app.listen({ port: Number(process.env.PORT ?? 8080), host: '0.0.0.0' }).then(() => {
    // Also start HTTP/2 server on 8443 (H2PORT here)
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

// --- Shared route handlers (its H1 instance has them inline above; its H2 instance registers them here) ---
function registerSharedRoutes(app) {
  app.get('/static/:filename', (req, reply) => {
    const sf = staticFiles[req.params.filename];
    if (sf) {
      reply
        .header('server', SERVER_NAME)
        .header('content-type', sf.ct)
        .header('content-length', sf.buf.length)
        .send(sf.buf);
    } else {
      reply.code(404).send();
    }
  });

  app.get('/baseline11', (req, reply) => {
    const s = sumQuery(req.query);
    reply.header('server', SERVER_NAME).type('text/plain').send(String(s));
  });

  app.post('/baseline11', (req, reply) => {
    const querySum = sumQuery(req.query);
    const body = typeof req.body === 'string' ? req.body : req.body ? req.body.toString() : '';
    let total = querySum;
    const n = parseInt(body.trim(), 10);
    if (n === n) total += n;
    reply.header('server', SERVER_NAME).type('text/plain').send(String(total));
  });

  app.get('/baseline2', (req, reply) => {
    const s = sumQuery(req.query);
    reply.header('server', SERVER_NAME).type('text/plain').send(String(s));
  });
}

function startH2() {
  const certFile = process.env.TLS_CERT || '/certs/server.crt';
  const keyFile = process.env.TLS_KEY || '/certs/server.key';
  try {
    const Fastify = require('fastify');
    const h2app = Fastify({
      logger: false,
      http2: true,
      https: {
        cert: fs.readFileSync(certFile),
        key: fs.readFileSync(keyFile),
        allowHTTP1: false,
      },
      bodyLimit: 50 * 1024 * 1024,
    });

    h2app.addContentTypeParser('text/plain', { parseAs: 'string' }, (req, body, done) => done(null, body));
    h2app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (req, body, done) =>
      done(null, body),
    );
    h2app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => done(null, body));

    registerSharedRoutes(h2app);
    h2app.listen({ port: Number(process.env.H2PORT ?? 8443), host: '0.0.0.0' });
  } catch (e) {
    // TLS certs not available, skip H2
  }
}
