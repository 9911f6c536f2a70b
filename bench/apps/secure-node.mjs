// Benchmark app for the TLS and HTTP/2 scenarios (bench/lib/secure.ts): Node's own servers answering GET / with
// {"hello":"world"} on 127.0.0.1:$PORT. BENCH_SERVER=https: node:https (HTTP/1.1 over TLS); http2: node:http2's
// createSecureServer (ALPN h2); h2c: node:http2's createServer (cleartext, prior knowledge). TLS certificates from the
// PEM files BENCH_TLS_CERT/BENCH_TLS_KEY. The request listener is the same compatibility-API handler in all three.
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';

const BODY = JSON.stringify({ hello: 'world' });
const HEADERS = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(BODY)) };

function onRequest(req, res) {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200, HEADERS);
    res.end(BODY);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Not Found');
}

const kind = process.env.BENCH_SERVER;
const tls = () => ({ cert: readFileSync(process.env.BENCH_TLS_CERT), key: readFileSync(process.env.BENCH_TLS_KEY) });
const server =
  kind === 'https'
    ? https.createServer(tls(), onRequest)
    : kind === 'http2'
      ? http2.createSecureServer(tls(), onRequest)
      : kind === 'h2c'
        ? http2.createServer(onRequest)
        : null;
if (server === null) {
  console.error(`secure-node.mjs: BENCH_SERVER must be https, http2 or h2c, not ${kind}`);
  process.exit(1);
}
server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
