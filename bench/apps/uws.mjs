// Benchmark app: uWebSockets.js, only when GALE_BENCH_UWS names a local build (a directory or file that
// `require` loads; uWebSockets.js is never a dependency of this repo: it installs only from GitHub). Serves the
// dynamic HTTP scenarios (hello, json, text, params, middleware as five nested async steps) and the WebSocket
// scenarios (/echo, /fws through Gale's FastWsConnection, /broadcast through uWS pub/sub) on 127.0.0.1:$PORT.
import { createRequire } from 'node:module';
import { FastWsConnection } from '../../packages/fast-ws/dist/server.js';

const uWS = createRequire(import.meta.url)(process.env.GALE_BENCH_UWS);
const app = uWS.App();
const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';

const reply = (res, type, body) =>
  res.cork(() => {
    res.writeHeader('Content-Type', type).end(body);
  });

app.get('/', (res) => reply(res, JSON_TYPE, JSON.stringify({ hello: 'world' })));
app.get('/json', (res) =>
  reply(res, JSON_TYPE, JSON.stringify({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } })),
);
app.get('/text', (res) => reply(res, TEXT_TYPE, 'Hello 世界'));
app.get('/hello/:name', (res, req) => {
  let name = req.getParameter(0);
  try {
    name = decodeURIComponent(name);
  } catch {}
  reply(res, TEXT_TYPE, `Hello ${name}`);
});
/**
 * middleware: uWS has no middleware, so five async steps, each awaiting the next, wrap the answer (the work of Gale's
 * five `async (req, res, next) => { await next(); }` and of the Bun and Deno apps); the outer one answers a throw with
 * a 500, as the other apps' error handlers.
 */
const step = (next) => async (res) => await next(res);
const chain = step(step(step(step(step(async () => JSON.stringify({ hello: 'world' }))))));
app.get('/mw', (res) => {
  // uWS loses the response when the client leaves during an await unless onAborted is set.
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  chain(res).then(
    (body) => aborted || reply(res, JSON_TYPE, body),
    (err) => aborted || res.cork(() => res.writeStatus('500 Internal Server Error').end(String(err))),
  );
});

// async / async-io: an awaited resolved promise, or one setImmediate, before the answer (onAborted as for /mw).
const awaited = (io) => (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  (async () => {
    if (io) await new Promise((resolve) => setImmediate(resolve));
    else await Promise.resolve();
    if (!aborted) reply(res, JSON_TYPE, JSON.stringify({ hello: 'world' }));
  })();
};
app.get('/async', awaited(false));
app.get('/async-io', awaited(true));

// middleware-sync: five plain synchronous steps (uWS has no middleware), then the answer.
const syncSteps = (res, i) => {
  if (i < 5) return syncSteps(res, i + 1);
  reply(res, JSON_TYPE, JSON.stringify({ hello: 'world' }));
};
app.get('/mw-sync', (res) => syncSteps(res, 0));

app.ws('/echo', {
  idleTimeout: 0,
  maxPayloadLength: 16 * 1024 * 1024,
  message: (ws, message, isBinary) => ws.send(message, isBinary),
});

const utf8 = new TextDecoder();
app.ws('/fws', {
  idleTimeout: 0,
  upgrade: (res, req, context) => {
    const offered = (req.getHeader('sec-websocket-protocol') || '').split(',').map((p) => p.trim());
    res.upgrade(
      {},
      req.getHeader('sec-websocket-key'),
      offered.includes('fast-ws') ? 'fast-ws' : '',
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  },
  open: (ws) => {
    const c = new FastWsConnection({ send: (t) => ws.send(t, false), close: (code, r) => ws.end(code, r) });
    c.on('echo', (e) => e.reply(e.data));
    ws.getUserData().c = c;
    c.greet();
  },
  message: (ws, message, isBinary) => {
    if (!isBinary) ws.getUserData().c.receive(utf8.decode(message));
  },
});

app.ws('/broadcast', {
  idleTimeout: 0,
  maxBackpressure: 64 * 1024 * 1024,
  open: (ws) => ws.subscribe('all'),
  message: (ws, message, isBinary) => {
    let msg;
    try {
      msg = JSON.parse(utf8.decode(message));
    } catch {
      return;
    }
    if (msg?.type === 'echo') ws.send(message, isBinary);
    else if (msg?.type === 'broadcast') {
      app.publish('all', JSON.stringify({ type: 'broadcastResult', payload: msg.payload }), false);
    }
  },
});

app.any('/*', (res) => {
  res.cork(() => {
    res.writeStatus('404 Not Found').writeHeader('Content-Type', TEXT_TYPE).end('Not Found');
  });
});

app.listen('127.0.0.1', Number(process.env.PORT), (token) => {
  if (!token) {
    console.error(`uWebSockets.js could not listen on 127.0.0.1:${process.env.PORT}`);
    process.exit(1);
  }
});
