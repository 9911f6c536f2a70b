// HTTP benchmark scenarios as data (from ../shared/bench/scenarios.md, "HTTP scenarios"): the request each load tool
// sends and the exact response every counted answer must match.
import { createHash } from 'node:crypto';
import { LARGE_SIZE, prerenderedFile, publicFile } from './assets.ts';
import type { Scenario, ScenarioKind } from './scenario-types.ts';
import { sveltekitScenarios } from './sveltekit.ts';

export type { Scenario, ScenarioKind } from './scenario-types.ts';

type ScenarioInput = Omit<Scenario, 'body' | 'method' | 'headers' | 'expectHeaders' | 'kind'> & {
  body: string | Buffer;
  kind?: ScenarioKind;
  headers?: Record<string, string>;
  expectHeaders?: Record<string, string | true>;
};

function scenario(s: ScenarioInput): Scenario {
  return {
    kind: 'dynamic',
    headers: {},
    expectHeaders: {},
    ...s,
    method: 'GET',
    body: typeof s.body === 'string' ? Buffer.from(s.body, 'utf8') : s.body,
  };
}

/**
 * express-app-* and express-bare-*: one Express app file (apps/express-app.mjs) on Express 5, Express 4,
 * @gale-http/express and the peers on uWebSockets.js (lib/express-servers.ts): hello (`res.json`), params
 * (`res.send(\`user ${req.params.id}\`)`) and async (one awaited promise, then `res.json`); the express-app ones with
 * cors(), helmet() and express.json() in front (issue 41). A peer frames `res.send` as chunked: bodies are compared.
 */
function expressAppScenarios(): Scenario[] {
  const routes = [
    {
      suffix: '',
      what: 'GET / → res.json({hello:"world"})',
      path: '/',
      type: 'application/json',
      body: '{"hello":"world"}',
    },
    {
      suffix: '-params',
      what: 'GET /u/42 (route /u/:id) → res.send("user " + id) (a template string)',
      path: '/u/42',
      type: 'text/html',
      body: 'user 42',
    },
    {
      suffix: '-async',
      what: 'GET /a → await one promise, then res.json({hello:"world"})',
      path: '/a',
      type: 'application/json',
      body: '{"hello":"world"}',
    },
  ];
  return routes.flatMap((r) => [
    scenario({
      id: `express-app${r.suffix}`,
      kind: 'express-app',
      description: `${r.what}, behind cors(), helmet() and express.json(): the same app file on every Express`,
      path: r.path,
      status: 200,
      contentType: r.type,
      body: r.body,
      // Proof that cors and helmet ran on every server.
      expectHeaders: { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' },
    }),
    scenario({
      id: `express-bare${r.suffix}`,
      kind: 'express-bare',
      description: `${r.what}, no middleware: the same app file on every Express`,
      path: r.path,
      status: 200,
      contentType: r.type,
      body: r.body,
    }),
  ]);
}

/** Validators every static answer must carry (scenarios.md: "the file's bytes, ETag/Last-Modified"). */
const VALIDATORS = { etag: true, 'last-modified': true } as const;

const large = publicFile('large.bin');
const RANGE_END = 1023;

export const scenarios: readonly Scenario[] = [
  scenario({
    id: 'hello',
    description: 'GET / → {"hello":"world"} as application/json',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'json',
    description: 'GET /json → a small nested JSON object',
    path: '/json',
    status: 200,
    contentType: 'application/json',
    body: '{"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}',
  }),
  scenario({
    id: 'json-schema',
    kind: 'schema',
    description:
      "GET /json-schema → the `json` body, written by the serializer compiled from the route's response JSON Schema " +
      '(bench/apps/json-schema.mjs; fast-json-stringify on Gale and Fastify)',
    path: '/json-schema',
    status: 200,
    contentType: 'application/json',
    body: '{"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}',
  }),
  scenario({
    id: 'text',
    description: 'GET /text → "Hello 世界" (12 bytes) as text/plain; charset=utf-8',
    path: '/text',
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: 'Hello 世界',
  }),
  scenario({
    id: 'params',
    description: 'GET /hello/test (route /hello/:name) → "Hello test"',
    path: '/hello/test',
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: 'Hello test',
  }),
  scenario({
    id: 'middleware',
    description: 'GET /mw behind 5 no-op async middlewares and an error handler → {"hello":"world"}',
    path: '/mw',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'middleware-sync',
    description:
      'GET /mw-sync behind 5 Express-style `(req, res, next) => next()` steps (plain function calls where a server ' +
      'has no middleware) → {"hello":"world"}',
    path: '/mw-sync',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'async',
    description:
      'GET /async: the handler awaits one already-resolved promise (the cost of an async handler with no I/O), then ' +
      '→ {"hello":"world"}; the same code on every server',
    path: '/async',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'async-io',
    description:
      'GET /async-io: the handler awaits one setImmediate (as an I/O callback would resume it, in a later phase of ' +
      'the loop), then → {"hello":"world"}; the same code on every server',
    path: '/async-io',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'fetch-hello',
    kind: 'fetch',
    description:
      'GET / → {"hello":"world"} from a fetch handler: Gale serve() with a plain handler and with a Hono app, the ' +
      'same Hono app on @hono/node-server',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  ...expressAppScenarios(),
  scenario({
    id: 'nest-app',
    kind: 'nest-app',
    description:
      'GET / → {"hello":"world"} from a NestJS controller (an injected service, Nest\'s body parsers, enableCors()): the ' +
      "same app on Nest's ExpressAdapter with Express 5, on GaleExpressAdapter (@gale-http/express/nest), and on " +
      'fulmine.js when GALE_BENCH_FULMINE names its build',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
    // Proof that Nest's CORS middleware ran on every server.
    expectHeaders: { 'access-control-allow-origin': '*' },
  }),
  scenario({
    id: 'static',
    kind: 'static',
    description: 'GET /static/index.html → the 1551-byte file (examples/demo/public), with ETag and Last-Modified',
    path: '/static/index.html',
    status: 200,
    contentType: 'text/html',
    body: publicFile('index.html'),
    expectHeaders: VALIDATORS,
  }),
  scenario({
    id: 'static-large',
    kind: 'static',
    description: `GET /static/large.bin → the ${LARGE_SIZE / 1024 / 1024} MiB file, with ETag and Last-Modified`,
    path: '/static/large.bin',
    status: 200,
    contentType: 'application/octet-stream',
    body: large,
    expectHeaders: VALIDATORS,
    modes: ['plain'],
    modesNote:
      'with 16 × 1 MiB in flight per connection (1.6 GiB at 100 connections) each batch takes longer than the ' +
      'timeout whatever the server; compare the plain figures and CPU µs/req',
  }),
  scenario({
    id: 'static-range',
    kind: 'static',
    description: `GET /static/large.bin with Range: bytes=0-${RANGE_END} → 206, the first ${RANGE_END + 1} bytes`,
    path: '/static/large.bin',
    headers: { Range: `bytes=0-${RANGE_END}` },
    status: 206,
    contentType: 'application/octet-stream',
    body: large.subarray(0, RANGE_END + 1),
    expectHeaders: { 'content-range': `bytes 0-${RANGE_END}/${large.length}` },
  }),
  scenario({
    id: 'prerendered',
    kind: 'static',
    description: 'GET /prerendered.html → the file (examples/demo/prerendered), with ETag and Last-Modified',
    path: '/prerendered.html',
    status: 200,
    contentType: 'text/html',
    body: prerenderedFile('prerendered.html'),
    expectHeaders: VALIDATORS,
  }),
  ...sveltekitScenarios,
  // HTTPS and HTTP/2 (servers and the pre-run check over their own transport: lib/secure.ts).
  scenario({
    id: 'tls-hello',
    kind: 'tls',
    tls: true,
    description: 'GET / → {"hello":"world"} over HTTPS (HTTP/1.1 over TLS, keep-alive)',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'tls-handshake',
    kind: 'tls',
    tls: true,
    description:
      'GET / with Connection: close over HTTPS: a new TLS connection (full handshake) for every request, so req/s is ' +
      'TLS handshakes per second',
    path: '/',
    headers: { Connection: 'close' },
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
    modes: ['plain'],
    modesNote: 'a connection carries one request',
  }),
  scenario({
    id: 'h2-hello',
    kind: 'h2',
    tls: true,
    tool: 'h2load',
    description:
      'GET / → {"hello":"world"} over HTTP/2 (TLS, ALPN h2) with h2load; plain = 1 stream at a time per connection, ' +
      'pipelined ×N = N concurrent streams per connection',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'h2c-hello',
    kind: 'h2c',
    tool: 'h2load',
    description:
      'GET / → {"hello":"world"} over cleartext HTTP/2 (prior knowledge) with h2load; pipelined ×N = N concurrent ' +
      'streams per connection',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
  }),
  scenario({
    id: 'h3-hello',
    kind: 'h3',
    tls: true,
    tool: 'loadgen-h3',
    description:
      'GET / → {"hello":"world"} over HTTP/3 (QUIC, ALPN h3) with gale-loadgen-h3; plain = 1 stream at a time per ' +
      'connection, pipelined ×N = N concurrent streams per connection',
    path: '/',
    status: 200,
    contentType: 'application/json',
    body: '{"hello":"world"}',
    expectHeaders: { 'alt-svc': true },
  }),
  scenario({
    id: 'h3-json',
    kind: 'h3',
    tls: true,
    tool: 'loadgen-h3',
    description: "GET /json → the `json` scenario's nested JSON object over HTTP/3, with gale-loadgen-h3",
    path: '/json',
    status: 200,
    contentType: 'application/json',
    body: '{"foo":"bar","one":[2,"three"],"bar":{"baz":"quux"}}',
    expectHeaders: { 'alt-svc': true },
  }),
];

/**
 * `npm run bench -- tls`, `-- h2` and `-- h3` name these; `h3` runs HTTP/2 and HTTP/1.1 over TLS in the same run, so
 * the protocols are compared side by side.
 */
export const SECURE_GROUPS: Readonly<Record<string, readonly string[]>> = {
  tls: ['tls-hello', 'tls-handshake'],
  h2: ['h2-hello', 'h2c-hello'],
  h3: ['h3-hello', 'h3-json', 'h2-hello', 'tls-hello'],
};

export function findScenario(id: string): Scenario | undefined {
  return scenarios.find((s) => s.id === id);
}

/** What the raw JSON records about a scenario: the body itself when it is short text, else its size and hash. */
export function describeBody(body: Buffer): string | { bytes: number; sha256: string } {
  const text = body.toString('utf8');
  if (body.length <= 4096 && Buffer.from(text, 'utf8').equals(body)) return text;
  return { bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
}
