// Benchmark app for the TLS and HTTP/2 scenarios (bench/lib/secure.ts): Gale answering GET / with {"hello":"world"}
// on 127.0.0.1:$PORT, over TLS when BENCH_TLS_CERT/BENCH_TLS_KEY name PEM files (HTTP/1.1, and HTTP/2 by ALPN with
// BENCH_HTTP2=1), or HTTP/2 in cleartext (prior knowledge, next to HTTP/1.1) with BENCH_HTTP2=1 alone.
import { gale } from 'gale';

const app = gale();
app.get('/', () => ({ hello: 'world' }));

const cert = process.env.BENCH_TLS_CERT;
const key = process.env.BENCH_TLS_KEY;
await app.listen({
  port: Number(process.env.PORT),
  host: '127.0.0.1',
  ...(cert && key ? { tls: { cert, key } } : {}),
  http2: process.env.BENCH_HTTP2 === '1',
});
