// HTTPS and WSS served by the engine (rustls), with real clients: node:https/tls, curl, `ws`; SNI picks the
// certificate, ALPN says http/1.1, sessions resume; bodies, pipelining, static files and WebSocket pub/sub and
// compression over TLS; hostile clients (a handshake that never ends, garbage instead of a ClientHello, a TLS 1.2
// client against minVersion TLSv1.3) are cut off without hurting others.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import tls from 'node:tls';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { type App, deferred, sleep, type withApp, within } from '../helpers.js';
import { ensureCommand } from '../system-tools.js';
import { fileTempDir, tempDir } from '../temp.js';
import { pinnedPython, runClient } from '../ws/py/python.js';
import { makePki } from './certs.js';

const T = { timeout: 30_000 };
const pki = makePki();
after(() => pki.remove());
const a = pki.leaf('a.test');
const b = pki.leaf('b.test');

/** A TLS connection with `servername`, resolved once the handshake is done. */
function connectTls(port: number, opts: tls.ConnectionOptions = {}): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca: pki.ca, servername: 'a.test', ...opts }, () => resolve(s));
    s.once('error', reject);
  });
}

function get(port: number, path: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path, ca: pki.ca, servername: 'a.test', agent: false, ...opts },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
      },
    );
    req.on('error', reject);
    req.end(opts.method === 'POST' ? (opts as { body?: Buffer }).body : undefined);
  });
}

async function tlsApp(t: Parameters<typeof withApp>[0], setup: (app: App) => void, tlsOpts: object = {}) {
  const { gale } = await import('gale');
  const app = gale();
  setup(app);
  const addr = await app.listen({
    port: 0,
    host: '127.0.0.1',
    tls: { cert: a.cert, key: a.key, sni: { 'b.test': { cert: b.cert, key: b.key } }, ...tlsOpts },
  });
  t.after(() => app.close({ timeout: 500 }));
  return { app, port: addr.port };
}

const files = fileTempDir('gale-tls-files-');
const bigFile = Buffer.alloc(5 * 1024 * 1024);
for (let i = 0; i < bigFile.length; i++) bigFile[i] = (i * 31) & 0xff;
writeFileSync(join(files, 'big.bin'), bigFile);

test('HTTPS: requests, req.secure and protocol, keep-alive, large bodies both ways, a static file', T, async (t) => {
  const { port } = await tlsApp(t, (app) => {
    app.get('/who', (req) => ({ secure: req.secure, protocol: req.protocol, ip: req.ip }));
    app.post('/echo', async (req) => Buffer.from(await req.arrayBuffer()));
    app.static('/files', files);
  });
  const who = await get(port, '/who');
  assert.deepEqual(JSON.parse(who.body.toString()), { secure: true, protocol: 'https', ip: '127.0.0.1' });
  const up = Buffer.alloc(900 * 1024, 7);
  const echo = await get(port, '/echo', {
    method: 'POST',
    headers: { 'content-length': up.length },
    body: up,
  } as never);
  assert.equal(echo.status, 200);
  assert.ok(echo.body.equals(up), 'a 900 KiB body comes back intact');
  const file = await get(port, '/files/big.bin');
  assert.equal(file.status, 200);
  assert.ok(file.body.equals(bigFile), 'a 5 MiB static file arrives intact over TLS (no sendfile)');
  // Keep-alive and pipelining on one TLS connection.
  const s = await connectTls(port, { ALPNProtocols: ['h2', 'http/1.1'] });
  let got = '';
  s.on('data', (d: Buffer) => (got += d.toString()));
  s.write('GET /who HTTP/1.1\r\nHost: a.test\r\n\r\nGET /who HTTP/1.1\r\nHost: a.test\r\n\r\n');
  const t0 = Date.now();
  while ((got.match(/HTTP\/1\.1 200/g) ?? []).length < 2 && Date.now() - t0 < 3000) await sleep(10);
  assert.equal((got.match(/HTTP\/1\.1 200/g) ?? []).length, 2, got);
  assert.equal(s.alpnProtocol, 'http/1.1');
  s.destroy();
});

test('SNI picks the certificate; an unknown name gets the default; sessions resume', T, async (t) => {
  const { port } = await tlsApp(t, (app) => app.get('/', () => 'ok'));
  const serial = async (servername?: string) => {
    const s = await connectTls(
      port,
      servername ? { servername } : { servername: '', checkServerIdentity: () => undefined },
    );
    const sn = s.getPeerCertificate().serialNumber.toLowerCase();
    s.destroy();
    return sn;
  };
  assert.equal(await serial('a.test'), a.serial);
  assert.equal(await serial('b.test'), b.serial);
  assert.equal(await serial('c.test').catch(() => 'refused'), 'refused', 'the default cert does not claim c.test');
  const first = await connectTls(port, { servername: 'a.test' });
  // A TLS 1.3 session is resumable once its ticket has arrived ('session').
  const session = await new Promise<Buffer>((resolve) => {
    first.once('session', resolve);
    first.write('GET / HTTP/1.1\r\nHost: a.test\r\n\r\n');
  });
  first.destroy();
  const again = await connectTls(port, { servername: 'a.test', session });
  assert.equal(again.isSessionReused(), true, 'the session resumed');
  again.destroy();
});

test('curl over HTTPS with the CA and SNI', T, async (t) => {
  const curl = ensureCommand('curl', 'curl');
  const { port } = await tlsApp(t, (app) => app.get('/hi', (req) => `hi ${req.protocol}`));
  // Asynchronously: the server runs in this process and must keep serving while curl waits.
  const { stdout } = await promisify(execFile)(curl, [
    '-sS',
    '--max-time',
    '5',
    '--cacert',
    pki.caPath,
    '--resolve',
    `b.test:${port}:127.0.0.1`,
    '-w',
    ' %{http_code} %{ssl_verify_result}',
    `https://b.test:${port}/hi`,
  ]);
  assert.equal(stdout, 'hi https 200 0');
});

test('WSS: echo, pub/sub and permessage-deflate over TLS', T, async (t) => {
  const { port } = await tlsApp(t, (app) =>
    app.ws('/ws', {
      compression: 'shared',
      open: (ws) => ws.subscribe('room'),
      message: (ws, data) => {
        if (data.toString() === 'pub') app.publish('room', 'x'.repeat(5000));
        // The request the engine kept for this socket (no middleware, no upgrade()) remembers it came over TLS.
        else if (data.toString() === 'proto') ws.send(`${ws.req.protocol} ${ws.req.secure}`);
        else ws.send(data);
      },
    }),
  );
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      // ws passes TLS options (ca, servername) on to tls.connect; its types list only some of them.
      const c = new WebSocket(`wss://127.0.0.1:${port}/ws`, {
        ca: pki.ca,
        servername: 'a.test',
        perMessageDeflate: true,
      } as WebSocket.ClientOptions);
      c.once('open', () => resolve(c));
      c.once('error', reject);
    });
  const c1 = await open();
  const c2 = await open();
  assert.match(c1.extensions, /permessage-deflate/);
  const next = (c: WebSocket) => new Promise<string>((r) => c.once('message', (m) => r(m.toString())));
  const e = next(c1);
  c1.send('hello over tls');
  assert.equal(await e, 'hello over tls');
  const proto = next(c1);
  c1.send('proto');
  assert.equal(await proto, 'https true');
  const p1 = next(c1);
  const p2 = next(c2);
  c2.send('pub');
  assert.equal((await p1).length, 5000);
  assert.equal((await p2).length, 5000);
  c1.close();
  c2.close();
});

test(
  'reloadTls: new handshakes get the new certificate, an open WSS connection carries on, a bad one is refused',
  T,
  async (t) => {
    let app!: App;
    const { port } = await tlsApp(t, (x) => {
      app = x;
      x.ws('/ws', { message: (ws, m) => ws.send(m) });
    });
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const c = new WebSocket(`wss://127.0.0.1:${port}/ws`, {
        ca: pki.ca,
        servername: 'a.test',
      } as WebSocket.ClientOptions);
      c.once('open', () => resolve(c));
      c.once('error', reject);
    });
    const fresh = pki.leaf('a.test');
    app.reloadTls({ cert: fresh.cert, key: fresh.key });
    const s = await connectTls(port);
    assert.equal(s.getPeerCertificate().serialNumber.toLowerCase(), fresh.serial);
    s.destroy();
    const echoed = new Promise<string>((r) => ws.once('message', (m) => r(m.toString())));
    ws.send('still here');
    assert.equal(await echoed, 'still here', 'the WSS connection made before the reload still works');
    assert.throws(() => app.reloadTls({ cert: fresh.cert, key: b.key }), /does not belong to the certificate/);
    const s2 = await connectTls(port);
    assert.equal(s2.getPeerCertificate().serialNumber.toLowerCase(), fresh.serial, 'the good certificate stays');
    s2.destroy();
    ws.close();
  },
);

test('hostile clients: a handshake that never ends times out, garbage is cut off, others are served', T, async (t) => {
  const { gale } = await import('gale');
  const app = gale({ headersTimeout: 1000 });
  app.get('/', () => 'ok');
  const { port } = await app.listen({ port: 0, host: '127.0.0.1', tls: { cert: a.cert, key: a.key } });
  t.after(() => app.close({ timeout: 500 }));
  const silent = net.connect(port, '127.0.0.1');
  silent.on('error', () => {});
  const silentClosed = deferred();
  silent.on('close', () => silentClosed.resolve());
  silent.resume(); // reading, so the server's FIN is seen
  // Half a ClientHello, then nothing.
  const half = tls.connect({ host: '127.0.0.1', port, ca: pki.ca, servername: 'a.test' });
  half.on('error', () => {});
  const garbage = net.connect(port, '127.0.0.1');
  garbage.on('error', () => {});
  const garbageClosed = deferred();
  garbage.on('close', () => garbageClosed.resolve());
  garbage.resume();
  garbage.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.ok(await within(garbageClosed.promise, 2000), 'plaintext HTTP on the TLS port is cut off');
  // Meanwhile a real client is served.
  assert.equal((await get(port, '/')).body.toString(), 'ok');
  assert.ok(await within(silentClosed.promise, 4000), 'a connection that never starts its handshake is closed');
  half.destroy();
});

test('minVersion TLSv1.3 refuses a TLS 1.2 client', T, async (t) => {
  const { port } = await tlsApp(t, (app) => app.get('/', () => 'ok'), { minVersion: 'TLSv1.3' });
  await assert.rejects(connectTls(port, { maxVersion: 'TLSv1.2' }));
  const s = await connectTls(port);
  assert.equal(s.getProtocol(), 'TLSv1.3');
  s.destroy();
});

test('reloadOnSighup: a server process re-reads its certificate files on SIGHUP', T, async (t) => {
  const dir = tempDir(t, 'gale-tls-hup-');
  const first = pki.leaf('a.test');
  writeFileSync(join(dir, 'cert.pem'), first.cert);
  writeFileSync(join(dir, 'key.pem'), first.key);
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fixtures', 'hup-server.mjs')], {
    env: { ...process.env, GALE_TLS_CERT: join(dir, 'cert.pem'), GALE_TLS_KEY: join(dir, 'key.pem') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => {
    child.kill('SIGKILL');
    child.stdout?.destroy();
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString()))),
  );
  const serial = async () => {
    const s = await connectTls(port);
    const sn = s.getPeerCertificate().serialNumber.toLowerCase();
    s.destroy();
    return sn;
  };
  assert.equal(await serial(), first.serial);
  const second = pki.leaf('a.test');
  writeFileSync(join(dir, 'cert.pem'), second.cert);
  writeFileSync(join(dir, 'key.pem'), second.key);
  child.kill('SIGHUP');
  const t0 = Date.now();
  let now = await serial();
  while (now !== second.serial && Date.now() - t0 < 3000) {
    await sleep(50);
    now = await serial();
  }
  assert.equal(now, second.serial);
});

test("WSS with Python's websockets (the pinned PyPI client) and the test CA", { timeout: 90_000 }, async (t) => {
  const { port } = await tlsApp(t, (app) =>
    app.ws('/echo', {
      compression: 'shared',
      maxPayloadLength: 4 * 1024 * 1024,
      message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
    }),
  );
  const out = JSON.parse(await runClient(pinnedPython(), [`wss://127.0.0.1:${port}/echo`, 'deflate', pki.caPath]));
  assert.deepEqual(
    [out.extensions, out.text, out.big_ok, out.pong, out.close_code],
    [['permessage-deflate'], 'héllo', true, true, 4000],
  );
});
