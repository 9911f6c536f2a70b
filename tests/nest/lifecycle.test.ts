// GaleExpressAdapter's lifecycle as Nest apps use it: Nest's e2e style (Test.createTestingModule → createNestApplication
// → init() → supertest(app.getHttpServer())), the HTTP server's shape before and after listen, listen(port[, host]),
// getUrl(), EADDRINUSE, close() letting an in-flight request finish, enableShutdownHooks() in a process of its own,
// httpsOptions served with TLS on the engine, and the errors for what cannot be honoured.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { test } from 'node:test';
import { type TLSSocket, Server as TlsServer } from 'node:tls';
import express from '@gale-http/express';
import { GaleExpressAdapter, GaleHttpServer, GaleHttpsServer } from '@gale-http/express/nest';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import realExpress from 'express';
import supertest from 'supertest';
import { makePki } from '../tls/certs.js';
import { type AppFixture, buildFixture } from './build.js';

const built = buildFixture();
const { AppModule, setUp } = await built.load<AppFixture>('app.module');

async function create(options: Record<string, unknown> = {}): Promise<INestApplication> {
  return setUp(await NestFactory.create(AppModule, new GaleExpressAdapter(), { logger: false, ...options }));
}

test("Nest's e2e style: createNestApplication(adapter) → init() → supertest(app.getHttpServer())", async () => {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = setUp(moduleRef.createNestApplication(new GaleExpressAdapter(), { logger: false }));
  await app.init();
  const server = app.getHttpServer();
  assert.ok(server instanceof GaleHttpServer);
  assert.equal(server.address(), null);
  await supertest(server)
    .get('/items')
    .expect(200, [{ id: 1, name: 'apple', qty: 3 }]);
  await supertest(server)
    .post('/items')
    .send({ name: 'plum', qty: 4 })
    .expect(201, { id: 2, name: 'plum', qty: 4 })
    .expect('x-mw', 'POST /items');
  await supertest(server).post('/items').send({ name: 'plum' }).expect(400);
  await supertest(server).get('/items/abc').expect(400);
  await supertest(server).get('/items/guarded').set('x-token', 'secret').expect(200, { secret: 42 });
  await supertest(server)
    .get('/nowhere')
    .expect(404, { error: 'Cannot GET /nowhere', method: 'GET', path: '/nowhere' });
  // Supertest listened and closed once per request; the server is closed again now.
  assert.equal(server.address(), null);
  // Several requests at once share one listen.
  const all = await Promise.all([1, 2, 3].map(() => supertest(server).get('/items/1').expect(200)));
  assert.equal(all.length, 3);
  await app.close();
});

test("app.getHttpServer() has node:http's Server shape before and after listen", async () => {
  const app = await create();
  const server = app.getHttpServer();
  for (const name of ['listen', 'address', 'close', 'on', 'once', 'off', 'emit', 'getConnections', 'setTimeout']) {
    assert.equal(typeof server[name], 'function', name);
  }
  assert.equal(server.keepAliveTimeout, 5000);
  assert.equal(server.listening, false);
  assert.equal(server.galeApp, undefined);
  server.keepAliveTimeout = 7000;
  const listening = new Promise((resolve) => server.once('listening', resolve));
  await app.listen(0, '127.0.0.1');
  await listening;
  assert.equal(server.listening, true);
  assert.notEqual(server.galeApp, undefined);
  const { port, address, family } = server.address();
  assert.equal(address, '127.0.0.1');
  assert.equal(family, 'IPv4');
  assert.equal(await app.getUrl(), `http://127.0.0.1:${port}`);
  const res = await fetch(`http://127.0.0.1:${port}/items/1`);
  assert.equal(res.headers.get('keep-alive'), 'timeout=7');
  const count = await new Promise<number>((resolve) => server.getConnections((_e: unknown, n: number) => resolve(n)));
  assert.equal(typeof count, 'number');
  // What the engine never emits is refused, saying what to do instead.
  assert.throws(() => server.on('upgrade', () => {}), /GaleWsAdapter|GaleIoAdapter/);
  assert.throws(() => server.on('request', () => {}), /Express middleware/);
  const closed = new Promise((resolve) => server.once('close', resolve));
  await app.close();
  await closed;
  assert.equal(server.address(), null);
  assert.equal(server.listening, false);
});

test('listen(port) without a host listens on :: and getUrl() answers; a port in use rejects with EADDRINUSE', async () => {
  const a = await create();
  await a.listen(0);
  const { port, family } = a.getHttpServer().address();
  assert.equal(family, 'IPv6');
  assert.equal(await a.getUrl(), `http://[::1]:${port}`);
  // Connection: close, so that the request after a.close() does not try this connection again.
  assert.equal((await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } })).status, 200);
  const b = await create();
  await assert.rejects(b.listen(port), (err: NodeJS.ErrnoException) => {
    assert.equal(err.code, 'EADDRINUSE');
    return true;
  });
  await a.close();
  // The port is free again: the second app takes it.
  await b.listen(port);
  assert.equal((await fetch(`http://127.0.0.1:${port}/items/1`)).status, 200);
  await b.close();
});

test('app.close() lets a request in flight finish, and new connections are refused from then on', async () => {
  const app = await create();
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const t0 = Date.now();
  const inFlight = fetch(`${url}/slow?ms=400`);
  await new Promise((r) => setTimeout(r, 100));
  const closing = app.close();
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { slept: 400 });
  await closing;
  assert.ok(Date.now() - t0 >= 400);
  await assert.rejects(fetch(`${url}/items`));
});

test('enableShutdownHooks(): SIGTERM closes the app (the request in flight finishes) and the process exits', {
  timeout: 30_000,
}, async (t) => {
  const child = spawn(process.execPath, [join(built.dir, 'serve.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => reject(new Error(`the app exited before listening: ${out}`)));
  });
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const inFlight = fetch(`${url}/slow?ms=500`);
  await new Promise((r) => setTimeout(r, 150));
  child.kill('SIGTERM');
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { slept: 500 });
  // Nest closes the app, then kills itself with the same signal, as it does on node:http.
  assert.deepEqual(await exited, { code: null, signal: 'SIGTERM' });
});

test('httpsOptions: HTTPS served by the engine (getUrl() and supertest say https)', { timeout: 30_000 }, async (t) => {
  const pki = makePki();
  t.after(() => pki.remove());
  const leaf = pki.leaf('localhost');
  const app = await create({ httpsOptions: { key: leaf.key, cert: Buffer.from(leaf.cert) } });
  t.after(() => app.close());
  const server = app.getHttpServer();
  assert.ok(server instanceof GaleHttpsServer && server instanceof GaleHttpServer && server instanceof TlsServer);
  assert.ok(!(new GaleHttpServer(express()) instanceof TlsServer));
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const { status, body, protocol } = await new Promise<{ status: number; body: string; protocol: string }>(
    (resolve, reject) => {
      const req = httpsRequest(`${url}/items/1`, { ca: pki.ca, servername: 'localhost' }, (res) => {
        const protocol = (res.socket as TLSSocket).getProtocol() ?? '';
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, protocol }));
      });
      req.on('error', reject);
      req.end();
    },
  );
  assert.equal(status, 200);
  assert.deepEqual(JSON.parse(body), { id: 1, name: 'apple', qty: 3 });
  assert.match(protocol, /^TLSv1\.[23]$/);
  await supertest(server).get('/items/1').ca(pki.ca).expect(200, { id: 1, name: 'apple', qty: 3 });
});

test('what cannot be honoured is refused with an error saying what to do', async () => {
  await assert.rejects(create({ httpsOptions: { pfx: Buffer.from('x'), passphrase: 'p' } }), {
    code: 'GALE_NEST_UNSUPPORTED',
    message: /httpsOptions\.pfx.*PEM `key` and `cert`.*proxy/s,
  });
  await assert.rejects(create({ httpsOptions: { key: 'k', cert: 'c', requestCert: true } }), {
    message: /mutual TLS/,
  });
  await assert.rejects(create({ httpsOptions: { key: 'k', cert: 'c', minVersion: 'TLSv1' } }), {
    message: /TLSv1\.2 and TLSv1\.3 only/,
  });
  assert.throws(() => new GaleExpressAdapter(realExpress()), /made by express\(\) of @gale-http\/express/);
  assert.throws(() => new GaleExpressAdapter(express({ compat: 4 })), /Express 5/);
});

test('forceCloseConnections: close() ends the request in flight at once', async () => {
  const app = await create({ forceCloseConnections: true });
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const inFlight = fetch(`${url}/slow?ms=2000`).then(
    (r) => r.status,
    () => 'dropped',
  );
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  await app.close();
  assert.equal(await inFlight, 'dropped');
  assert.ok(Date.now() - t0 < 1500, `close took ${Date.now() - t0} ms`);
});
