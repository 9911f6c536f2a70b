// The server the socket.io-protocol suite expects (its Readme's "Test suite" section, ../shared/upstream/README), as
// one app for both implementations: UPSTREAM_IMPL=reference runs it on the real socket.io (installed in the copy as
// real-socket.io, found from UPSTREAM_REFERENCE), UPSTREAM_IMPL=gale on @gale-http/socket.io. Prints `listening <port>`.
import { startServer } from './serve.mjs';

await startServer(async (impl, reference) => {
  const options = {
    pingInterval: 300,
    pingTimeout: 200,
    maxPayload: 1000000,
    connectTimeout: 1000,
    cors: { origin: '*' },
  };
  let io;
  let listen;
  if (impl === 'reference') {
    const { createServer } = await import('node:http');
    const { Server } = reference('real-socket.io');
    const server = createServer();
    io = new Server(server, options);
    listen = () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  } else {
    const { gale } = await import('gale');
    const { Server } = await import('@gale-http/socket.io');
    const app = gale();
    io = new Server(app, options);
    listen = async () => (await app.listen(0, '127.0.0.1')).port;
  }

  // The handlers, word for word as the suite's Readme has them.
  io.on('connection', (socket) => {
    socket.emit('auth', socket.handshake.auth);

    socket.on('message', (...args) => {
      socket.emit.apply(socket, ['message-back', ...args]);
    });

    socket.on('message-with-ack', (...args) => {
      const ack = args.pop();
      ack(...args);
    });
  });

  io.of('/custom').on('connection', (socket) => {
    socket.emit('auth', socket.handshake.auth);
  });

  return listen();
});
