// @gale-http/express's native answers ("declarative responses"): a GET handler of constants has its first answer kept
// by the engine and sent by it afterwards. The same app is run with them and with `app.set('declarative responses',
// false)`, the same requests sent, and every byte (Date aside) and every side effect (middleware runs, handler runs,
// tracing) compared; the routes the engine answered are read from the server, so the comparison cannot pass unused.
// biome-ignore-all lint/suspicious/noExplicitAny: Express-style handlers
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { test } from 'node:test';
import express from '@gale-http/express';
import { RawConn } from '../helpers.js';

const T = { timeout: 30_000 };

interface Effects {
  mw: number;
  counted: number;
  other: number;
}

function build(declarative: boolean, effects: Effects) {
  const app = express();
  if (!declarative) app.set('declarative responses', false);
  app.use('/mw', (_req: any, _res: any, next: any) => {
    effects.mw++;
    next();
  });
  app.get('/', (_req: any, res: any) => res.json({ hello: 'world', n: [1, -2.5, true, null], s: `t` }));
  app.get('/text', (_req, res) => {
    res.send('plain text é');
  });
  app.get('/created', function created(_req: any, res: any) {
    return res.status(201).json(['made']);
  });
  // Not constants: run as written, every time.
  app.get('/count', (_req: any, res: any) => res.json({ n: ++effects.counted }));
  app.get('/mw/x', (_req: any, res: any) => res.send('behind middleware'));
  app.get('/q', (req: any, res: any) => res.json(req.query));
  app.post('/', (_req: any, res: any) => {
    effects.other++;
    res.send('posted');
  });
  return app;
}

const H = 'Host: 127.0.0.1\r\n';
/** Requests sent one connection each (pipelining aside), in order; the first GET of a path is the one kept. */
const REQUESTS = [
  `GET / HTTP/1.1\r\n${H}\r\n`,
  `GET / HTTP/1.1\r\n${H}\r\n`,
  `GET /?x=1&y HTTP/1.1\r\n${H}Accept: text/html\r\n\r\n`,
  `HEAD / HTTP/1.1\r\n${H}\r\n`,
  `GET / HTTP/1.1\r\n${H}If-None-Match: W/"3d-x"\r\n\r\n`,
  `GET / HTTP/1.1\r\n${H}If-Modified-Since: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n`,
  `GET / HTTP/1.0\r\n${H}\r\n`,
  `GET / HTTP/1.0\r\n${H}Connection: keep-alive\r\n\r\n`,
  `GET / HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabc`,
  `GET / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
  `POST / HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`,
  `PUT / HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`,
  `OPTIONS / HTTP/1.1\r\n${H}\r\n`,
  `GET /text HTTP/1.1\r\n${H}\r\n`,
  `GET /TEXT HTTP/1.1\r\n${H}\r\n`,
  `GET /text/ HTTP/1.1\r\n${H}\r\n`,
  `HEAD /text HTTP/1.1\r\n${H}\r\n`,
  `GET /created HTTP/1.1\r\n${H}\r\n`,
  `GET /created HTTP/1.1\r\n${H}\r\n`,
  `HEAD /created HTTP/1.1\r\n${H}\r\n`,
  `GET /count HTTP/1.1\r\n${H}\r\n`,
  `GET /count HTTP/1.1\r\n${H}\r\n`,
  `GET /mw/x HTTP/1.1\r\n${H}\r\n`,
  `GET /mw/x HTTP/1.1\r\n${H}\r\n`,
  `GET /q?a=1 HTTP/1.1\r\n${H}\r\n`,
  `GET /q?a=2 HTTP/1.1\r\n${H}\r\n`,
  `GET /nope HTTP/1.1\r\n${H}\r\n`,
  `GET / HTTP/1.1\r\n${H}Connection: close\r\n\r\n`,
];

const dateless = (b: Buffer) => b.toString('latin1').replace(/^Date: .*\r\n/gim, 'Date: -\r\n');

/** One request on its own connection: everything the server sent until it closed or was quiet for 80 ms. */
async function exchange(port: number, request: string): Promise<string> {
  const c = await RawConn.open(port);
  await c.write(request);
  const deadline = Date.now() + 5000;
  while (!c.closed && !(c.receivedBytes > 0 && Date.now() - c.lastDataAt > 80)) {
    if (Date.now() > deadline) throw new Error(`no answer to ${JSON.stringify(request)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  c.socket.destroy();
  return dateless(c.all());
}

/** All requests pipelined on one connection (the last one says close), but the HTTP/1.0 one that would end it. */
async function pipelined(port: number): Promise<string> {
  const c = await RawConn.open(port);
  await c.write(REQUESTS.filter((r) => r !== `GET / HTTP/1.0\r\n${H}\r\n`).join(''));
  await c.waitFor(() => (c.closed ? true : undefined), 5000, 'pipelined');
  return dateless(c.all());
}

function listen(app: any): Promise<any> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
    server.once('error', reject);
  });
}

const close = (server: any) => new Promise<void>((r) => server.close(() => r()));

async function run(declarative: boolean) {
  const effects: Effects = { mw: 0, counted: 0, other: 0 };
  const app = build(declarative, effects);
  const server = await listen(app);
  const port = server.address().port as number;
  const one: string[] = [];
  for (const r of REQUESTS) one.push(await exchange(port, r));
  const answered = [...server._nativeAnswers] as string[];
  // A validator that matches: Express answers 304 (the engine leaves validators to the JavaScript).
  const etag = /ETag: (.*)\r\n/.exec(one[0] as string)?.[1] as string;
  one.push(await exchange(port, `GET / HTTP/1.1\r\n${H}If-None-Match: ${etag}\r\n\r\n`));
  const piped = await pipelined(port);
  const piped2 = await pipelined(port);
  await close(server);
  return { one, piped, piped2, effects: { ...effects }, answered };
}

test(
  'answers the engine keeps are byte for byte what the JavaScript gives, with the same side effects',
  T,
  async () => {
    const on = await run(true);
    const off = await run(false);
    assert.deepEqual(on.answered.sort(), ['/', '/created', '/text'], 'the constant GET routes are answered natively');
    assert.deepEqual(off.answered, [], "'declarative responses' off: none");
    for (let i = 0; i < on.one.length; i++) {
      assert.equal(on.one[i], off.one[i], `same bytes for ${JSON.stringify(REQUESTS[i] ?? 'GET / If-None-Match')}`);
    }
    assert.equal(on.piped, off.piped);
    assert.equal(on.piped2, off.piped2);
    assert.deepEqual(on.effects, off.effects);
    assert.deepEqual(on.effects, { mw: 6, counted: 6, other: 3 });
    // What was compared is the real answer (not an empty stream): the JSON route's body and the 304 are in it.
    assert.match(
      on.one[0] as string,
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"hello":"world","n":\[1,-2\.5,true,null\],"s":"t"\}$/,
    );
    assert.match(on.one[4] as string, /^HTTP\/1\.1 200 OK/);
    assert.match(on.one[REQUESTS.length] as string, /^HTTP\/1\.1 304 Not Modified/);
  },
);

const get = (port: number, path = '/') => exchange(port, `GET ${path} HTTP/1.1\r\n${H}\r\n`);
const body = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);

test('a router change or a setting takes the answer back at once, before the next request', T, async () => {
  const app = express();
  app.get('/', (_req: any, res: any) => res.json({ a: 1 }));
  const server = await listen(app);
  const port = server.address().port;
  await get(port);
  assert.deepEqual(server._nativeAnswers, ['/']);
  app.set('json spaces', 1);
  assert.deepEqual(server._nativeAnswers, [], 'app.set takes it back');
  assert.equal(body(await get(port)), '{\n "a": 1\n}');
  assert.deepEqual(server._nativeAnswers, ['/'], 'kept again, with the new setting');
  assert.equal(body(await get(port)), '{\n "a": 1\n}');
  let ran = 0;
  app.use((_req: any, _res: any, next: any) => {
    ran++;
    next();
  });
  assert.deepEqual(server._nativeAnswers, [], 'app.use takes it back');
  await get(port);
  await get(port);
  // As in Express, middleware added after the route that answers does not run for it; the path is no longer answered
  // natively all the same (any middleware among its layers keeps it in JavaScript).
  assert.equal(ran, 0);
  assert.deepEqual(server._nativeAnswers, [], 'a path with middleware among its layers is not answered natively');
  await get(port, '/nothing-here');
  assert.equal(ran, 1, 'the middleware is there');
  await close(server);
});

test('the engine answers by itself once kept: a setting changed behind app.set is not seen', T, async () => {
  // Documented: settings are read through app.set; this shows the engine, not the handler, gives the kept answer.
  const app = express();
  app.get('/', (_req: any, res: any) => res.json({ a: 1 }));
  const server = await listen(app);
  const port = server.address().port;
  await get(port);
  app.settings['json spaces'] = 4;
  assert.equal(body(await get(port)), '{"a":1}');
  app.set('json spaces', 4);
  assert.equal(body(await get(port)), '{\n    "a": 1\n}');
  await close(server);
});

test('no native answers while Gale is traced, and tracing takes them back', T, async () => {
  const app = express();
  app.get('/', (_req: any, res: any) => res.json({ a: 1 }));
  app.get('/other', (_req: any, res: any) => res.send('other'));
  const server = await listen(app);
  const port = server.address().port;
  await get(port);
  assert.deepEqual(server._nativeAnswers, ['/']);
  const traced: string[] = [];
  const channel = tracingChannel<unknown, any>('gale.request');
  const sub = {
    start: (ctx: any) => traced.push(ctx.route ?? ctx.request?.url ?? 'request'),
    end() {},
    asyncStart() {},
    asyncEnd() {},
    error() {},
  };
  channel.subscribe(sub);
  try {
    // The next request that runs JavaScript sees the subscriber and sends the path back to it.
    await get(port, '/other');
    await get(port);
    await get(port);
    assert.equal(traced.length, 3, 'every request after the first traced one is traced');
    const fresh = express();
    fresh.get('/', (_req: any, res: any) => res.json({ a: 1 }));
    const s2 = await listen(fresh);
    await get(s2.address().port);
    await get(s2.address().port);
    assert.deepEqual(s2._nativeAnswers, [], 'not kept while traced');
    await close(s2);
  } finally {
    channel.unsubscribe(sub);
  }
  await close(server);
});

test(
  'an app that patched its request or response, or handlers that read the request, are not answered natively',
  T,
  async () => {
    const patched = express();
    (patched.response as any).json = function json(this: any, v: unknown) {
      this.set('X-Patched', '1');
      return this.send(JSON.stringify(v));
    };
    patched.get('/', (_req: any, res: any) => res.json({ a: 1 }));
    const wrapped: any = express();
    const handle = wrapped.handle;
    let handled = 0;
    wrapped.handle = function (this: any, ...a: any[]) {
      handled++;
      return handle.apply(this, a);
    };
    wrapped.get('/', (_req: any, res: any) => res.json({ a: 1 }));
    const reads = express();
    reads.get('/', (req: any, res: any) => res.json({ ip: req.ip === undefined }));
    reads.get('/async', async (_req: any, res: any) => res.json({ a: 1 }));
    reads.get(
      '/two',
      (_req: any, _res: any, next: any) => next(),
      (_req: any, res: any) => res.json({ a: 1 }),
    );
    for (const [app, paths] of [
      [patched, ['/']],
      [wrapped, ['/']],
      [reads, ['/', '/async', '/two']],
    ] as const) {
      const server = await listen(app);
      for (const p of paths) {
        await get(server.address().port, p);
        await get(server.address().port, p);
      }
      assert.deepEqual(server._nativeAnswers, []);
      await close(server);
    }
    assert.equal(handled, 2);
  },
);

test('with compression on, or requests logged, every request runs the JavaScript', T, async () => {
  const lines: string[] = [];
  const logger = { info: (o: unknown) => lines.push(JSON.stringify(o)) } as any;
  for (const server of [{ compression: true }, { logger: { ...logger, child: () => logger }, requestLogging: true }]) {
    const app = (express as any)({ server });
    app.get('/', (_req: any, res: any) => res.json({ a: 'x'.repeat(2000) }));
    const s = await listen(app);
    await exchange(s.address().port, `GET / HTTP/1.1\r\n${H}Accept-Encoding: gzip\r\n\r\n`);
    assert.match(await get(s.address().port), /^HTTP\/1\.1 200 OK/);
    assert.deepEqual(s._nativeAnswers, []);
    await close(s);
  }
  assert.ok(lines.length >= 2, 'the requests were logged');
});
