// The servers of the TLS and HTTP/2 scenarios (scenarios.ts: `tls-hello` and `tls-handshake` on Gale, node:https and
// Fastify with `https`, wrk; `h2-hello` over TLS with ALPN h2 on Gale, node:http2 and Fastify with `http2: true`, and
// `h2c-hello` in cleartext on Gale and node:http2, h2load) and their pre-run check over their own transport
// (node:https, node:http2). A self-signed certificate for 127.0.0.1 is made with openssl on first use (never
// committed) and removed when the harness exits.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from './proc.ts';
import type { Scenario } from './scenario-types.ts';
import { describeBody } from './scenarios.ts';
// Not from servers.ts: it imports this module's server list.
import type { Launch, LaunchContext, ServerDef } from './server-types.ts';
import { contentTypeProblem, type Validation } from './validate.ts';

const appsDir = join(import.meta.dirname, '..', 'apps');

let cert: { certPath: string; keyPath: string; pem: string } | undefined;

/** The bench certificate (self-signed, P-256, for 127.0.0.1 and localhost), made with openssl on first use. */
export function benchCert(): { certPath: string; keyPath: string; pem: string } {
  if (cert === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'gale-bench-tls-'));
    atExit(() => rmSync(dir, { recursive: true, force: true }));
    const certPath = join(dir, 'cert.pem');
    const keyPath = join(dir, 'key.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
          // An end-entity certificate, trusted as itself: rustls (gale-loadgen-h3) refuses a CA certificate as a
          // server's own, and openssl's default for -x509 is CA:TRUE.
          '-addext',
          'basicConstraints=critical,CA:FALSE',
          '-keyout',
          keyPath,
          '-out',
          certPath,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (err) {
      throw new Error(
        `openssl could not make the bench certificate (${(err as Error).message.split('\n')[0]}): ` +
          'install it with `sudo apt-get install -y openssl`',
      );
    }
    cert = { certPath, keyPath, pem: readFileSync(certPath, 'utf8') };
  }
  return cert;
}

/** A Node app of bench/apps started with the bench certificate (when `tls`) and `env`. */
function app(file: string, env: Record<string, string>, tls: boolean): (ctx: LaunchContext) => Launch {
  return (ctx) => {
    const c = tls ? benchCert() : undefined;
    return {
      cmd: process.execPath,
      args: [join(appsDir, file)],
      env: {
        ...env,
        ...(c ? { BENCH_TLS_CERT: c.certPath, BENCH_TLS_KEY: c.keyPath } : {}),
        PORT: String(ctx.port),
        NODE_ENV: 'production',
      },
    };
  };
}

/** Why the Gale rows cannot start (as servers.ts's galeUnavailable says it). */
const galeBuilt = (): string | null =>
  existsSync(join(appsDir, '..', '..', 'packages', 'gale', 'dist', 'index.js'))
    ? null
    : 'gale is not built: packages/gale/dist/index.js is missing (run `npm run build` at the repo root)';

export const secureServers: readonly ServerDef[] = [
  {
    name: 'gale-tls',
    label: 'Gale (TLS)',
    kinds: ['tls'],
    launch: app('secure-gale.mjs', {}, true),
    unavailable: galeBuilt,
  },
  {
    name: 'node-https',
    label: 'node:https',
    kinds: ['tls'],
    launch: app('secure-node.mjs', { BENCH_SERVER: 'https' }, true),
  },
  { name: 'fastify-https', label: 'Fastify 5 (https)', kinds: ['tls'], launch: app('secure-fastify.mjs', {}, true) },
  {
    name: 'gale-h2',
    label: 'Gale (HTTP/2, TLS)',
    kinds: ['h2'],
    launch: app('secure-gale.mjs', { BENCH_HTTP2: '1' }, true),
    unavailable: galeBuilt,
  },
  {
    name: 'node-http2',
    label: 'node:http2 (TLS)',
    kinds: ['h2'],
    launch: app('secure-node.mjs', { BENCH_SERVER: 'http2' }, true),
  },
  {
    name: 'fastify-h2',
    label: 'Fastify 5 (http2, TLS)',
    kinds: ['h2'],
    launch: app('secure-fastify.mjs', { BENCH_HTTP2: '1' }, true),
  },
  {
    // HTTP/3 (QUIC on the TLS port's number, over UDP); nothing else on Node serves HTTP/3 outside experiments.
    name: 'gale-h3',
    label: 'Gale (HTTP/3)',
    kinds: ['h3'],
    launch: app('secure-gale.mjs', { BENCH_HTTP3: '1' }, true),
    unavailable: galeBuilt,
  },
  {
    name: 'gale-h2c',
    label: 'Gale (h2c)',
    kinds: ['h2c'],
    launch: app('secure-gale.mjs', { BENCH_HTTP2: '1' }, false),
    unavailable: galeBuilt,
  },
  {
    name: 'node-h2c',
    label: 'node:http2 (h2c)',
    kinds: ['h2c'],
    launch: app('secure-node.mjs', { BENCH_SERVER: 'h2c' }, false),
  },
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The protocol the answer came over: `http/1.1`, `h2` (TLS) or `h2c`. */
  protocol: string;
}

function h1Get(base: string, s: Scenario, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${base}${s.path}`,
      {
        ca: benchCert().pem,
        agent: false,
        headers: { 'accept-encoding': 'identity', ...s.headers },
        timeout: timeoutMs,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = String(v);
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(parts), protocol: 'http/1.1' });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

function h2Get(base: string, s: Scenario, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(base, s.tls ? { ca: benchCert().pem } : {});
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    session.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const req = session.request({ ':path': s.path, ':method': s.method, 'accept-encoding': 'identity', ...s.headers });
    const parts: Buffer[] = [];
    let head: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => {
      head = h;
    });
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      clearTimeout(timer);
      const protocol = session.alpnProtocol ?? 'unknown';
      session.close();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(head)) if (v !== undefined && !k.startsWith(':')) headers[k] = String(v);
      resolve({ status: Number(head[':status']), headers, body: Buffer.concat(parts), protocol });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      session.destroy();
      reject(err);
    });
  });
}

/**
 * The pre-run check of a TLS or HTTP/2 scenario (the counterpart of validate.ts's fetch for cleartext HTTP/1.1): the
 * status, the Content-Type, the required headers and the exact body, and the protocol (HTTP/2 must really be h2).
 * An HTTP/3 scenario's server is asked over HTTPS here (its Alt-Svc, Content-Type and body), and over HTTP/3 by
 * loadgen-h3.ts's validateH3.
 */
export async function validateSecure(
  base: string,
  s: Scenario,
  timeoutMs = 5000,
): Promise<{ seen: Validation | null; problem: string | null }> {
  let a: Answer;
  try {
    a = s.kind === 'h2' || s.kind === 'h2c' ? await h2Get(base, s, timeoutMs) : await h1Get(base, s, timeoutMs);
  } catch (err) {
    return { seen: null, problem: `request failed: ${(err as Error).message}` };
  }
  const seen: Validation = {
    status: a.status,
    headers: { ...a.headers, protocol: a.protocol },
    body: describeBody(a.body),
  };
  const problems: string[] = [];
  const wantProtocol = s.kind === 'h2' ? 'h2' : s.kind === 'h2c' ? 'h2c' : 'http/1.1';
  if (a.protocol !== wantProtocol) problems.push(`protocol ${a.protocol} (expected ${wantProtocol})`);
  if (a.status !== s.status) problems.push(`status ${a.status} (expected ${s.status})`);
  const ct = contentTypeProblem(a.headers['content-type'] ?? null, s.contentType);
  if (ct) problems.push(ct);
  for (const [name, want] of Object.entries(s.expectHeaders)) {
    const got = a.headers[name];
    if (got === undefined) problems.push(`no ${name} header`);
    else if (want !== true && got !== want) problems.push(`${name} "${got}" (expected "${want}")`);
  }
  if (!a.body.equals(s.body)) {
    problems.push(
      `body ${JSON.stringify(a.body.toString('utf8').slice(0, 120))} (expected ${JSON.stringify(s.body.toString())})`,
    );
  }
  return { seen, problem: problems.length ? `validation: ${problems.join('; ')}` : null };
}
