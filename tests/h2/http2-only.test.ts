// `listen({ http2: { http1: false } })`: a port for HTTP/2 only, as Node's http2.createServer is (and as HttpArena's
// h2c profiles require). h2c with prior knowledge and TLS with ALPN h2 are served; an HTTP/1.1 request gets 505 with
// how to connect, and over TLS ALPN offers h2 alone. curl is the client, as HttpArena's validation uses it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { T } from '../helpers.js';
import { ensureCommand } from '../system-tools.js';
import { bounded, h2App, request, testPki } from './h2.js';

const run = promisify(execFile);

/** curl's status line facts: the protocol it ended up speaking and the status (000 when there was no answer). */
async function curl(args: string[]): Promise<{ version: string; status: string; body: string }> {
  const r = await run(ensureCommand('curl', 'curl'), [
    '-s',
    '--max-time',
    '5',
    '-w',
    '\n%{http_version} %{http_code}',
    ...args,
  ]).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  const at = r.stdout.lastIndexOf('\n');
  const [version = '', status = ''] = r.stdout.slice(at + 1).split(' ');
  return { version, status, body: r.stdout.slice(0, at) };
}

const sum = (app: Parameters<Parameters<typeof h2App>[1]>[0]) => {
  app.get('/baseline2', (req) => String(Number(req.query.a) + Number(req.query.b)));
};

test('h2c only: prior knowledge is served, an HTTP/1.1 request gets 505 saying how to connect', T, async (t) => {
  const s = await h2App(t, sum, { http2: { http1: false } });
  const url = `${s.origin}/baseline2?a=13&b=42`;
  assert.deepEqual(await curl(['--http2-prior-knowledge', url]), { version: '2', status: '200', body: '55' });
  const h1 = await curl(['--http1.1', url]);
  assert.equal(h1.status, '505');
  assert.match(h1.body, /HTTP\/2 only/);
  // Node's own HTTP/2 client, on the same listener.
  const r = await request(s.connect(), { ':path': '/baseline2?a=1&b=2' });
  assert.equal(r.body.toString(), '3');
});

test('over TLS with http1: false, ALPN offers h2 alone and a client without ALPN gets 505', T, async (t) => {
  const s = await h2App(t, sum, { secure: true, http2: { http1: false } });
  const dir = mkdtempSync(join(tmpdir(), 'gale-h2only-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, testPki().pki.ca);
  const url = `https://a.test:${s.port}/baseline2?a=13&b=42`;
  const common = ['--cacert', ca, '--resolve', `a.test:${s.port}:127.0.0.1`];
  assert.deepEqual(await curl([...common, '--http2', url]), { version: '2', status: '200', body: '55' });
  // A client offering only http/1.1 finds no protocol in common: the handshake fails.
  const sock = tls.connect({
    port: s.port,
    host: '127.0.0.1',
    servername: 'a.test',
    ca: testPki().pki.ca,
    ALPNProtocols: ['http/1.1'],
  });
  const outcome = await bounded(
    new Promise<string>((resolve) => {
      sock.once('secureConnect', () => resolve(`connected with ${String(sock.alpnProtocol)}`));
      sock.once('error', (e) => resolve(e.message));
    }),
    3000,
    'the handshake',
  );
  sock.destroy();
  assert.match(outcome, /no application protocol|alert/i);
  // One that offers no ALPN at all speaks HTTP/1.1 after the handshake: 505.
  const h1 = await curl([...common, '--http1.1', '--no-alpn', url]);
  assert.equal(h1.status, '505');
});

test('without http1: false the same port keeps serving HTTP/1.1 beside h2c', T, async (t) => {
  const s = await h2App(t, sum);
  const url = `${s.origin}/baseline2?a=13&b=42`;
  assert.deepEqual(await curl(['--http1.1', url]), { version: '1.1', status: '200', body: '55' });
  assert.deepEqual(await curl(['--http2-prior-knowledge', url]), { version: '2', status: '200', body: '55' });
});

test('http2.http1 that is not a boolean is refused with the option named', T, async () => {
  const { gale } = await import('gale');
  const app = gale();
  await assert.rejects(
    app.listen({ port: 0, host: '127.0.0.1', http2: { http1: 'no' as unknown as boolean } }),
    /option http2\.http1 must be true or false; got "no"/,
  );
  assert.equal(app.address(), null);
});
