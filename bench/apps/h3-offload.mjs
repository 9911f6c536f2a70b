// Benchmark app for `npm run bench:h3-offload` (bench/offload/run.ts): Gale over HTTP/3 on 127.0.0.1:$PORT with the
// bench certificate; GET /download answers $BENCH_SIZE bytes, POST /upload reads the body and answers its length.
// BENCH_H3_OFFLOAD=0 turns UDP GSO and GRO off (http3.segmentationOffload).
import { gale } from 'gale';

const size = Number(process.env.BENCH_SIZE);
const payload = Buffer.alloc(size, 'gale http/3 offload ');
const app = gale({ bodyLimit: size });
app.get('/download', () => payload);
app.post('/upload', async (req) => String((await req.arrayBuffer()).byteLength));

await app.listen({
  port: Number(process.env.PORT),
  host: '127.0.0.1',
  tls: { cert: process.env.BENCH_TLS_CERT, key: process.env.BENCH_TLS_KEY },
  http3: { maxConnectionsPerAddress: 1000, segmentationOffload: process.env.BENCH_H3_OFFLOAD !== '0' },
});
