// serve() and app.fetch(): what the Web Request carries (method, URL from Host / trusted proxies, multi-value
// headers), the server object, errors (500, HttpError, onError), HEAD, Set-Cookie, native routes and static files
// winning over a mounted handler, prefix mounts, pipelining order and concurrency. Real sockets on 127.0.0.1.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FetchInfo, gale, HttpError, type Logger, serve } from 'gale';
import {
  buildRequest,
  HOST,
  parseResponses,
  RawConn,
  rawRequest,
  simpleRequest,
  sleep,
  T,
  withApp,
  withTimeout,
} from '../helpers.js';
import { tempDir } from '../temp.js';
import { withServe } from './util.js';

function memoryLogger(): Logger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  const l = {
    errors,
    info: () => {},
    warn: () => {},
    error: (...args: unknown[]) => errors.push(args),
    child: () => l,
  };
  return l;
}

/** Echoes what the handler saw as JSON. */
async function describe(request: Request): Promise<Response> {
  return Response.json({
    method: request.method,
    url: request.url,
    multi: request.headers.get('x-multi'),
    hasMissing: request.headers.has('x-missing'),
    body: request.body === null ? null : await request.text(),
  });
}

test(
  'serve({ fetch }) resolves to a server; the Request carries method, full URL, query and joined headers',
  T,
  async (t) => {
    const { server, port, url } = await withServe(t, { fetch: describe });
    assert.equal(server.port, port);
    assert.equal(server.hostname, HOST);
    assert.equal(server.url.href, `${url}/`);
    assert.ok(server.app, 'the Gale app underneath is exposed');
    const r = await simpleRequest(port, {
      method: 'POST',
      path: '/a/b%20c?x=1&y=2',
      headers: [
        ['Host', 'example.com:8080'],
        ['X-Multi', 'one'],
        ['X-Multi', 'two'],
      ],
      body: 'payload',
    });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), {
      method: 'POST',
      url: 'http://example.com:8080/a/b%20c?x=1&y=2',
      multi: 'one, two',
      hasMissing: false,
      body: 'payload',
    });
  },
);

test('URLs: dot segments are resolved, HTTP/1.0 without Host uses localhost, a bad Host is a 400', T, async (t) => {
  const { port } = await withServe(t, { fetch: (req) => new Response(req.url) });
  const dots = await simpleRequest(port, { path: '/a/../b/./c' });
  assert.equal(dots.text, `http://${HOST}/b/c`);
  const old = await rawRequest(port, 'GET /old HTTP/1.0\r\n\r\n', { waitForClose: true });
  assert.equal(parseResponses(old.data)[0]?.text, 'http://localhost/old');
  const bad = await simpleRequest(port, { headers: [['Host', 'exa mple.com']] });
  assert.equal(bad.status, 400);
});

test('trustProxy: X-Forwarded-Proto/-Host make the URL only from a trusted peer', T, async (t) => {
  const handler = { fetch: (req: Request) => new Response(req.url) };
  const trusted = await withServe(t, handler, { trustProxy: 'loopback' });
  const headers: [string, string][] = [
    ['X-Forwarded-Proto', 'https'],
    ['X-Forwarded-Host', 'api.example.com'],
  ];
  assert.equal((await simpleRequest(trusted.port, { path: '/p?q=1', headers })).text, 'https://api.example.com/p?q=1');
  const untrusted = await withServe(t, handler);
  assert.equal((await simpleRequest(untrusted.port, { path: '/p', headers })).text, `http://${HOST}/p`);
});

test(
  'serve(app): an object with a fetch method is called as a method; its own fields are not options',
  T,
  async (t) => {
    class Api {
      port = 1; // not an option: only fetch is taken from a non-plain object
      greeting = 'hi';
      fetch(this: Api, request: Request, info: FetchInfo): Response {
        assert.ok(info instanceof FetchInfo);
        assert.equal(info.remoteAddr.hostname, '127.0.0.1');
        assert.ok(info.remoteAddr.port > 0);
        assert.equal(info.req.method, request.method);
        return new Response(`${this.greeting} ${new URL(request.url).pathname}`);
      }
    }
    const { port } = await withServe(t, new Api());
    assert.notEqual(port, 1);
    const r = await simpleRequest(port, { path: '/x' });
    assert.equal(r.text, 'hi /x');
    assert.equal(r.get('content-type'), 'text/plain;charset=UTF-8');
  },
);

test('serve(): onListen gets the address, aborting the signal closes the server, bad input is refused', T, async () => {
  const ac = new AbortController();
  let listened: { port: number } | undefined;
  const server = await serve({
    fetch: () => new Response('ok'),
    port: 0,
    hostname: HOST,
    signal: ac.signal,
    onListen: (a) => {
      listened = a;
    },
  });
  assert.equal(listened?.port, server.port);
  assert.equal((await simpleRequest(server.port)).text, 'ok');
  ac.abort();
  await withTimeout(server.app.close(), 3000, 'close after abort');
  const conn = await RawConn.open(server.port).then(
    (c) => {
      c.destroy();
      return 'connected';
    },
    (e: NodeJS.ErrnoException) => e.code,
  );
  assert.equal(conn, 'ECONNREFUSED');
  await assert.rejects(serve(42 as never), /give \{ fetch, port \}/);
  await assert.rejects(serve({ nope: 1 } as never), /fetch method/);
  await assert.rejects(serve(gale() as never), /cannot be served as a fetch handler/);
});

test(
  'errors: a throw or rejection is a logged 500, HttpError keeps its status, a non-Response is a 500 saying so',
  T,
  async (t) => {
    const logger = memoryLogger();
    const { port } = await withServe(
      t,
      {
        fetch: (req) => {
          const path = new URL(req.url).pathname;
          if (path === '/throw') throw new Error('boom');
          if (path === '/reject') return Promise.reject(new Error('async boom'));
          if (path === '/teapot') throw new HttpError(418, 'short and stout');
          if (path === '/nothing') return undefined as never;
          if (path === '/network-error') return Response.error();
          return Promise.resolve('a string' as never);
        },
      },
      { logger, requestLogging: false },
    );
    for (const path of ['/throw', '/reject']) {
      const r = await simpleRequest(port, { path });
      assert.equal(r.status, 500, path);
      assert.equal(r.text, 'Internal Server Error', 'no stack or message outside development');
    }
    const teapot = await simpleRequest(port, { path: '/teapot' });
    assert.equal(teapot.status, 418);
    assert.equal(teapot.text, 'short and stout');
    for (const path of ['/nothing', '/string', '/network-error']) {
      assert.equal((await simpleRequest(port, { path })).status, 500, path);
    }
    const logged = logger.errors.map((e) => String((e[0] as Error).message));
    assert.ok(logged.includes('boom') && logged.includes('async boom'), JSON.stringify(logged));
    assert.ok(
      logged.some((m) => m.includes('must return a Response') && m.includes('undefined')),
      JSON.stringify(logged),
    );
    assert.ok(
      logged.some((m) => m.includes('returned string')),
      JSON.stringify(logged),
    );
  },
);

test('onError: gets the error and the request, its Response is sent; a throwing onError is a 500', T, async (t) => {
  const seen: string[] = [];
  const { port } = await withServe(t, {
    fetch: async (req) => {
      if (req.url.endsWith('/double')) throw new Error('first');
      await sleep(1);
      throw new RangeError('out of range');
    },
    onError: (err, req) => {
      seen.push(`${(err as Error).message} ${new URL(req.url).pathname}`);
      if ((err as Error).message === 'first') throw new Error('onError failed too');
      return new Response(`handled: ${(err as Error).name}`, { status: 503, headers: { 'retry-after': '5' } });
    },
    logger: memoryLogger(),
  });
  const r = await simpleRequest(port, { path: '/x' });
  assert.equal(r.status, 503);
  assert.equal(r.text, 'handled: RangeError');
  assert.equal(r.get('retry-after'), '5');
  assert.equal((await simpleRequest(port, { path: '/double' })).status, 500);
  assert.deepEqual(seen, ['out of range /x', 'first /double']);
});

test(
  'HEAD: a string body gives its Content-Length and no bytes; a stream body is cancelled, never read',
  T,
  async (t) => {
    let pulls = 0;
    let cancelled = false;
    const { port } = await withServe(t, {
      fetch: (req) =>
        new URL(req.url).pathname === '/text'
          ? new Response('twelve bytes')
          : new Response(
              new ReadableStream({
                pull(c) {
                  pulls++;
                  c.enqueue(new Uint8Array(10));
                },
                cancel() {
                  cancelled = true;
                },
              }),
            ),
    });
    const conn = await RawConn.open(port);
    t.after(() => conn.destroy());
    await conn.write(buildRequest({ method: 'HEAD', path: '/text' }));
    const text = await conn.readResponse({ head: true });
    assert.equal(text.get('content-length'), '12');
    await conn.write(buildRequest({ method: 'HEAD', path: '/stream' }));
    const stream = await conn.readResponse({ head: true });
    assert.equal(stream.status, 200);
    await conn.write(buildRequest({ path: '/text' })); // the connection is still in step
    assert.equal((await conn.readResponse()).text, 'twelve bytes');
    assert.equal(cancelled, true);
    assert.ok(pulls <= 1, `HEAD pulled the stream ${pulls} times`); // at most the start-up pull of highWaterMark 1
  },
);

test('several Set-Cookie headers go out as separate fields (headers.getSetCookie())', T, async (t) => {
  const { port, url } = await withServe(t, {
    fetch: () => {
      const h = new Headers({ 'content-type': 'text/plain' });
      h.append('set-cookie', 'a=1; Path=/');
      h.append('set-cookie', 'b=2; HttpOnly');
      h.append('set-cookie', 'c=3, with comma; Max-Age=60');
      h.append('x-list', 'one');
      h.append('x-list', 'two');
      return new Response('cookies', { headers: h });
    },
  });
  const raw = await simpleRequest(port);
  assert.deepEqual(raw.getAll('set-cookie'), ['a=1; Path=/', 'b=2; HttpOnly', 'c=3, with comma; Max-Age=60']);
  assert.equal(raw.get('x-list'), 'one, two');
  const r = await fetch(url);
  assert.deepEqual(r.headers.getSetCookie().length, 3);
  await r.text();
});

test('app.fetch(handler): the fallback behind native routes, static files and middleware', T, async (t) => {
  const dir = tempDir(t, 'gale-fetch-');
  writeFileSync(join(dir, 'file.txt'), 'from disk');
  const { port } = await withApp(t, (app) => {
    app.use(async (_req, res, next) => {
      res.header('x-mw', 'ran');
      await next();
    });
    app.get('/native', () => 'native route');
    app.static('/static', dir);
    app.fixed('GET', '/fixed', { body: 'fixed' });
    app.fetch((req) => new Response(`fetch ${req.method} ${new URL(req.url).pathname}`, { headers: { 'x-f': '1' } }));
  });
  assert.equal((await simpleRequest(port, { path: '/native' })).text, 'native route');
  assert.equal((await simpleRequest(port, { path: '/static/file.txt' })).text, 'from disk');
  assert.equal((await simpleRequest(port, { path: '/fixed' })).text, 'fixed');
  const fell = await simpleRequest(port, { method: 'DELETE', path: '/other?q' });
  assert.equal(fell.text, 'fetch DELETE /other');
  assert.equal(fell.get('x-mw'), 'ran', 'app middleware runs before the fetch fallback');
  assert.equal(fell.get('x-f'), '1');
  // a path a route has under another method: the engine's 405 (documented)
  assert.equal((await simpleRequest(port, { method: 'POST', path: '/native' })).status, 405);
});

test(
  'app.fetch(prefix, handler): every method under the prefix, cut from the URL unless stripPrefix: false',
  T,
  async (t) => {
    const echo = (req: Request) => new Response(`${req.method} ${req.url}`);
    const { port } = await withApp(t, (app) => {
      app.get('/api/own', () => 'gale route');
      app.fetch('/api', echo);
      app.fetch('/full/', echo, { stripPrefix: false });
      app.fetch('/obj', { fetch: (req: Request) => new Response(new URL(req.url).pathname) });
    });
    const base = `http://${HOST}`;
    assert.equal((await simpleRequest(port, { path: '/api/users/7?x=1' })).text, `GET ${base}/users/7?x=1`);
    assert.equal((await simpleRequest(port, { method: 'PUT', path: '/api' })).text, `PUT ${base}/`);
    assert.equal((await simpleRequest(port, { path: '/api?q=2' })).text, `GET ${base}/?q=2`);
    assert.equal((await simpleRequest(port, { path: '/API/Case' })).text, `GET ${base}/Case`);
    assert.equal((await simpleRequest(port, { path: '/api/own' })).text, 'gale route');
    assert.equal((await simpleRequest(port, { method: 'PATCH', path: '/api/own' })).text, `PATCH ${base}/own`);
    assert.equal((await simpleRequest(port, { path: '/full/x' })).text, `GET ${base}/full/x`);
    assert.equal((await simpleRequest(port, { path: '/obj/deep/er' })).text, '/deep/er');
    assert.equal((await simpleRequest(port, { path: '/elsewhere' })).status, 404);
    assert.throws(() => gale().fetch('nope', echo), /must start with '\/'/);
    assert.throws(() => gale().fetch(42 as never), /fetch method/);
  },
);

test('pipelined requests over one socket are answered in order even when later ones finish first', T, async (t) => {
  const { port } = await withServe(t, {
    fetch: async (req) => {
      const n = Number(new URL(req.url).searchParams.get('n'));
      await sleep((10 - n) * 8); // the first waits longest
      return new Response(`r${n}`, { headers: { 'x-n': String(n) } });
    },
  });
  const conn = await RawConn.open(port);
  t.after(() => conn.destroy());
  let bytes = '';
  for (let n = 0; n < 10; n++) bytes += `GET /?n=${n} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`;
  await conn.write(bytes);
  for (let n = 0; n < 10; n++) {
    const r = await conn.readResponse({ timeoutMs: 5000 });
    assert.equal(r.text, `r${n}`);
  }
});

test('concurrency: 200 requests on 50 connections each get their own answer', { timeout: 20_000 }, async (t) => {
  const { port } = await withServe(t, {
    fetch: async (req) => {
      const body = (await req.json()) as { id: number };
      if (body.id % 3 === 0) await sleep(body.id % 7);
      return Response.json({ id: body.id, echo: req.headers.get('x-id') });
    },
  });
  const conns = await Promise.all(Array.from({ length: 50 }, () => RawConn.open(port)));
  t.after(() => {
    for (const c of conns) c.destroy();
  });
  const results = await Promise.all(
    conns.map(async (conn, ci) => {
      const out: string[] = [];
      for (let k = 0; k < 4; k++) {
        const id = ci * 4 + k;
        await conn.write(
          buildRequest({ method: 'POST', path: '/', headers: { 'x-id': String(id) }, body: `{"id":${id}}` }),
        );
        out.push((await conn.readResponse({ timeoutMs: 8000 })).text);
      }
      return out;
    }),
  );
  const seen = results.flat().map((s) => JSON.parse(s) as { id: number; echo: string });
  assert.equal(seen.length, 200);
  for (const [i, s] of seen.entries()) assert.deepEqual(s, { id: i, echo: String(i) });
});
