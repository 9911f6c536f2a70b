// The arena's checks against a server written here on node:http to HttpArena's contract: it passes every ported
// validate.sh check, and each way of breaking it fails the check HttpArena has for that; under load, arena.lua counts
// a wrong answer and renews connections every `-r` requests. (async-db against a real Postgres: `npm run bench --
// arena --quick` in CI; its answer checks are unit-tested here.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { wrk } from '../lib/wrk.ts';
import { type ArenaData, arenaData } from './data.ts';
import { loadRun } from './load.ts';
import { profileById } from './profiles.ts';
import { asyncDbProblem, bodyOf, headerMatches, jsonProblem, validate } from './validate.ts';

type Wrong =
  | 'none'
  | 'baseline-constant'
  | 'pipeline-type'
  | 'json-total'
  | 'comp-always'
  | 'upload-cap'
  | 'static-404'
  | 'split-body'
  | 'late-wrong';

const dataset = JSON.parse(readFileSync(join(import.meta.dirname, 'data', 'dataset.json'), 'utf8')) as {
  price: number;
  quantity: number;
}[];
const types: Record<string, string> = {
  css: 'text/css',
  js: 'application/javascript',
  html: 'text/html',
  woff2: 'font/woff2',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  json: 'application/json',
};

let data: ArenaData;
let wrong: Wrong = 'none';
let served = 0;
let connections = 0;
let server: http.Server;
let port: number;

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): unknown {
  served++;
  const url = new URL(req.url ?? '/', 'http://x');
  const sum = [...url.searchParams.values()].reduce((a, v) => a + (Number.parseInt(v, 10) || 0), 0);
  const text = (s: string, type = 'text/plain') => {
    res.writeHead(200, { 'content-type': type });
    res.end(s);
  };
  if (url.pathname === '/pipeline') {
    if (wrong === 'late-wrong' && served > 100) return text('no');
    return text('ok', wrong === 'pipeline-type' ? 'application/json' : 'text/plain');
  }
  if (url.pathname === '/baseline11') {
    if (wrong === 'baseline-constant') return text(req.method === 'POST' ? '75' : '55');
    const n = Number.parseInt(body.toString().trim(), 10);
    return text(String(sum + (Number.isNaN(n) ? 0 : n)));
  }
  const json = /^\/json\/(\d+)$/.exec(url.pathname);
  if (json) {
    const count = Math.min(Number(json[1]), dataset.length);
    const m = wrong === 'json-total' ? 1 : Number(url.searchParams.get('m') ?? 1);
    const items = dataset.slice(0, count).map((d) => ({ ...d, total: d.price * d.quantity * m }));
    const out = Buffer.from(JSON.stringify({ items, count }));
    const ae = String(req.headers['accept-encoding'] ?? '');
    if (ae.includes('gzip') || wrong === 'comp-always') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      return void res.end(gzipSync(out));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(out);
  }
  if (url.pathname === '/upload')
    return text(String(wrong === 'upload-cap' ? Math.min(body.length, 1 << 20) : body.length));
  if (url.pathname.startsWith('/static/')) {
    const name = url.pathname.slice('/static/'.length);
    let file: Buffer;
    try {
      file = readFileSync(join(data.dir, 'static', name));
    } catch {
      res.writeHead(wrong === 'static-404' ? 200 : 404);
      return void res.end('Not found');
    }
    const type = types[name.split('.').pop() ?? ''] ?? 'application/octet-stream';
    if (String(req.headers['accept-encoding'] ?? '').includes('br') && !name.endsWith('.webp')) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'br' });
      return void res.end(brotliCompressSync(file));
    }
    res.writeHead(200, { 'content-type': type });
    return void res.end(file);
  }
  res.writeHead(404);
  res.end();
}

before(async () => {
  data = arenaData();
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    // split-body: a server that takes the first piece of a body for all of it.
    req.on('data', (c: Buffer) => {
      if (wrong !== 'split-body' || chunks.length === 0) chunks.push(c);
    });
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

async function failing(profile: string, mode: Wrong): Promise<string[]> {
  wrong = mode;
  try {
    return (await validate(profile, port, data)).filter((c) => !c.ok).map((c) => c.label);
  } finally {
    wrong = 'none';
  }
}

test('a server that keeps the contract passes every check of each profile', async () => {
  for (const p of ['baseline', 'limited-conn', 'pipelined', 'json', 'json-comp', 'upload', 'static']) {
    const checks = await validate(p, port, data);
    assert.ok(checks.length >= 2, `${p}: ${checks.length} checks`);
    assert.deepEqual(
      checks.filter((c) => !c.ok),
      [],
      p,
    );
  }
});

test('each way of breaking the contract fails the check HttpArena has for it', async () => {
  const random = await failing('baseline', 'baseline-constant');
  assert.ok(
    random.some((l) => l.includes('(random)')),
    String(random),
  );
  assert.ok(
    random.some((l) => l.includes('cache check')),
    String(random),
  );
  assert.deepEqual(await failing('pipelined', 'pipeline-type'), ['GET /pipeline Content-Type']);
  assert.deepEqual(await failing('json', 'json-total'), ['GET /json/{count}?m=X (4 counts with multipliers)']);
  assert.deepEqual(await failing('json-comp', 'comp-always'), [
    'json-comp per-request (no Content-Encoding without Accept-Encoding)',
  ]);
  assert.deepEqual(await failing('upload', 'upload-cap'), ['POST /upload (4 sizes: 500K, 2M, 10M, 20M)']);
  assert.deepEqual(await failing('static', 'static-404'), ['GET /static/nonexistent.txt → 404']);
  assert.deepEqual(await failing('baseline', 'split-body'), ['POST /baseline11 — split body bytes']);
});

test('a server that is not there fails with the reason, not a crash', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const p = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const checks = await validate('pipelined', p, data);
  assert.ok(checks.length > 0 && checks.every((c) => !c.ok && /ECONNREFUSED/.test(c.detail)), JSON.stringify(checks));
});

test('the answer checks: json totals, async-db structure, de-chunking, header rule', () => {
  const items = [{ price: 2, quantity: 3, total: 18 }];
  assert.equal(jsonProblem(Buffer.from(JSON.stringify({ items, count: 1 })), 1, 3), null);
  assert.match(jsonProblem(Buffer.from(JSON.stringify({ items, count: 1 })), 1, 2) ?? '', /correct_totals=false/);
  assert.match(jsonProblem(Buffer.from('nope'), 1, 2) ?? '', /not JSON/);
  const row = { rating: { score: 1, count: 2 }, tags: ['a'], active: true };
  assert.equal(asyncDbProblem(Buffer.from(JSON.stringify({ items: [row, row], count: 2 })), 2), null);
  assert.match(
    asyncDbProblem(Buffer.from(JSON.stringify({ items: [{ ...row, active: 1 }], count: 1 })), 1) ?? '',
    /active=false/,
  );
  assert.match(asyncDbProblem(Buffer.from(JSON.stringify({ items: [row], count: 1 })), 7) ?? '', /count=1/);
  assert.equal(bodyOf('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n5\r\n1;x=y\r\n5\r\n0\r\n\r\n'), '55');
  assert.equal(bodyOf('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n75junk'), '75');
  assert.ok(headerMatches('text/javascript; charset=utf-8', 'application/javascript'));
  assert.ok(headerMatches('text/plain;charset=utf-8', 'text/plain'));
  assert.ok(!headerMatches('text/plainer', 'text/plain'));
  assert.ok(!headerMatches(undefined, 'text/plain'));
});

test('under load, arena.lua counts a wrong answer and renews a connection every -r requests', async () => {
  const missing = wrk.missing();
  assert.equal(missing, null, missing ?? '');
  const base = { data, port, durationS: 1, cpu: 1, nofile: 4096 };
  served = 0;
  wrong = 'late-wrong';
  const bad = await loadRun({ ...base, profile: profileById('pipelined'), connections: 4 });
  wrong = 'none';
  assert.ok(bad.checked > 100 && bad.invalid > 0, JSON.stringify(bad));
  assert.match(bad.firstInvalid, /2-byte body: no/);

  connections = 0;
  const renewed = await loadRun({ ...base, profile: profileById('limited-conn'), connections: 8 });
  assert.equal(renewed.invalid, 0, renewed.firstInvalid);
  assert.equal(renewed.failure, undefined);
  // One Connection: close in ten requests: about a tenth as many connections as answers (plus the first eight).
  const expected = renewed.checked / 10;
  assert.ok(
    connections > expected * 0.7 && connections < expected * 1.3 + 8,
    `${connections} connections for ${renewed.checked} answers`,
  );
});
