// HTTP/3 through the engine, checked with a second independent client: the Rust one in bench/loadgen-h3 (quinn + h3,
// the QUIC and HTTP/3 crates hyper's authors keep). GET, POST bodies, a streamed download, the engine's errors and
// a short load on several connections, each response checked for its exact status and body.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testPki } from '../h2/h2.js';
import { runH3 } from './rust-client.js';
import { h3App } from './server.js';

const dir = mkdtempSync(join(tmpdir(), 'gale-h3-rust-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const ca = () => testPki().pki.caPath;

/** Runs the client once (--requests 1 unless `args` says otherwise) and asserts it found every response valid. */
async function valid(port: number, path: string, args: string[]) {
  const run = await runH3(port, path, ca(), ['--requests', '1', '--connections', '1', ...args]);
  assert.equal(run.code, 0, `gale-loadgen-h3 exited ${run.code}: ${JSON.stringify(run.result)} ${run.stderr}`);
  assert.equal(run.result?.protocol, 'h3');
  assert.ok((run.result?.ok ?? 0) >= 1);
  return run.result;
}

test('a GET with a path parameter, query and header: the route sees HTTP/3 over TLS', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/hello/:name', (req) =>
      JSON.stringify([req.params.name, req.httpVersion, req.secure, req.query.q, req.headers['x-test']]),
    );
  });
  await valid(port, '/hello/h%C3%A9?q=1', ['--header', 'x-test: yes', '--expect-body', '["hé","3.0",true,"1","yes"]']);
});

test('POST bodies: 300 KB echoed byte for byte, and a JSON body parsed by the route', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.post('/echo', async (req) => Buffer.from(await req.arrayBuffer()));
    app.post('/json', async (req) => {
      const body = (await req.json()) as { n: number };
      return { doubled: body.n * 2 };
    });
  });
  const file = join(dir, 'body.bin');
  writeFileSync(file, randomBytes(300_000));
  await valid(port, '/echo', ['--method', 'POST', '--body-file', file, '--expect-body-file', file]);
  await valid(port, '/json', [
    '--method',
    'POST',
    '--header',
    'content-type: application/json',
    '--body',
    '{"n":21}',
    '--expect-body',
    '{"doubled":42}',
  ]);
});

test('a 2 MiB streamed download, written with backpressure, arrives whole', async (t) => {
  const piece = randomBytes(64 * 1024);
  const { port } = await h3App(t, (app) => {
    app.get('/big', (_req, res) => {
      let n = 0;
      const more = () => {
        while (n < 32) {
          n++;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
  });
  const file = join(dir, 'big.bin');
  writeFileSync(file, Buffer.concat(Array.from({ length: 32 }, () => piece)));
  await valid(port, '/big', ['--expect-body-file', file, '--timeout', '10']);
});

test('segmentationOffload: false (no GSO or GRO): a 2 MiB download and a 300 KB upload arrive whole', async (t) => {
  const big = randomBytes(2 * 1024 * 1024);
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/big', () => big);
      app.post('/echo', async (req) => Buffer.from(await req.arrayBuffer()));
    },
    { http3: { segmentationOffload: false } },
  );
  const down = join(dir, 'big-no-offload.bin');
  writeFileSync(down, big);
  await valid(port, '/big', ['--expect-body-file', down, '--timeout', '10']);
  const up = join(dir, 'up-no-offload.bin');
  writeFileSync(up, randomBytes(300_000));
  await valid(port, '/echo', ['--method', 'POST', '--body-file', up, '--expect-body-file', up]);
});

test('errors: 404 and 405 native answers, 413 over bodyLimit, a throwing route’s 500', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/text', () => 'text');
      app.post('/in', async (req) => String((await req.text()).length));
      app.get('/throws', () => {
        throw new Error('boom');
      });
    },
    { gale: { bodyLimit: 1000 } },
  );
  await valid(port, '/nope', ['--expect-status', '404', '--expect-body', 'Not Found']);
  await valid(port, '/text', ['--method', 'DELETE', '--expect-status', '405', '--expect-body', 'Method Not Allowed']);
  const big = join(dir, 'too-big.bin');
  writeFileSync(big, Buffer.alloc(5000));
  await valid(port, '/in', [
    '--method',
    'POST',
    '--body-file',
    big,
    '--expect-status',
    '413',
    '--expect-body',
    "Content Too Large: the request body is larger than 1000 bytes. Send a smaller body, or raise the server's bodyLimit option.",
  ]);
  await valid(port, '/throws', ['--expect-status', '500', '--expect-body', 'Internal Server Error']);
});

test('a short load: 4 connections × 8 streams for 1 s, every response valid, no error', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/json', () => ({ hello: 'world' }));
  });
  const run = await runH3(port, '/json', ca(), [
    '--connections',
    '4',
    '--streams',
    '8',
    '--duration',
    '1',
    '--expect-body',
    '{"hello":"world"}',
  ]);
  assert.equal(run.code, 0, `${JSON.stringify(run.result)} ${run.stderr}`);
  const r = run.result;
  assert.ok(r && r.ok > 100, `only ${r?.ok} requests in 1 s`);
  assert.equal(r.invalid, 0);
  assert.deepEqual(r.errors, { connect: 0, read: 0, write: 0, timeout: 0, closed: 0, status: 0 });
});

test('the client fails a wrong answer and says what it got', async (t) => {
  const { port } = await h3App(t, (app) => {
    app.get('/x', () => 'actual');
  });
  const run = await runH3(port, '/x', ca(), ['--requests', '1', '--connections', '1', '--expect-body', 'expected']);
  assert.equal(run.code, 1);
  assert.equal(run.result?.invalid, 1);
  assert.equal(run.result?.first_invalid, 'status 200, 6-byte body: actual');
});

test('maxHandshakesPerSecond: 2 lets 6 simultaneous connections in two a second (the rest refused until then)', async (t) => {
  const { port } = await h3App(
    t,
    (app) => {
      app.get('/json', () => ({ hello: 'world' }));
    },
    { http3: { maxHandshakesPerSecond: 2 } },
  );
  const args = ['--connections', '6', '--duration', '0.5', '--expect-body', '{"hello":"world"}'];
  const limited = await runH3(port, '/json', ca(), args);
  const r = limited.result;
  assert.ok(r, limited.stderr);
  // Two tokens at once, then one every 500 ms: the sixth connection gets in after about two seconds.
  assert.ok(r.open_s !== null && r.open_s >= 1.5 && r.open_s < 10, `all 6 open after ${r.open_s} s`);
  assert.ok(r.open_connect_errors >= 4, `${r.open_connect_errors} refused attempts`);
  assert.match(limited.stderr, /refused/);
  // Once in, every connection is served as usual.
  assert.ok(r.ok > 0 && r.invalid === 0, JSON.stringify(r));
  assert.deepEqual(r.errors, { connect: 0, read: 0, write: 0, timeout: 0, closed: 0, status: 0 });
  // The same six on a server with the default rate open at once.
  const { port: open } = await h3App(t, (app) => {
    app.get('/json', () => ({ hello: 'world' }));
  });
  const free = await runH3(open, '/json', ca(), args);
  assert.equal(free.code, 0, free.stderr);
  assert.ok(
    free.result && free.result.open_s !== null && free.result.open_s < 1,
    `open after ${free.result?.open_s} s`,
  );
});
