// Benchmark app: Gale's own WebSockets (the engine's frames, native pub/sub). Serves the WebSocket scenarios with the
// demo's routes (examples/demo/ws-scenarios.mjs): ws-echo and ws-idle at /echo, fastws-echo at /fws, ws-broadcast at
// /broadcast (fan-out through app.publish, one frame built for all subscribers), and sio-echo with gale/socket.io at
// /socket.io/ (`socket.on('echo', (msg, ack) => ack(msg))`, as apps/sio-node-http.mjs), sio-broadcast on the
// namespace /broadcast (the same code as apps/sio-node-http.mjs: every socket joins room `all`, each `broadcast`
// event goes to the room with `nsp.to('all').emit`), on 127.0.0.1:$PORT. No idle timeout: ws-idle holds silent
// connections. Prints nothing but errors.

import { registerWsScenarios } from '../../examples/demo/ws-scenarios.mjs';
import { gale } from '../../packages/gale/dist/index.js';
import { Server } from '../../packages/gale/dist/socket.io/index.js';

const app = gale();
registerWsScenarios(app, { idleTimeout: 0, maxBackpressure: 64 * 1024 * 1024 });
// The sio-echo client connects with the websocket transport only, so the server offers just that.
const io = new Server(app, { transports: ['websocket'] });
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
app.get('/', (_req, res) => res.status(426).type('text/plain').send('WebSocket only\n'));
await app.listen(Number(process.env.PORT), '127.0.0.1');
