// Pipelined HTTP/1.1 requests must be answered in request order, whatever order handlers finish in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildRequest,
  isImfFixdate,
  parseResponses,
  RawConn,
  rawRequest,
  show,
  sleep,
  T,
  withApp,
} from '../helpers.js';

test('10 pipelined GETs in one write are answered in order', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/n/:i', (req) => `i=${req.params.i}`);
  });
  const reqs: Buffer[] = [];
  for (let i = 0; i < 10; i++) {
    reqs.push(buildRequest({ path: `/n/${i}`, headers: i === 9 ? { Connection: 'close' } : {} }));
  }
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 5000 });
  assert.equal(r.closed, true, 'server must close after the request with Connection: close');
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 10, `expected 10 responses, got ${show(r.data)}`);
  responses.forEach((res, i) => {
    assert.equal(res.status, 200, `response ${i}: ${res.statusLine}`);
    assert.equal(res.text, `i=${i}`, `response ${i} out of order`);
    assert.equal(res.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.get('content-length'), String(res.body.length));
    assert.ok(isImfFixdate(res.get('date')), `response ${i} Date: ${res.get('date')}`);
  });
  for (let i = 0; i < 9; i++) assert.notEqual(responses[i]?.get('connection')?.toLowerCase(), 'close', `response ${i}`);
  assert.equal(responses[9]?.get('connection'), 'close');
});

test('async handlers finishing in reverse order are still answered in request order', T, async (t) => {
  const finished: number[] = [];
  const { port } = await withApp(t, (app) => {
    app.get('/slow/:i', async (req) => {
      const i = Number(req.params.i);
      await sleep((10 - i) * 25); // request 0 finishes last
      finished.push(i);
      return `slow ${i}`;
    });
  });
  const reqs: Buffer[] = [];
  for (let i = 0; i < 10; i++)
    reqs.push(buildRequest({ path: `/slow/${i}`, headers: i === 9 ? { Connection: 'close' } : {} }));
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 8000 });
  assert.equal(r.closed, true);
  const responses = parseResponses(r.data);
  assert.deepEqual(
    responses.map((x) => `${x.status} ${x.text}`),
    Array.from({ length: 10 }, (_, i) => `200 slow ${i}`),
  );
  assert.equal(finished.length, 10, 'every handler ran exactly once');
  assert.deepEqual(
    [...finished].sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('random async delays: responses stay in order', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/r/:i', async (req) => {
      await sleep(Number(req.query.d));
      return { i: Number(req.params.i) };
    });
  });
  const delays = Array.from({ length: 16 }, () => Math.floor(Math.random() * 80));
  const reqs = delays.map((d, i) =>
    buildRequest({ path: `/r/${i}?d=${d}`, headers: i === 15 ? { Connection: 'close' } : {} }),
  );
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 8000 });
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 16, `delays ${delays.join(',')}: ${show(r.data)}`);
  responses.forEach((res, i) => {
    assert.equal(res.status, 200);
    assert.match(res.get('content-type') ?? '', /^application\/json(; ?charset=utf-8)?$/i);
    assert.deepEqual(JSON.parse(res.text), { i }, `delays ${delays.join(',')}`);
  });
});

test('mixed sync, async, streamed and body-reading handlers in one pipeline', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/sync', () => 'sync');
    app.get('/async', async () => {
      await sleep(60);
      return 'async';
    });
    app.get('/stream', async (_req, res) => {
      res.write('str');
      await sleep(40);
      res.write('eam');
      res.end();
    });
    app.post('/echo', async (req) => `echo:${await req.text()}`);
    app.get('/bytes', () => new Uint8Array([1, 2, 3]));
  });
  const order = [
    buildRequest({ path: '/async' }),
    buildRequest({ path: '/sync' }),
    buildRequest({ path: '/stream' }),
    buildRequest({ method: 'POST', path: '/echo', body: 'payload-1' }),
    buildRequest({ path: '/async' }),
    buildRequest({ path: '/bytes' }),
    buildRequest({ path: '/sync' }),
    buildRequest({ method: 'POST', path: '/echo', body: 'payload-2', headers: { Connection: 'close' } }),
  ];
  const r = await rawRequest(port, Buffer.concat(order), { waitForClose: true, timeoutMs: 8000 });
  assert.equal(r.closed, true);
  const responses = parseResponses(r.data);
  assert.deepEqual(
    responses.map((x) => x.status),
    [200, 200, 200, 200, 200, 200, 200, 200],
  );
  assert.deepEqual(
    responses.map((x) => x.body.toString('latin1')),
    ['async', 'sync', 'stream', 'echo:payload-1', 'async', '\x01\x02\x03', 'sync', 'echo:payload-2'],
  );
  assert.equal(responses[2]?.chunked, true, 'write() response must be chunked');
  assert.equal(responses[5]?.get('content-type'), 'application/octet-stream');
});

test('a pipeline written one byte at a time is parsed correctly', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/a/:x', (req) => `got ${req.params.x}`);
    app.post('/len', async (req) => String((await req.text()).length));
  });
  const bytes = Buffer.concat([
    buildRequest({ path: '/a/one' }),
    buildRequest({ method: 'POST', path: '/len', body: 'abcdefghij' }),
    buildRequest({ path: '/a/three', headers: { Connection: 'close' } }),
  ]);
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.writeSlowly(bytes, 1, 0);
  assert.equal(await conn.waitForClose(5000), true);
  const responses = parseResponses(conn.all());
  assert.deepEqual(
    responses.map((x) => `${x.status} ${x.text}`),
    ['200 got one', '200 10', '200 got three'],
  );
});

test('second batch of pipelined requests on the same keep-alive socket', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/x/:i', async (req) => {
      await sleep(Number(req.params.i) % 2 === 0 ? 30 : 0);
      return req.params.i;
    });
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  await conn.write(Buffer.concat([0, 1, 2].map((i) => buildRequest({ path: `/x/${i}` }))));
  for (const i of [0, 1, 2]) assert.equal((await conn.readResponse()).text, String(i));
  await conn.write(Buffer.concat([3, 4, 5].map((i) => buildRequest({ path: `/x/${i}` }))));
  for (const i of [3, 4, 5]) assert.equal((await conn.readResponse()).text, String(i));
  assert.equal(conn.closed, false);
  assert.equal(conn.buf.length, 0, `unexpected extra bytes ${show(conn.buf)}`);
});

test('200 pipelined requests in one write (≈10 KB) are all answered in order', T, async (t) => {
  const { port } = await withApp(t, (app) => {
    app.get('/k/:i', async (req) => {
      const i = Number(req.params.i);
      if (i % 3 === 0) await sleep(i % 7);
      return req.params.i;
    });
  });
  const reqs: Buffer[] = [];
  for (let i = 0; i < 200; i++)
    reqs.push(buildRequest({ path: `/k/${i}`, headers: i === 199 ? { Connection: 'close' } : {} }));
  const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 8000 });
  assert.equal(r.closed, true);
  const responses = parseResponses(r.data);
  assert.equal(responses.length, 200);
  responses.forEach((res, i) => {
    assert.equal(`${res.status} ${res.text}`, `200 ${i}`);
  });
});

test(
  'promise jobs run between pipelined requests, not only after the whole read (at most 32 handlers apart)',
  T,
  async (t) => {
    // As node:http runs them after each callback: what an awaiting handler allocates dies young instead of living
    // until every request of the read (or of every ready connection) has been dispatched.
    let entered = 0;
    const lag: number[] = [];
    const { port } = await withApp(t, (app) => {
      app.get('/j/:i', async () => {
        const at = ++entered;
        await Promise.resolve();
        lag.push(entered - at);
        return 'ok';
      });
    });
    const reqs: Buffer[] = [];
    for (let i = 0; i < 200; i++)
      reqs.push(buildRequest({ path: `/j/${i}`, headers: i === 199 ? { Connection: 'close' } : {} }));
    const r = await rawRequest(port, Buffer.concat(reqs), { waitForClose: true, timeoutMs: 8000 });
    assert.equal(parseResponses(r.data).length, 200);
    assert.equal(lag.length, 200);
    assert.ok(Math.max(...lag) <= 32, `a handler resumed only after ${Math.max(...lag)} later ones had started`);
  },
);
