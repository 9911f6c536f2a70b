// Micro-benchmark behind the fetch layer's design (packages/gale/src/fetch): what undici's Request/Response cost
// per request against Gale's cheap ones, alone and under a Hono hello app. No sockets; one core for a few seconds.
// Run: node --import tsx bench/fetch-objects.ts
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { Hono } from 'hono';
import { sendResponse } from '../packages/gale/src/fetch/send.ts';
import { webRequest } from '../packages/gale/src/fetch/web-request.ts';
import { GlobalRequest, GlobalResponse, responseParts, WebResponse } from '../packages/gale/src/fetch/web-response.ts';

const N = 200_000;

async function time(name: string, fn: () => unknown, n = N): Promise<number> {
  // Promises are awaited only when the operation returns one, so synchronous paths are timed as they run.
  for (let i = 0; i < n / 10; i++) {
    const out = fn();
    if (out instanceof Promise) await out;
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const out = fn();
    if (out instanceof Promise) await out;
  }
  const ns = Number(process.hrtime.bigint() - t0) / n;
  console.log(`${name.padEnd(62)} ${ns.toFixed(0).padStart(7)} ns`);
  return ns;
}

// What webRequest reads from Gale's request when a handler looks only at method and URL (the native calls are
// measured by the load benchmark, not here).
const galeReq = { headers: { host: '127.0.0.1:3000', accept: '*/*' }, signal: new AbortController().signal };
const url = 'http://127.0.0.1:3000/';
const json = '{"hello":"world"}';
const ctype = { 'content-type': 'application/json' };

console.log('per operation (lower is better)');
await time(
  'undici new Request(url, { method, headers })',
  () => new GlobalRequest(url, { method: 'GET', headers: galeReq.headers }),
  N / 4,
);
await time('gale webRequest(req, method, url)', () => webRequest(galeReq as never, 'GET', url));
await time(
  'undici new Response(json, { headers }) + arrayBuffer()',
  () => new GlobalResponse(json, { headers: ctype }).arrayBuffer(),
  N / 4,
);
await time('gale new Response(json, { headers }) + responseParts()', () =>
  responseParts(new WebResponse(json, { headers: ctype }) as unknown as Response),
);

// Hono's hello route, the fetch-hello bench scenario, as the server sees it: request in, status/headers/body out.
const hono = new Hono().get('/', (c) => c.json({ hello: 'world' }));
const g = globalThis as { Response: unknown };
const sink = {
  statusCode: 200,
  _headers: undefined,
  _onHead: undefined,
  _ctype: 0,
  finish(_ct: unknown, _body: unknown, _lines: unknown) {},
};
g.Response = GlobalResponse;
await time(
  'Hono hello, undici Request + Response, body read',
  async () => {
    const r = (await hono.fetch(new GlobalRequest(url))) as Response;
    await r.arrayBuffer();
  },
  N / 4,
);
g.Response = WebResponse;
await time('Hono hello, gale request + Response, sent by send.ts', () => {
  // Hono answers a synchronous handler synchronously.
  const r = hono.fetch(webRequest(galeReq as never, 'GET', url)) as Response;
  sendResponse(sink as never, r);
});
g.Response = GlobalResponse;
