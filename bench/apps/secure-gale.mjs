// Benchmark app for the TLS, HTTP/2 and HTTP/3 scenarios (bench/lib/secure.ts): Gale answering GET / with
// {"hello":"world"} (and /json) on 127.0.0.1:$PORT, over TLS when BENCH_TLS_CERT/BENCH_TLS_KEY name PEM files (HTTP/1.1,
// HTTP/2 by ALPN with BENCH_HTTP2=1, HTTP/3 on the same UDP port with BENCH_HTTP3=1), or HTTP/2 in cleartext with
// BENCH_HTTP2=1 alone.
import { gale } from 'gale';

const app = gale();
app.get('/', () => ({ hello: 'world' }));
app.get('/json', () => ({ foo: 'bar', one: [2, 'three'], bar: { baz: 'quux' } }));

const cert = process.env.BENCH_TLS_CERT;
const key = process.env.BENCH_TLS_KEY;
await app.listen({
  port: Number(process.env.PORT),
  host: '127.0.0.1',
  ...(cert && key ? { tls: { cert, key } } : {}),
  http2: process.env.BENCH_HTTP2 === '1',
  // Every load connection comes from 127.0.0.1: past the default 64 per address they would be refused.
  ...(process.env.BENCH_HTTP3 === '1' ? { http3: { maxConnectionsPerAddress: 100_000 } } : {}),
});
