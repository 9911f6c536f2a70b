// Benchmark app for `npm run bench:wt` (bench/wt/run.ts): one Gale process with two apps, so WebTransport and
// WebSocket echo are measured on the same server side by side. WebTransport at /echo on 127.0.0.1:$PORT (TLS with
// BENCH_TLS_CERT/BENCH_TLS_KEY, HTTP/3 on the same UDP port): each bidirectional stream piped back to itself, each
// datagram sent back. WebSocket echo at /echo on 127.0.0.1:$WS_PORT (cleartext; gale-loadgen-ws has no TLS).
import { gale, WebTransportBidiStream } from 'gale';

const wt = gale();
wt.webtransport('/echo', {
  stream: (_session, stream) => {
    if (stream instanceof WebTransportBidiStream) stream.pipe(stream);
  },
  datagram: (session, data) => session.sendDatagram(data),
});
await wt.listen({
  port: Number(process.env.PORT),
  host: '127.0.0.1',
  tls: { cert: process.env.BENCH_TLS_CERT, key: process.env.BENCH_TLS_KEY },
  // Every load connection comes from 127.0.0.1: past the default 64 per address they would be refused.
  http3: { maxConnectionsPerAddress: 100_000, webtransport: { maxSessions: 1 } },
});

const ws = gale();
ws.ws('/echo', { message: (socket, data, isBinary) => socket.send(data, { binary: isBinary }), idleTimeout: 0 });
await ws.listen({ port: Number(process.env.WS_PORT), host: '127.0.0.1' });
