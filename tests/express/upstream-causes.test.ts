// One test per cause Express's own suite found in @gale-http/express (npm run test:upstream), each against real Express on
// the same request, served by Gale's engine (app.listen) and, where it differs, by node:http (http.createServer(app)).
// biome-ignore-all lint/suspicious/noExplicitAny: Express-style handlers and apps from two implementations
import assert from 'node:assert/strict';
import { createServer, OutgoingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from '@gale-http/express';
import express4 from '@gale-http/express/4';
import realExpress from 'express';
import realExpress4 from 'express4';
import { RawConn } from '../helpers.js';
import { start } from './helpers.js';

const T = { timeout: 15_000 };

/** Sends `head` on a fresh connection and returns everything the server sent until it closed. */
async function raw(port: number, head: string): Promise<string> {
  const c = await RawConn.open(port);
  await c.write(head);
  await c.waitForClose(5000);
  return c.all().toString('latin1');
}

/** Serves `app` with node:http (as supertest does with a function) on a free port. */
async function startNode(app: any): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What `fetch(path, init)` answers on `app` served by Gale's engine, by node:http, and (the reference) `ref`. */
async function answers(make: () => any, ref: () => any, path: string, init?: RequestInit) {
  const out: Record<string, { status: number; headers: Headers; body: string }> = {};
  for (const [name, app, serve] of [
    ['engine', make(), start],
    ['node:http', make(), startNode],
    ['express', ref(), startNode],
  ] as const) {
    const s = await serve(app);
    try {
      const r = await fetch(s.url + path, { redirect: 'manual', ...init });
      out[name] = { status: r.status, headers: r.headers, body: await r.text() };
    } finally {
      await s.close();
    }
  }
  return out as Record<'engine' | 'node:http' | 'express', { status: number; headers: Headers; body: string }>;
}

test('Router and express.Router work with and without new, and routers are instances of it', T, () => {
  for (const ex of [express, express4] as any[]) {
    const a = new ex.Router();
    const b = ex.Router({ mergeParams: true });
    assert.equal(typeof a, 'function');
    assert.equal(typeof a.get, 'function');
    assert.ok(a instanceof ex.Router && b instanceof ex.Router);
  }
});

test('express.application: methods added to it reach apps created afterwards, per Express major', T, () => {
  (express as any).application.greet = () => 'hi';
  assert.equal((express() as any).greet(), 'hi');
  assert.equal((express4() as any).greet, undefined, 'Express 4 has its own application object');
  assert.equal(typeof express.application.set, 'function');
  delete (express as any).application.greet;
});

test('app.listen binds at once: address() answers right after, and listen(cb) alone picks a port', T, async () => {
  const app = express();
  app.get('/', (_req: any, res: any) => res.send('ok'));
  const server = app.listen(() => {});
  const addr = server.address() as AddressInfo;
  assert.ok(addr !== null && addr.port > 0, 'address() right after listen()');
  assert.equal(await (await fetch(`http://127.0.0.1:${addr.port}/`)).text(), 'ok');
  await new Promise<void>((r) => server.close(() => r()));
});

test(
  'node:http’s own OutgoingMessage.setHeader/getHeader called on res (the cookies package) reach the response',
  T,
  async () => {
    const app = express();
    app.get('/', (_req: any, res: any) => {
      // What `cookies` does when res.set exists: node:http's method on the Express response.
      OutgoingMessage.prototype.setHeader.call(res, 'Set-Cookie', ['a=1; path=/']);
      const got = OutgoingMessage.prototype.getHeader.call(res, 'set-cookie');
      OutgoingMessage.prototype.removeHeader.call(res, 'x-gone');
      res.send(JSON.stringify(got));
    });
    const s = await start(app);
    try {
      const r = await fetch(`${s.url}/`);
      assert.deepEqual(r.headers.getSetCookie(), ['a=1; path=/']);
      assert.equal(await r.text(), JSON.stringify(['a=1; path=/']));
    } finally {
      await s.close();
    }
  },
);

test('cookie-session (which sets its cookie through node:http’s setHeader) works', T, async () => {
  const { default: cookieSession } = await import('cookie-session');
  const make = (ex: any) => () => {
    const app = ex();
    app.use(cookieSession({ secret: 'manny is cool' }));
    app.get('/', (req: any, res: any) => {
      req.session.count = (req.session.count || 0) + 1;
      res.send(`viewed ${req.session.count} times`);
    });
    return app;
  };
  const a = await answers(make(express), make(realExpress), '/');
  for (const k of ['engine', 'node:http'] as const) {
    assert.equal(a[k].body, a.express.body);
    assert.deepEqual(a[k].headers.getSetCookie(), a.express.headers.getSetCookie(), k);
  }
});

test('body parsers read a Content-Length: 0 body as empty ({} / "" / empty Buffer), Express 4 and 5', T, async () => {
  for (const [ours, theirs] of [
    [express, realExpress],
    [express4, realExpress4],
  ] as any[]) {
    for (const [parser, type] of [
      ['json', 'application/json'],
      ['urlencoded', 'application/x-www-form-urlencoded'],
      ['text', 'text/plain'],
      ['raw', 'application/octet-stream'],
    ]) {
      const make = (ex: any) => () => {
        const app = ex();
        app.use(ex[parser]());
        app.use((req: any, res: any) => res.json({ body: Buffer.isBuffer(req.body) ? 'buffer' : req.body }));
        return app;
      };
      const a = await answers(make(ours), make(theirs), '/', {
        method: 'POST',
        headers: { 'content-type': type, 'content-length': '0' },
      });
      for (const k of ['engine', 'node:http'] as const) {
        assert.equal(a[k].status, a.express.status, `${parser} ${k}`);
        assert.equal(a[k].body, a.express.body, `${parser} ${k}`);
      }
    }
  }
});

test(
  'req.protocol follows the socket’s encrypted flag (which an app may set) with trust proxy and no header',
  T,
  async () => {
    const make = (ex: any) => () => {
      const app = ex();
      app.enable('trust proxy');
      app.use((req: any, res: any) => {
        const before = req.protocol;
        req.socket.encrypted = true;
        res.end(`${before} ${req.protocol}`);
      });
      return app;
    };
    const a = await answers(make(express), make(realExpress), '/');
    assert.equal(a.express.body, 'http https');
    assert.equal(a.engine.body, a.express.body);
    assert.equal(a['node:http'].body, a.express.body);
  },
);

test(
  'res.send keeps Content-Type parameters in order and survives one that fails to parse (Express 5); Express 4 sorts them',
  T,
  async () => {
    for (const [ours, theirs, ct] of [
      [express, realExpress, 'text/plain; foo=bar'],
      [express, realExpress, 'text/plain; foo'],
      [express4, realExpress4, 'text/plain; foo=bar'],
    ] as any[]) {
      const make = (ex: any) => () => ex().use((_req: any, res: any) => res.set('Content-Type', ct).send('hey'));
      const a = await answers(make(ours), make(theirs), '/');
      assert.equal(a.engine.headers.get('content-type'), a.express.headers.get('content-type'), ct);
      assert.equal(a['node:http'].headers.get('content-type'), a.express.headers.get('content-type'), ct);
    }
  },
);

test('a response whose app set Transfer-Encoding gets no Content-Length', T, async () => {
  for (const te of ['chunked', 'gzip']) {
    const make = (ex: any) => () => ex().use((_req: any, res: any) => res.set('Transfer-Encoding', te).send(''));
    const s = await start(make(express)());
    try {
      const got = await raw(s.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.doesNotMatch(got, /content-length/i, got);
      assert.match(got, /^transfer-encoding: chunked\r$/im, got);
      assert.match(got, /\r\n\r\n0\r\n\r\n$/, 'an empty chunked body');
    } finally {
      await s.close();
    }
    if (te !== 'chunked') continue; // node:http sends a non-chunked coding unframed: the body ends at close
    const a = await answers(make(express), make(realExpress), '/');
    assert.equal(a['node:http'].headers.get('content-length'), null);
    assert.equal(a['node:http'].headers.get('transfer-encoding'), a.express.headers.get('transfer-encoding'));
  }
});

test(
  'a Host header node:http accepts (http://example.com) reaches the app on @gale-http/express; the native API refuses it',
  T,
  async () => {
    const app = express();
    app.use((_req: any, res: any) => res.redirect("<la'me>"));
    const s = await start(app);
    try {
      const got = await raw(
        s.port,
        'GET / HTTP/1.1\r\nHost: http://example.com\r\nAccept: text/html\r\nConnection: close\r\n\r\n',
      );
      assert.match(got, /^HTTP\/1\.1 302 /, got);
      assert.match(got, /^Location: %3Cla'me%3E\r$/m);
      assert.match(got, /^Content-Type: text\/html/m);
    } finally {
      await s.close();
    }
    const { gale } = await import('gale');
    const g = gale();
    g.get('/', () => 'no');
    const { port } = await g.listen(0, '127.0.0.1');
    try {
      const got = await raw(port, 'GET / HTTP/1.1\r\nHost: http://example.com\r\nConnection: close\r\n\r\n');
      assert.match(got, /^HTTP\/1\.1 400 /);
    } finally {
      await g.close();
    }
  },
);

test(
  'Express 4: quoted Content-Disposition filenames, res.vary() without a field, query parser false, removed middleware',
  T,
  async () => {
    const make = (ex: any) => () => {
      const app = ex();
      app.set('query parser', false);
      app.get('/a', (_req: any, res: any) => res.attachment('image.png').vary().send('x'));
      app.get('/q', (req: any, res: any) => res.json(req.query));
      return app;
    };
    const a = await answers(make(express4), make(realExpress4), '/a');
    assert.equal(a.express.headers.get('content-disposition'), 'attachment; filename="image.png"');
    for (const k of ['engine', 'node:http'] as const) {
      assert.equal(a[k].status, 200, k);
      assert.equal(a[k].headers.get('content-disposition'), a.express.headers.get('content-disposition'), k);
      assert.equal(a[k].headers.get('vary'), null, k);
    }
    const q = await answers(make(express4), make(realExpress4), '/q?user[name]=tj');
    assert.equal(q.express.body, '{}');
    assert.equal(q.engine.body, '{}');
    assert.equal(q['node:http'].body, '{}');
    assert.throws(
      () => (express4 as any).bodyParser,
      /no longer bundled with Express.*bodyParser|bodyParser.*no longer/,
    );
  },
);

test('a router given an empty URL matches nothing and calls back', T, async () => {
  const router = express.Router();
  router.use(() => {
    throw new Error('should not be called');
  });
  // router.handle is Express's internal entry point (@types/express leaves it out).
  const internal = router as unknown as { handle(req: unknown, res: unknown, out: (err?: unknown) => void): void };
  await new Promise<void>((resolve, reject) =>
    internal.handle({ url: '', method: 'GET' }, {}, (err?: unknown) => (err ? reject(err) : resolve())),
  );
});

test(
  'headers set after socket.destroy() (send does, before it notices) are taken, not thrown; sendfile reports the error',
  T,
  async () => {
    const app = express4();
    const seen: string[] = [];
    let finish!: () => void;
    const done = new Promise<void>((r) => {
      finish = r;
    });
    app.use((req: any, res: any) => {
      res.sendfile('package.json', (err: any) => {
        seen.push(`${err?.message} ${res.headersSent}`);
        finish();
      });
      req.socket.destroy(new Error('broken!'));
    });
    const s = await start(app);
    try {
      await fetch(`${s.url}/`).catch(() => undefined);
      await done;
      assert.deepEqual(seen, ['broken! false']);
    } finally {
      await s.close();
    }
  },
);
