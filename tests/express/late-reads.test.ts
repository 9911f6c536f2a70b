// Request fields read after the response ended, in a later event-loop turn (a logger's timer, a late callback): the
// Express layer keeps one copy of each request's head and peer at the response's end, and a field never read before
// is parsed from it. Each answer must be the request's own — also when pipelined requests reuse engine records — and
// the same as real Express 5 gives for the same bytes.
// biome-ignore-all lint/suspicious/noExplicitAny: Express-style handlers
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from '@gale-http/express';
import realExpress from 'express';
import { RawConn } from '../helpers.js';
import { start } from './helpers.js';

const T = { timeout: 20_000 };

/** What a handler reads 30 ms after answering, when the engine has long let go of the request (not `rawHeaders`: Gale
 * documents lower-cased names there, with repeated headers joined as in `headers`). */
function lateFields(req: any) {
  return {
    method: req.method,
    originalUrl: req.originalUrl,
    httpVersion: req.httpVersion,
    headers: { ...req.headers },
    late: req.get('x-late'),
    ip: req.ip,
    secure: req.secure,
    protocol: req.protocol,
    fresh: req.fresh,
  };
}

function build(make: any, seen: Map<string, unknown>, done: () => void, expected: number) {
  const app = make();
  app.set('etag', false);
  app.all('/late/:n', (req: any, res: any) => {
    res.send(`ok ${req.params.n}`);
    setTimeout(() => {
      seen.set(req.params.n, lateFields(req));
      if (seen.size === expected) done();
    }, 30);
  });
  return app;
}

/** Pipelined requests on one connection, each with its own target, headers and method. */
function requests(n: number): Buffer {
  let out = '';
  for (let i = 0; i < n; i++) {
    const method = i % 3 === 0 ? 'POST' : 'GET';
    out +=
      `${method} /late/${i}?q=${i}&x=%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Late: value-${i}\r\n` +
      `Accept: text/plain\r\nX-Dup: a${i}\r\nX-Dup: b${i}\r\nIf-None-Match: "nope-${i}"\r\n` +
      `User-Agent: late/é${i}\r\n` +
      (method === 'POST' ? 'Content-Length: 3\r\n\r\nabc' : '\r\n');
  }
  return Buffer.from(out, 'latin1');
}

async function run(make: any, n: number): Promise<Map<string, unknown>> {
  const seen = new Map<string, unknown>();
  let done!: () => void;
  const all = new Promise<void>((r) => {
    done = r;
  });
  const s = await start(build(make, seen, done, n));
  try {
    const conn = await RawConn.open(s.port);
    await conn.write(requests(n));
    await all;
    conn.destroy();
  } finally {
    await s.close();
  }
  return seen;
}

test('late reads of every request field give each request its own answer, as Express 5 does', T, async () => {
  const n = 24;
  const gale = await run(express, n);
  const real = await run(realExpress, n);
  assert.equal(gale.size, n);
  for (let i = 0; i < n; i++) {
    const g = gale.get(String(i)) as Record<string, unknown>;
    assert.deepEqual(g, real.get(String(i)), `request ${i}`);
    assert.equal(g.late, `value-${i}`);
    assert.equal(g.method, i % 3 === 0 ? 'POST' : 'GET');
  }
});

test(
  'a field read before the response ended keeps that value; the others are read late from the kept head',
  T,
  async () => {
    const app = express();
    const out: unknown[] = [];
    let port: unknown;
    let got!: () => void;
    const finished = new Promise<void>((r) => {
      got = r;
    });
    app.get('/mixed', (req: any, res: any) => {
      const early = req.get('x-early');
      req.headers['x-added'] = 'by the app';
      res.send('ok');
      setTimeout(() => {
        out.push(early, req.get('x-added'), req.get('x-other'), req.httpVersion, req.ip, req.secure);
        port = req.socket.remotePort;
        got();
      }, 30);
    });
    const s = await start(app);
    try {
      const conn = await RawConn.open(s.port);
      await conn.write(Buffer.from('GET /mixed HTTP/1.1\r\nHost: x\r\nX-Early: e\r\nX-Other: o\r\n\r\n'));
      await finished;
      const clientPort = conn.socket.localPort;
      conn.destroy();
      assert.deepEqual(out, ['e', 'by the app', 'o', '1.1', '127.0.0.1', false]);
      // The peer's port, parsed from the kept copy: the client's own.
      assert.equal(port, clientPort);
    } finally {
      await s.close();
    }
  },
);

test(
  'req.fresh per pipelined request, with and without validators in any letter case, as Express 5 answers',
  T,
  async () => {
    // The engine tells the layer with each request whether it has If-None-Match or If-Modified-Since.
    const statuses = async (make: any): Promise<number[]> => {
      const app = make();
      app.get('/f', (_req: any, res: any) => res.send('fresh body'));
      const s = await start(app);
      try {
        const tag = (await (await fetch(`${s.url}/f`)).headers.get('etag')) as string;
        const heads = ['', `IF-NONE-MATCH: ${tag}\r\n`, 'X-Other: x\r\n', `if-none-match: ${tag}\r\n`, ''];
        const conn = await RawConn.open(s.port);
        await conn.write(Buffer.from(heads.map((h) => `GET /f HTTP/1.1\r\nHost: x\r\n${h}\r\n`).join('')));
        const out: number[] = [];
        while (out.length < heads.length) {
          const text = Buffer.concat(conn.received).toString('latin1');
          const found = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
          if (found.length >= heads.length) out.push(...found.slice(0, heads.length));
          else await new Promise((r) => setTimeout(r, 10));
        }
        conn.destroy();
        return out;
      } finally {
        await s.close();
      }
    };
    const gale = await statuses(express);
    assert.deepEqual(gale, [200, 304, 200, 304, 200]);
    assert.deepEqual(gale, await statuses(realExpress));
  },
);
