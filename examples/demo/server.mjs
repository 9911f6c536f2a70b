// The demo `npm start` serves: every scenario of ../shared/bench/scenarios.md that Gale serves so far,
// with the exact bodies and headers given there. Port 3000, or PORT.
import { cluster } from '@gale-http/cluster';
import { gale } from 'gale';
import { ensureLargeFile, prerenderedDir, publicDir } from './assets.mjs';
import { registerChat } from './chat.mjs';
import { registerDemoPage } from './page.mjs';
import { registerWsScenarios } from './ws-scenarios.mjs';

// WORKERS=n npm start (a count or `auto`): this process becomes the primary of n workers that run this same file and
// share the port; it respawns crashed workers, reloads them on SIGHUP and stops them on SIGTERM/SIGINT
// (docs/guides/scaling-out.md). The primary waits here until the cluster has stopped, then exits: the app below runs in
// the workers.
if (process.env.WORKERS && cluster.isPrimary) await cluster(import.meta.url, { workers: process.env.WORKERS }).done;

const app = gale();

// json / hello: a returned object is sent as application/json.
app.get('/json', () => ({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));
app.get('/', () => ({ hello: 'world' }));

// text: a returned string is sent as text/plain; charset=utf-8.
app.get('/text', () => 'Hello 世界');

// params: route params are percent-decoded.
app.get('/hello/:name', (req) => `Hello ${req.params.name}`);

// body-json: a JSON object in, its key count out.
app.post('/body', async (req) => {
  const body = await req.json();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { keys: 0 };
  return { keys: Object.keys(body).length };
});

// static / static-large / prerendered: files answered by the native engine (never entering JS), with
// ETag/Last-Modified/304, Range and an in-memory cache (STATIC_CACHE=0 turns it off).
ensureLargeFile();
app.static('/static', publicDir, { cache: process.env.STATIC_CACHE !== '0' });
app.static('/', prerenderedDir, { extensions: ['html'] });

// middleware: five no-op async middlewares and an error handler in front of the hello answer.
const noop = async (_req, _res, next) => {
  await next();
};
app.get('/mw', noop, noop, noop, noop, noop, () => ({ hello: 'world' }));
// Errors keep their status (a malformed JSON body is the client's 400, not a 500); only 4xx messages are shown.
app.onError((err, _req, res) => {
  const status = Number.isInteger(err?.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
  res.status(status).json({ error: status < 500 ? String(err.message) : 'Internal Server Error' });
});

// stream-out: 10 KiB of spaces, written as a stream (chunked) in 1 KiB pieces.
const KIB_OF_SPACES = ' '.repeat(1024);
app.get('/stream', (_req, res) => {
  res.header('content-type', 'text/plain; charset=utf-8');
  for (let i = 0; i < 10; i++) res.write(KIB_OF_SPACES);
  res.end();
});

// stream-echo: the request body piped back as it arrives, with backpressure both ways.
app.post('/stream', async (req, res) => {
  res.header('content-type', req.get('content-type') ?? 'application/octet-stream');
  for await (const chunk of req.stream()) {
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
});

// ws-echo (/echo), fastws-echo (/fws) and ws-broadcast (/broadcast): WebSockets in the native engine.
registerWsScenarios(app);

// Socket.IO (@gale-http/socket.io) at /socket.io/: the /chat namespace (join a room, message the room) and `echo` with an ack.
const io = registerChat(app);

// The demo page at /demo/: chat with rooms, the fast-ws round trip, an SSE clock and the benchmark charts.
registerDemoPage(app);

// A fixed response answered entirely by the native engine, never entering JavaScript.
app.fixed('GET', '/health', { body: 'ok' });

// Graceful shutdown: Socket.IO clients are disconnected ('server shutting down'), in-flight requests finish, idle
// connections close, the rest are cut after 5 s. Registered before listening, so a signal can never arrive between
// the two.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    const closed = app.close({ timeout: 5000 });
    await io.close(); // its app.close() is the one above
    await closed;
    process.exit(0);
  });
}

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
// TLS_CERT and TLS_KEY (PEM files): HTTPS with HTTP/2 and HTTP/3 on the same port (QUIC over UDP).
const tls =
  process.env.TLS_CERT && process.env.TLS_KEY ? { cert: process.env.TLS_CERT, key: process.env.TLS_KEY } : null;
const addr = await app.listen(tls ? { port, host, tls, http2: true, http3: true } : { port, host });
const origin = `${tls ? 'https' : 'http'}://localhost:${addr.port}`;
console.log(`Gale demo listening on ${origin}/json${tls ? ' (HTTP/1.1, HTTP/2 and HTTP/3)' : ''}`);
console.log(`Demo page: ${origin}/demo/`);
