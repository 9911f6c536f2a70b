// Benchmark app: Deno.serve (run with the Deno binary of the npm package @deno/linux-x64-glibc, see lib/runtimes.ts),
// on 127.0.0.1:$PORT. Deno.serve has no router: the dynamic HTTP scenarios are dispatched on the path as in the
// node:http app, a new Response per request, the same bytes as the other apps. WebSockets through
// Deno.upgradeWebSocket: /echo (ws-echo, ws-idle), /fws (Gale's FastWsConnection, fastws-echo) and /broadcast
// (ws-broadcast: Deno has no pub/sub, so the set of open sockets is looped over). Prints nothing but errors.
import { loadFastWs } from './fastws.mjs';

const FastWsConnection = await loadFastWs();
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8' };
const json = (v) => new Response(JSON.stringify(v), { headers: JSON_HEADERS });
const text = (s) => new Response(s, { headers: TEXT_HEADERS });
const notFound = () => new Response('Not Found', { status: 404, headers: TEXT_HEADERS });

/**
 * middleware: Deno has no middleware, so five async steps, each awaiting the next, wrap the handler (as Gale's five
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

const broadcastClients = new Set();

/** Upgrades `req` to a WebSocket serving `kind` (echo, fws, broadcast). */
function upgrade(req, kind) {
  if (req.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
    return new Response('WebSocket upgrade expected\n', { status: 426, headers: TEXT_HEADERS });
  }
  const offered = (req.headers.get('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
  const protocol = kind === 'fws' && offered.includes('fast-ws') ? 'fast-ws' : undefined;
  // idleTimeout 0: no pings, no idle close (ws-idle holds silent connections); Deno offers no compression.
  const { socket, response } = Deno.upgradeWebSocket(req, { idleTimeout: 0, ...(protocol ? { protocol } : {}) });
  socket.binaryType = 'arraybuffer';
  if (kind === 'echo') socket.onmessage = (e) => socket.send(e.data);
  else if (kind === 'fws') {
    socket.onopen = () => {
      if (!FastWsConnection) return socket.close(1011, 'gale fast-ws is not built');
      const c = new FastWsConnection({ send: (t) => socket.send(t), close: (code, r) => socket.close(code, r) });
      c.on('echo', (e) => e.reply(e.data));
      socket.onmessage = (e) => {
        if (typeof e.data === 'string') c.receive(e.data);
      };
      c.greet();
    };
  } else {
    const utf8 = new TextDecoder();
    socket.onopen = () => broadcastClients.add(socket);
    socket.onclose = () => broadcastClients.delete(socket);
    socket.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(typeof e.data === 'string' ? e.data : utf8.decode(e.data));
      } catch {
        return;
      }
      if (msg?.type === 'echo') socket.send(e.data);
      else if (msg?.type === 'broadcast') {
        const out = JSON.stringify({ type: 'broadcastResult', payload: msg.payload });
        for (const c of broadcastClients) if (c.readyState === WebSocket.OPEN) c.send(out);
      }
    };
  }
  return response;
}

function handler(req) {
  // req.url is absolute (http://127.0.0.1:PORT/path?query): take the path without building a URL object.
  const url = req.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', start);
  const path = start === -1 ? '/' : url.slice(start, q === -1 ? undefined : q);
  if (req.method !== 'GET') return notFound();
  switch (path) {
    case '/':
      return json({ hello: 'world' });
    case '/json':
      return json({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } });
    case '/text':
      return text('Hello 世界');
    case '/mw':
      return middleware(req);
    case '/mw-sync':
      return syncSteps(0);
    case '/async':
      return (async () => {
        await Promise.resolve();
        return json({ hello: 'world' });
      })();
    case '/async-io':
      return (async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return json({ hello: 'world' });
      })();
    case '/echo':
    case '/fws':
    case '/broadcast':
      return upgrade(req, path.slice(1));
  }
  if (path.startsWith('/hello/') && path.indexOf('/', 7) === -1 && path.length > 7) {
    let name = path.slice(7);
    try {
      name = decodeURIComponent(name);
    } catch {}
    return text(`Hello ${name}`);
  }
  return notFound();
}

Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT')), onListen() {} }, handler);
