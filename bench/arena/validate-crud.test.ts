// The crud checks (validate-crud.ts) against a crud server written here on node:http with the rows in memory: it
// passes every check, each way of breaking the cache rules fails the check HttpArena has for it, and under load
// arena.lua fills gcannon's placeholders ({RAND:1:50000} ids spread over the range, {SEQ:100001} counting up).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { wrk } from '../lib/wrk.ts';
import { arenaData } from './data.ts';
import { loadRun } from './load.ts';
import { profileById } from './profiles.ts';
import { validate } from './validate.ts';

type Wrong = 'none' | 'never-hit' | 'put-keeps-cache' | 'missing-200';
let wrong: Wrong = 'none';
const rows = new Map<number, Record<string, unknown>>();
const cache = new Map<number, { json: string; until: number }>();
const readIds: number[] = [];
const createdIds: number[] = [];
let server: http.Server;
let port: number;

const row = (id: number) => ({
  id,
  name: `Item ${id}`,
  category: id % 2 ? 'office' : 'electronics',
  price: id % 500,
  quantity: 3,
  active: true,
  tags: ['a'],
  rating: { score: 4, count: 9 },
});

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): unknown {
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (status: number, v: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof v === 'string' ? v : JSON.stringify(v));
  };
  const m = /^\/crud\/items\/(\d+)$/.exec(url.pathname);
  if (url.pathname === '/crud/items' && req.method === 'GET') {
    const limit = Number(url.searchParams.get('limit') ?? 10);
    const page = Number(url.searchParams.get('page') ?? 1);
    const cat = url.searchParams.get('category') ?? 'electronics';
    const items = [...rows.values()].filter((r) => r.category === cat).slice((page - 1) * limit, page * limit);
    return send(200, { items, total: items.length, page, limit });
  }
  if (url.pathname === '/crud/items' && req.method === 'POST') {
    const b = JSON.parse(body);
    createdIds.push(b.id);
    rows.set(b.id, { ...row(b.id), ...b });
    return send(201, b);
  }
  if (m && req.method === 'GET') {
    const id = Number(m[1]);
    readIds.push(id);
    const hit = cache.get(id);
    if (hit && hit.until > Date.now() && wrong !== 'never-hit') return send(200, hit.json, { 'x-cache': 'HIT' });
    const r = rows.get(id);
    if (!r) return wrong === 'missing-200' ? send(200, {}) : send(404, 'Not found');
    const json = JSON.stringify(r);
    cache.set(id, { json, until: Date.now() + 200 });
    return send(200, json, { 'x-cache': 'MISS' });
  }
  if (m && req.method === 'PUT') {
    const id = Number(m[1]);
    if (!rows.has(id)) return send(404, 'Not found');
    rows.set(id, { ...rows.get(id), ...JSON.parse(body) });
    if (wrong !== 'put-keeps-cache') cache.delete(id);
    return send(200, { id });
  }
  if (url.pathname === '/async-db') {
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const min = Number(url.searchParams.get('min'));
    const items = [...rows.values()].filter((r) => (r.price as number) >= min).slice(0, limit);
    return send(200, { items, count: items.length });
  }
  send(404, 'Not found');
}

before(async () => {
  for (let id = 1; id <= 50_000; id++) rows.set(id, row(id));
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

const failed = async () => {
  cache.clear(); // each run starts cold, as a freshly started server does
  return (await validate('crud', port, arenaData()))
    .filter((c) => !c.ok)
    .map((c) => c.label)
    .sort();
};

test('a server keeping the crud rules passes every check', async () => {
  wrong = 'none';
  assert.deepEqual(await failed(), []);
});

test('a cache that never hits fails cache-aside; one that survives a PUT fails the update check', async () => {
  wrong = 'never-hit';
  assert.deepEqual(await failed(), ['crud cache-aside (first MISS, then HIT)']);
  wrong = 'put-keeps-cache';
  assert.deepEqual(await failed(), ['PUT /crud/items/200001 → 200, and the cached item invalidated']);
  wrong = 'missing-200';
  assert.deepEqual(await failed(), ['GET /crud/items/999999 → 404']);
  wrong = 'none';
});

test('under load, ids are random over 1..50000 and created ids count up from 100001', async () => {
  assert.equal(wrk.missing(), null, 'wrk is needed: apt-get install -y wrk');
  readIds.length = 0;
  createdIds.length = 0;
  const data = arenaData();
  const l = await loadRun({
    profile: profileById('crud'),
    data,
    port,
    connections: 8,
    durationS: 1,
    cpu: 1,
    nofile: 4096,
  });
  assert.equal(l.failure, undefined);
  assert.equal(l.invalid, 0, l.firstInvalid);
  assert.ok(l.checked > 500, `${l.checked} answers`);
  assert.ok(readIds.every((id) => id >= 1 && id <= 50_000));
  // Uniform draws over 50 000 repeat by chance (birthday collisions grow with the number of reads, ~10 % at 10 000):
  // the distinct count is held to what uniform draws give, not to a fixed share of the reads.
  const uniform = 50_000 * (1 - (1 - 1 / 50_000) ** readIds.length);
  const distinct = new Set(readIds).size;
  assert.ok(distinct > uniform * 0.95, `the ids are spread, not repeated: ${distinct} distinct of ${readIds.length}`);
  assert.deepEqual(
    createdIds,
    createdIds.map((_, i) => 100_001 + i),
  );
  // The mix: a read is 15 of 20 templates, a create 1 of 20.
  assert.ok(Math.abs(readIds.length / l.checked - 0.75) < 0.05, `${readIds.length} reads of ${l.checked}`);
});
