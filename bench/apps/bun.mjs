// Benchmark app: Bun.serve (run with the Bun binary of the npm package @oven/bun-linux-x64, see lib/runtimes.ts), on
// 127.0.0.1:$PORT. The dynamic HTTP scenarios through Bun's own router (`routes`), a new Response per request, the
// same bytes as the other apps; WebSockets through Bun's built-in ones: /echo (ws-echo, ws-idle), /fws (Gale's
// FastWsConnection, fastws-echo) and /broadcast (ws-broadcast, Bun's pub/sub: server.publish). Prints nothing but errors.
import { loadFastWs } from './fastws.mjs';

const FastWsConnection = await loadFastWs();
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8' };
const json = (v) => new Response(JSON.stringify(v), { headers: JSON_HEADERS });
const text = (s) => new Response(s, { headers: TEXT_HEADERS });

/**
 * middleware: Bun has no middleware, so five async steps, each awaiting the next, wrap the handler (as Gale's five
 * `async (req, res, next) => { await next(); }`); the outer one answers a throw with a 500, as the apps' error handlers.
 */
const step = (next) => async (req) => await next(req);
const chain = step(step(step(step(step(async () => json({ hello: 'world' }))))));
// middleware-sync: five plain synchronous steps, then the answer.
const syncSteps = (i) => (i < 5 ? syncSteps(i + 1) : json({ hello: 'world' }));

const middleware = async (req) => {
  try {
    return await chain(req);
  } catch (err) {
    return json({ error: String(err) });
  }
};

const upgrade = (kind, headers) => (req, server) =>
  server.upgrade(req, { data: { kind, c: null }, headers })
    ? undefined
    : new Response('WebSocket upgrade expected\n', { status: 426, headers: TEXT_HEADERS });

const utf8 = new TextDecoder();
const asText = (m) => (typeof m === 'string' ? m : utf8.decode(m));

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  development: false,
  routes: {
    '/': () => json({ hello: 'world' }),
    '/json': () => json({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }),
    '/text': () => text('Hello 世界'),
    '/hello/:name': (req) => text(`Hello ${req.params.name}`), // Bun percent-decodes params itself
    '/mw': middleware,
    '/mw-sync': () => syncSteps(0),
    '/async': async () => {
      await Promise.resolve();
      return json({ hello: 'world' });
    },
    '/async-io': async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return json({ hello: 'world' });
    },
    '/echo': upgrade('echo'),
    '/broadcast': upgrade('broadcast'),
    '/fws': (req, srv) => {
      const offered = (req.headers.get('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
      return upgrade('fws', offered.includes('fast-ws') ? { 'Sec-WebSocket-Protocol': 'fast-ws' } : undefined)(
        req,
        srv,
      );
    },
  },
  fetch: () => new Response('Not Found', { status: 404, headers: TEXT_HEADERS }),
  websocket: {
    // No idle timeout (ws-idle holds silent connections); no compression, as every other app.
    idleTimeout: 0,
    perMessageDeflate: false,
    maxPayloadLength: 16 * 1024 * 1024,
    backpressureLimit: 64 * 1024 * 1024,
    open(ws) {
      const d = ws.data;
      if (d.kind === 'broadcast') ws.subscribe('all');
      else if (d.kind === 'fws') {
        if (!FastWsConnection) return ws.close(1011, 'gale fast-ws is not built');
        d.c = new FastWsConnection({ send: (t) => ws.send(t), close: (code, reason) => ws.close(code, reason) });
        d.c.on('echo', (e) => e.reply(e.data));
        d.c.greet();
      }
    },
    message(ws, message) {
      const d = ws.data;
      if (d.kind === 'echo') ws.send(message);
      else if (d.kind === 'fws') {
        if (typeof message === 'string') d.c?.receive(message);
      } else {
        let msg;
        try {
          msg = JSON.parse(asText(message));
        } catch {
          return;
        }
        if (msg?.type === 'echo') ws.send(message);
        // server.publish reaches every subscriber, the sender included (ws.publish would leave it out).
        else if (msg?.type === 'broadcast') {
          server.publish('all', JSON.stringify({ type: 'broadcastResult', payload: msg.payload }));
        }
      }
    },
  },
});
