// Benchmark app for the lossy-network page load (bench/lossy/run.ts): Gale on $HOST:$PORT with TLS (BENCH_TLS_CERT,
// BENCH_TLS_KEY), HTTP/2 and, with BENCH_HTTP3=1, HTTP/3; GET / is a page of 20 images, /img/N.svg each ~16 KB.
import { gale } from 'gale';

const ASSETS = 20;
const pad = '<!--' + 'x'.repeat(16 * 1024) + '-->';
const svg = (i) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#${(i * 123456).toString(16).slice(-6).padStart(6, '0')}"/>${pad}</svg>`;
const page = `<!doctype html><html><head><meta charset="utf-8"><title>lossy</title></head><body>${Array.from(
  { length: ASSETS },
  (_, i) => `<img src="/img/${i}.svg" width="40" height="40">`,
).join('')}</body></html>`;

const app = gale();
app.get('/', (_req, res) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(page);
});
app.get('/img/:name', (req, res) => {
  res.setHeader('content-type', 'image/svg+xml');
  res.setHeader('cache-control', 'no-store');
  res.end(svg(Number.parseInt(req.params.name, 10) || 0));
});
await app.listen({
  port: Number(process.env.PORT),
  host: process.env.HOST ?? '127.0.0.1',
  tls: { cert: process.env.BENCH_TLS_CERT, key: process.env.BENCH_TLS_KEY },
  http2: true,
  ...(process.env.BENCH_HTTP3 === '1' ? { http3: true } : {}),
});
console.log(`listening ${process.env.HOST}:${process.env.PORT}`);
