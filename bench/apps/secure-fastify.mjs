// Benchmark app for the TLS and HTTP/2 scenarios (bench/lib/secure.ts): Fastify 5 (logger off) answering GET / with
// {"hello":"world"} on 127.0.0.1:$PORT over TLS (certificates from the PEM files BENCH_TLS_CERT/BENCH_TLS_KEY):
// `https` (HTTP/1.1), and with BENCH_HTTP2=1 `http2: true` (ALPN h2, HTTP/1.1 allowed), as its documentation shows.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const https = { cert: readFileSync(process.env.BENCH_TLS_CERT), key: readFileSync(process.env.BENCH_TLS_KEY) };
const app =
  process.env.BENCH_HTTP2 === '1'
    ? Fastify({ logger: false, http2: true, https: { ...https, allowHTTP1: true } })
    : Fastify({ logger: false, https });

app.get('/', async () => ({ hello: 'world' }));

try {
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
} catch (err) {
  console.error(err);
  process.exit(1);
}
