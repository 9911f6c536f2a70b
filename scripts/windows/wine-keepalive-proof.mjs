// Proof that the keep-alive connect failure under Wine is Wine's, not Gale's: Node's own client against Node's own
// server (no Gale loaded) fails the same way. scripts/test-windows.mjs runs it and prints the result.
import http from 'node:http';
import net from 'node:net';

const server = http
  .createServer((_req, res) => res.end('ok'))
  .listen(0, '127.0.0.1', async () => {
    const { port } = server.address();
    const attempt = (keepAlive) =>
      new Promise((done) => {
        const socket = net.connect({ port, host: '127.0.0.1' });
        if (keepAlive) socket.setKeepAlive(true, 60_000);
        socket.on('connect', () => {
          socket.destroy();
          done('connected');
        });
        socket.on('error', (e) => done(`error ${e.code}`));
      });
    const plain = await attempt(false);
    const withKeepAlive = await attempt(true);
    console.log(
      `node:net → node:http on ${process.platform}: plain connect ${plain}; with setKeepAlive ${withKeepAlive}`,
    );
    server.close();
  });
