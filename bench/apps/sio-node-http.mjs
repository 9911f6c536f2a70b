// Benchmark app: Socket.IO 4 on a plain node:http server (default options: both transports, no compression), the
// real socket.io, or @gale-http/socket.io with BENCH_SIO=gale (the same app unchanged: `new Server(httpServer)`).
// Serves sio-echo on the default namespace at /socket.io/ and sio-broadcast on the namespace /broadcast, with the
// handlers of apps/sio-scenarios.mjs (shared with apps/ws-gale.mjs), on 127.0.0.1:$PORT. Prints nothing but errors.
import http from 'node:http';
import { registerSioScenarios } from './sio-scenarios.mjs';

const { Server } = await import(process.env.BENCH_SIO === 'gale' ? '@gale-http/socket.io' : 'socket.io');

const server = http.createServer((_req, res) => {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('Socket.IO only\n');
});
const io = new Server(server, { serveClient: false });
registerSioScenarios(io);
server.listen(Number(process.env.PORT), '127.0.0.1');
