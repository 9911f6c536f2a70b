// Benchmark app: plain node:http. Serves the HTTP scenarios of bench/lib/scenarios.ts on 127.0.0.1:$PORT.
// Static files the plain way, as a baseline: fs.stat + fs.createReadStream per request, with ETag/Last-Modified and
// one-range requests (no conditional requests, no cache). Prints nothing but errors.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { extname, join, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { ensureLargeFile, prerenderedDir, publicDir } from '../../examples/demo/assets.mjs';

ensureLargeFile();

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.bin': 'application/octet-stream',
};

/** The file under `dir` for URL path `rel` (already without its mount prefix), or null when it escapes `dir`. */
function resolveIn(dir, rel) {
  let decoded;
  try {
    decoded = decodeURIComponent(rel);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const file = join(dir, decoded);
  return file.startsWith(dir + sep) ? file : null;
}

/** One `bytes=a-b` / `bytes=a-` / `bytes=-n` range of a `size`-byte file: [start, end], 'bad' (416) or null (ignore). */
function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start;
  let end;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'bad';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? 'bad' : [start, end];
}

async function sendFile(req, res, file) {
  let st;
  try {
    st = await stat(file);
  } catch {
    st = null;
  }
  if (!st?.isFile()) {
    res.writeHead(404, TEXT_HEADERS);
    res.end('Not Found');
    return;
  }
  const headers = {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Last-Modified': st.mtime.toUTCString(),
    ETag: `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
    'Accept-Ranges': 'bytes',
  };
  const range = req.headers.range === undefined ? null : parseRange(req.headers.range, st.size);
  if (range === 'bad') {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${st.size}` });
    res.end();
    return;
  }
  const [start, end] = range ?? [0, st.size - 1];
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${st.size}`;
  headers['Content-Length'] = String(end - start + 1);
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD' || st.size === 0) {
    res.end();
    return;
  }
  pipeline(createReadStream(file, { start, end }), res, () => {});
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8' };

async function runSteps(res) {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  res.writeHead(200, JSON_HEADERS);
  res.end(JSON.stringify({ hello: 'world' }));
}

function runSyncSteps(res, i) {
  if (i < 5) return runSyncSteps(res, i + 1);
  res.writeHead(200, JSON_HEADERS);
  res.end(JSON.stringify({ hello: 'world' }));
}

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (req.method === 'GET') {
    if (path === '/') {
      res.writeHead(200, JSON_HEADERS);
      res.end(JSON.stringify({ hello: 'world' }));
      return;
    }
    if (path === '/mw-sync') {
      // Five plain synchronous steps in front of the answer, as a baseline for middleware-sync.
      runSyncSteps(res, 0);
      return;
    }
    if (path === '/async' || path === '/async-io') {
      // async / async-io: an awaited resolved promise, or one setImmediate, before the answer.
      const io = path === '/async-io';
      (async () => {
        if (io) await new Promise((resolve) => setImmediate(resolve));
        else await Promise.resolve();
        res.writeHead(200, JSON_HEADERS);
        res.end(JSON.stringify({ hello: 'world' }));
      })();
      return;
    }
    if (path === '/mw') {
      // node:http has no middleware: five no-op async steps in front of the answer, as a baseline.
      runSteps(res).catch((err) => {
        res.writeHead(500, JSON_HEADERS);
        res.end(JSON.stringify({ error: String(err) }));
      });
      return;
    }
    if (path === '/json') {
      res.writeHead(200, JSON_HEADERS);
      res.end(JSON.stringify({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
      return;
    }
    if (path === '/text') {
      res.writeHead(200, TEXT_HEADERS);
      res.end('Hello 世界');
      return;
    }
    if (path.startsWith('/hello/') && path.indexOf('/', 7) === -1 && path.length > 7) {
      let name = path.slice(7);
      try {
        name = decodeURIComponent(name);
      } catch {}
      res.writeHead(200, TEXT_HEADERS);
      res.end(`Hello ${name}`);
      return;
    }
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    const file = path.startsWith('/static/')
      ? resolveIn(publicDir, path.slice('/static'.length))
      : path !== '/'
        ? resolveIn(prerenderedDir, path)
        : null;
    if (file) {
      sendFile(req, res, file).catch((err) => {
        console.error(err);
        res.destroy();
      });
      return;
    }
  }
  res.writeHead(404, TEXT_HEADERS);
  res.end('Not Found');
});

server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
