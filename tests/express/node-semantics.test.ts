// node:http's request and server semantics on @gale-http/express (5 and /4), each case sent as the same bytes to the
// real Express on node:http and compared: repeated request headers (first wins, Cookie joined with '; ', set-cookie an
// array, the rest joined with ', '), headersDistinct and rawHeaders, Connection/Keep-Alive on responses, listen()'s
// `this`, address() after close(), a second close(cb), the EADDRINUSE error, writableFinished and res.socket at
// 'finish', req.header === req.get; and the same header rules on the native API.
// biome-ignore-all lint/suspicious/noExplicitAny: the apps come from two Express implementations
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { test } from 'node:test';
import galeExpress from '@gale-http/express';
import galeExpress4 from '@gale-http/express/4';
import express from 'express';
import express4 from 'express4';
import { gale } from 'gale';
import { T } from '../helpers.js';

const PAIRS = [
  ['5', express, galeExpress],
  ['4', express4, galeExpress4],
] as const;

/** Sends raw request bytes; resolves the raw response (head and body) once the server closes or `done` matches. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => {
      out += d.toString('latin1');
    });
    s.on('end', () => resolve(out));
    s.on('error', reject);
    s.write(bytes);
  });
}

/** The response's head fields, lower-case names, in order, without Date. */
function fields(response: string): [string, string][] {
  const head = response.slice(0, response.indexOf('\r\n\r\n'));
  return head
    .split('\r\n')
    .slice(1)
    .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string])
    .filter(([k]) => k !== 'date');
}

const body = (response: string) => response.slice(response.indexOf('\r\n\r\n') + 4);

async function listening(app: any): Promise<{ port: number; server: any }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, server };
}

const REPEATED =
  'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Type: application/json\r\n' +
  'Cookie: a=1\r\nCookie: b=2\r\nX-Tag: one\r\nX-Tag: two\r\nAuthorization: first\r\nAuthorization: second\r\n' +
  'User-Agent: ua1\r\nUser-Agent: ua2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';

for (const [major, reference, ours] of PAIRS) {
  test(
    `Express ${major}: repeated request headers, headersDistinct and rawHeaders as node:http has them`,
    T,
    async (t) => {
      const answers: string[] = [];
      for (const make of [reference, ours] as any[]) {
        const app = make();
        app.post('/echo', (req: any, res: any) =>
          res.json({
            headers: req.headers,
            distinct: req.headersDistinct,
            raw: req.rawHeaders,
            headerIsGet: req.header === req.get,
            type: req.get('content-type'),
          }),
        );
        const { port, server } = await listening(app);
        t.after(() => server.close());
        answers.push(body(await raw(port, REPEATED)));
      }
      const [want, got] = answers.map((a) => JSON.parse(a as string));
      assert.deepEqual(want.headers['content-type'], 'text/plain', 'the reference keeps the first Content-Type');
      assert.deepEqual(got, want);
    },
  );

  test(`Express ${major}: Connection and Keep-Alive on responses, and Connection: close when asked`, T, async (t) => {
    const answers: [string, string][][] = [];
    for (const make of [reference, ours] as any[]) {
      const app = make();
      app.get('/', (_req: any, res: any) => res.send('hi'));
      const { port, server } = await listening(app);
      t.after(() => server.close());
      const s = net.connect(port, '127.0.0.1');
      await once(s, 'connect');
      s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      const [first] = await once(s, 'data');
      s.destroy();
      const closing = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const pick = (r: string) => fields(r).filter(([k]) => k === 'connection' || k === 'keep-alive');
      answers.push([...pick(first.toString('latin1')), ...pick(closing)]);
    }
    assert.deepEqual(answers[0], [
      ['connection', 'keep-alive'],
      ['keep-alive', 'timeout=5'],
      ['connection', 'close'],
    ]);
    assert.deepEqual(answers[1], answers[0]);
  });

  test(`Express ${major}: listen's this, address() after close, a second close(cb), EADDRINUSE`, T, async () => {
    const seen: unknown[][] = [];
    for (const make of [reference, ours] as any[]) {
      const app = make();
      let self: unknown;
      const server = app.listen(0, '127.0.0.1', function (this: unknown) {
        self = this;
      });
      await once(server, 'listening');
      const port = (server.address() as AddressInfo).port;
      const busy = make().listen(port, '127.0.0.1');
      const [err] = await once(busy, 'error');
      const first = new Promise<unknown>((r) => server.close((e: unknown) => r(e)));
      const addressAfter = server.address();
      const second = await new Promise<any>((r) => server.close((e: unknown) => r(e)));
      seen.push([
        self === server,
        addressAfter,
        await first,
        second?.code,
        err.code,
        err.message,
        err.syscall,
        err.port,
        typeof err.errno,
      ]);
    }
    assert.deepEqual(seen[0]?.slice(0, 5), [true, null, undefined, 'ERR_SERVER_NOT_RUNNING', 'EADDRINUSE']);
    // The port differs between the two runs: compare the message with it taken out.
    const norm = (row: unknown[]) => row.map((v) => (typeof v === 'string' ? v.replace(/:\d+$/, ':<port>') : v));
    assert.deepEqual(norm(seen[1] as unknown[]).slice(0, 7), norm(seen[0] as unknown[]).slice(0, 7));
    assert.equal(typeof seen[1]?.[7], 'number');
    assert.equal(seen[1]?.[8], 'number');
  });

  test(
    `Express ${major}: writableFinished right after end(body, cb), res.socket in the callback, as this Node has them`,
    T,
    async (t) => {
      const seen: unknown[][] = [];
      for (const make of [reference, ours] as any[]) {
        const app = make();
        const got = new Promise<unknown[]>((resolve) => {
          app.get('/', (_req: any, res: any) => {
            res.end('done', () => resolve([finishedNow, res.writableFinished, res.socket === null]));
            const finishedNow = res.writableFinished;
          });
        });
        const { port, server } = await listening(app);
        t.after(() => server.close());
        await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        seen.push(await got);
      }
      // Node 20 and 22: finished at once, the socket let go before the callback; from Node 24, finished a tick later
      // and the callback still sees the socket.
      const late = Number(process.versions.node.split('.')[0]) >= 24;
      assert.deepEqual(seen[0], late ? [false, true, false] : [true, true, true]);
      assert.deepEqual(seen[1], seen[0]);
    },
  );
}

test(
  'the native API: repeated headers as node:http has them, headersDistinct, rawHeaders, Keep-Alive',
  T,
  async (t) => {
    const app = gale();
    app.post('/echo', (req) => ({ headers: req.headers, distinct: req.headersDistinct, raw: req.rawHeaders }));
    app.get('/', () => 'hi');
    const { port } = await app.listen(0, '127.0.0.1');
    t.after(() => app.close({ idleGrace: 0 }));
    const got = JSON.parse(body(await raw(port, REPEATED)));
    assert.equal(got.headers['content-type'], 'text/plain');
    assert.equal(got.headers.cookie, 'a=1; b=2');
    assert.equal(got.headers['x-tag'], 'one, two');
    assert.equal(got.headers.authorization, 'first');
    assert.equal(got.headers['user-agent'], 'ua1');
    assert.deepEqual(got.distinct['x-tag'], ['one', 'two']);
    assert.deepEqual(got.distinct.cookie, ['a=1', 'b=2']);
    assert.deepEqual(got.raw.slice(0, 6), [
      'Host',
      'x',
      'Content-Type',
      'text/plain',
      'Content-Type',
      'application/json',
    ]);
    // The native API's own keep-alive timeout (65 s) in its Keep-Alive line; a closing answer says only that.
    const s = net.connect(port, '127.0.0.1');
    await once(s, 'connect');
    s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const [first] = await once(s, 'data');
    const kept = fields(first.toString('latin1'));
    assert.deepEqual(
      kept.filter(([k]) => k === 'connection' || k === 'keep-alive'),
      [
        ['connection', 'keep-alive'],
        ['keep-alive', 'timeout=65'],
      ],
    );
    app.keepAliveTimeout = 30_000;
    s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const [second] = await once(s, 'data');
    assert.ok(second.toString('latin1').includes('\r\nKeep-Alive: timeout=30\r\n'), 'a new timeout applies at once');
    s.destroy();
    const closing = fields(await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.deepEqual(
      closing.filter(([k]) => k === 'connection' || k === 'keep-alive'),
      [['connection', 'close']],
    );
  },
);

test('keepAliveHeader: false sends neither line; decodeParams: false passes parameters as sent', T, async (t) => {
  const app = gale({ keepAliveHeader: false, decodeParams: false });
  app.get('/u/:id', (req) => req.params.id);
  const { port } = await app.listen(0, '127.0.0.1');
  t.after(() => app.close({ idleGrace: 0 }));
  const r = await raw(port, 'GET /u/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(body(r), '%E0%A4%A');
  const s = net.connect(port, '127.0.0.1');
  await once(s, 'connect');
  s.write('GET /u/a%20b HTTP/1.1\r\nHost: x\r\n\r\n');
  const [d] = await once(s, 'data');
  s.destroy();
  const text = d.toString('latin1');
  assert.ok(!/\r\nConnection:|\r\nKeep-Alive:/i.test(text), text);
  assert.ok(text.endsWith('a%20b'));
});
