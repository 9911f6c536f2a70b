// The server the engine.io-protocol suite expects (its README's "Test suite" section, ../shared/upstream/README): a
// raw Engine.IO server at /engine.io/ echoing every message, as one app for both implementations: UPSTREAM_IMPL=
// reference runs it on the real engine.io (real-engine.io in the copy), UPSTREAM_IMPL=gale on @gale-http/engine.io.
import { startServer } from './serve.mjs';

await startServer(async (impl, reference) => {
  const options = {
    pingInterval: 300,
    pingTimeout: 200,
    maxPayload: 1e6,
    cors: { origin: '*' },
  };
  let engine;
  let listen;
  // attach() to a server of our own rather than listen(3000): the port is a free one, printed for the runner.
  if (impl === 'reference') {
    const { createServer } = await import('node:http');
    const { attach } = reference('real-engine.io');
    const server = createServer();
    engine = attach(server, options);
    listen = () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  } else {
    const { gale } = await import('gale');
    const { attach } = await import('@gale-http/engine.io');
    const app = gale();
    engine = attach(app, options);
    listen = async () => (await app.listen(0, '127.0.0.1')).port;
  }

  // The handler, word for word as the suite's README has it.
  engine.on('connection', (socket) => {
    socket.on('data', (...args) => {
      socket.send(...args);
    });
  });

  return listen();
});
