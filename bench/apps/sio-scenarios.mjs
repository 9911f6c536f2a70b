// The Socket.IO scenarios' server code, shared by Socket.IO 4 (apps/sio-node-http.mjs) and @gale-http/socket.io
// (apps/ws-gale.mjs) so both run exactly the same handlers: sio-echo on the default namespace, sio-broadcast on
// /broadcast (its own namespace, so sio-echo's sockets join no room).

/** Registers sio-echo and sio-broadcast on a socket.io-4-compatible `io` server. */
export function registerSioScenarios(io) {
  // sio-echo: each `echo` event is acknowledged with its payload.
  io.on('connection', (socket) => {
    socket.on('echo', (msg, ack) => {
      if (typeof ack === 'function') ack(msg);
    });
  });
  // sio-broadcast: every socket joins room `all`; each `broadcast` event goes to the whole room.
  const nsp = io.of('/broadcast');
  nsp.on('connection', (socket) => {
    socket.join('all');
    socket.on('broadcast', (payload, ack) => {
      nsp.to('all').emit('broadcastResult', payload);
      ack?.();
    });
  });
}
