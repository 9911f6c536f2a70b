// Benchmark app: Socket.IO 4 on a plain node:http server (default options: both transports, no compression). Serves
// sio-echo: `socket.on('echo', (msg, ack) => ack(msg))` on the default namespace at /socket.io/, and sio-broadcast on
// the namespace /broadcast: every socket joins room `all` and each `broadcast` event goes to the room with
// `nsp.to('all').emit` (the same code as apps/ws-gale.mjs), on 127.0.0.1:$PORT. Prints nothing but errors.
import http from 'node:http';
import { Server } from 'socket.io';

const server = http.createServer((_req, res) => {
  res.writeHead(426, { 'content-type': 'text/plain' }).end('Socket.IO only\n');
});
const io = new Server(server, { serveClient: false });
io.on('connection', (socket) => {
  socket.on('echo', (msg, ack) => {
    if (typeof ack === 'function') ack(msg);
  });
});
// sio-broadcast: its own namespace, so sio-echo's sockets join no room.
const nsp = io.of('/broadcast');
nsp.on('connection', (socket) => {
  socket.join('all');
  socket.on('broadcast', (payload, ack) => {
    nsp.to('all').emit('broadcastResult', payload);
    ack?.();
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
