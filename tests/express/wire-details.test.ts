// Wire details where middleware relies on node:http behaviour, compared with real Express 5 over raw sockets: a
// custom statusMessage in the status line, a streamed body with a Content-Length set (framed by it, not chunked),
// a HEAD answer stating a large file's length, the app's own Connection: close, and the socket's ports.
// biome-ignore-all lint/suspicious/noExplicitAny: Express-style handlers
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import express from '@gale-http/express';
import realExpress from 'express';
import { buildRequest, RawConn } from '../helpers.js';
import { fileTempDir } from '../temp.js';
import { start } from './helpers.js';

const T = { timeout: 15_000 };
const dir = fileTempDir('gale-express-wire-');
writeFileSync(join(dir, 'big.bin'), Buffer.alloc(12 * 1024 * 1024, 7));

function build(make: any) {
  const app = make();
  app.get('/reason', (_req: any, res: any) => {
    res.statusMessage = 'Quite Alright';
    res.status(203).send('r');
  });
  app.get('/stream', (_req: any, res: any) => {
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Content-Length', '9');
    res.write('abc');
    setTimeout(() => {
      res.write('def');
      res.end('ghi');
    }, 5);
  });
  app.get('/close', (_req: any, res: any) => res.set('Connection', 'close').send('bye'));
  app.get('/ports', (req: any, res: any) =>
    res.json({
      remotePort: typeof req.socket.remotePort,
      localPort: req.socket.localPort === req.app.locals.port,
      localAddress: req.socket.localAddress,
    }),
  );
  app.use('/files', make.static(dir));
  return app;
}

test(
  '@gale-http/express and Express 5 agree on reason phrases, Content-Length streams, HEAD lengths, Connection: close',
  T,
  async (t) => {
    const answers: Record<string, string[]> = {};
    for (const [name, make] of [
      ['express5', realExpress],
      ['gale', express],
    ] as const) {
      const app = build(make);
      const s = await start(app);
      app.locals.port = s.port;
      t.after(() => s.close());
      const conn = await RawConn.open(s.port);
      const out: string[] = [];
      await conn.write(buildRequest({ path: '/reason' }));
      out.push((await conn.readResponse()).statusLine);
      await conn.write(buildRequest({ path: '/stream' }));
      const stream = await conn.readResponse();
      out.push(`${stream.chunked} ${stream.get('content-length')} ${stream.text}`);
      await conn.write(buildRequest({ method: 'HEAD', path: '/files/big.bin' }));
      const head = await conn.readResponse({ head: true });
      out.push(`${head.status} ${head.get('content-length')}`);
      await conn.write(buildRequest({ path: '/ports' }));
      out.push((await conn.readResponse()).text);
      await conn.write(buildRequest({ path: '/close' }));
      const bye = await conn.readResponse();
      out.push(`${bye.get('connection')} ${await conn.waitForClose(3000)}`);
      answers[name] = out;
    }
    assert.deepEqual(answers.gale, answers.express5);
    assert.deepEqual(answers.gale, [
      'HTTP/1.1 203 Quite Alright',
      'false 9 abcdefghi',
      `200 ${12 * 1024 * 1024}`,
      '{"remotePort":"number","localPort":true,"localAddress":"127.0.0.1"}',
      'close true',
    ]);
  },
);
