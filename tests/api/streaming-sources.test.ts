// Streaming bodies from sources: res.stream() and returned Node Readables, Web ReadableStreams and async
// iterables. Framing and types, backpressure (a paused client stops the source being pulled),
// stopping the source when the client goes away, and source errors before and after the head.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { GaleError, Logger, Response } from 'gale';
import type { App } from '../helpers.js';
import {
  deferred,
  parseResponses,
  RawConn,
  rawRequest,
  show,
  simpleRequest,
  sleep,
  T,
  withApp,
  withTimeout,
} from '../helpers.js';

function memoryLogger(): Logger & { errors: unknown[] } {
  const errors: unknown[] = [];
  return { errors, info: () => {}, warn: () => {}, error: (obj) => errors.push(obj) };
}

const DIR = mkdtempSync(path.join(tmpdir(), 'gale-stream-'));
const FILE = path.join(DIR, 'data.txt');
writeFileSync(FILE, 'line\n'.repeat(20_000));
process.on('exit', () => rmSync(DIR, { recursive: true, force: true }));

/** A source that fails (after `delay` ms) before yielding anything. */
async function* failing(message: string, delay = 0): AsyncGenerator<string> {
  if (delay > 0) await sleep(delay);
  if (message !== '') throw new Error(message);
  yield 'unreachable';
}

async function* words(): AsyncGenerator<string> {
  for (const w of ['alpha ', 'beta ', 'gamma']) {
    await sleep(1);
    yield w;
  }
}

function routes(app: App): void {
  app.get('/return-generator', () => words());
  app.get('/return-readable', () => Readable.from([Buffer.from('one,'), Buffer.from('two')]));
  app.get('/return-object-mode-strings', () => Readable.from(['x', 'y', 'z']));
  app.get('/return-file', () => createReadStream(FILE));
  app.get('/return-web', () => {
    const enc = new TextEncoder();
    return new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode('web '));
        c.enqueue(enc.encode('stream'));
        c.close();
      },
    });
  });
  app.get('/async-return', async () => {
    await sleep(2);
    return words();
  });
  app.get('/stream-typed', async (_req, res) => {
    const done = await res.status(201).type('csv').header('x-kind', 'csv').stream(words());
    if (done !== true) throw new Error('stream() should resolve true');
  });
  app.get('/stream-mixed', (_req, res) => {
    async function* mixed() {
      yield new Uint8Array([0x61]);
      yield 'b';
      yield new Uint16Array([0x6463]).buffer; // "cd" little-endian
      yield new DataView(new Uint8Array([0x65]).buffer);
      yield '';
      yield Buffer.from('f');
    }
    return res.stream(mixed());
  });
  app.get('/empty', () =>
    (async function* () {
      // nothing
    })(),
  );
  app.get('/head-only', () => words());
  app.get('/plain-object', () => ({ pipe: 'not a stream', on: 'nope' }));
}

test('a returned async generator streams chunked text/plain', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/return-generator' });
  assert.equal(r.status, 200);
  assert.equal(r.chunked, true);
  assert.equal(r.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.get('content-length'), undefined);
  assert.equal(r.text, 'alpha beta gamma');
  assert.deepEqual(
    r.chunks.map((c) => c.toString()),
    ['alpha ', 'beta ', 'gamma'],
  );
});

test('returned Node Readables (bytes, object-mode strings, a file) and a Web ReadableStream', T, async (t) => {
  const { port, url } = await withApp(t, routes);
  const bytes = await simpleRequest(port, { path: '/return-readable' });
  assert.equal(bytes.get('content-type'), 'application/octet-stream');
  assert.equal(bytes.text, 'one,two');
  const strings = await simpleRequest(port, { path: '/return-object-mode-strings' });
  assert.equal(strings.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(strings.text, 'xyz');
  const file = await fetch(`${url}/return-file`);
  assert.equal(file.status, 200);
  assert.equal(await file.text(), 'line\n'.repeat(20_000));
  const web = await simpleRequest(port, { path: '/return-web' });
  assert.equal(web.get('content-type'), 'application/octet-stream');
  assert.equal(web.text, 'web stream');
  const later = await simpleRequest(port, { path: '/async-return' });
  assert.equal(later.text, 'alpha beta gamma', 'a promise of a source');
});

test('res.stream(): status and type set before win; resolves true; every chunk kind is accepted', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/stream-typed' });
  assert.equal(r.status, 201);
  assert.equal(r.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(r.get('x-kind'), 'csv');
  assert.equal(r.text, 'alpha beta gamma');
  const mixed = await simpleRequest(port, { path: '/stream-mixed' });
  assert.equal(mixed.get('content-type'), 'application/octet-stream');
  assert.equal(mixed.text, 'abcdef');
});

test('an empty source → 200 with an empty body; HEAD gets the head only', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/empty' });
  assert.equal(r.status, 200);
  assert.equal(r.get('content-length'), '0');
  assert.equal(r.body.length, 0);
  const head = await simpleRequest(port, { method: 'HEAD', path: '/head-only' });
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
});

test('an object that merely has pipe/on properties is still sent as JSON', T, async (t) => {
  const { port } = await withApp(t, routes);
  const r = await simpleRequest(port, { path: '/plain-object' });
  assert.equal(r.text, '{"pipe":"not a stream","on":"nope"}');
});

/** Runs a paused client against `/flood`, checks the source stalls, then reads everything. */
async function backpressure(
  t: Parameters<typeof withApp>[0],
  make: (pulled: () => void, chunk: (i: number) => Buffer, max: number) => unknown,
): Promise<void> {
  const CHUNK = 64 * 1024;
  const MAX = 512; // 32 MiB: far more than the socket buffers hold
  let pulls = 0;
  const chunk = (i: number) => Buffer.alloc(CHUNK, i % 251);
  const { port } = await withApp(t, (app) => {
    app.get('/flood', () => make(() => pulls++, chunk, MAX));
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  conn.pause();
  await conn.write('GET /flood HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  // Wait until the source stops being pulled while nobody reads.
  let last = -1;
  const deadline = Date.now() + 8000;
  while (pulls !== last && Date.now() < deadline) {
    last = pulls;
    await sleep(250);
  }
  assert.equal(pulls, last, 'the source kept being pulled by a paused client');
  assert.ok(pulls > 0 && pulls < MAX / 2, `pulled ${pulls} of ${MAX} chunks while the client read nothing`);
  conn.resume();
  assert.equal(await conn.waitForClose(15_000), true, `not completed; received ${conn.receivedBytes} bytes`);
  assert.equal(pulls, MAX);
  const [res, ...rest] = parseResponses(conn.all());
  assert.equal(rest.length, 0);
  assert.ok(res);
  assert.equal(res.body.length, MAX * CHUNK);
  for (let i = 0; i < MAX; i++) {
    if (!res.body.subarray(i * CHUNK, (i + 1) * CHUNK).equals(chunk(i))) assert.fail(`chunk ${i} corrupted`);
  }
}

test('backpressure: an async generator is not pulled while the client is not reading', { timeout: 30_000 }, (t) =>
  backpressure(t, (pulled, chunk, max) =>
    (async function* () {
      for (let i = 0; i < max; i++) {
        pulled();
        yield chunk(i);
      }
    })(),
  ),
);

test('backpressure: a Node Readable is not read while the client is not reading', { timeout: 30_000 }, (t) =>
  backpressure(t, (pulled, chunk, max) => {
    let i = 0;
    return new Readable({
      highWaterMark: 64 * 1024,
      read() {
        if (i === max) {
          this.push(null);
          return;
        }
        pulled();
        this.push(chunk(i++));
      },
    });
  }),
);

test('backpressure: a Web ReadableStream is not pulled while the client is not reading', { timeout: 30_000 }, (t) =>
  backpressure(t, (pulled, chunk, max) => {
    let i = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (i === max) {
            c.close();
            return;
          }
          pulled();
          c.enqueue(chunk(i++));
        },
      },
      { highWaterMark: 1 },
    );
  }),
);

/** Starts a request, reads the first chunk, then disconnects. */
async function readThenDisconnect(port: number, pathName: string): Promise<void> {
  const conn = await RawConn.open(port);
  await conn.write(`GET ${pathName} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  await conn.readUntil('\r\n\r\n');
  await conn.readBytes(1);
  conn.destroy();
}

test('client disconnect: a generator is returned (its finally runs)', T, async (t) => {
  const finallyRan = deferred<number>();
  const { port } = await withApp(t, (app) => {
    app.get('/gen', () =>
      (async function* () {
        let n = 0;
        try {
          for (;;) {
            n++;
            yield 'x'.repeat(1024);
            await sleep(5);
          }
        } finally {
          finallyRan.resolve(n);
        }
      })(),
    );
  });
  await readThenDisconnect(port, '/gen');
  const n = await withTimeout(finallyRan.promise, 5000, "the generator's finally");
  assert.ok(n < 1000, `the generator ran ${n} times`);
});

test('client disconnect: a Node Readable is destroyed; a Web stream is cancelled', T, async (t) => {
  const destroyed = deferred<void>();
  const cancelled = deferred<unknown>();
  const { port } = await withApp(t, (app) => {
    app.get('/node', () => {
      const r = new Readable({
        read() {
          setTimeout(() => this.push('y'.repeat(1024)), 5);
        },
      });
      r.on('close', () => destroyed.resolve());
      return r;
    });
    app.get('/web', () => {
      return new ReadableStream<string>({
        async pull(c) {
          await sleep(5);
          c.enqueue('z'.repeat(1024));
        },
        cancel(reason) {
          cancelled.resolve(reason);
        },
      });
    });
  });
  await readThenDisconnect(port, '/node');
  await withTimeout(destroyed.promise, 5000, 'the Readable to be destroyed');
  await readThenDisconnect(port, '/web');
  const reason = await withTimeout(cancelled.promise, 5000, 'the ReadableStream to be cancelled');
  assert.ok(reason instanceof Error);
});

test('client disconnect: res.stream() resolves false even if the source never yields again', T, async (t) => {
  const result = deferred<boolean>();
  const { port } = await withApp(t, (app) => {
    app.get('/stuck', (_req, res) => {
      async function* stuck() {
        yield 'first';
        await new Promise(() => {}); // never settles
      }
      res.stream(stuck()).then(result.resolve);
    });
  });
  await readThenDisconnect(port, '/stuck');
  assert.equal(await withTimeout(result.promise, 5000, 'res.stream() to settle'), false);
});

test('source error before the first chunk → 500 through the error handlers, logged', T, async (t) => {
  const logger = memoryLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/returned', () => failing('source broke', 1));
      app.get('/called', (_req, res) => {
        void res.stream(failing('source broke too'));
      });
    },
    { logger, requestLogging: false },
  );
  for (const p of ['/returned', '/called']) {
    const r = await simpleRequest(port, { path: p });
    assert.equal(r.status, 500, p);
    assert.equal(r.text, 'Internal Server Error');
  }
  assert.deepEqual(
    logger.errors.map((e) => (e as Error).message),
    ['source broke', 'source broke too'],
  );
});

test('a returned source that fails goes to onError handlers first', T, async (t) => {
  const { port } = await withApp(
    t,
    (app) => {
      app.onError((err, _req, res) => res.status(502).send(`handled: ${(err as Error).message}`));
      app.get('/returned', () => failing('upstream gone'));
    },
    { logger: memoryLogger(), requestLogging: false },
  );
  const r = await simpleRequest(port, { path: '/returned' });
  assert.equal(r.status, 502);
  assert.equal(r.text, 'handled: upstream gone');
});

test('source error mid-stream → the response is destroyed: the client sees a truncated body', T, async (t) => {
  const logger = memoryLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/mid', () =>
        (async function* () {
          yield 'partial-1;';
          await sleep(5);
          yield 'partial-2;';
          await sleep(5);
          throw new Error('mid-stream failure');
        })(),
      );
    },
    { logger, requestLogging: false },
  );
  const r = await rawRequest(port, 'GET /mid HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', { waitForClose: true });
  assert.equal(r.closed, true, 'the connection must be closed');
  const text = r.data.toString('latin1');
  assert.ok(text.startsWith('HTTP/1.1 200 OK\r\n'), show(r.data));
  assert.ok(text.includes('partial-1;') && text.includes('partial-2;'), show(r.data));
  assert.ok(!text.endsWith('0\r\n\r\n'), `the chunked body must not be terminated: ${show(r.data)}`);
  assert.throws(() => parseResponses(r.data), /connection ended/);
  assert.equal((logger.errors[0] as Error).message, 'mid-stream failure');
});

test('a chunk that is not text or bytes → 500 with GALE_ERR_INVALID_CHUNK logged', T, async (t) => {
  const logger = memoryLogger();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/bad', () =>
        (async function* () {
          yield 42;
        })(),
      );
    },
    { logger, requestLogging: false },
  );
  const r = await simpleRequest(port, { path: '/bad' });
  assert.equal(r.status, 500);
  assert.equal((logger.errors[0] as GaleError).code, 'GALE_ERR_INVALID_CHUNK');
});

test('stream() after the response ended rejects through the error answer (logged), response intact', T, async (t) => {
  const logger = memoryLogger();
  const result = deferred<boolean>();
  const { port } = await withApp(
    t,
    (app) => {
      app.get('/twice', (_req, res: Response) => {
        res.send('done');
        res.stream(words()).then(result.resolve);
      });
    },
    { logger, requestLogging: false },
  );
  const r = await simpleRequest(port, { path: '/twice' });
  assert.equal(r.text, 'done');
  assert.equal(await withTimeout(result.promise, 2000, 'stream()'), false);
  assert.equal((logger.errors[0] as GaleError).code, 'GALE_ERR_HEADERS_SENT');
});
