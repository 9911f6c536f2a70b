// HttpArena's node-websocket entry (its frameworks/node-websocket/server.js at commit 28606baf, MIT): node:http with
// the `ws` package's WebSocketServer echoing on /ws, as written there; the port from PORT and no cluster fork when
// ARENA_WORKERS=1 (one process on one core, as every row here).
// biome-ignore-all lint: HttpArena's code, kept as its entry has it (the comparison must be with what it runs)
import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);
const workers = Number(
  process.env.ARENA_WORKERS ?? (os.availableParallelism ? os.availableParallelism() : os.cpus().length),
);

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  console.log('Application started.');
} else {
  const http = require('http');
  const { WebSocketServer } = require('ws');

  const server = http.createServer((req, res) => {
    res.writeHead(404);
    res.end();
  });

  const wss = new WebSocketServer({ noServer: true });

  server.on('upgrade', (req, socket, head) => {
    if (req.url === '/ws') {
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('message', (msg) => ws.send(msg));
      });
    } else {
      socket.destroy();
    }
  });

  server.listen(Number(process.env.PORT ?? 8080));
}
